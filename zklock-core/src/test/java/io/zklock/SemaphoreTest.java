package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SemaphoreTest extends ZkTestSupport {

  @Test
  void thirtySessions_neverMoreThanPermitsAtOnce() throws Exception {
    int sessions = 30;
    int permits = 3;
    List<DistributedSemaphore> sems = new ArrayList<>();
    for (int i = 0; i < sessions; i++) {
      sems.add(client("sem-" + i).semaphore("quota", permits));
    }
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger maxInside = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(sessions);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (DistributedSemaphore s : sems) {
        futures.add(
            pool.submit(
                () -> {
                  for (int r = 0; r < 2; r++) {
                    try (LockHandle lease = s.acquire()) {
                      maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                      Thread.sleep(5);
                      inside.decrementAndGet();
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(maxInside.get()).as("leases held at once").isBetween(1, permits);
    awaitNoLockNodes();
  }

  @Test
  void fullSemaphore_waiterGetsTheFirstFreedPermit_tryAcquireLeavesNothing() throws Exception {
    LockHandle a = client().semaphore("two", 2).acquire();
    LockHandle b = client().semaphore("two", 2).acquire();
    assertThat(a.fencingToken()).isNotEqualTo(b.fencingToken());
    assertThat(a.path()).contains("/two/leases/s-");
    ZkLocks c = client();
    CompletableFuture<LockHandle> waiting = c.semaphore("two", 2).acquireAsync();
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 4); // mutex + lease

    assertThat(client().semaphore("two", 2).tryAcquire()).as("full").isEmpty();
    assertThat(waiting).isNotDone();
    a.release();

    LockHandle got = waiting.get(10, TimeUnit.SECONDS);
    assertThat(got.fencingToken()).isGreaterThan(b.fencingToken());
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(lockNodes())
                    .as("only the two leases; the admission mutex was released")
                    .containsExactlyInAnyOrder(b.path(), got.path()));
    b.release();
    got.release();
    assertNoLockNodes();
  }

  @Test
  void permitsBelowOne_areRefusedNamingTheValue() {
    ZkLocks locks = client();
    assertThatThrownBy(() -> locks.semaphore("s", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0");
    assertThatThrownBy(() -> locks.semaphore("s", -3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-3");
  }

  /** The nodes under the semaphore {@code name}'s subdirectory {@code sub} ("queue", "leases"). */
  private List<String> nodesIn(String name, String sub) throws Exception {
    String prefix = dir(name) + "/" + sub + "/";
    return lockNodes().stream().filter(p -> p.startsWith(prefix)).toList();
  }

  @Test
  void fullSemaphore_waiterIsGrantedOnlyWhenAListingShowsAFreeLease() throws Exception {
    LockHandle a = client().semaphore("relist", 1).acquire();
    CompletableFuture<LockHandle> waiting = client().semaphore("relist", 1).acquireAsync();
    await().atMost(Duration.ofSeconds(10)).until(() -> nodesIn("relist", "leases").size() == 2);

    // a lease request that finds the semaphore full comes and goes in the leases directory: the
    // waiter hears of both changes, and neither frees a lease
    assertThat(client().semaphore("relist", 1).tryAcquire()).as("full").isEmpty();
    await().atMost(Duration.ofSeconds(10)).until(() -> nodesIn("relist", "leases").size() == 2);
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(5))
        .until(() -> !waiting.isDone());
    assertThat(a.isHeld()).isTrue();
    a.release();

    LockHandle got = waiting.get(10, TimeUnit.SECONDS);
    assertThat(got.isHeld()).isTrue();
    got.release();
    awaitNoLockNodes();
  }

  @Test
  void waiterInTheMiddleOfTheAdmissionQueueGivesUp_theChainContinues() throws Exception {
    LockHandle a = client().semaphore("chain", 1).acquire();
    CompletableFuture<LockHandle> b = client().semaphore("chain", 1).acquireAsync();
    await("b admitted, waiting for a lease")
        .atMost(Duration.ofSeconds(10))
        .until(() -> nodesIn("chain", "leases").size() == 2);
    CompletableFuture<LockHandle> c = client().semaphore("chain", 1).acquireAsync();
    await().atMost(Duration.ofSeconds(10)).until(() -> nodesIn("chain", "queue").size() == 2);
    CompletableFuture<LockHandle> d = client().semaphore("chain", 1).acquireAsync();
    await().atMost(Duration.ofSeconds(10)).until(() -> nodesIn("chain", "queue").size() == 3);
    List<String> leases = nodesIn("chain", "leases");

    assertThat(c.cancel(true)).isTrue();
    await("c's node (which d watches) is deleted")
        .atMost(Duration.ofSeconds(10))
        .until(() -> nodesIn("chain", "queue").size() == 2);
    await("d stays behind b in the admission queue")
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(5))
        .until(() -> !d.isDone() && nodesIn("chain", "leases").equals(leases));
    a.release();

    LockHandle bh = b.get(10, TimeUnit.SECONDS);
    await("d admitted after b, waiting for b's lease")
        .atMost(Duration.ofSeconds(10))
        .until(() -> nodesIn("chain", "leases").size() == 2);
    assertThat(d).isNotDone();
    bh.release();
    LockHandle dh = d.get(10, TimeUnit.SECONDS);
    assertThat(dh.isHeld()).isTrue();
    dh.release();
    awaitNoLockNodes();
  }

  @Test
  void admittedWaiterExpires_queuesForAdmissionAgain_behindTheRequestQueuedMeanwhile()
      throws Exception {
    // Given a holder of the one permit, a waiter admitted behind it (its lease waiting), and a
    // request queued for admission behind that
    LockHandle a = client("a").semaphore("readmit", 1).acquire();
    ZkLocks z = client("z");
    CompletableFuture<LockHandle> admitted = z.semaphore("readmit", 1).acquireAsync();
    await().atMost(Duration.ofSeconds(10)).until(() -> nodesIn("readmit", "leases").size() == 2);
    CompletableFuture<LockHandle> queued = client("c").semaphore("readmit", 1).acquireAsync();
    await().atMost(Duration.ofSeconds(10)).until(() -> nodesIn("readmit", "queue").size() == 2);

    // When the admitted waiter's session expires, and it is back on a new session
    long expired = z.sessionId();
    server.expireSession(expired);
    await("the expired waiter back on a new session, queued for admission (not a lease of its own)")
        .atMost(Duration.ofSeconds(20))
        .until(() -> z.sessionId() != expired && nodesIn("readmit", "queue").size() == 2);

    // Then it queued for admission again, behind the request queued meanwhile (now admitted, its
    // lease behind the holder's), and has no lease of its own: never a lease without admission
    assertThat(nodesIn("readmit", "leases")).as("the holder's lease and c's").hasSize(2);
    assertThat(admitted).isNotDone();

    // and the permit goes to c first, then to the expired waiter
    a.release();
    LockHandle c = queued.get(10, TimeUnit.SECONDS);
    assertThat(admitted).isNotDone();
    c.release();
    LockHandle h = admitted.get(10, TimeUnit.SECONDS);
    assertThat(h.isHeld()).isTrue();
    assertThat(h.fencingToken()).isGreaterThan(c.fencingToken());
    h.release();
    awaitNoLockNodes();
  }
}
