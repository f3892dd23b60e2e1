package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/**
 * The contract every exclusive lock kind keeps (Curator's TestInterProcessMutexBase idea): each
 * subclass supplies the lock, and all run the same cases.
 */
abstract class LockContractTest extends ZkTestSupport {

  /** The lock under test, as seen by the client {@code locks}. */
  protected abstract DistributedLock lock(ZkLocks locks, String name);

  /** The lock nodes owned by {@code client}'s current session. */
  protected List<String> nodesOf(ZkLocks client) throws Exception {
    List<String> out = new ArrayList<>();
    for (String p : lockNodes()) {
      Stat s = raw().exists(p, false);
      if (s != null && s.getEphemeralOwner() == client.sessionId()) {
        out.add(p);
      }
    }
    return out;
  }

  private void awaitNoNodesOf(ZkLocks client) {
    await("no node of the withdrawn request left")
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(nodesOf(client)).isEmpty());
  }

  /**
   * Whether {@code client}'s request is queued. By default: it has a lock node; a lock whose
   * waiters leave no node overrides this.
   */
  protected boolean isWaiting(ZkLocks client) throws Exception {
    return !nodesOf(client).isEmpty();
  }

  private void awaitWaiting(ZkLocks client) {
    await("the request is queued").atMost(Duration.ofSeconds(10)).until(() -> isWaiting(client));
  }

  @Test
  void sessions_neverHoldAtOnce_andTokensIncrease() throws Exception {
    int sessions = 4;
    int rounds = 5;
    List<DistributedLock> locks = new ArrayList<>();
    for (int i = 0; i < sessions; i++) {
      locks.add(lock(client("s-" + i), "excl"));
    }
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger maxInside = new AtomicInteger();
    AtomicLong lastToken = new AtomicLong(Long.MIN_VALUE);
    List<String> violations = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(sessions);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (DistributedLock lock : locks) {
        futures.add(
            pool.submit(
                () -> {
                  for (int r = 0; r < rounds; r++) {
                    try (LockHandle h = lock.acquire()) {
                      maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                      long prev = lastToken.getAndSet(h.fencingToken());
                      if (h.fencingToken() <= prev) {
                        violations.add("token " + h.fencingToken() + " after " + prev);
                      }
                      Thread.sleep(1);
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
    assertThat(maxInside.get()).as("never two holders at once").isEqualTo(1);
    assertThat(violations).as("fencing tokens strictly increase").isEmpty();
    awaitNoLockNodes();
  }

  @Test
  void tryAcquire_busy_returnsEmptyAndLeavesNothing_free_returnsTheHandle() throws Exception {
    LockHandle held = lock(client(), "try").acquire();
    ZkLocks other = client();

    assertThat(lock(other, "try").tryAcquire()).as("busy").isEmpty();
    awaitNoNodesOf(other);

    held.release();
    Optional<LockHandle> h = lock(other, "try").tryAcquire();
    assertThat(h).as("free").isPresent();
    assertThat(h.get().isHeld()).isTrue();
    h.get().release();
    awaitNoLockNodes();
  }

  @Test
  void tryAcquire_timeoutElapsed_returnsEmptyAndLeavesNoNode() throws Exception {
    LockHandle held = lock(client(), "timeout").acquire();
    ZkLocks other = client();

    long start = System.nanoTime();
    Optional<LockHandle> t = lock(other, "timeout").tryAcquire(Duration.ofMillis(300));

    assertThat(t).isEmpty();
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(290);
    awaitNoNodesOf(other);
    held.release();
    awaitNoLockNodes();
  }

  @Test
  void interruptedWaiter_throwsInterrupted_andWithdraws() throws Exception {
    LockHandle held = lock(client(), "interrupt").acquire();
    ZkLocks other = client();
    DistributedLock waiting = lock(other, "interrupt");
    CompletableFuture<Throwable> outcome = new CompletableFuture<>();
    Thread waiter =
        new Thread(
            () -> {
              try {
                waiting.acquire();
                outcome.complete(null);
              } catch (Throwable t) {
                outcome.complete(t);
              }
            });
    waiter.start();
    awaitWaiting(other);

    waiter.interrupt();

    assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    awaitNoNodesOf(other);
    held.release();
    awaitNoLockNodes();
  }

  @Test
  void cancelledRequest_isWithdrawn_andTheNextWaiterGetsTheLock() throws Exception {
    LockHandle held = lock(client(), "cancel").acquire();
    ZkLocks cancelling = client();
    CompletableFuture<LockHandle> cancelled = lock(cancelling, "cancel").acquireAsync();
    awaitWaiting(cancelling);
    CompletableFuture<LockHandle> next = lock(client(), "cancel").acquireAsync();

    assertThat(cancelled.cancel(true)).isTrue();
    awaitNoNodesOf(cancelling);
    held.release();

    LockHandle h = next.get(10, TimeUnit.SECONDS);
    assertThat(h.isHeld()).isTrue();
    h.release();
    awaitNoLockNodes();
  }

  @Test
  void holderSessionExpires_holderIsTold_andTheWaiterGetsTheLock() throws Exception {
    ZkLocks holder = client("holder");
    LockHandle held = lock(holder, "expiry").acquire();
    ZkLocks waiterClient = client("waiter");
    CompletableFuture<LockHandle> next = lock(waiterClient, "expiry").acquireAsync();
    awaitWaiting(waiterClient);

    server.expireSession(holder.sessionId());

    LockLostException lost = held.lost().get(10, TimeUnit.SECONDS);
    assertThat(lost.reason()).isEqualTo(LockLostException.Reason.SESSION_EXPIRED);
    assertThat(held.isHeld()).isFalse();
    LockHandle h = next.get(10, TimeUnit.SECONDS);
    assertThat(h.fencingToken()).isGreaterThan(held.fencingToken());
    held.release();
    h.release();
    awaitNoLockNodes();
  }
}
