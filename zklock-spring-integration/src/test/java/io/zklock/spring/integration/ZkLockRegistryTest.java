package io.zklock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.zklock.LockLostException;
import io.zklock.spring.integration.support.RegistryLockLostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.springframework.dao.CannotAcquireLockException;

class ZkLockRegistryTest extends TwoRegistriesSupport {
  @Test
  void obtain_sameKey_sameLock_andNonStringKeyRejected() {
    assertThat(a.obtain("k")).isSameAs(a.obtain("k"));
    assertThatThrownBy(() -> a.obtain(42))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Integer");
  }

  @Test
  void lock_isExclusiveAcrossRegistries_andReentrantForItsThread() throws Exception {
    ZkRegistryLock lock = a.obtain("k");
    lock.lock();
    lock.lock();

    assertThat(b.obtain("k").tryLock()).as("another registry (session) is excluded").isFalse();
    lock.unlock();
    assertThat(b.obtain("k").tryLock()).as("still held once").isFalse();
    lock.unlock();
    assertThat(b.obtain("k").tryLock(10, TimeUnit.SECONDS)).isTrue();
    b.obtain("k").unlock();
  }

  @Test
  void tryLock_busy_returnsFalseAtOnce() {
    ZkRegistryLock held = b.obtain("k");
    held.lock();
    try {
      long start = System.nanoTime();
      assertThat(a.obtain("k").tryLock()).isFalse();
      // one request, no waiting for the holder (Spring's ZookeeperLockRegistry waits up to 1 s)
      assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(1));
    } finally {
      held.unlock();
    }
  }

  @Test
  void lock_interruptedWhileWaiting_keepsWaitingThenKeepsTheInterrupt() throws Exception {
    ZkRegistryLock held = b.obtain("k");
    held.lock();
    AtomicReference<Boolean> interruptedWhenGranted = new AtomicReference<>();
    Thread waiter =
        new Thread(
            () -> {
              ZkRegistryLock lock = a.obtain("k");
              lock.lock();
              interruptedWhenGranted.set(Thread.currentThread().isInterrupted());
              lock.unlock();
            });
    waiter.start();
    awaitChildren("/zklock/si/k", 2);
    waiter.interrupt();
    // the waiter takes the interrupt (its flag is cleared) and waits again, or ends
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                !waiter.isInterrupted()
                    && (waiter.getState() == Thread.State.WAITING
                        || waiter.getState() == Thread.State.TERMINATED));
    assertThat(waiter.isAlive()).as("lock() is not interruptible").isTrue();
    awaitChildren("/zklock/si/k", 2); // still queued

    held.unlock();
    waiter.join(30_000);

    assertThat(interruptedWhenGranted.get()).isTrue();
  }

  @Test
  void unlock_byAnotherThread_isIllegalMonitorState() throws Exception {
    ZkRegistryLock lock = a.obtain("k");
    lock.lock();
    try {
      AtomicReference<Throwable> thrown = new AtomicReference<>();
      Thread t =
          new Thread(
              () -> {
                try {
                  lock.unlock();
                } catch (Throwable e) {
                  thrown.set(e);
                }
              });
      t.start();
      t.join();
      assertThat(thrown.get()).isInstanceOf(IllegalMonitorStateException.class);
    } finally {
      lock.unlock();
    }
  }

  @Test
  void lockInterruptibly_interrupted_throwsAndWithdrawsTheRequest() throws Exception {
    ZkRegistryLock held = b.obtain("k");
    held.lock();
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    Thread waiter =
        new Thread(
            () -> {
              try {
                a.obtain("k").lockInterruptibly();
              } catch (Throwable e) {
                thrown.set(e);
              }
            });
    waiter.start();
    awaitChildren("/zklock/si/k", 2);

    waiter.interrupt();
    waiter.join(10_000);

    assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
    awaitChildren("/zklock/si/k", 1);
    held.unlock();
  }

  @Test
  void executeLocked_twoApplicationContexts_serialise() throws Exception {
    try (TwoContexts ctx = new TwoContexts(zk.connectString(), false)) {
      AtomicInteger inside = new AtomicInteger();
      AtomicInteger maxInside = new AtomicInteger();
      int[] unsafeCounter = {0};
      ExecutorService pool = Executors.newFixedThreadPool(4);
      List<Future<?>> futures = new ArrayList<>();
      for (ZkLockRegistry registry : ctx.registries()) {
        for (int t = 0; t < 2; t++) {
          futures.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < 10; i++) {
                      registry.executeLocked(
                          "counter",
                          () -> {
                            maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            int v = unsafeCounter[0];
                            Thread.sleep(2);
                            unsafeCounter[0] = v + 1;
                            inside.decrementAndGet();
                          });
                    }
                    return null;
                  }));
        }
      }
      for (Future<?> f : futures) {
        f.get(120, TimeUnit.SECONDS);
      }
      pool.shutdown();

      assertThat(maxInside.get()).as("never two critical sections at once").isEqualTo(1);
      assertThat(unsafeCounter[0]).as("no lost update").isEqualTo(40);
    }
  }

  @Test
  void leaderInitiator_electsExactlyOne_andReelectsWhenTheLeadersSessionExpires() {
    try (TwoContexts ctx = new TwoContexts(zk.connectString(), true)) {
      await().atMost(Duration.ofSeconds(30)).until(() -> ctx.leaders() == 1);
      int leader = ctx.isLeader(0) ? 0 : 1;
      int follower = 1 - leader;
      assertThat(ctx.isLeader(follower)).isFalse();

      zk.expireSession(ctx.locks(leader).sessionId());

      await().atMost(Duration.ofSeconds(30)).until(() -> ctx.isLeader(follower));
      await()
          .atMost(Duration.ofSeconds(30))
          .alias("the old leader hears of its loss at its next heartbeat")
          .until(() -> !ctx.isLeader(leader));
      // the old leader keeps trying on its new session, but the lock is the new leader's
      long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
      while (System.nanoTime() < until) {
        assertThat(ctx.leaders()).isEqualTo(1);
        assertThat(ctx.isLeader(follower)).isTrue();
      }
    }
  }

  @Test
  void relockAfterSessionExpiry_throwsLockLost_andUnlockIsThenNotOwned() throws Exception {
    ZkRegistryLock lock = a.obtain("k");
    lock.lock();
    long session = locksA.sessionId();

    zk.expireSession(session);
    await().until(() -> locksA.sessionId() != session && locksA.sessionId() != 0);

    assertThatThrownBy(() -> lock.tryLock(1, TimeUnit.SECONDS))
        .isInstanceOf(LockLostException.class)
        .hasMessageContaining("expired");
    assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    assertThat(lock.tryLock(10, TimeUnit.SECONDS)).as("a fresh acquisition works").isTrue();
    lock.unlock();
  }

  @Test
  void unlockAfterLoss_throwsConcurrentModification_likeSpringsRegistries_withTheLossAsCause()
      throws Exception {
    ZkRegistryLock lock = a.obtain("k");
    lock.lock();
    long session = locksA.sessionId();

    zk.expireSession(session);
    await().until(() -> locksA.sessionId() != session && locksA.sessionId() != 0);

    // Spring's JDBC and Redis registries throw ConcurrentModificationException here
    assertThatThrownBy(lock::unlock)
        .isInstanceOf(ConcurrentModificationException.class)
        .isInstanceOf(RegistryLockLostException.class)
        .hasMessageContaining("released in the store")
        .cause()
        .isInstanceOf(LockLostException.class)
        .hasMessageContaining("expired");
    assertThat(lock.isLocked()).isFalse();
    assertThatThrownBy(lock::unlock)
        .as("the hold is cleared")
        .isInstanceOf(IllegalMonitorStateException.class);
  }

  @Test
  void unlockAfterLoss_ofANestedHold_onlyTheLastUnlockReportsIt() throws Exception {
    ZkRegistryLock lock = a.obtain("k");
    lock.lock();
    lock.lock();
    long session = locksA.sessionId();
    zk.expireSession(session);
    await().until(() -> locksA.sessionId() != session && locksA.sessionId() != 0);

    lock.unlock(); // the inner one only counts down
    assertThatThrownBy(lock::unlock).isInstanceOf(RegistryLockLostException.class);
  }

  @Test
  void cacheCapacity_springsDefault_andEvictionForgetsOnlyUnlockedLocks() throws Exception {
    assertThat(a.getCacheCapacity())
        .isEqualTo(100_000)
        .isEqualTo(ZkLockRegistry.DEFAULT_CACHE_CAPACITY);
    a.setCacheCapacity(3);
    ZkRegistryLock held1 = a.obtain("held-1");
    ZkRegistryLock idle = a.obtain("idle");
    ZkRegistryLock held2 = a.obtain("held-2");
    held1.lock();
    held2.lock();
    try {
      ZkRegistryLock fourth = a.obtain("fourth"); // the cache is full: the unlocked one goes

      assertThat(a.obtain("held-1"))
          .as("held: kept, though least recently obtained")
          .isSameAs(held1);
      assertThat(a.obtain("held-2")).isSameAs(held2);
      assertThat(a.obtain("fourth")).isSameAs(fourth);
      assertThat(a.obtain("idle")).as("unlocked: forgotten").isNotSameAs(idle);
    } finally {
      held1.unlock();
      held2.unlock();
    }
  }

  @Test
  void cacheCapacity_fullOfHeldLocks_obtainFailsAsSpringsRegistries() throws Exception {
    a.setCacheCapacity(2);
    ZkRegistryLock one = a.obtain("one");
    ZkRegistryLock two = a.obtain("two");
    one.lock();
    two.lock();
    try {
      assertThatThrownBy(() -> a.obtain("three"))
          .isInstanceOf(CannotAcquireLockException.class)
          .hasMessageContaining("2 unique locks");
    } finally {
      one.unlock();
      two.unlock();
    }
    assertThat(a.obtain("three")).as("room again once unlocked").isNotNull();
  }

  @Test
  void cacheCapacity_lowered_forgetsUnlockedLocksNow_andRejectsNonPositive() throws Exception {
    ZkRegistryLock held = a.obtain("held");
    ZkRegistryLock idle = a.obtain("idle");
    held.lock();
    try {
      a.setCacheCapacity(1);
      assertThat(a.obtain("held")).isSameAs(held);
      assertThat(a.toString()).doesNotContain("idle");
    } finally {
      held.unlock();
    }
    assertThat(idle.tryLock()).as("a forgotten lock object still works").isTrue();
    assertThat(b.obtain("idle").tryLock()).as("and still excludes").isFalse();
    idle.unlock();
    assertThatThrownBy(() -> a.setCacheCapacity(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void expireUnusedOlderThan_forgetsIdleLocks_keepsHeldOnes() throws Exception {
    ZkRegistryLock idle = a.obtain("idle");
    ZkRegistryLock held = a.obtain("held");
    held.lock();
    Thread.sleep(20);

    a.expireUnusedOlderThan(10);

    assertThat(a.obtain("idle")).isNotSameAs(idle);
    assertThat(a.obtain("held")).isSameAs(held);
    held.unlock();
  }

  /**
   * The handoff: a thread of registry B waits in {@code lockInterruptibly()} (its request is
   * queued: two nodes under the lock); registry A unlocks; we measure from just before A's {@code
   * unlock()} to B's return. zklock wakes B on the deletion's notification; B's one node keeps its
   * place meanwhile. (Spring's ZookeeperLockRegistry loops {@code tryLock(1 s)} over Curator's
   * mutex: each second an ungranted waiter withdraws its node and queues again at the tail.)
   */
  @Test
  void lockInterruptibly_wakesOnTheNotification_handoffLatency() throws Exception {
    int rounds = 15;
    long[] micros = new long[rounds];
    ExecutorService waiter = Executors.newSingleThreadExecutor();
    try {
      for (int i = 0; i < rounds; i++) {
        ZkRegistryLock lockA = a.obtain("handoff");
        lockA.lock();
        CountDownLatch granted = new CountDownLatch(1);
        long[] grantedAt = new long[1];
        CompletableFuture<Void> done =
            CompletableFuture.runAsync(
                () -> {
                  ZkRegistryLock lockB = b.obtain("handoff");
                  try {
                    lockB.lockInterruptibly();
                  } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                  }
                  grantedAt[0] = System.nanoTime();
                  granted.countDown();
                  lockB.unlock();
                },
                waiter);
        awaitChildren("/zklock/si/handoff", 2);
        long unlockAt = System.nanoTime();
        lockA.unlock();
        assertThat(granted.await(30, TimeUnit.SECONDS)).isTrue();
        micros[i] = (grantedAt[0] - unlockAt) / 1000;
        done.get(30, TimeUnit.SECONDS);
      }
    } finally {
      waiter.shutdownNow();
    }
    long[] sorted = micros.clone();
    Arrays.sort(sorted);
    long median = sorted[rounds / 2];
    System.out.printf(
        "zklock lockInterruptibly() handoff over %d rounds: median %.1f ms, min %.1f ms, max %.1f"
            + " ms%n",
        rounds, median / 1000.0, sorted[0] / 1000.0, sorted[rounds - 1] / 1000.0);
    // one delete and one notification on loopback; half a second would mean something polls
    assertThat(median).as("median handoff in microseconds").isLessThan(500_000);
  }

  private static void awaitChildren(String path, int n) throws Exception {
    ZooKeeper raw = new ZooKeeper(zk.connectString(), 10_000, e -> {});
    try {
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(5))
          .until(
              () -> {
                try {
                  return raw.getChildren(path, false).size() == n;
                } catch (org.apache.zookeeper.KeeperException.NoNodeException e) {
                  return false;
                }
              });
    } finally {
      raw.close();
    }
  }
}
