package io.zklock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zklock.DistributedBarrier;
import io.zklock.DistributedCountDownLatch;
import io.zklock.DistributedDoubleBarrier;
import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.LockOptions;
import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ZkLockMetricsTest {
  private static EmbeddedZooKeeper zk;

  private ZkLocks other;
  private ZkLocks locks;
  private MeterRegistry registry;

  @BeforeAll
  static void startServer() {
    zk = EmbeddedZooKeeper.standalone().start();
  }

  @AfterAll
  static void stopServer() {
    zk.close();
  }

  @BeforeEach
  void connect() {
    registry = new SimpleMeterRegistry();
    ZkLockMetrics metrics =
        ZkLockMetrics.builder().lockNameTags(LockNameTags.allow(Set.of("tagged"))).build();
    metrics.bindTo(registry);
    locks =
        ZkLocks.builder(zk.connectString()).clientName("metered").eventListener(metrics).build();
    other = ZkLocks.builder(zk.connectString()).clientName("other").build();
  }

  @AfterEach
  void close() {
    locks.close();
    other.close();
  }

  @Test
  void acquireAndRelease_timesTheWaitAndTheHold_activeWhileHeld() throws Exception {
    DistributedLock lock = locks.mutex("tagged");
    Tags tags = Tags.of("lock", "tagged", "kind", "mutex");

    try (LockHandle h = lock.acquire()) {
      assertThat(registry.get("zklock.lock.hold.active").tags(tags).longTaskTimer().activeTasks())
          .as("the hold in progress")
          .isEqualTo(1);
      assertThat(h.isHeld()).isTrue();
    }

    assertThat(waits(tags, "granted")).isEqualTo(1);
    assertThat(registry.get("zklock.lock.hold").tags(tags).tag("end", "released").timer().count())
        .isEqualTo(1);
    assertThat(registry.get("zklock.lock.hold.active").longTaskTimer().activeTasks()).isZero();
    assertThat(registry.get("zklock.lock.wait.active").longTaskTimer().activeTasks()).isZero();
    assertThat(registry.getMeters())
        .as("no counter repeats what a timer counts")
        .noneMatch(m -> m instanceof io.micrometer.core.instrument.Counter);
  }

  @Test
  void waiter_isActiveWhileItWaits_thenCancelled() throws Exception {
    LockHandle held = other.mutex("tagged").acquire();
    CompletableFuture<LockHandle> waiter = locks.mutex("tagged").acquireAsync();
    await()
        .untilAsserted(
            () ->
                assertThat(registry.get("zklock.lock.wait.active").longTaskTimer().activeTasks())
                    .isEqualTo(1));
    waiter.cancel(true);
    held.release();

    assertThat(waits(Tags.of("lock", "tagged"), "cancelled")).isEqualTo(1);
    assertThat(registry.get("zklock.lock.wait.active").longTaskTimer().activeTasks()).isZero();
  }

  @Test
  void busyAndTimedOutTries_haveTheirOutcomes() throws Exception {
    LockHandle held = other.mutex("tagged").acquire();
    assertThat(locks.mutex("tagged").tryAcquire()).isEmpty();
    Optional<LockHandle> none = locks.mutex("tagged").tryAcquire(Duration.ofMillis(100));
    held.release();

    assertThat(none).isEmpty();
    assertThat(waits(Tags.of("kind", "mutex"), "busy")).isEqualTo(1);
    assertThat(waits(Tags.of("kind", "mutex"), "timeout")).isEqualTo(1);
  }

  @Test
  void cohortMutex_isTaggedCohort() throws Exception {
    DistributedLock lock = locks.mutex("tagged", LockOptions.cohort());
    LockHandle first = lock.acquire();
    CompletableFuture<LockHandle> second = lock.acquireAsync();
    first.release();
    second.get(10, TimeUnit.SECONDS).release();

    assertThat(waits(Tags.of("lock", "tagged", "kind", "cohort"), "granted")).isEqualTo(2);
  }

  @Test
  void sessionExpiry_whileHeld_isAHoldLostBySessionExpired() throws Exception {
    LockHandle h = locks.mutex("tagged").acquire();

    zk.expireSession(locks.sessionId());

    h.lost().get(30, TimeUnit.SECONDS);
    await()
        .untilAsserted(
            () ->
                assertThat(
                        registry
                            .get("zklock.lock.hold")
                            .tags("end", "lost", "reason", "session_expired")
                            .timer()
                            .count())
                    .isEqualTo(1));
    assertThat(registry.get("zklock.lock.hold.active").longTaskTimer().activeTasks()).isZero();
    h.release(); // harmless after the loss, and not counted again
    assertThat(registry.find("zklock.lock.hold").tag("end", "released").timer()).isNull();
  }

  @Test
  void leasedView_leaseRunsOut_isAHoldLostByLeaseExpired() throws Exception {
    LockHandle h = locks.mutex("tagged").withLease(Duration.ofMillis(300)).acquire();

    LockLostException e = h.lost().get(30, TimeUnit.SECONDS);

    assertThat(e.reason()).isEqualTo(LockLostException.Reason.LEASE_EXPIRED);
    await()
        .untilAsserted(
            () ->
                assertThat(
                        registry
                            .get("zklock.lock.hold")
                            .tags("lock", "tagged", "end", "lost", "reason", "lease_expired")
                            .timer()
                            .count())
                    .isEqualTo(1));
  }

  @Test
  void lockView_reentrantHold_isOneGrantAndOneHold() throws Exception {
    Lock view = locks.mutex("tagged").asLock();

    view.lock();
    view.lock();
    view.unlock();
    assertThat(registry.get("zklock.lock.hold.active").longTaskTimer().activeTasks())
        .as("still held once")
        .isEqualTo(1);
    view.unlock();

    assertThat(waits(Tags.of("lock", "tagged"), "granted")).isEqualTo(1);
    assertThat(registry.get("zklock.lock.hold").tag("end", "released").timer().count())
        .isEqualTo(1);
    assertThatThrownBy(view::unlock).isInstanceOf(IllegalMonitorStateException.class);
  }

  @Test
  void lockNamesOutsideTheGuard_areTaggedOther_andKindsAreNamed() throws Exception {
    locks.mutex("orders/1").acquire().release();
    locks.mutex("orders/2").acquire().release();
    locks.readWriteLock("rw").readLock().acquire().release();
    locks.readWriteLock("rw").writeLock().acquire().release();
    locks.semaphore("sem", 2).acquire(2).release();
    locks.simpleLock("simple").acquire().release();
    locks.multiLock(locks.mutex("a"), locks.mutex("b")).acquire().release();

    assertThat(waits(Tags.of("lock", "other", "kind", "mutex"), "granted")).isEqualTo(2);
    assertThat(registry.find("zklock.lock.wait").tag("lock", "orders/1").timer()).isNull();
    for (String kind : new String[] {"read", "write", "semaphore", "simple", "multi"}) {
      assertThat(waits(Tags.of("kind", kind), "granted")).as(kind).isEqualTo(1);
    }
  }

  @Test
  void coordinationWaits_areTimedAsWaits_activeWhileWaiting_passedOrTimedOut_withNoHold()
      throws Exception {
    DistributedCountDownLatch latch = locks.countDownLatch("metrics-latch", 1);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<Boolean> waiter = pool.submit(() -> latch.await(Duration.ofSeconds(30)));
      await()
          .untilAsserted(
              () ->
                  assertThat(
                          registry
                              .get("zklock.lock.wait.active")
                              .tag("kind", "latch")
                              .longTaskTimer()
                              .activeTasks())
                      .as("the latch's waiter, while it waits")
                      .isEqualTo(1));
      other.countDownLatch("metrics-latch", 1).countDown();
      assertThat(waiter.get(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      pool.shutdownNow();
    }
    assertThat(locks.countDownLatch("metrics-latch-2", 2).await(Duration.ofMillis(50))).isFalse();
    DistributedBarrier barrier = locks.barrier("metrics-barrier");
    barrier.set();
    assertThat(barrier.await(Duration.ofMillis(50))).isFalse();
    barrier.remove();
    assertThat(barrier.await(Duration.ofSeconds(10))).isTrue();
    DistributedDoubleBarrier alone = locks.doubleBarrier("metrics-double", 1);
    assertThat(alone.enter(Duration.ofSeconds(10))).isTrue();
    assertThat(alone.leave(Duration.ofSeconds(10))).isTrue();
    assertThat(locks.doubleBarrier("metrics-double-2", 2).enter(Duration.ofMillis(50))).isFalse();

    assertThat(waits(Tags.of("lock", "other", "kind", "latch"), "passed")).isEqualTo(1);
    assertThat(waits(Tags.of("kind", "latch"), "timeout")).isEqualTo(1);
    assertThat(waits(Tags.of("kind", "barrier"), "passed")).isEqualTo(1);
    assertThat(waits(Tags.of("kind", "barrier"), "timeout")).isEqualTo(1);
    assertThat(waits(Tags.of("kind", "double-barrier-enter"), "passed")).isEqualTo(1);
    assertThat(waits(Tags.of("kind", "double-barrier-enter"), "timeout")).isEqualTo(1);
    assertThat(waits(Tags.of("kind", "double-barrier-leave"), "passed")).isEqualTo(1);
    assertThat(registry.get("zklock.lock.wait.active").longTaskTimers())
        .allSatisfy(t -> assertThat(t.activeTasks()).isZero());
    assertThat(registry.find("zklock.lock.hold").timer()).as("nothing was held").isNull();
    assertThat(registry.find("zklock.lock.hold.active").longTaskTimer()).isNull();
  }

  @Test
  void conditionWaits_signalledIsPassed_timedOut_andLostWhenTheLockWasLost() throws Exception {
    DistributedLock lock = locks.mutex("metrics-cond");
    LockHandle first = lock.acquire();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<LockHandle> waiting = pool.submit(() -> lock.newCondition().await(first));
      DistributedLock mine = other.mutex("metrics-cond");
      LockHandle s = mine.tryAcquire(Duration.ofSeconds(10)).orElseThrow(); // await released it
      mine.newCondition().signal(s);
      s.release();
      waiting.get(30, TimeUnit.SECONDS).release();
    } finally {
      pool.shutdownNow();
    }
    LockHandle h = lock.acquire();
    lock.newCondition().await(h, Duration.ofMillis(50)).handle().release();
    LockHandle gone = lock.acquire();
    other.forceRelease("metrics-cond");
    gone.lost().get(30, TimeUnit.SECONDS);
    assertThatThrownBy(() -> lock.newCondition().await(gone)).isInstanceOf(LockLostException.class);

    Tags condition = Tags.of("lock", "other", "kind", "condition");
    assertThat(waits(condition, "passed")).as("signalled").isEqualTo(1);
    assertThat(waits(condition, "timeout")).isEqualTo(1);
    assertThat(waits(condition, "lost")).as("awaited on a lost lock").isEqualTo(1);
    assertThat(registry.find("zklock.lock.hold").tag("kind", "condition").timer())
        .as("a condition wait holds nothing")
        .isNull();
    assertThat(
            registry
                .get("zklock.lock.hold")
                .tags("kind", "mutex", "end", "lost", "reason", "node_deleted")
                .timer()
                .count())
        .as("the grant's own loss, once")
        .isEqualTo(1);
  }

  @Test
  void sessionStateGauge_isOneForTheCurrentState() {
    await()
        .untilAsserted(
            () ->
                assertThat(
                        registry
                            .get("zklock.session.state")
                            .tag("state", "connected")
                            .gauge()
                            .value())
                    .isEqualTo(1.0));
    assertThat(registry.get("zklock.session.state").tag("state", "suspended").gauge().value())
        .isEqualTo(0.0);

    locks.close();

    await()
        .untilAsserted(
            () ->
                assertThat(
                        registry.get("zklock.session.state").tag("state", "closed").gauge().value())
                    .isEqualTo(1.0));
  }

  @Test
  void bindingTheSameRegistryTwice_recordsOnce() throws Exception {
    ZkLockMetrics metrics = ZkLockMetrics.create();
    MeterRegistry r = new SimpleMeterRegistry();
    metrics.bindTo(r);
    metrics.bindTo(r);
    try (ZkLocks mine = ZkLocks.builder(zk.connectString()).eventListener(metrics).build()) {
      mine.mutex("x").acquire().release();
    }
    assertThat(r.get("zklock.lock.wait").tag("outcome", "granted").timer().count()).isEqualTo(1);
  }

  private long waits(Tags tags, String outcome) {
    return registry.get("zklock.lock.wait").tags(tags).tag("outcome", outcome).timers().stream()
        .mapToLong(t -> t.count())
        .sum();
  }
}
