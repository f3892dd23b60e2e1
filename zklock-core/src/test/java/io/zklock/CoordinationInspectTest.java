package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Inspection (and so {@code zklock ls}) amid the coordination recipes: a latch, a set barrier, a
 * double barrier and a condition's waiters each show as one entry of their own kind, with their
 * state; their nodes (a latch's markers and opening, a double barrier's members, a condition's
 * waiters) are never taken for lock nodes, so none shows as a held or awaited lock.
 */
class CoordinationInspectTest extends ZkTestSupport {
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  @Test
  void inspectAll_showsLatchesBarriersAndConditions_eachAsItsOwnKind() throws Exception {
    ZkLocks c = client("inspected");
    DistributedCountDownLatch latch = c.countDownLatch("latch", 2);
    latch.countDown();
    c.countDownLatch("open-latch", 1).countDown();
    c.barrier("barrier").set();
    c.barrier("unset-barrier").set();
    c.barrier("unset-barrier").remove();
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

    List<LockInfo> all = c.inspectAll("");
    assertThat(all)
        .extracting(LockInfo::name, LockInfo::kind)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("barrier", LockInfo.Kind.BARRIER),
            org.assertj.core.groups.Tuple.tuple("cond.cond-default", LockInfo.Kind.CONDITION),
            org.assertj.core.groups.Tuple.tuple("double", LockInfo.Kind.DOUBLE_BARRIER),
            org.assertj.core.groups.Tuple.tuple("held", LockInfo.Kind.MUTEX),
            org.assertj.core.groups.Tuple.tuple("latch", LockInfo.Kind.LATCH),
            org.assertj.core.groups.Tuple.tuple("open-latch", LockInfo.Kind.LATCH));
    assertThat(all)
        .filteredOn(i -> i.kind() != LockInfo.Kind.MUTEX)
        .allSatisfy(
            i -> {
              assertThat(i.holders()).isEmpty();
              assertThat(i.waiters()).isEmpty();
              assertThat(i.isHeld()).isFalse();
            });
    assertThat(c.inspect("latch").orElseThrow().state())
        .isEqualTo(Map.of("count", "2", "remaining", "1", "open", "false"));
    assertThat(c.inspect("open-latch").orElseThrow().state())
        .isEqualTo(Map.of("count", "1", "remaining", "0", "open", "true"));
    assertThat(c.inspect("barrier").orElseThrow().state()).isEqualTo(Map.of("set", "true"));
    assertThat(c.inspect("unset-barrier")).as("a barrier not set has no node").isEmpty();
    assertThat(c.inspect("double").orElseThrow().state())
        .isEqualTo(Map.of("members", "2", "round", "0", "phase", "entering", "entered", "1"));
    assertThat(c.inspect("cond.cond-default").orElseThrow().state())
        .isEqualTo(Map.of("lock", "cond", "condition", "default", "waiting", "1"));
    assertThat(c.inspect("cond"))
        .as("the condition's lock is free: its waiter released it")
        .isEmpty();
    assertThat(c.inspect("held").orElseThrow().state()).as("a lock has no state").isEmpty();

    held.release();
    LockHandle s = c.mutex("cond").acquire();
    c.mutex("cond").newCondition().signal(s);
    s.release();
    waiting.get().release();
    await().atMost(Duration.ofSeconds(10)).until(() -> c.inspect("cond.cond-default").isEmpty());
    assertThat(c.inspectAll(""))
        .extracting(LockInfo::name)
        .as("a condition nobody waits on does not show")
        .doesNotContain("cond.cond-default", "cond");

    ZkLocks second = client("second");
    Future<Boolean> other =
        pool.submit(
            () -> {
              second.doubleBarrier("double", 2).enter();
              return true;
            });
    assertThat(entering.get()).isTrue();
    assertThat(other.get()).isTrue();
    assertThat(c.inspect("double").orElseThrow().state())
        .containsEntry("phase", "open")
        .containsEntry("entered", "2");
  }

  @Test
  void inspectingARecipe_costsNoRequestMoreThanALock() throws Exception {
    ZkLocks c = client("counted");
    c.countDownLatch("latch", 2).countDown();
    c.barrier("barrier").set();
    LockHandle h = c.mutex("lock").acquire();

    assertThat(fewestRequests(() -> c.inspect("lock"))).as("a mutex of one node").isEqualTo(2);
    assertThat(fewestRequests(() -> c.inspect("latch")))
        .as("the listing, then the latch's data (its markers are not read)")
        .isEqualTo(2);
    assertThat(fewestRequests(() -> c.inspect("barrier"))).isEqualTo(2);
    assertThat(fewestRequests(() -> c.inspect("lock.cond-default")))
        .as("a condition's directory: its listing only")
        .isEqualTo(1);
    h.release();
  }

  /** The fewest requests the server received during {@code r}, of three runs (a ping may fall). */
  private static long fewestRequests(Runnable r) {
    long fewest = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      long before = server.server().serverStats().getPacketsReceived();
      r.run();
      fewest = Math.min(fewest, server.server().serverStats().getPacketsReceived() - before);
    }
    return fewest;
  }
}
