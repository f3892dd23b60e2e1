package io.zklock.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.zklock.DistributedSemaphore;
import io.zklock.LeaderElection;
import io.zklock.LockHandle;
import io.zklock.LockInfo;
import io.zklock.LockNode;
import io.zklock.ZkLockException;
import io.zklock.ZkLocks;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * zklock's plain locks beside real Python kazoo clients on the same path (the kazoo-compatible mode
 * that shares their queue: KazooCompatibleTest): kazoo's recipes skip every child that is not
 * theirs ({@code Lock._get_predecessor} keeps only {@code __lock__}/{@code __rlock__} names), so a
 * kazoo client never waits for a zklock holder, and zklock must never grant beside a kazoo node.
 * Each zklock request that finds one refuses, naming the node and kazoo, and leaves no node; {@code
 * inspect} shows the kazoo holder. Each kazoo client is a process and a session of its own.
 */
class KazooRefusalTest extends KazooTestBase {

  @Test
  void aKazooHolder_zklocksNonBlockingAcquire_isRefused_notASecondHolder() throws Exception {
    // Given a kazoo client holding /zklock/polyglot, as a Python job would
    String name = newName("polyglot");
    Kazoo py = kazoo("py-settlement");
    Kazoo.Recipe held = py.lock(pathOf(name), "settlement-job").acquire().awaitHeld();
    String node = children(name).get(0);

    // When a zklock client asks without waiting (zklock exec --nonblock does this)
    ZkLocks z = zklock("java-settlement");

    // Then it is refused, naming the node and kazoo, and leaves nothing behind
    assertThatThrownBy(() -> z.mutex(name).tryAcquire())
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining(pathOf(name))
        .hasMessageContaining(node)
        .hasMessageContaining("kazoo")
        .hasMessageContaining("LockOptions.kazooCompatible()");
    assertThat(children(name)).containsExactly(node);

    // and inspect shows the kazoo holder, with its identifier, rather than no lock
    LockInfo info = z.inspect(name).orElseThrow();
    assertThat(info.holders()).hasSize(1);
    LockNode h = info.holders().get(0);
    assertThat(h.kind()).isEqualTo(LockNode.Kind.KAZOO_LOCK);
    assertThat(h.clientName()).isEqualTo("(kazoo)");
    assertThat(h.ownerData()).isEqualTo("settlement-job");
    assertThat(h.sessionId()).isEqualTo(py.sessionId());

    // and once kazoo lets go, zklock holds
    held.release();
    Optional<LockHandle> mine = z.mutex(name).tryAcquire();
    assertThat(mine).isPresent();
    mine.get().release();
  }

  @Test
  void aKazooHolder_aZklockWaiterWithATimeout_isRefusedAtOnce_notAfterTheTimeout()
      throws Exception {
    String name = newName("wait");
    Kazoo py = kazoo("py");
    py.lock(pathOf(name), "py-1").acquire().awaitHeld();
    ZkLocks z = zklock("java");

    long start = System.nanoTime();
    assertThatThrownBy(() -> z.mutex(name).tryAcquire(Duration.ofSeconds(20)))
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("kazoo");
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("refused on the first listing, not after waiting")
        .isLessThan(Duration.ofSeconds(15));
    assertThat(children(name)).hasSize(1);
  }

  @Test
  void kazooReaders_refuseZklocksReaderAndWriter() throws Exception {
    String name = newName("rw");
    Kazoo py = kazoo("py-reader");
    py.readLock(pathOf(name), "reader").acquire().awaitHeld();
    ZkLocks z = zklock("java");

    assertThatThrownBy(() -> z.readWriteLock(name).readLock().tryAcquire())
        .hasMessageContaining("kazoo");
    assertThatThrownBy(() -> z.readWriteLock(name).writeLock().tryAcquire())
        .hasMessageContaining("kazoo");
    assertThat(z.inspect(name).orElseThrow().kind()).isEqualTo(LockInfo.Kind.READ_WRITE);
  }

  @Test
  void aKazooElectionsLeader_zklocksParticipantDoesNotLead_andJoinsOnceKazooLeaves()
      throws Exception {
    String name = newName("leader");
    Kazoo py = kazoo("py-scheduler");
    Kazoo.Recipe leading = py.election(pathOf(name), "py-scheduler").acquire().awaitHeld();
    LeaderElection e = zklock("java").leaderElection(name, "java-scheduler");
    e.start();

    assertThatThrownBy(() -> e.awaitLeadership(Duration.ofSeconds(5)))
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("kazoo");
    assertThat(e.isLeader()).isFalse();
    assertThatThrownBy(e::leader).hasMessageContaining("kazoo");

    leading.release(); // kazoo's election: its leader function returns, its node goes
    await().atMost(WAIT).until(e::isLeader);
    e.close();
  }

  @Test
  void aKilledKazooHolder_isRefusedUntilItsSessionExpires_thenZklockHolds() throws Exception {
    String name = newName("crash");
    Kazoo py = kazoo("py-crashes");
    py.lock(pathOf(name), "py").acquire().awaitHeld();
    ZkLocks z = zklock("java");

    py.kill(); // a crash: the session, and its node, stay until the ensemble expires it
    assertThatThrownBy(() -> z.mutex(name).tryAcquire()).hasMessageContaining("kazoo");

    server.expireSession(py.sessionId());
    await().atMost(WAIT).until(() -> children(name).isEmpty());
    Optional<LockHandle> mine = z.mutex(name).tryAcquire();
    assertThat(mine).isPresent();
    mine.get().release();
  }

  @Test
  void aKazooSemaphoreOnTheSamePath_refusesZklocksSemaphore() throws Exception {
    String name = newName("pool");
    Kazoo py = kazoo("py-pool");
    py.semaphore(pathOf(name), "py", 2).acquire().awaitHeld();
    DistributedSemaphore sem = zklock("java").semaphore(name, 2);

    // kazoo's semaphore stores its lease count, "2", as the directory's data: not a plain zklock
    // semaphore's, so zklock refuses the directory rather than count beside leases it cannot see,
    // naming the mode that shares kazoo's permits
    assertThatThrownBy(sem::tryAcquire)
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("kazoo's Semaphore")
        .hasMessageContaining("LockOptions.kazooCompatible()");
  }

  @Test
  void aKazooClientJoiningWhileZklockHolds_holdsToo_andInspectShowsBoth() throws Exception {
    // The limit no library can lift from one side: kazoo does not see zklock's nodes, so a kazoo
    // client that joins while zklock holds holds at once. zklock shows it, and refuses every
    // later request (above).
    String name = newName("late");
    ZkLocks z = zklock("java");
    try (LockHandle held = z.mutex(name).acquire()) {
      Kazoo py = kazoo("py-late");
      assertThat(py.lock(pathOf(name), "py").tryAcquire()).isEqualTo("acquired");

      LockInfo info = z.inspect(name).orElseThrow();
      assertThat(info.holders())
          .extracting(LockNode::clientName)
          .containsExactly("java", "(kazoo)");
      assertThatThrownBy(() -> zklock("java-2").mutex(name).tryAcquire())
          .hasMessageContaining("kazoo");
      assertThat(held.isHeld()).isTrue();
    }
  }
}
