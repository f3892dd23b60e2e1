package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/**
 * The contract every lock kind keeps (Curator's TestInterProcessMutexBase idea): each subclass
 * supplies the lock, and all run the same cases.
 *
 * <p>The lock under test is {@link #lock}; the lock that keeps it waiting, or that it keeps
 * waiting, is {@link #conflicting} (the same kind for an exclusive lock, the write side for the
 * read side of a read-write lock). So every case says "a holder of one excludes the other", which
 * holds for shared locks too.
 */
abstract class LockContractTest extends ZkTestSupport {

  /** The lock under test, as seen by the client {@code locks}. */
  protected abstract DistributedLock lock(ZkLocks locks, String name);

  /**
   * A lock of the same name that cannot be held while {@link #lock} is held, nor while another lock
   * returned by this method is: it holds while {@link #lock} must wait, and waits while {@link
   * #lock} holds. By default {@link #lock} itself (an exclusive lock excludes its own kind); a
   * shared lock answers with what excludes it.
   */
  protected DistributedLock conflicting(ZkLocks locks, String name) {
    return lock(locks, name);
  }

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

  /**
   * Contenders in {@link #sessions_neverHoldAtOnce_andTokensIncrease}, each on its own session. A
   * subclass may ask for more.
   */
  protected int sessions() {
    return 4;
  }

  /** An await that looks at once and then often: most conditions here hold within a round trip. */
  private static org.awaitility.core.ConditionFactory soon(String what) {
    return await(what)
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(20))
        .atMost(Duration.ofSeconds(10));
  }

  /** Waits until no lock node is left under the namespace (background deletes take a moment). */
  private void awaitNoNodesLeft() {
    await("no lock nodes left")
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(20))
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(this::assertNoLockNodes);
  }

  private void awaitNoNodesOf(ZkLocks client) {
    soon("no node of the withdrawn request left")
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
    soon("the request is queued").until(() -> isWaiting(client));
  }

  /** Asserts that the node of {@code h} is gone now: release() returns after the deletion. */
  private void assertNodeGone(LockHandle h) throws Exception {
    assertThat(raw().exists(h.path(), false))
        .as("the node %s is deleted once release() returns", h.path())
        .isNull();
  }

  /** Whether {@code t} is one of ZooKeeper's client threads (its event or its send thread). */
  private static boolean isZooKeeperThread(Thread t) {
    return t.getName().contains("EventThread") || t.getName().contains("SendThread");
  }

  // ------------------------------------------------------------------ exclusion and fencing

  @Test
  void sessions_neverHoldAtOnce_andTokensIncrease() throws Exception {
    int sessions = sessions();
    int rounds = 5;
    List<DistributedLock> locks = new ArrayList<>();
    locks.add(lock(client("s-0"), "excl"));
    for (int i = 1; i < sessions; i++) {
      locks.add(conflicting(client("s-" + i), "excl"));
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
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(maxInside.get()).as("never two holders at once").isEqualTo(1);
    assertThat(violations).as("fencing tokens strictly increase across holders").isEmpty();
    awaitNoNodesLeft();
  }

  // ------------------------------------------------------------------ tryAcquire

  @Test
  void tryAcquire_busy_returnsEmptyAndLeavesNothing_free_returnsTheHandle() throws Exception {
    LockHandle held = conflicting(client(), "try").acquire();
    List<String> before = lockNodes();
    ZkLocks other = client();
    DistributedLock lock = lock(other, "try");

    assertThat(lock.tryAcquire()).as("busy").isEmpty();
    awaitNoNodesOf(other);
    assertThat(held.isHeld()).as("the holder is not disturbed").isTrue();
    assertThat(lockNodes()).as("only the holder's nodes").hasSameElementsAs(before);

    held.release();
    assertNodeGone(held);
    Optional<LockHandle> h = lock.tryAcquire();
    assertThat(h).as("free again, through the same instance").isPresent();
    assertThat(h.get().isHeld()).isTrue();
    h.get().release();
    assertNodeGone(h.get());
    awaitNoNodesLeft();
  }

  @Test
  void tryAcquire_timeoutElapsed_returnsEmptyAndLeavesNoNode() throws Exception {
    LockHandle held = conflicting(client(), "timeout").acquire();
    List<String> before = lockNodes();
    ZkLocks other = client();

    long start = System.nanoTime();
    Optional<LockHandle> t = lock(other, "timeout").tryAcquire(Duration.ofMillis(300));
    long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    assertThat(t).isEmpty();
    assertThat(waitedMs).as("waited about the timeout").isGreaterThanOrEqualTo(290);
    awaitNoNodesOf(other);
    assertThat(held.isHeld()).as("the holder is not disturbed").isTrue();
    assertThat(lockNodes()).as("only the holder's nodes").hasSameElementsAs(before);
    held.release();
    awaitNoNodesLeft();
  }

  @Test
  void tryAcquire_zeroTimeout_behavesLikeTryAcquire() throws Exception {
    // Given a free lock: a zero timeout takes it
    ZkLocks first = client();
    Optional<LockHandle> h = lock(first, "zero").tryAcquire(Duration.ZERO);
    assertThat(h).as("free").isPresent();
    assertThat(h.get().isHeld()).isTrue();
    ZkLocks other = client();

    // When another asks with a zero timeout while it is held (the holder never lets go here, so
    // an answer proves it did not wait for the holder)
    CompletableFuture<Optional<LockHandle>> busy =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return conflicting(other, "zero").tryAcquire(Duration.ZERO);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });

    // Then it answers empty without waiting, and leaves no node behind
    assertThat(busy.get(10, TimeUnit.SECONDS)).as("busy").isEmpty();
    awaitNoNodesOf(other);
    assertThat(h.get().isHeld()).isTrue();
    h.get().release();
    awaitNoNodesLeft();
  }

  @Test
  void tryAcquire_negativeTimeout_throwsIllegalArgumentNamingTheValue_andLeavesNoNode()
      throws Exception {
    LockHandle held = conflicting(client(), "negative").acquire();
    List<String> before = lockNodes();
    ZkLocks other = client();
    DistributedLock lock = lock(other, "negative");

    // As documented on DistributedLock#tryAcquire(Duration): a negative timeout is refused
    // before any request is made (the JDK's Lock treats it as zero; zklock names the bad value)
    assertThatThrownBy(() -> lock.tryAcquire(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-0.001");
    assertThatThrownBy(() -> lock.tryAcquire(Duration.ofDays(-3)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-72");

    assertThat(nodesOf(other)).as("no request was made").isEmpty();
    assertThat(lockNodes()).hasSameElementsAs(before);
    assertThat(held.isHeld()).isTrue();
    held.release();
    Optional<LockHandle> h = lock.tryAcquire(Duration.ZERO);
    assertThat(h).as("the instance still works").isPresent();
    h.get().release();
    awaitNoNodesLeft();
  }

  @Test
  void tryAcquire_timeoutTooLarge_throwsIllegalArgument_andLeavesNoNode() throws Exception {
    ZkLocks locks = client();
    DistributedLock lock = lock(locks, "huge");

    assertThatThrownBy(() -> lock.tryAcquire(Duration.ofSeconds(Long.MAX_VALUE)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("too large");
    assertThatThrownBy(() -> lock.tryAcquire(null)).isInstanceOf(NullPointerException.class);

    assertThat(nodesOf(locks)).as("no request was made").isEmpty();
  }

  // ------------------------------------------------------------------ release

  @Test
  void release_twice_isHarmless_andCloseIsRelease() throws Exception {
    ZkLocks locks = client();
    DistributedLock lock = lock(locks, "twice");
    LockHandle h = lock.acquire();

    h.release();
    assertNodeGone(h);
    h.release();
    h.close();
    h.releaseAsync().get(5, TimeUnit.SECONDS);

    assertThat(h.isHeld()).isFalse();
    assertThat(h.lost()).as("a released handle is not lost").isNotDone();
    try (LockHandle h2 = lock.acquire()) {
      assertThat(h2.isHeld()).isTrue();
    }
    assertThat(h.isHeld()).as("releasing twice did not touch the next grant").isFalse();
    awaitNoNodesLeft();
  }

  @Test
  void release_fromAnotherThread_releasesTheLock() throws Exception {
    // Given a handle acquired on this thread
    ZkLocks locks = client();
    LockHandle h = lock(locks, "thread").acquire();
    Thread acquirer = Thread.currentThread();

    // When another thread releases it (a handle, not a thread, owns the grant)
    CompletableFuture<Thread> releasedOn = new CompletableFuture<>();
    new Thread(
            () -> {
              try {
                h.release();
                releasedOn.complete(Thread.currentThread());
              } catch (Throwable e) {
                releasedOn.completeExceptionally(e);
              }
            })
        .start();

    // Then it is released: the node is gone, the handle is not held and not lost
    assertThat(releasedOn.get(10, TimeUnit.SECONDS)).isNotSameAs(acquirer);
    assertNodeGone(h);
    assertThat(h.isHeld()).isFalse();
    assertThat(h.lost()).as("released, not lost").isNotDone();
    Optional<LockHandle> next = conflicting(client(), "thread").tryAcquire();
    assertThat(next).as("the lock is free for others").isPresent();
    next.get().release();
    awaitNoNodesLeft();
  }

  @Test
  void releaseAsync_ofAnAsyncGrant_fromTheCallersThread_deletesTheNode() throws Exception {
    // Given a grant that completed on the library's executor
    ZkLocks locks = client();
    LockHandle h = lock(locks, "async").acquireAsync().get(10, TimeUnit.SECONDS);

    // When the caller's thread releases it
    h.releaseAsync().get(10, TimeUnit.SECONDS);

    // Then the node is gone once the future completes
    assertNodeGone(h);
    assertThat(h.isHeld()).isFalse();
    awaitNoNodesLeft();
  }

  // ------------------------------------------------------------------ interruption and cancel

  @Test
  void interruptedWaiter_throwsInterrupted_andWithdraws() throws Exception {
    LockHandle held = conflicting(client(), "interrupt").acquire();
    List<String> before = lockNodes();
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
    assertThat(lockNodes()).as("only the holder's nodes").hasSameElementsAs(before);
    held.release();
    awaitNoNodesLeft();
  }

  /** Runs {@code body} on a new thread whose interrupt status is set before it starts. */
  private static CompletableFuture<Object> onInterruptedThread(InterruptibleCall body) {
    CompletableFuture<Object> outcome = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              Thread.currentThread().interrupt();
              try {
                Object result = body.call();
                outcome.complete(
                    List.of(result, Thread.currentThread().isInterrupted() ? "still" : "cleared"));
              } catch (Throwable e) {
                outcome.complete(
                    List.of(e, Thread.currentThread().isInterrupted() ? "still" : "cleared"));
              }
            });
    t.start();
    return outcome;
  }

  @FunctionalInterface
  private interface InterruptibleCall {
    Object call() throws Exception;
  }

  @Test
  void interruptedBeforeAcquire_throwsInterrupted_andLeavesNoNode() throws Exception {
    // Given a busy lock and a thread whose interrupt status is already set
    LockHandle held = conflicting(client(), "preinterrupt").acquire();
    List<String> before = lockNodes();
    ZkLocks other = client();
    DistributedLock lock = lock(other, "preinterrupt");

    // When it calls acquire()
    List<?> outcome = (List<?>) onInterruptedThread(lock::acquire).get(10, TimeUnit.SECONDS);

    // Then it throws InterruptedException (clearing the status, as the JDK's locks do), and
    // whatever request it had started is withdrawn
    assertThat(outcome.get(0)).isInstanceOf(InterruptedException.class);
    assertThat(outcome.get(1)).as("interrupt status").isEqualTo("cleared");
    awaitNoNodesOf(other);
    assertThat(lockNodes()).hasSameElementsAs(before);
    held.release();
    awaitNoNodesLeft();
  }

  @Test
  void interruptedBeforeAcquire_onAFreeLock_throwsInterrupted_withoutMakingARequest()
      throws Exception {
    // Given a free lock and a thread whose interrupt status is already set
    ZkLocks locks = client();
    DistributedLock lock = lock(locks, "preinterrupt-free");

    // When it calls acquire(): refused on entry, as the JDK's lockInterruptibly() does, rather
    // than racing the grant
    List<?> outcome = (List<?>) onInterruptedThread(lock::acquire).get(10, TimeUnit.SECONDS);

    // Then it throws InterruptedException, and no request was made
    assertThat(outcome.get(0)).isInstanceOf(InterruptedException.class);
    assertThat(outcome.get(1)).as("interrupt status").isEqualTo("cleared");
    assertThat(lockNodes()).as("no request was made").isEmpty();
    assertThat(lock.tryAcquire()).as("the lock is free").hasValueSatisfying(LockHandle::release);
  }

  @Test
  void interruptedBeforeTryAcquireWithTimeout_throwsInterrupted_andLeavesNoNode() throws Exception {
    LockHandle held = conflicting(client(), "preinterrupt-t").acquire();
    List<String> before = lockNodes();
    ZkLocks other = client();
    DistributedLock lock = lock(other, "preinterrupt-t");

    List<?> outcome =
        (List<?>)
            onInterruptedThread(() -> lock.tryAcquire(Duration.ofSeconds(30)))
                .get(10, TimeUnit.SECONDS);

    assertThat(outcome.get(0)).isInstanceOf(InterruptedException.class);
    assertThat(outcome.get(1)).as("interrupt status").isEqualTo("cleared");
    awaitNoNodesOf(other);
    assertThat(lockNodes()).hasSameElementsAs(before);
    held.release();
    awaitNoNodesLeft();
  }

  @Test
  void cancelledRequest_isWithdrawn_andTheNextWaiterGetsTheLock() throws Exception {
    LockHandle held = conflicting(client(), "cancel").acquire();
    ZkLocks cancelling = client();
    CompletableFuture<LockHandle> cancelled = lock(cancelling, "cancel").acquireAsync();
    awaitWaiting(cancelling);
    ZkLocks nextClient = client();
    CompletableFuture<LockHandle> next = lock(nextClient, "cancel").acquireAsync();
    awaitWaiting(nextClient); // queued behind the one that will be cancelled

    assertThat(cancelled.cancel(true)).isTrue();
    awaitNoNodesOf(cancelling);
    assertThat(next).as("a withdrawal before it is no handoff").isNotDone();
    held.release();

    LockHandle h = next.get(10, TimeUnit.SECONDS);
    assertThat(h.isHeld()).isTrue();
    h.release();
    awaitNoNodesLeft();
  }

  @Test
  void cancelledWithoutInterrupt_isWithdrawnToo() throws Exception {
    LockHandle held = conflicting(client(), "cancel-false").acquire();
    ZkLocks cancelling = client();
    CompletableFuture<LockHandle> cancelled = lock(cancelling, "cancel-false").acquireAsync();
    awaitWaiting(cancelling);

    assertThat(cancelled.cancel(false)).isTrue();

    assertThat(cancelled).isCancelled();
    awaitNoNodesOf(cancelling);
    held.release();
    Optional<LockHandle> h = conflicting(client(), "cancel-false").tryAcquire();
    assertThat(h).as("nothing of the cancelled request holds the lock").isPresent();
    h.get().release();
    awaitNoNodesLeft();
  }

  // ------------------------------------------------------------------ threads

  @Test
  void acquireAsync_completesOnTheLibraryExecutor_neverOnZooKeepersEventThread() throws Exception {
    // Given a request that waits (so its dependent action is attached before the grant)
    LockHandle held = conflicting(client(), "executor").acquire();
    ZkLocks waiterClient = client();
    CompletableFuture<LockHandle> f = lock(waiterClient, "executor").acquireAsync();
    awaitWaiting(waiterClient);
    assertThat(f).isNotDone();
    CompletableFuture<Thread> grantedOn = f.thenApply(h -> Thread.currentThread());

    // When the holder lets go
    held.release();

    // Then the future completes on one of the library's threads (DistributedLock#acquireAsync),
    // not on ZooKeeper's event thread, which a blocking dependent action would stall
    Thread t = grantedOn.get(10, TimeUnit.SECONDS);
    assertThat(isZooKeeperThread(t)).as("completed on %s", t.getName()).isFalse();
    assertThat(t.getName()).as("a library thread").startsWith("zklock-");
    f.get().release();
    awaitNoNodesLeft();
  }

  // ------------------------------------------------------------------ loss

  @Test
  void holderSessionExpires_holderIsTold_andTheWaiterGetsTheLock() throws Exception {
    ZkLocks holder = client("holder");
    LockHandle held = lock(holder, "expiry").acquire();
    List<String> heldNodes = nodesOf(holder);
    CompletableFuture<Thread> lostOn = held.lost().thenApply(x -> Thread.currentThread());
    ZkLocks waiterClient = client("waiter");
    CompletableFuture<LockHandle> next = conflicting(waiterClient, "expiry").acquireAsync();
    awaitWaiting(waiterClient);

    server.expireSession(holder.sessionId());

    LockLostException lost = held.lost().get(10, TimeUnit.SECONDS);
    assertThat(lost.reason()).isEqualTo(LockLostException.Reason.SESSION_EXPIRED);
    assertThat(heldNodes).as("the holder's nodes").contains(held.path());
    assertThat(lost.path()).as("the loss names a node of the holder").isIn(heldNodes);
    assertThat(held.isHeld()).isFalse();
    Thread t = lostOn.get(10, TimeUnit.SECONDS);
    assertThat(isZooKeeperThread(t)).as("lost() completed on %s", t.getName()).isFalse();
    LockHandle h = next.get(10, TimeUnit.SECONDS);
    assertThat(h.fencingToken()).isGreaterThan(held.fencingToken());
    held.release(); // harmless on a lost handle
    h.release();
    soon("the holder's client has a new session")
        .until(() -> holder.sessionState() == SessionState.CONNECTED);
    awaitNoNodesLeft();
  }

  // ------------------------------------------------------------------ a closed ZkLocks

  /** A client with a lock made before it was closed. */
  private DistributedLock lockOfAClosedClient(String name) {
    ZkLocks locks = client();
    DistributedLock lock = lock(locks, name);
    locks.close();
    assertThat(locks.sessionState()).isEqualTo(SessionState.CLOSED);
    return lock;
  }

  @Test
  void closedInstance_acquire_throwsZkLockException() throws Exception {
    DistributedLock lock = lockOfAClosedClient("closed");

    assertThatThrownBy(lock::acquire)
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("closed");
    assertNoLockNodes();
  }

  @Test
  void closedInstance_tryAcquire_throwsZkLockException() throws Exception {
    DistributedLock lock = lockOfAClosedClient("closed");

    assertThatThrownBy(lock::tryAcquire)
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("closed");
    assertNoLockNodes();
  }

  @Test
  void closedInstance_tryAcquireWithTimeout_throwsZkLockException() throws Exception {
    DistributedLock lock = lockOfAClosedClient("closed");

    assertThatThrownBy(() -> lock.tryAcquire(Duration.ofSeconds(5)))
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(() -> lock.tryAcquire(Duration.ZERO))
        .as("a zero timeout too")
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("closed");
    assertNoLockNodes();
  }

  @Test
  void closedInstance_acquireAsync_throwsAtOnce_ratherThanReturningAFailedFuture()
      throws Exception {
    DistributedLock lock = lockOfAClosedClient("closed");

    // Today's behaviour, the same for every kind: a request that cannot be made at all fails
    // synchronously; a failed future is for a request that was made (see the close cases below)
    assertThatThrownBy(lock::acquireAsync)
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("closed");
    assertNoLockNodes();
  }

  @Test
  void close_heldHandle_isLostWithReasonClosed_andItsNodeIsGone() throws Exception {
    ZkLocks locks = client();
    LockHandle held = lock(locks, "close-held").acquire();

    locks.close();

    LockLostException lost = held.lost().get(10, TimeUnit.SECONDS);
    assertThat(lost.reason()).isEqualTo(LockLostException.Reason.CLOSED);
    assertThat(held.isHeld()).isFalse();
    held.release(); // harmless
    held.releaseAsync().get(10, TimeUnit.SECONDS);
    awaitNoNodesLeft();
    Optional<LockHandle> next = conflicting(client(), "close-held").tryAcquire();
    assertThat(next).as("free for others").isPresent();
    next.get().release();
    locks.close(); // idempotent
    assertThat(locks.sessionState()).isEqualTo(SessionState.CLOSED);
  }

  @Test
  void close_waitingRequest_failsWithZkLockException_andLeavesNoNode() throws Exception {
    LockHandle other = conflicting(client(), "close-waiting").acquire();
    List<String> before = lockNodes();
    ZkLocks locks = client();
    CompletableFuture<LockHandle> waiting = lock(locks, "close-waiting").acquireAsync();
    awaitWaiting(locks);

    locks.close();

    assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(ZkLockException.class);
    soon("the waiting request's nodes are gone")
        .untilAsserted(() -> assertThat(lockNodes()).hasSameElementsAs(before));
    assertThat(other.isHeld()).isTrue();
    other.release();
    awaitNoNodesLeft();
  }
}
