package io.zklock.internal.recipe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.LockOptions;
import io.zklock.SessionState;
import io.zklock.ZkLockException;
import io.zklock.ZkLocks;
import io.zklock.ZkTestSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

/**
 * Cohort mutexes ({@link LockOptions#cohort()}): local handoffs in memory, the K and T bounds
 * against a waiter of another client, losses, and withdrawals that leave nothing behind.
 */
class CohortLockTest extends ZkTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private static LockOptions cohort(int k, Duration t) {
    return LockOptions.cohort().maxLocalHandoffs(k).maxLocalHold(t);
  }

  @Test
  void localWaiters_shareTheHoldersNode_andGetConsecutiveTokens() throws Exception {
    DistributedLock lock = client().mutex("share", LockOptions.cohort());
    LockHandle first = lock.acquire();
    CompletableFuture<LockHandle> second = lock.acquireAsync();
    CompletableFuture<LockHandle> third = lock.acquireAsync();
    await().atMost(WAIT).until(() -> ((CohortLock) lock).localWaiters() == 2);
    assertThat(lockNodes()).as("one node for the whole cohort").hasSize(1);
    assertThat(first.path()).contains("/c-");

    first.release();
    LockHandle h2 = second.get(10, TimeUnit.SECONDS);
    assertThat(first.isHeld()).isFalse();
    assertThat(h2.path()).as("handed over on the same node").isEqualTo(first.path());
    assertThat(h2.fencingToken()).isEqualTo(first.fencingToken() + 1);
    assertThat(third).isNotDone();
    h2.release();
    LockHandle h3 = third.get(10, TimeUnit.SECONDS);
    assertThat(h3.fencingToken()).isEqualTo(first.fencingToken() + 2);
    assertThat(lockNodes()).hasSize(1);
    h3.release();
    assertNoLockNodes(); // the last release deletes the node and returns once it is gone
  }

  @Test
  void sameNameAndOptions_oneCohort_otherOptions_refused() {
    ZkLocks locks = client();
    DistributedLock a = locks.mutex("same", LockOptions.cohort());
    assertThat(locks.mutex("same", LockOptions.cohort())).isSameAs(a);
    assertThatThrownBy(() -> locks.mutex("same", cohort(3, Duration.ofMillis(1))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("same");
    assertThatThrownBy(() -> LockOptions.cohort().maxLocalHandoffs(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> LockOptions.cohort().maxLocalHandoffs(1 << 16))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LockOptions.cohort().maxLocalHold(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT-0.001S");
  }

  @Test
  void mutualExclusion_threeClientsTimesFourThreads_tokensIncreaseInGrantOrder() throws Exception {
    int clients = 3;
    int threads = 4;
    int perThread = 40;
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger violations = new AtomicInteger();
    AtomicLong lastToken = new AtomicLong(Long.MIN_VALUE);
    List<String> errors = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(clients * threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        DistributedLock lock = client("c" + c).mutex("excl", cohort(2, Duration.ofMillis(2)));
        for (int t = 0; t < threads; t++) {
          done.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < perThread; i++) {
                      try (LockHandle h = lock.acquire()) {
                        if (inside.incrementAndGet() != 1) {
                          violations.incrementAndGet();
                        }
                        long prev = lastToken.getAndSet(h.fencingToken());
                        if (h.fencingToken() <= prev) {
                          errors.add("token " + h.fencingToken() + " after " + prev);
                        }
                        Thread.onSpinWait();
                        inside.decrementAndGet();
                      }
                    }
                    return null;
                  }));
        }
      }
      for (Future<?> f : done) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(violations.get()).as("two holders at once").isZero();
    assertThat(errors).as("fencing tokens out of grant order").isEmpty();
    awaitNoLockNodes();
  }

  /**
   * Holder 0 holds; many local requests wait; a request of another client queues behind the node.
   * Once the cohort has seen it, the lock passes through at most K more local holders, then to the
   * remote one; the rest queue again with a new node, behind it.
   */
  @Test
  void kBound_remoteWaiterGetsTheLockAfterAtMostKLocalHandoffs() throws Exception {
    int k = 3;
    DistributedLock lock = client("local").mutex("kbound", cohort(k, Duration.ofHours(1)));
    DistributedLock remote = client("remote").mutex("kbound", cohort(k, Duration.ofHours(1)));
    LockHandle first = lock.acquire();
    List<String> order = Collections.synchronizedList(new ArrayList<>());
    List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
    List<CompletableFuture<?>> all = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      int n = i;
      all.add(lock.acquireAsync().thenAccept(h -> record(order, tokens, "L" + n, h)));
    }
    await().atMost(WAIT).until(() -> ((CohortLock) lock).localWaiters() == 10);
    all.add(remote.acquireAsync().thenAccept(h -> record(order, tokens, "R", h)));
    await().atMost(WAIT).until(((CohortLock) lock)::remoteSeen);

    first.release();
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);

    assertThat(order.indexOf("R"))
        .as("local holders after the first before the remote one: %s", order)
        .isEqualTo(k);
    assertThat(order.subList(0, k)).containsExactly("L0", "L1", "L2");
    assertThat(order).hasSize(11);
    for (int i = 1; i < tokens.size(); i++) {
      assertThat(tokens.get(i)).as("token %d in %s", i, tokens).isGreaterThan(tokens.get(i - 1));
    }
    awaitNoLockNodes();
  }

  /**
   * With T = 60 ms and each local holder holding at least 25 ms, the node is given back at the
   * first release at least 60 ms after its grant: no later than the third local holder's release
   * (the first holds 25 ms after the remote waiter is seen, then two more 25 ms holds: 75 ms).
   */
  @Test
  void tBound_remoteWaiterGetsTheLockOnceTheNodeWasHeldForT() throws Exception {
    Duration t = Duration.ofMillis(60);
    DistributedLock lock = client("local").mutex("tbound", cohort(1000, t));
    DistributedLock remote = client("remote").mutex("tbound", cohort(1000, t));
    LockHandle first = lock.acquire();
    List<String> order = Collections.synchronizedList(new ArrayList<>());
    List<CompletableFuture<?>> all = new ArrayList<>();
    ExecutorService holders = Executors.newSingleThreadExecutor();
    try {
      for (int i = 0; i < 8; i++) {
        int n = i;
        all.add(
            lock.acquireAsync()
                .thenAcceptAsync(
                    h -> {
                      order.add("L" + n);
                      sleep(25);
                      h.release();
                    },
                    holders));
      }
      await().atMost(WAIT).until(() -> ((CohortLock) lock).localWaiters() == 8);
      all.add(
          remote
              .acquireAsync()
              .thenAccept(
                  h -> {
                    order.add("R");
                    h.release();
                  }));
      await().atMost(WAIT).until(((CohortLock) lock)::remoteSeen);
      sleep(25);
      first.release();
      CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    } finally {
      holders.shutdownNow();
    }
    assertThat(order.indexOf("R"))
        .as("local holders after the first, before the remote one: %s", order)
        .isBetween(0, 2);
    awaitNoLockNodes();
  }

  /**
   * A waiter of another client that queues after the listing showed nobody behind is noticed by the
   * child watch: the next release past the bound gives the node back.
   */
  @Test
  void remoteArrivesLater_childWatchNotices_boundApplies() throws Exception {
    DistributedLock lock = client("local").mutex("later", cohort(1, Duration.ofHours(1)));
    DistributedLock remote = client("remote").mutex("later", cohort(1, Duration.ofHours(1)));
    LockHandle first = lock.acquire();
    await().atMost(WAIT).until(() -> !((CohortLock) lock).remoteWaiting());
    CompletableFuture<LockHandle> l1 = lock.acquireAsync();
    CompletableFuture<LockHandle> l2 = lock.acquireAsync();
    await().atMost(WAIT).until(() -> ((CohortLock) lock).localWaiters() == 2);
    first.release();
    LockHandle h1 = l1.get(10, TimeUnit.SECONDS); // k = 1: nobody behind, no bound
    assertThat(h1.path()).isEqualTo(first.path());

    CompletableFuture<LockHandle> r = remote.acquireAsync();
    await().atMost(WAIT).until(((CohortLock) lock)::remoteWaiting);
    h1.release(); // k would be 2 > K = 1 while someone waits: the node goes back

    LockHandle rh = r.get(10, TimeUnit.SECONDS);
    assertThat(l2).as("queued again behind the remote waiter").isNotDone();
    rh.release();
    LockHandle h2 = l2.get(10, TimeUnit.SECONDS);
    assertThat(h2.path()).isNotEqualTo(first.path());
    assertThat(h2.fencingToken()).isGreaterThan(rh.fencingToken());
    h2.release();
    assertNoLockNodes();
  }

  @Test
  void noRemoteWaiter_noBound_localHandoffsGoOnOnOneNode() throws Exception {
    DistributedLock lock = client().mutex("free", cohort(0, Duration.ZERO));
    LockHandle h = lock.acquire();
    await("the listing after the grant shows nobody behind")
        .atMost(WAIT)
        .until(() -> !((CohortLock) lock).remoteWaiting());
    String path = h.path();
    for (int i = 0; i < 5; i++) {
      CompletableFuture<LockHandle> next = lock.acquireAsync();
      await().atMost(WAIT).until(() -> ((CohortLock) lock).localWaiters() == 1);
      h.release();
      h = next.get(10, TimeUnit.SECONDS);
      assertThat(h.path()).isEqualTo(path);
    }
    h.release();
    assertNoLockNodes();
  }

  @Test
  void sessionExpires_whileALocalHolderHolds_holderIsTold_localWaiterQueuesAgain()
      throws Exception {
    ZkLocks local = client("local");
    DistributedLock lock = local.mutex("expire", LockOptions.cohort());
    LockHandle held = lock.acquire();
    CompletableFuture<LockHandle> localWaiter = lock.acquireAsync();
    CompletableFuture<LockHandle> remoteWaiter =
        client("remote").mutex("expire", LockOptions.cohort()).acquireAsync();
    await().atMost(WAIT).until(() -> lockNodes().size() == 2);
    long oldSession = local.sessionId();

    server.expireSession(oldSession);

    LockLostException lost = held.lost().get(10, TimeUnit.SECONDS);
    assertThat(lost.reason()).isEqualTo(LockLostException.Reason.SESSION_EXPIRED);
    assertThat(held.isHeld()).isFalse();
    LockHandle r = remoteWaiter.get(10, TimeUnit.SECONDS);
    assertThat(r.fencingToken()).isGreaterThan(held.fencingToken());
    await()
        .atMost(WAIT)
        .until(
            () ->
                local.sessionState() == SessionState.CONNECTED && local.sessionId() != oldSession);
    await().atMost(WAIT).until(() -> lockNodes().size() == 2); // queued again, on the new session
    assertThat(localWaiter).as("waits behind the remote holder").isNotDone();
    r.release();
    LockHandle l = localWaiter.get(10, TimeUnit.SECONDS);
    assertThat(l.fencingToken()).isGreaterThan(r.fencingToken());
    assertThat(l.lost()).isNotDone();
    held.release(); // harmless after the loss
    l.release();
    assertNoLockNodes();
  }

  @Test
  void sessionExpires_whileLocalWaitersWait_theyQueueAgain_andAPassedDeadlineTimesOut()
      throws Exception {
    LockHandle remoteHeld = client("remote").mutex("wexp", LockOptions.cohort()).acquire();
    ZkLocks local = client("local");
    DistributedLock lock = local.mutex("wexp", LockOptions.cohort());
    CompletableFuture<LockHandle> patient = lock.acquireAsync();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<Optional<LockHandle>> hurried =
          pool.submit(() -> lock.tryAcquire(Duration.ofSeconds(2)));
      await().atMost(WAIT).until(() -> lockNodes().size() == 2);
      long oldSession = local.sessionId();
      server.expireSession(oldSession);
      await()
          .atMost(WAIT)
          .until(
              () ->
                  local.sessionState() == SessionState.CONNECTED
                      && local.sessionId() != oldSession);
      await().atMost(WAIT).until(() -> lockNodes().size() == 2);
      assertThat(hurried.get(20, TimeUnit.SECONDS)).as("its deadline passed").isEmpty();
      assertThat(patient).isNotDone();
      remoteHeld.release();
      LockHandle h = patient.get(10, TimeUnit.SECONDS);
      assertThat(h.fencingToken()).isGreaterThan(remoteHeld.fencingToken());
      h.release();
    } finally {
      pool.shutdownNow();
    }
    assertNoLockNodes();
  }

  @Test
  void localWaiters_timeoutInterruptCancel_leaveNothingBehind() throws Exception {
    DistributedLock lock = client().mutex("withdraw", LockOptions.cohort());
    LockHandle held = lock.acquire();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      assertThat(lock.tryAcquire(Duration.ofMillis(100))).as("timed out").isEmpty();
      assertThat(lock.tryAcquire()).as("busy at once").isEmpty();
      CountDownLatch started = new CountDownLatch(1);
      Future<Object> interrupted =
          pool.submit(
              () -> {
                started.countDown();
                try {
                  return lock.acquire();
                } catch (InterruptedException e) {
                  return e;
                }
              });
      started.await();
      await().atMost(WAIT).until(() -> ((CohortLock) lock).localWaiters() == 1);
      interrupted.cancel(true);
      await().atMost(WAIT).until(() -> ((CohortLock) lock).localWaiters() == 0);
      CompletableFuture<LockHandle> cancelled = lock.acquireAsync();
      await().atMost(WAIT).until(() -> ((CohortLock) lock).localWaiters() == 1);
      cancelled.cancel(true);
      assertThat(((CohortLock) lock).localWaiters()).isZero();
      assertThat(lockNodes()).hasSize(1);
    } finally {
      pool.shutdownNow();
    }
    held.release();
    assertNoLockNodes();
  }

  @Test
  void onlyLocalWaiter_timesOutWhileTheNodeQueues_nodeIsWithdrawn() throws Exception {
    LockHandle remoteHeld = client("remote").mutex("pending", LockOptions.cohort()).acquire();
    DistributedLock lock = client("local").mutex("pending", LockOptions.cohort());
    assertThat(lock.tryAcquire(Duration.ofMillis(300))).isEmpty();
    CompletableFuture<LockHandle> cancelled = lock.acquireAsync();
    await().atMost(WAIT).until(() -> lockNodes().size() == 2);
    cancelled.cancel(true);
    await().atMost(WAIT).until(() -> lockNodes().size() == 1);
    assertThat(lock.tryAcquire()).as("the remote client holds").isEmpty();
    assertThat(lockNodes()).hasSize(1);
    remoteHeld.release();
    assertNoLockNodes();
  }

  @Test
  void asLock_isReentrantPerThread_onTopOfTheCohort() throws Exception {
    DistributedLock lock = client().mutex("reent", LockOptions.cohort());
    Lock j = lock.asLock();
    j.lock();
    j.lock();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<Boolean> other = pool.submit(() -> j.tryLock(100, TimeUnit.MILLISECONDS));
      assertThat(other.get(10, TimeUnit.SECONDS)).as("another thread waits").isFalse();
      j.unlock();
      assertThat(pool.submit(() -> j.tryLock()).get(10, TimeUnit.SECONDS)).isFalse();
      j.unlock();
      Future<Boolean> after =
          pool.submit(
              () -> {
                boolean got = j.tryLock(5, TimeUnit.SECONDS);
                j.unlock();
                return got;
              });
      assertThat(after.get(10, TimeUnit.SECONDS)).isTrue();
    } finally {
      pool.shutdownNow();
    }
    assertThatThrownBy(j::unlock).isInstanceOf(IllegalMonitorStateException.class);
    assertNoLockNodes();
  }

  @Test
  void plainMutexOfTheSameName_stillExcluded() throws Exception {
    ZkLocks locks = client();
    LockHandle c = locks.mutex("mixed", LockOptions.cohort()).acquire();
    DistributedLock plain = client().mutex("mixed");
    assertThat(plain.tryAcquire()).isEmpty();
    c.release();
    try (LockHandle p = plain.acquire()) {
      assertThat(locks.mutex("mixed", LockOptions.cohort()).tryAcquire()).isEmpty();
    }
    assertNoLockNodes();
  }

  @Test
  void close_failsLocalWaiters_andTellsTheHolder() throws Exception {
    ZkLocks locks = client();
    DistributedLock lock = locks.mutex("close", LockOptions.cohort());
    LockHandle held = lock.acquire();
    CompletableFuture<LockHandle> waiting = lock.acquireAsync();
    await().atMost(WAIT).until(() -> ((CohortLock) lock).localWaiters() == 1);
    locks.close();
    assertThat(held.lost().get(10, TimeUnit.SECONDS).reason())
        .isEqualTo(LockLostException.Reason.CLOSED);
    assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(ZkLockException.class);
    awaitNoLockNodes();
  }

  private static void record(List<String> order, List<Long> tokens, String who, LockHandle h) {
    order.add(who);
    tokens.add(h.fencingToken());
    h.releaseAsync();
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
