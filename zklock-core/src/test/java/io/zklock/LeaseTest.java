package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link DistributedLock#withLease} and {@link LockHandle#extend}. */
class LeaseTest extends ZkTestSupport {

  @Test
  void stuckHolder_leaseRunsOut_holderHearsLeaseExpired_nextWaiterGranted_tokensRise()
      throws Exception {
    Duration lease = Duration.ofMillis(500);
    DistributedLock leased = client("stuck").mutex("job").withLease(lease);
    CompletableFuture<LockHandle> stuckHandle = new CompletableFuture<>();
    CountDownLatch never = new CountDownLatch(1);
    long before = System.nanoTime(); // before the grant, so before the lease starts
    Thread stuck =
        new Thread(
            () -> {
              try {
                LockHandle h = leased.acquire();
                stuckHandle.complete(h);
                never.await(); // a critical section that never ends
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "stuck-holder");
    stuck.start();
    try {
      LockHandle h = stuckHandle.get(10, TimeUnit.SECONDS);
      CompletableFuture<LockHandle> next = client("next").mutex("job").acquireAsync();

      LockLostException lost = h.lost().get(10, TimeUnit.SECONDS);
      LockHandle got = next.get(10, TimeUnit.SECONDS);
      long elapsed = System.nanoTime() - before;

      assertThat(lost.reason()).isEqualTo(LockLostException.Reason.LEASE_EXPIRED);
      assertThat(lost.path()).isEqualTo(h.path());
      assertThat(lost.getMessage()).contains("lease");
      assertThat(h.isHeld()).isFalse();
      assertThat(stuck.isAlive()).as("the holder's thread is still stuck").isTrue();
      assertThat(got.fencingToken()).isGreaterThan(h.fencingToken());
      assertThat(elapsed)
          .as("the waiter is granted only after the lease ran out")
          .isGreaterThanOrEqualTo(lease.toNanos());
      assertThat(h.extend(Duration.ofSeconds(5))).as("too late to extend").isFalse();
      h.release(); // harmless after the expiry
      got.release();
      awaitNoLockNodes();
    } finally {
      stuck.interrupt();
      stuck.join(10_000);
    }
  }

  @Test
  void extendBeforeExpiry_keepsTheLock_wellPastTheFirstLease() throws Exception {
    Duration lease = Duration.ofSeconds(1);
    ZkLocks holder = client("holder");
    LockHandle h = holder.mutex("job").withLease(lease).acquire();
    // a witness on the same client's timer: a grant with three times the lease, never extended;
    // when it runs out, three of the holder's leases have passed
    LockHandle witness = holder.mutex("witness").withLease(lease.multipliedBy(3)).acquire();
    CompletableFuture<LockHandle> next = client("next").mutex("job").acquireAsync();
    ScheduledExecutorService heartbeat = Executors.newSingleThreadScheduledExecutor();
    try {
      // a heartbeat ten times as often as the lease: only a stall of ~1 s could miss it
      heartbeat.scheduleAtFixedRate(() -> h.extend(lease), 100, 100, TimeUnit.MILLISECONDS);
      assertThat(witness.lost().get(20, TimeUnit.SECONDS).reason())
          .isEqualTo(LockLostException.Reason.LEASE_EXPIRED);
      assertThat(h.isHeld()).as("extended, so still held after three leases").isTrue();
      assertThat(h.lost()).isNotDone();
      assertThat(next).isNotDone();
    } finally {
      heartbeat.shutdownNow();
      heartbeat.awaitTermination(10, TimeUnit.SECONDS);
    }
    assertThat(h.extend(Duration.ofSeconds(30))).isTrue();
    h.release();
    next.get(10, TimeUnit.SECONDS).release();
    assertThat(h.lost()).as("released, never lost").isNotDone();
  }

  @Test
  void releasedBeforeExpiry_neverLost() throws Exception {
    ZkLocks locks = client();
    LockHandle h = locks.simpleLock("job").withLease(Duration.ofMillis(200)).acquire();
    h.release();
    // a witness on the same timer, three times the lease: when it runs out, an expiry of the
    // released grant would have come
    LockHandle witness = locks.simpleLock("witness").withLease(Duration.ofMillis(600)).acquire();
    assertThat(witness.lost().get(20, TimeUnit.SECONDS).reason())
        .isEqualTo(LockLostException.Reason.LEASE_EXPIRED);
    assertThat(h.lost()).isNotDone();
    assertThat(h.extend(Duration.ofSeconds(1))).isFalse();
  }

  @Test
  void lostBeforeTheLeaseRunsOut_keepsTheRealReason() throws Exception {
    LockHandle h = client().mutex("job").withLease(Duration.ofSeconds(30)).acquire();
    client("operator").forceRelease("job");
    assertThat(h.lost().get(10, TimeUnit.SECONDS).reason())
        .isEqualTo(LockLostException.Reason.NODE_DELETED);
    assertThat(h.extend(Duration.ofSeconds(1))).isFalse();
  }

  @Test
  void everyKindOfLock_hasLeases_readSideAndMultiLockToo() throws Exception {
    ZkLocks c = client();
    ReadWriteLock rw = c.readWriteLock("rw");
    for (DistributedLock lock :
        new DistributedLock[] {
          rw.readLock().withLease(Duration.ofMillis(300)),
          c.multiLock(c.mutex("a"), c.mutex("b")).withLease(Duration.ofMillis(300)),
          c.mutex("m").withLease(Duration.ofSeconds(60)).withLease(Duration.ofMillis(300))
        }) {
      LockHandle h = lock.tryAcquire(Duration.ofSeconds(10)).orElseThrow();
      assertThat(h.lost().get(10, TimeUnit.SECONDS).reason())
          .as(lock.toString())
          .isEqualTo(LockLostException.Reason.LEASE_EXPIRED);
    }
    awaitNoLockNodes();
  }

  @Test
  void badLeases_andGrantsWithoutALease_areRefused() throws Exception {
    ZkLocks c = client();
    DistributedLock m = c.mutex("job");
    assertThatThrownBy(() -> m.withLease(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lease");
    assertThatThrownBy(() -> m.withLease(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class);
    LockHandle plain = m.acquire();
    assertThatThrownBy(() -> plain.extend(Duration.ofSeconds(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no lease");
    plain.release();
    LockHandle leased = m.withLease(Duration.ofSeconds(30)).acquire();
    assertThatThrownBy(() -> leased.extend(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    leased.release();
  }
}
