package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Inspection (and so {@code zklock ls}) amid the coordination recipes: their nodes (a latch's
 * markers and opening, a barrier's node, a double barrier's members, a condition's waiters) are
 * never taken for lock nodes, so no latch, barrier or condition shows as a held or awaited lock.
 */
class CoordinationInspectTest extends ZkTestSupport {
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  @Test
  void inspectAll_showsOnlyTheLocks_amidLatchesBarriersAndConditions() throws Exception {
    ZkLocks c = client("inspected");
    DistributedCountDownLatch latch = c.countDownLatch("latch", 2);
    latch.countDown();
    c.countDownLatch("open-latch", 1).countDown();
    c.barrier("barrier").set();
    DistributedDoubleBarrier db = client("member").doubleBarrier("double", 2);
    Future<Boolean> entering = pool.submit(() -> db.enter(Duration.ofSeconds(30)));
    DistributedLock condLock = client("waiter").mutex("cond");
    LockHandle h = condLock.acquire();
    Future<LockHandle> waiting = pool.submit(() -> condLock.newCondition().await(h));
    LockHandle held = c.mutex("held").acquire();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                raw().exists(dir("double"), false) != null
                    && raw().getChildren(dir("double"), false).size() == 1
                    && raw().exists(dir("cond") + ".cond-default", false) != null
                    && raw().getChildren(dir("cond") + ".cond-default", false).size() == 1
                    && !h.isHeld());

    assertThat(c.inspectAll(""))
        .extracting(LockInfo::name)
        .as("only the held mutex is a lock")
        .containsExactly("held");
    assertThat(c.inspect("cond"))
        .as("the condition's lock is free: its waiter released it")
        .isEmpty();

    held.release();
    LockHandle s = c.mutex("cond").acquire();
    c.mutex("cond").newCondition().signal(s);
    s.release();
    waiting.get().release();
    entering.cancel(true);
  }
}
