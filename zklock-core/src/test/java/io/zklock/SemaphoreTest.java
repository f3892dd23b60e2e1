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
}
