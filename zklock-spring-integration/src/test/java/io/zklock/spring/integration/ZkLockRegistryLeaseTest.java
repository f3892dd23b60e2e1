package io.zklock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.zklock.LockLostException;
import io.zklock.spring.integration.support.RegistryLockLostException;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * {@link ZkLockRegistry} as Spring's {@code RenewableLockRegistry}: holds with a time to live (a
 * zklock lease), renewed or not, on two registries (two sessions) of one embedded server.
 *
 * <p>Timing: a lease is kept by a timer in the holder's process, counted from the grant; a renewal
 * is an in-memory call. Tests that renew do so every quarter of the time to live or more often, so
 * a renewal may be late by three quarters of it (at least 750 ms here) before the test could fail.
 */
class ZkLockRegistryLeaseTest extends TwoRegistriesSupport {
  @Test
  void renewLock_keepsTheLockPastTheOriginalTimeToLive() throws Exception {
    Duration ttl = Duration.ofSeconds(1);
    a.setTimeToLive(ttl);
    ZkRegistryLock lock = a.obtain("k");
    lock.lock();

    // renew every 250 ms until a witness taken after it with the same time to live, never
    // renewed, has run out: the original time to live is over
    ZkRegistryLock witness = a.obtain("w1");
    witness.lock();
    while (!b.obtain("w1").tryLock(250, TimeUnit.MILLISECONDS)) {
      a.renewLock("k");
    }
    assertThat(b.obtain("k").tryLock()).as("still held: the renewals kept it").isFalse();
    // a renewal with its own time to live, longer than the registry's, outlives a second witness
    a.renewLock("k", Duration.ofSeconds(30));
    a.obtain("w2").lock();
    assertThat(b.obtain("w2").tryLock(20, TimeUnit.SECONDS)).isTrue();
    assertThat(b.obtain("k").tryLock()).as("held past the registry's time to live").isFalse();

    lock.unlock(); // no loss to report
    assertThat(b.obtain("k").tryLock(10, TimeUnit.SECONDS)).isTrue();
    b.obtain("k").unlock();
  }

  @Test
  void withoutRenewal_theLeaseRunsOut_anotherRegistryGetsIt_andUnlockReportsTheLoss()
      throws Exception {
    Duration ttl = Duration.ofMillis(500);
    a.setTimeToLive(ttl);
    ZkRegistryLock stuck = a.obtain("k");
    // before the grant, so before the lease starts: the lease runs from the grant, which comes
    // before lock() returns (read after it, the clock could start up to that gap too late)
    long beforeLock = System.nanoTime();
    stuck.lock();

    ZkRegistryLock other = b.obtain("k");
    assertThat(other.tryLock(20, TimeUnit.SECONDS)).as("granted once the lease ran out").isTrue();
    long waited = System.nanoTime() - beforeLock;
    System.out.printf(
        "ZkLockRegistry: a holder that never unlocks (session healthy), time to live %d ms: the"
            + " other registry's tryLock returned %d ms after the holder's lock() was called%n",
        ttl.toMillis(), TimeUnit.NANOSECONDS.toMillis(waited));

    assertThat(waited).as("not before the time to live").isGreaterThanOrEqualTo(ttl.toNanos());
    assertThatThrownBy(stuck::unlock)
        .isInstanceOf(
            ConcurrentModificationException.class) // as Spring's JDBC and Redis registries
        .isInstanceOf(RegistryLockLostException.class)
        .satisfies(
            e ->
                assertThat(((RegistryLockLostException) e).lockLost().reason())
                    .isEqualTo(LockLostException.Reason.LEASE_EXPIRED))
        .cause()
        .isInstanceOf(LockLostException.class);
    assertThat(stuck.isLocked()).isFalse();
    other.unlock();
  }

  @Test
  void withoutRenewal_relockReportsTheLoss_andTheThreadNoLongerOwnsIt() throws Exception {
    a.setTimeToLive(Duration.ofMillis(500));
    ZkRegistryLock stuck = a.obtain("k");
    stuck.lock();
    ZkRegistryLock other = b.obtain("k");
    assertThat(other.tryLock(20, TimeUnit.SECONDS)).isTrue();

    assertThatThrownBy(stuck::lock)
        .isInstanceOf(LockLostException.class)
        .hasMessageContaining("lease");
    assertThatThrownBy(stuck::unlock)
        .as("the lost hold was cleared")
        .isInstanceOf(IllegalMonitorStateException.class)
        .isNotInstanceOf(LockLostException.class);
    other.unlock();
    assertThat(stuck.tryLock(10, TimeUnit.SECONDS)).as("a fresh acquisition works").isTrue();
    stuck.unlock();
  }

  @Test
  void renewLock_afterTheLeaseRanOut_throwsLockLost_andUnlockReportsItToo() throws Exception {
    a.setTimeToLive(Duration.ofMillis(300));
    ZkRegistryLock stuck = a.obtain("k");
    stuck.lock();
    assertThat(b.obtain("k").tryLock(20, TimeUnit.SECONDS)).isTrue();

    assertThatThrownBy(() -> a.renewLock("k"))
        .isInstanceOf(LockLostException.class)
        .satisfies(
            e ->
                assertThat(((LockLostException) e).reason())
                    .isEqualTo(LockLostException.Reason.LEASE_EXPIRED));
    assertThatThrownBy(stuck::unlock).isInstanceOf(RegistryLockLostException.class);
    b.obtain("k").unlock();
  }

  @Test
  void renewLock_whenTheCurrentThreadDoesNotHoldIt_throwsIllegalMonitorState() throws Exception {
    a.setTimeToLive(Duration.ofSeconds(30));
    ZkRegistryLock lock = a.obtain("k");
    CountDownLatch locked = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(1);
    CompletableFuture<Void> holder =
        CompletableFuture.runAsync(
            () -> {
              lock.lock();
              locked.countDown();
              try {
                done.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              lock.unlock();
            });
    assertThat(locked.await(10, TimeUnit.SECONDS)).isTrue();

    assertThatThrownBy(() -> a.renewLock("k"))
        .isInstanceOf(IllegalMonitorStateException.class)
        .isNotInstanceOf(LockLostException.class)
        .hasMessageContaining("si/k");
    done.countDown();
    holder.get(10, TimeUnit.SECONDS);
    assertThatThrownBy(() -> a.renewLock("k"))
        .as("unlocked")
        .isInstanceOf(IllegalMonitorStateException.class);
  }

  @Test
  void renewLock_unknownKey_orAHoldWithoutTimeToLive_isIllegalState() {
    assertThatThrownBy(() -> a.renewLock("never-obtained"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("never-obtained");

    ZkRegistryLock lock = a.obtain("k"); // the registry has no time to live
    lock.lock();
    try {
      assertThatThrownBy(() -> a.renewLock("k"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("no time to live");
    } finally {
      lock.unlock();
    }
    assertThatThrownBy(() -> a.setTimeToLive(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT0S");
    assertThatThrownBy(() -> a.renewLock("k", Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void perCallTimeToLive_onARegistryWithout_runsOutLikeTheRegistrysOwn() throws Exception {
    ZkRegistryLock plain = a.obtain("p");
    plain.lock(); // no time to live: held however long, past both 300 ms holds below

    ZkRegistryLock lock = a.obtain("k");
    lock.lock(Duration.ofMillis(300));
    assertThat(b.obtain("k").tryLock(20, TimeUnit.SECONDS)).isTrue();
    assertThatThrownBy(lock::unlock).isInstanceOf(RegistryLockLostException.class);
    b.obtain("k").unlock();

    ZkRegistryLock timed = a.obtain("t");
    assertThat(timed.tryLock(Duration.ofSeconds(5), Duration.ofMillis(300))).isTrue();
    assertThat(b.obtain("t").tryLock(20, TimeUnit.SECONDS)).isTrue();
    assertThatThrownBy(timed::unlock).isInstanceOf(RegistryLockLostException.class);
    b.obtain("t").unlock();

    assertThat(b.obtain("p").tryLock()).isFalse();
    plain.unlock();
  }

  @Test
  void reentrantTryLock_renewsTheTimeToLive() throws Exception {
    Duration ttl = Duration.ofSeconds(1);
    a.setTimeToLive(ttl);
    ZkRegistryLock lock = a.obtain("k");
    lock.lock();

    // re-lock every 250 ms until a witness taken after it with the same time to live, never
    // renewed, has run out: the original time to live is over
    a.obtain("w").lock();
    int holds = 1;
    while (!b.obtain("w").tryLock(250, TimeUnit.MILLISECONDS)) {
      assertThat(lock.tryLock()).isTrue();
      holds++;
    }

    assertThat(b.obtain("k").tryLock()).as("the re-locks renewed it").isFalse();
    for (int i = 0; i < holds; i++) {
      lock.unlock();
    }
    assertThat(b.obtain("k").tryLock(10, TimeUnit.SECONDS)).isTrue();
    b.obtain("k").unlock();
  }

  @Test
  void renewalTaskScheduler_keepsAHoldPastItsTimeToLive_untilUnlocked() throws Exception {
    ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
    scheduler.initialize();
    try {
      Duration ttl = Duration.ofSeconds(1); // renewed every 333 ms: 667 ms of slack
      a.setTimeToLive(ttl);
      a.setRenewalTaskScheduler(scheduler);
      ZkRegistryLock lock = a.obtain("k");
      lock.lock();

      // a witness of the other registry, taken after it with the same time to live and never
      // renewed, runs out: the original time to live is over
      b.setTimeToLive(ttl);
      b.obtain("w").lock();
      assertThat(a.obtain("w").tryLock(20, TimeUnit.SECONDS)).isTrue();
      a.obtain("w").unlock();

      assertThat(b.obtain("k").tryLock()).as("renewed by the scheduler").isFalse();
      lock.unlock(); // no loss to report
      assertThat(b.obtain("k").tryLock(10, TimeUnit.SECONDS)).isTrue();
      b.obtain("k").unlock();
    } finally {
      scheduler.shutdown();
    }
  }

  @Test
  void leaderInitiator_onARegistryWithATimeToLive_keepsLeadingPastIt() throws Exception {
    a.setTimeToLive(Duration.ofSeconds(1));
    b.setTimeToLive(Duration.ofSeconds(1));
    LockRegistryLeaderInitiator first = initiator(a, "a");
    LockRegistryLeaderInitiator second = initiator(b, "b");
    first.start();
    second.start();
    try {
      await().atMost(Duration.ofSeconds(30)).until(() -> leaders(first, second) == 1);
      LockRegistryLeaderInitiator leader = first.getContext().isLeader() ? first : second;

      // the heartbeat (200 ms) re-locks, which renews: leadership outlives the time to live,
      // checked every 50 ms until a witness taken after the election with the same time to live,
      // never renewed, has run out
      ZkLockRegistry mine = leader == first ? a : b;
      ZkLockRegistry others = leader == first ? b : a;
      mine.obtain("w").lock();
      await()
          .atMost(Duration.ofSeconds(20))
          .pollInterval(Duration.ofMillis(50))
          .until(
              () -> {
                assertThat(leaders(first, second)).isEqualTo(1);
                assertThat(leader.getContext().isLeader()).as("the same leader").isTrue();
                return others.obtain("w").tryLock();
              });
    } finally {
      first.stop();
      second.stop();
    }
  }

  private static LockRegistryLeaderInitiator initiator(ZkLockRegistry registry, String id) {
    LockRegistryLeaderInitiator initiator =
        new LockRegistryLeaderInitiator(registry, new DefaultCandidate(id, "scheduler"));
    initiator.setHeartBeatMillis(200);
    initiator.setBusyWaitMillis(50);
    return initiator;
  }

  private static int leaders(LockRegistryLeaderInitiator x, LockRegistryLeaderInitiator y) {
    return (x.getContext().isLeader() ? 1 : 0) + (y.getContext().isLeader() ? 1 : 0);
  }
}
