package io.zklock.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.zklock.DistributedLock;
import io.zklock.LeaderElection;
import io.zklock.LockHandle;
import io.zklock.LockInfo;
import io.zklock.LockLostException;
import io.zklock.LockNode;
import io.zklock.LockOptions;
import io.zklock.ReadWriteLock;
import io.zklock.ZkLockException;
import io.zklock.ZkLocks;
import io.zklock.testkit.FaultProxy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * zklock's kazoo-compatible mode ({@link LockOptions#kazooCompatible()}) beside real Python kazoo
 * clients (Debian's python3-kazoo, 2.8), each a process and a session of its own, on one path: one
 * fair queue across both libraries, no two holders, each library seeing the other's contenders, and
 * zklock's promises kept on its side when a holder of either side expires.
 */
class KazooCompatibleTest extends KazooTestBase {
  private static final Duration QUIET = Duration.ofMillis(1500);
  private static final LockOptions KAZOO = LockOptions.kazooCompatible();

  /** Waits until the lock's directory holds {@code n} children: the queue's arrivals are known. */
  private void awaitQueued(String name, int n) {
    await().atMost(WAIT).until(() -> children(name).size() == n);
  }

  private static void assertWaiting(CompletableFuture<LockHandle> f, String who) {
    assertThat(f).as(who + " still waits").isNotDone();
  }

  @Test
  void oneQueue_firstComeFirstServed_acrossBothLibraries_andNoTwoHolders() throws Exception {
    String name = newName("settlement");
    String path = pathOf(name);
    ZkLocks z1 = zklock("java-1");
    ZkLocks z2 = zklock("java-2");
    Kazoo py1 = kazoo("py-1");
    Kazoo py2 = kazoo("py-2");

    // Given arrivals alternating between the libraries: zklock, kazoo, zklock, kazoo
    LockHandle first = z1.mutex(name, KAZOO).acquire();
    Kazoo.Recipe second = py1.lock(path, "py-1").acquire();
    awaitQueued(name, 2);
    CompletableFuture<LockHandle> third = z2.mutex(name, KAZOO).acquireAsync();
    awaitQueued(name, 3);
    Kazoo.Recipe fourth = py2.lock(path, "py-2").acquire();
    awaitQueued(name, 4);

    // Then each is granted in arrival order, only once the one before has released
    assertThat(second.outcomeWithin(QUIET)).as("kazoo waits for zklock's holder").isNull();
    assertWaiting(third, "the second zklock client");
    first.release();
    second.awaitHeld();
    assertWaiting(third, "the second zklock client, behind kazoo's holder");
    assertThat(fourth.outcomeWithin(QUIET)).isNull();

    second.release();
    LockHandle thirdHeld = third.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(thirdHeld.fencingToken()).isGreaterThan(first.fencingToken());
    assertThat(fourth.outcomeWithin(QUIET)).as("kazoo waits for zklock's holder").isNull();

    thirdHeld.release();
    fourth.awaitHeld();
    fourth.release();
    await().atMost(WAIT).until(() -> children(name).isEmpty());
  }

  @Test
  void kazoosNonBlockingAcquire_whileZklockHolds_isBusy() throws Exception {
    // the case that gave two holders with zklock's plain names, which kazoo skips
    String name = newName("nonblock");
    ZkLocks z = zklock("java");
    try (LockHandle held = z.mutex(name, KAZOO).acquire()) {
      Kazoo py = kazoo("py");
      assertThat(py.lock(pathOf(name), "py").tryAcquire()).isEqualTo("busy");
      assertThat(held.isHeld()).isTrue();
    }
    assertThat(zklock("java-2").mutex(name, KAZOO).tryAcquire()).isPresent();
  }

  @Test
  void zklocksNonBlockingAcquire_whileKazooHolds_isEmpty_andLeavesNoNode() throws Exception {
    String name = newName("trylock");
    Kazoo py = kazoo("py");
    Kazoo.Recipe held = py.lock(pathOf(name), "py-holder").acquire().awaitHeld();
    DistributedLock lock = zklock("java").mutex(name, KAZOO);

    assertThat(lock.tryAcquire()).isEmpty();
    assertThat(children(name)).hasSize(1);

    held.release();
    Optional<LockHandle> mine = lock.tryAcquire();
    assertThat(mine).isPresent();
    mine.get().release();
  }

  @Test
  void eachLibrary_seesTheOthersContenders() throws Exception {
    String name = newName("visible");
    String path = pathOf(name);
    Kazoo py = kazoo("py");
    Kazoo.Recipe pyHolder = py.lock(path, "py-holder").acquire().awaitHeld();
    ZkLocks z = zklock("java-waiter");
    CompletableFuture<LockHandle> waiting = z.mutex(name, KAZOO).acquireAsync();
    awaitQueued(name, 2);

    // zklock's inspect: kazoo's holder with its identifier, zklock's waiter with its client name
    LockInfo info = z.inspect(name).orElseThrow();
    assertThat(info.holders()).hasSize(1);
    LockNode h = info.holders().get(0);
    assertThat(h.kind()).isEqualTo(LockNode.Kind.KAZOO_LOCK);
    assertThat(h.clientName()).isEqualTo("(kazoo)");
    assertThat(h.ownerData()).isEqualTo("py-holder");
    assertThat(h.sessionId()).isEqualTo(py.sessionId());
    assertThat(info.waiters()).extracting(LockNode::clientName).containsExactly("java-waiter");
    assertThat(info.state()).as("one queue, no mix").isEmpty();

    // kazoo's contenders(): its holder's identifier, then zklock's node data (its JSON)
    List<String> contenders = pyHolder.contenders();
    assertThat(contenders).hasSize(2);
    assertThat(contenders.get(0)).isEqualTo("py-holder");
    assertThat(contenders.get(1)).contains("\"client\":\"java-waiter\"");

    pyHolder.release();
    waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS).release();
  }

  @Test
  void aKazooHolderKilled_zklockIsGrantedOnlyOnceItsSessionExpires() throws Exception {
    String name = newName("crash");
    Kazoo py = kazoo("py-crashes");
    py.lock(pathOf(name), "py").acquire().awaitHeld();
    ZkLocks z = zklock("java");
    CompletableFuture<LockHandle> waiting = z.mutex(name, KAZOO).acquireAsync();
    awaitQueued(name, 2);

    py.kill(); // its session, and so its node, live on until the ensemble expires them
    Thread.sleep(QUIET.toMillis());
    assertWaiting(waiting, "zklock, while kazoo's session lives");

    server.expireSession(py.sessionId());
    LockHandle held = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(held.isHeld()).isTrue();
    held.release();
  }

  @Test
  void aZklockHolderExpired_isToldOfTheLoss_beforeKazooIsGranted() throws Exception {
    String name = newName("expiry");
    ZkLocks z = zklock("java-holder");
    LockHandle held = z.mutex(name, KAZOO).acquire();
    Kazoo py = kazoo("py-waiter");
    Kazoo.Recipe waiting = py.lock(pathOf(name), "py-waiter").acquire();
    awaitQueued(name, 2);

    server.expireSession(z.sessionId());

    LockLostException lost = held.lost().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(lost).isNotNull();
    assertThat(held.isHeld()).isFalse();
    waiting.awaitHeld();
    waiting.release();
  }

  @Test
  void aRollingMigration_kazooClientsReplacedByZklocksOneByOne_neverTwoHolders() throws Exception {
    // Given two kazoo workers taking turns on a path, then one replaced by zklock, then the other
    String name = newName("migration");
    String path = pathOf(name);
    Kazoo pyA = kazoo("py-a");
    Kazoo pyB = kazoo("py-b");
    Kazoo.Recipe a = pyA.lock(path, "a").acquire().awaitHeld();
    Kazoo.Recipe b = pyB.lock(path, "b").acquire();
    awaitQueued(name, 2);
    a.release();
    b.awaitHeld();

    // py-a is replaced by a zklock worker: it queues behind py-b
    pyA.close();
    ZkLocks javaA = zklock("java-a");
    CompletableFuture<LockHandle> ja = javaA.mutex(name, KAZOO).acquireAsync();
    awaitQueued(name, 2);
    assertWaiting(ja, "java-a behind py-b");
    b.release();
    LockHandle jaHeld = ja.get(WAIT.toSeconds(), TimeUnit.SECONDS);

    // py-b is replaced too, while java-a holds
    pyB.close();
    ZkLocks javaB = zklock("java-b");
    CompletableFuture<LockHandle> jb = javaB.mutex(name, KAZOO).acquireAsync();
    awaitQueued(name, 2);
    assertWaiting(jb, "java-b behind java-a");
    jaHeld.release();
    jb.get(WAIT.toSeconds(), TimeUnit.SECONDS).release();
  }

  @Test
  void readWrite_readersShareAcrossLibraries_writersWaitForThemInOrder() throws Exception {
    String name = newName("inventory");
    String path = pathOf(name);
    Kazoo py = kazoo("py");
    Kazoo pyWriter = kazoo("py-writer");
    ReadWriteLock rw = zklock("java").readWriteLock(name, KAZOO);
    ReadWriteLock rw2 = zklock("java-writer").readWriteLock(name, KAZOO);

    // Given a kazoo reader holding: a zklock reader shares at once
    Kazoo.Recipe pyRead = py.readLock(path, "py-reader").acquire().awaitHeld();
    LockHandle javaRead = rw.readLock().tryAcquire().orElseThrow();

    // a zklock writer waits for both readers, a kazoo writer behind it for the zklock writer
    CompletableFuture<LockHandle> javaWrite = rw2.writeLock().acquireAsync();
    awaitQueued(name, 3);
    Kazoo.Recipe pyWrite = pyWriter.writeLock(path, "py-writer").acquire();
    awaitQueued(name, 4);
    assertWaiting(javaWrite, "zklock's writer, behind two readers");
    assertThat(pyWrite.outcomeWithin(QUIET)).isNull();

    pyRead.release();
    assertWaiting(javaWrite, "zklock's writer, behind zklock's reader");
    javaRead.release();
    LockHandle w = javaWrite.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(pyWrite.outcomeWithin(QUIET)).as("kazoo's writer behind zklock's").isNull();
    assertThat(rw.readLock().tryAcquire()).as("no reader while a writer holds").isEmpty();

    w.release();
    pyWrite.awaitHeld();
    assertThat(rw.readLock().tryAcquire()).as("no reader while kazoo's writer holds").isEmpty();
    CompletableFuture<LockHandle> lateRead = rw.readLock().acquireAsync();
    awaitQueued(name, 2);
    pyWrite.release();
    lateRead.get(WAIT.toSeconds(), TimeUnit.SECONDS).release();
  }

  @Test
  void aPlainZklockNode_refusesTheCompatibleMode_andTheReverse() throws Exception {
    String name = newName("modes");
    ZkLocks z = zklock("java");
    try (LockHandle plain = z.mutex(name).acquire()) {
      assertThatThrownBy(() -> zklock("java-2").mutex(name, KAZOO).tryAcquire())
          .isInstanceOf(ZkLockException.class)
          .hasMessageContaining("plain mutex")
          .hasMessageContaining("kazoo");
      assertThat(plain.isHeld()).isTrue();
    }
    try (LockHandle compatible = z.mutex(name, KAZOO).acquire()) {
      assertThatThrownBy(() -> zklock("java-3").mutex(name).tryAcquire())
          .isInstanceOf(ZkLockException.class)
          .hasMessageContaining("kazooCompatible()");
      assertThat(compatible.isHeld()).isTrue();
    }
  }

  @Test
  void aCounterNearItsEnd_isRefused_whereKazooWouldOrderItOtherwise() throws Exception {
    String name = newName("counter");
    Kazoo py = kazoo("py");
    Kazoo.Recipe held = py.lock(pathOf(name), "py").acquire().awaitHeld();
    held.release();
    // the directory stays (kazoo made it persistent): its counter is moved to near its end
    server.setChildSequence(pathOf(name), Integer.MAX_VALUE - 10);
    py.lock(pathOf(name), "py-2").acquire().awaitHeld();

    assertThatThrownBy(() -> zklock("java").mutex(name, KAZOO).tryAcquire())
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("new path");
    assertThat(children(name)).hasSize(1);
  }

  @Test
  void anElection_kazoosAndZklocksParticipantsLeadInTurn_andNameEachOther() throws Exception {
    String name = newName("scheduler");
    String path = pathOf(name);
    Kazoo py = kazoo("py-scheduler");
    Kazoo.Recipe pyLeads = py.election(path, "py-scheduler").acquire().awaitHeld();
    LeaderElection e = zklock("java").leaderElection(name, "java-scheduler", KAZOO);
    e.start();
    awaitQueued(name, 2);

    // zklock's participant waits behind kazoo's leader, and names it
    assertThat(e.isLeader()).isFalse();
    assertThat(e.leader()).contains("py-scheduler");
    assertThat(e.participants())
        .extracting(LockNode::participantId)
        .containsExactly(Optional.of("py-scheduler"), Optional.of("java-scheduler"));

    // kazoo's leader returns: zklock's participant leads, and a kazoo participant that joins
    // now waits behind it
    pyLeads.release();
    await().atMost(WAIT).until(e::isLeader);
    Kazoo py2 = kazoo("py-scheduler-2");
    Kazoo.Recipe pyNext = py2.election(path, "py-scheduler-2").acquire();
    awaitQueued(name, 2);
    assertThat(pyNext.outcomeWithin(QUIET)).as("kazoo does not lead beside zklock").isNull();
    assertThat(pyNext.contenders()).hasSize(2).last().isEqualTo("py-scheduler-2");

    e.close();
    pyNext.awaitHeld();
    pyNext.release();
  }

  @Test
  void aPartitionedZklockHolder_isToldOfTheLoss_beforeKazooIsGranted() throws Exception {
    String name = newName("partition-java");
    FaultProxy proxy = closeAtEnd(FaultProxy.start(server.connectString()));
    ZkLocks z = zklock("java-partitioned", proxy.connectString(), Duration.ofSeconds(4));
    LockHandle held = z.mutex(name, KAZOO).acquire();
    long[] lostAt = new long[1];
    held.lost().thenRun(() -> lostAt[0] = System.nanoTime());
    Kazoo py = kazoo("py-waiter");
    Kazoo.Recipe waiting = py.lock(pathOf(name), "py-waiter").acquire();
    awaitQueued(name, 2);

    // the zklock holder is cut off from the ensemble, and never hears it expire its session
    proxy.blackhole();
    waiting.awaitHeld();
    long kazooSeenHolding = System.nanoTime();

    assertThat(held.lost()).as("told of the loss by its own deadline").isDone();
    assertThat(lostAt[0]).as("before kazoo was seen holding").isLessThan(kazooSeenHolding);
    assertThat(held.isHeld()).isFalse();
    waiting.release();
    proxy.pass();
  }

  @Test
  void aPartitionedKazooHolder_zklockIsGrantedOnlyOnceItsSessionExpired() throws Exception {
    String name = newName("partition-py");
    FaultProxy proxy = closeAtEnd(FaultProxy.start(server.connectString()));
    Kazoo py = kazoo("py-partitioned", proxy.connectString(), Duration.ofSeconds(4));
    py.lock(pathOf(name), "py-holder").acquire().awaitHeld();
    String kazooNode = children(name).get(0);
    ZkLocks z = zklock("java-waiter");
    CompletableFuture<LockHandle> waiting = z.mutex(name, KAZOO).acquireAsync();
    awaitQueued(name, 2);

    proxy.blackhole();
    LockHandle held = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);

    assertThat(children(name))
        .as("granted once the ensemble expired kazoo's session, which took its node")
        .doesNotContain(kazooNode);
    held.release();
    proxy.pass();
  }
}
