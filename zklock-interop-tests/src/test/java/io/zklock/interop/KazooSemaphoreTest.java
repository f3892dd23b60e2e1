package io.zklock.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.zklock.DistributedSemaphore;
import io.zklock.LockHandle;
import io.zklock.LockInfo;
import io.zklock.LockNode;
import io.zklock.LockOptions;
import io.zklock.ZkLockException;
import io.zklock.ZkLocks;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * zklock's kazoo-compatible semaphore beside real kazoo 2.8 {@code Semaphore} clients on the same
 * path, each kazoo client a Python process and a ZooKeeper session of its own: the permits are
 * shared with never more holders than {@code max_leases}, admission is first come first served
 * across both libraries (kazoo's {@code Lock} at {@code <path>-__lock__}), a holder of either side
 * whose session expires frees its permit (zklock's told first), inspection shows kazoo's leases as
 * kazoo's, and a differing count is refused on both sides.
 */
class KazooSemaphoreTest extends KazooTestBase {
  private static final LockOptions KAZOO = LockOptions.kazooCompatible();
  private static final Duration QUIET = Duration.ofMillis(1000);

  /** The number of nodes queued for admission ({@code <path>-__lock__}'s children). */
  private int admissionQueue(String name) throws Exception {
    return children(name + "-__lock__").size();
  }

  private void awaitAdmissionQueue(String name, int n) {
    await().atMost(WAIT).until(() -> admissionQueue(name) == n);
  }

  private void assertAtMost(String name, int permits) throws Exception {
    assertThat(children(name)).as("leases held").hasSizeLessThanOrEqualTo(permits);
  }

  @Test
  void mixedHolders_neverMoreThanMaxLeases_andAdmissionIsFirstComeFirstServedAcrossBoth()
      throws Exception {
    String name = newName("pool");
    Kazoo a = kazoo("py-a");
    Kazoo b = kazoo("py-b");
    Kazoo c = kazoo("py-c");
    ZkLocks z = zklock("java");
    DistributedSemaphore sem = z.semaphore(name, 2, KAZOO);

    // Given: the two permits held, one by each library
    Kazoo.Recipe aHolds = a.semaphore(pathOf(name), "py-a", 2).acquire().awaitHeld();
    LockHandle j1 = sem.acquire();
    assertThat(children(name)).hasSize(2);

    // and three waiters queued in this order: kazoo's b, zklock's, kazoo's c
    Kazoo.Recipe bWaits = b.semaphore(pathOf(name), "py-b", 2).acquire();
    awaitAdmissionQueue(name, 1);
    CompletableFuture<LockHandle> j2 = sem.acquireAsync();
    awaitAdmissionQueue(name, 2);
    Kazoo.Recipe cWaits = c.semaphore(pathOf(name), "py-c", 2).acquire();
    awaitAdmissionQueue(name, 3);
    assertThat(bWaits.outcomeWithin(QUIET)).as("b, while both permits are held").isNull();
    assertAtMost(name, 2);

    // When a permit is freed, the first in line takes it, and only it
    aHolds.release();
    bWaits.awaitHeld();
    assertAtMost(name, 2);
    assertThat(j2).as("zklock's waiter, second in line").isNotDone();

    j1.release();
    LockHandle j2Held = j2.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertAtMost(name, 2);
    assertThat(cWaits.outcomeWithin(QUIET)).as("c, last in line, both permits held").isNull();

    bWaits.release();
    cWaits.awaitHeld();
    assertAtMost(name, 2);
    assertThat(admissionQueue(name)).isZero();

    j2Held.release();
    cWaits.release();
    await().atMost(WAIT).until(() -> children(name).isEmpty());
  }

  @Test
  void
      aZklockHolderExpired_isToldOfTheLoss_andKazooTakesThePermit_andAKilledKazooHoldersPermitComesBackAtItsExpiry()
          throws Exception {
    String name = newName("expiry");
    ZkLocks z = zklock("java-holder");
    LockHandle held = z.semaphore(name, 1, KAZOO).acquire();
    Kazoo py = kazoo("py-waiter");
    Kazoo.Recipe waiting = py.semaphore(pathOf(name), "py-waiter", 1).acquire();
    awaitAdmissionQueue(name, 1);

    server.expireSession(z.sessionId());

    assertThat(held.lost().get(WAIT.toSeconds(), TimeUnit.SECONDS)).isNotNull();
    waiting.awaitHeld();
    assertThat(children(name)).hasSize(1);

    // the other way: kazoo's holder dies; zklock's waiter holds once the ensemble expires it
    CompletableFuture<LockHandle> mine =
        zklock("java-waiter").semaphore(name, 1, KAZOO).acquireAsync();
    awaitAdmissionQueue(name, 1);
    py.kill();
    assertThat(mine).isNotDone();
    server.expireSession(py.sessionId());
    LockHandle h = mine.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(h.isHeld()).isTrue();
    assertThat(children(name)).hasSize(1);
    h.release();
    await().atMost(WAIT).until(() -> children(name).isEmpty() && admissionQueue(name) == 0);
  }

  @Test
  void inspectShowsKazoosLeasesAsKazoos_andKazooListsZklocksLease() throws Exception {
    String name = newName("seen");
    Kazoo py = kazoo("py-seen");
    Kazoo.Recipe pyHolds = py.semaphore(pathOf(name), "py-worker", 3).acquire().awaitHeld();
    ZkLocks z = zklock("java-seen");
    try (LockHandle mine = z.semaphore(name, 3, KAZOO).acquire()) {
      LockInfo info = z.inspect(name).orElseThrow();
      assertThat(info.kind()).isEqualTo(LockInfo.Kind.SEMAPHORE);
      assertThat(info.permits()).isEqualTo(3);
      assertThat(info.holders()).extracting(LockNode::kind).containsOnly(LockNode.Kind.KAZOO_LEASE);
      assertThat(info.holders())
          .extracting(LockNode::clientName)
          .containsExactly("(kazoo)", "java-seen");
      assertThat(info.holders().get(0).ownerData()).isEqualTo("py-worker");
      assertThat(info.holders().get(1).fencingToken()).isEqualTo(mine.fencingToken());
      // a guarded write commits while the lease holds (not under the path: a child is a lease)
      mine.transaction().create(pathOf(name) + "-record", "x".getBytes()).commit();

      // zklock ls walks the namespace: the semaphore once, its admission lock not as a lock
      List<LockInfo> all = z.inspectAll("interop");
      assertThat(all).extracting(LockInfo::path).contains(pathOf(name));
      assertThat(all).extracting(LockInfo::path).doesNotContain(pathOf(name) + "-__lock__");

      List<String> kazooSees = pyHolds.contenders(); // lease_holders(): every lease's data
      assertThat(kazooSees).hasSize(2).contains("py-worker");
      assertThat(kazooSees).anyMatch(d -> d.contains("java-seen"));
    }
    pyHolds.release();
  }

  @Test
  void anotherCount_isRefusedOnBothSides_namingIt() throws Exception {
    String name = newName("count");
    Kazoo py = kazoo("py-count");
    Kazoo.Recipe pyHolds = py.semaphore(pathOf(name), "py", 3).acquire().awaitHeld();
    DistributedSemaphore sem = zklock("java").semaphore(name, 2, KAZOO);

    assertThatThrownBy(sem::acquire)
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("max_leases 3")
        .hasMessageContaining("asked for 2")
        .hasCauseInstanceOf(IllegalArgumentException.class);
    assertThat(admissionQueue(name)).as("nothing left behind").isZero();
    pyHolds.release();

    // zklock stores its count as kazoo does: kazoo's client with another one raises
    String other = newName("count");
    try (LockHandle h = zklock("java-2").semaphore(other, 2, KAZOO).acquire()) {
      assertThat(py.semaphore(pathOf(other), "py", 5).acquire().awaitOutcome())
          .startsWith("error ValueError")
          .contains("Inconsistent max leases");
    }
  }
}
