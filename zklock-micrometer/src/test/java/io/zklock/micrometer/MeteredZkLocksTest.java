package io.zklock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.LockOptions;
import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class MeteredZkLocksTest {
  private static EmbeddedZooKeeper zk;

  private ZkLocks other;
  private MeteredZkLocks locks;
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
    locks =
        MeteredZkLocks.builder(ZkLocks.builder(zk.connectString()).clientName("metered").build())
            .lockNameTags(LockNameTags.allow(Set.of("tagged")))
            .build();
    locks.bindTo(registry);
    other = ZkLocks.builder(zk.connectString()).clientName("other").build();
  }

  @AfterEach
  void close() {
    locks.close();
    other.close();
  }

  @Test
  void acquireAndRelease_countsOneGrantAndTimesTheHold() throws Exception {
    DistributedLock lock = locks.mutex("tagged");

    try (LockHandle h = lock.acquire()) {
      assertThat(gauge("zklock.lock.held")).isEqualTo(1.0);
      assertThat(h.isHeld()).isTrue();
    }

    Tags tags = Tags.of("lock", "tagged", "kind", "mutex");
    assertThat(count("zklock.lock.grants", tags)).isEqualTo(1.0);
    assertThat(
            registry.get("zklock.lock.wait").tags(tags).tag("outcome", "granted").timer().count())
        .isEqualTo(1);
    assertThat(registry.get("zklock.lock.hold").tags(tags).tag("end", "released").timer().count())
        .isEqualTo(1);
    assertThat(gauge("zklock.lock.held")).isEqualTo(0.0);
    assertThat(gauge("zklock.lock.pending")).isEqualTo(0.0);
  }

  @Test
  void meteredHandle_guardedWrite_checksTheDelegatesNode() throws Exception {
    try (LockHandle h = locks.mutex("guarded").acquire()) {
      // an empty transaction checks the grant's node on the server and commits nothing
      assertThat(h.transaction().commit()).isEmpty();
    }
  }

  @Test
  void cohortMutex_isMeasuredLikeTheMutex_andHandsOffLocally() throws Exception {
    DistributedLock lock = locks.mutex("tagged", LockOptions.cohort());

    LockHandle first = lock.acquire();
    CompletableFuture<LockHandle> second = lock.acquireAsync();
    first.release();
    LockHandle h2 = second.get(10, TimeUnit.SECONDS);
    assertThat(h2.fencingToken())
        .as("a local handoff on the same node")
        .isEqualTo(first.fencingToken() + 1);
    h2.release();

    Tags tags = Tags.of("lock", "tagged", "kind", "mutex");
    assertThat(count("zklock.lock.grants", tags)).isEqualTo(2.0);
    assertThat(gauge("zklock.lock.held")).isEqualTo(0.0);
  }

  @Test
  void cohortReadWriteLock_isMeasuredLikeTheReadWriteLock_readersShareANode() throws Exception {
    io.zklock.ReadWriteLock rw = locks.readWriteLock("tagged", LockOptions.cohort());

    LockHandle r1 = rw.readLock().acquire();
    LockHandle r2 = rw.readLock().acquire();
    assertThat(r2.path()).as("one read node for both readers").isEqualTo(r1.path());
    r1.release();
    r2.release();
    rw.writeLock().acquire().release();

    assertThat(count("zklock.lock.grants", Tags.of("lock", "tagged", "kind", "read")))
        .isEqualTo(2.0);
    assertThat(count("zklock.lock.grants", Tags.of("lock", "tagged", "kind", "write")))
        .isEqualTo(1.0);
    assertThat(gauge("zklock.lock.held")).isEqualTo(0.0);
  }

  @Test
  void bindingTheSameRegistryTwice_countsOnce() throws Exception {
    locks.bindTo(registry);

    locks.mutex("tagged").acquire().release();

    assertThat(count("zklock.lock.grants", Tags.of("lock", "tagged"))).isEqualTo(1.0);
  }

  @Test
  void busyLock_tryAcquireCountsTimeouts_andTheTimedOneWaitsItsTimeout() throws Exception {
    try (LockHandle held = other.mutex("tagged").acquire()) {
      DistributedLock lock = locks.mutex("tagged");

      assertThat(lock.tryAcquire()).isEmpty();
      assertThat(lock.tryAcquire(Duration.ofMillis(200))).isEmpty();
    }

    Tags tags = Tags.of("lock", "tagged", "kind", "mutex");
    assertThat(count("zklock.lock.timeouts", tags)).isEqualTo(2.0);
    assertThat(
            registry
                .get("zklock.lock.wait")
                .tags(tags)
                .tag("outcome", "timeout")
                .timer()
                .max(TimeUnit.MILLISECONDS))
        .as("the timed attempt waited its full timeout")
        .isGreaterThanOrEqualTo(200.0);
    assertThat(registry.find("zklock.lock.grants").counter()).isNull();
  }

  @Test
  void pendingAsyncRequest_isAGaugeUntilCancelled_thenACancellation() throws Exception {
    try (LockHandle held = other.mutex("tagged").acquire()) {
      CompletableFuture<LockHandle> f = locks.mutex("tagged").acquireAsync();
      assertThat(gauge("zklock.lock.pending")).isEqualTo(1.0);

      f.cancel(true);

      await().untilAsserted(() -> assertThat(gauge("zklock.lock.pending")).isEqualTo(0.0));
    }
    assertThat(count("zklock.lock.cancellations", Tags.of("lock", "tagged"))).isEqualTo(1.0);
    // the cancel withdrew the request: the other session takes the lock at once
    assertThat(other.mutex("tagged").tryAcquire(Duration.ofSeconds(5))).isPresent();
  }

  @Test
  void interruptedAcquire_isACancellation() throws Exception {
    try (LockHandle held = other.mutex("tagged").acquire()) {
      AtomicReference<Throwable> thrown = new AtomicReference<>();
      Thread t =
          new Thread(
              () -> {
                try {
                  locks.mutex("tagged").acquire();
                } catch (Throwable e) {
                  thrown.set(e);
                }
              });
      t.start();
      await().until(() -> gauge("zklock.lock.pending") == 1.0);
      t.interrupt();
      t.join(10_000);
      assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
    }
    assertThat(count("zklock.lock.cancellations", Tags.of("lock", "tagged"))).isEqualTo(1.0);
  }

  @Test
  void acquireOnAClosedZkLocks_isAFailure() {
    DistributedLock lock = locks.mutex("tagged");
    locks.close();

    assertThatThrownBy(lock::acquire).isInstanceOf(io.zklock.ZkLockException.class);

    assertThat(count("zklock.lock.failures", Tags.of("lock", "tagged"))).isEqualTo(1.0);
    assertThat(gauge("zklock.lock.pending")).isEqualTo(0.0);
  }

  @Test
  void asyncGrant_isCountedAndItsHandleTimed() throws Exception {
    LockHandle h = locks.mutex("tagged").acquireAsync().get(10, TimeUnit.SECONDS);
    h.release();

    assertThat(count("zklock.lock.grants", Tags.of("lock", "tagged"))).isEqualTo(1.0);
    assertThat(registry.get("zklock.lock.hold").tag("end", "released").timer().count())
        .isEqualTo(1);
  }

  @Test
  void sessionExpiry_whileHeld_countsALossBySessionExpired() throws Exception {
    LockHandle h = locks.mutex("tagged").acquire();

    zk.expireSession(locks.sessionId());

    h.lost().get(30, TimeUnit.SECONDS);
    await()
        .untilAsserted(
            () ->
                assertThat(count("zklock.lock.losses", Tags.of("reason", "session_expired")))
                    .isEqualTo(1.0));
    assertThat(gauge("zklock.lock.held")).isEqualTo(0.0);
    assertThat(registry.get("zklock.lock.hold").tag("end", "lost").timer().count()).isEqualTo(1);
    h.release(); // harmless after the loss, and not counted again
    assertThat(registry.find("zklock.lock.hold").tag("end", "released").timer()).isNull();
  }

  @Test
  void leasedView_leaseRunsOut_countsALossByLeaseExpired() throws Exception {
    DistributedLock leased = locks.mutex("tagged").withLease(Duration.ofMillis(300));
    LockHandle h = leased.acquire();

    LockLostException e = h.lost().get(30, TimeUnit.SECONDS);

    assertThat(e.reason()).isEqualTo(LockLostException.Reason.LEASE_EXPIRED);
    Tags tags = Tags.of("lock", "tagged", "kind", "mutex");
    await()
        .untilAsserted(
            () ->
                assertThat(count("zklock.lock.losses", tags.and("reason", "lease_expired")))
                    .as("the lease's expiry is a loss by reason lease_expired")
                    .isEqualTo(1.0));
    assertThat(count("zklock.lock.grants", tags)).isEqualTo(1.0);
    assertThat(registry.get("zklock.lock.hold").tags(tags).tag("end", "lost").timer().count())
        .isEqualTo(1);
    assertThat(gauge("zklock.lock.held")).isEqualTo(0.0);
    assertThat(other.mutex("tagged").tryAcquire(Duration.ofSeconds(5)))
        .as("the expired grant's node is gone")
        .isPresent();
    h.release(); // late and harmless: not counted as a release
    assertThat(registry.find("zklock.lock.hold").tag("end", "released").timer()).isNull();
  }

  @Test
  void leasedView_extendedAndReleased_isMeasuredLikeTheLock() throws Exception {
    DistributedLock leased = locks.mutex("tagged").withLease(Duration.ofSeconds(30));

    try (LockHandle h = leased.acquire()) {
      assertThat(h.extend(Duration.ofSeconds(30))).as("extend reaches zklock's handle").isTrue();
      assertThat(gauge("zklock.lock.held")).isEqualTo(1.0);
    }
    Lock view = leased.asLock();
    view.lock();
    view.unlock();

    Tags tags = Tags.of("lock", "tagged", "kind", "mutex");
    assertThat(count("zklock.lock.grants", tags)).isEqualTo(2.0);
    assertThat(registry.get("zklock.lock.hold").tags(tags).tag("end", "released").timer().count())
        .isEqualTo(2);
    assertThat(registry.find("zklock.lock.losses").counter()).isNull();
  }

  @Test
  void semaphoreAcquireOfSeveralPermits_isOneMeasuredGrant() throws Exception {
    io.zklock.DistributedSemaphore sem = locks.semaphore("sem", 3);

    try (LockHandle two = sem.acquire(2)) {
      assertThat(sem.tryAcquire(2)).as("only one permit left").isEmpty();
      assertThat(locks.inspect("sem")).as("inspect passes through").isPresent();
    }

    Tags tags = Tags.of("kind", "semaphore");
    assertThat(count("zklock.lock.grants", tags)).isEqualTo(1.0);
    assertThat(count("zklock.lock.timeouts", tags)).isEqualTo(1.0);
    assertThat(locks.negotiatedSessionTimeout()).isPositive();
  }

  @Test
  void lockNamesOutsideTheGuard_areTaggedOther() throws Exception {
    locks.mutex("orders/1").acquire().release();
    locks.mutex("orders/2").acquire().release();

    assertThat(count("zklock.lock.grants", Tags.of("lock", "other"))).isEqualTo(2.0);
    assertThat(registry.find("zklock.lock.grants").tag("lock", "orders/1").counter()).isNull();
  }

  @Test
  void lockView_reentrantHold_isOneGrantAndOneHold() throws Exception {
    Lock view = locks.mutex("tagged").asLock();

    view.lock();
    view.lock();
    assertThat(gauge("zklock.lock.held")).isEqualTo(1.0);
    view.unlock();
    assertThat(gauge("zklock.lock.held")).as("still held once").isEqualTo(1.0);
    view.unlock();

    assertThat(count("zklock.lock.grants", Tags.of("lock", "tagged"))).isEqualTo(1.0);
    assertThat(registry.get("zklock.lock.hold").tag("end", "released").timer().count())
        .isEqualTo(1);
    assertThat(gauge("zklock.lock.held")).isEqualTo(0.0);
    assertThatThrownBy(view::unlock).isInstanceOf(IllegalMonitorStateException.class);
  }

  @Test
  void otherKinds_areTaggedByKind() throws Exception {
    locks.readWriteLock("tagged").readLock().acquire().release();
    locks.readWriteLock("tagged").writeLock().acquire().release();
    locks.semaphore("sem", 2).acquire().release();
    locks.simpleLock("simple").acquire().release();
    locks.multiLock(locks.mutex("a"), locks.mutex("b")).acquire().release();

    for (String kind : new String[] {"read", "write", "semaphore", "simple", "multi"}) {
      assertThat(count("zklock.lock.grants", Tags.of("kind", kind))).as(kind).isEqualTo(1.0);
    }
  }

  @Test
  void sessionStateGauge_isOneForTheCurrentState() {
    assertThat(registry.get("zklock.session.state").tag("state", "connected").gauge().value())
        .isEqualTo(1.0);
    assertThat(registry.get("zklock.session.state").tag("state", "suspended").gauge().value())
        .isEqualTo(0.0);

    locks.close();

    assertThat(registry.get("zklock.session.state").tag("state", "closed").gauge().value())
        .isEqualTo(1.0);
  }

  @Test
  void heldGauge_countsConcurrentHolders() throws Exception {
    LockHandle a = locks.mutex("x").acquire();
    LockHandle b = locks.mutex("y").acquire();
    assertThat(gauge("zklock.lock.held")).isEqualTo(2.0);
    a.release();
    b.releaseAsync().get(10, TimeUnit.SECONDS);
    assertThat(gauge("zklock.lock.held")).isEqualTo(0.0);
  }

  private double count(String name, Tags tags) {
    return registry.get(name).tags(tags).counters().stream().mapToDouble(c -> c.count()).sum();
  }

  private double gauge(String name) {
    return registry.get(name).gauge().value();
  }
}
