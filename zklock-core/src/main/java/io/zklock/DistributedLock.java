package io.zklock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

/**
 * A lock shared by every process that names it, through ZooKeeper. Each successful acquisition
 * returns a {@link LockHandle}; the handle, not the thread, owns the grant.
 *
 * <p>Instances are cheap, thread-safe and may be shared. Every call to an acquire method is a new,
 * independent request: a {@code DistributedLock} is not reentrant (two acquisitions through the
 * same instance wait for each other). For thread reentrancy use {@link #asLock()}.
 *
 * <p>If the session expires while a request is waiting, the request queues again on the new
 * session; its deadline still applies. If the {@link ZkLocks} is closed, waiting requests fail with
 * {@link ZkLockException}.
 */
public interface DistributedLock {

  /** The lock's name, relative to the namespace. */
  String name();

  /**
   * Acquires the lock, waiting as long as it takes.
   *
   * <p>A connection loss or a session expiry does not end the wait: the request waits for the
   * connection to return and, after an expiry, queues again on the new session.
   *
   * @return the handle of the grant
   * @throws InterruptedException if the calling thread is interrupted on entry (no request is made)
   *     or while waiting; the request is then withdrawn (its node deleted, also across a connection
   *     loss) and the lock is not held
   * @throws ZkLockException if the request cannot be made or fails, as {@link #acquireAsync()}'s
   *     future would: the {@link ZkLocks} is closed (before or during the wait), the server refuses
   *     the request (ACL), or, with {@link ZkLocks.Builder#connectInBackground()}, no server
   *     answered within the connect timeout
   */
  LockHandle acquire() throws InterruptedException;

  /**
   * Acquires the lock only if it is free now. This makes one request to ZooKeeper but never waits
   * for another holder; when the lock is busy the request is withdrawn and nothing is left behind.
   *
   * <p>It is not interruptible: an interrupt during its round trip is kept (the interrupt status is
   * set again) and the answer is still given. It never waits for a holder, nor for a connection: if
   * the connection is lost while its request is in flight it throws {@link ZkLockException} at once
   * (whether the lock is free cannot be known), and a node its request may have made is deleted in
   * the background, as soon as the connection returns or with the session.
   *
   * @return the handle, or empty if the lock is held by someone else
   * @throws ZkLockException if the {@link ZkLocks} is closed; if the session is not connected now
   *     (suspended, re-establishing after an expiry, or not connected yet): whether the lock is
   *     free cannot be known, and this method does not wait; if the connection is lost while its
   *     request is in flight; or if the server refuses the request (ACL)
   */
  Optional<LockHandle> tryAcquire();

  /**
   * Acquires the lock if it becomes free within {@code timeout}. A zero timeout behaves like {@link
   * #tryAcquire()}. On timeout the request is withdrawn and nothing is left behind.
   *
   * <p>Unlike {@link #tryAcquire()}, a positive timeout also covers time without a connection: the
   * request waits for the connection to return, and returns empty when the timeout elapses first.
   *
   * @param timeout how long to wait; must not be negative
   * @return the handle, or empty if the timeout elapsed first
   * @throws IllegalArgumentException if {@code timeout} is negative or too large to represent in
   *     nanoseconds
   * @throws InterruptedException if the calling thread is interrupted on entry (no request is made;
   *     not with a zero timeout, which is {@link #tryAcquire()}) or while waiting (the request is
   *     withdrawn)
   * @throws ZkLockException if the {@link ZkLocks} is closed (before or during the wait), or the
   *     request fails as {@link #acquire()}'s does; with a zero timeout, as {@link #tryAcquire()}
   */
  Optional<LockHandle> tryAcquire(Duration timeout) throws InterruptedException;

  /**
   * Requests the lock without blocking the caller. No thread waits on the caller's behalf:
   * thousands of pending requests cost no threads.
   *
   * <p><b>Failures.</b> Only a request that cannot be made at all fails at once: this method
   * throws. Everything that happens to a request once made is delivered through the future. Like
   * {@link #acquire()}, the request does not fail because the connection is down or the session
   * expired: it waits for the connection, and after an expiry queues again on the new session; only
   * cancelling the future or closing the {@link ZkLocks} ends that wait.
   *
   * <p><b>Cancelling.</b> {@code cancel(true)} and {@code cancel(false)} withdraw the request: its
   * node is deleted in the background (also across a connection loss) and waiters behind it are not
   * held up. A grant that races the cancellation is released. Once the future has completed with a
   * handle, cancelling does nothing ({@code cancel} returns {@code false}): the caller holds the
   * lock and must release it.
   *
   * <p><b>Threads.</b> The future completes on the library's executor, never in the calling thread
   * or on ZooKeeper's event thread; dependent actions should not block it (use the {@code ...Async}
   * methods with an executor of your own for long work). As for any {@link CompletableFuture}, a
   * cancellation completes it in the cancelling thread, and a {@link ZkLocks#close()} may fail it
   * in the closing thread.
   *
   * @return a future completing with the handle, or exceptionally with a {@link ZkLockException} if
   *     the {@link ZkLocks} is closed while the request waits, if the server refuses the request
   *     (for example the lock's ACL does not let this client's identity queue, or an existing
   *     directory lets other identities write: see {@link ZkLocks.Builder#trustExistingAcl()}), or,
   *     with {@link ZkLocks.Builder#connectInBackground()}, if no server answered within the
   *     connect timeout; or with a {@link java.util.concurrent.CancellationException} once
   *     cancelled
   * @throws ZkLockException if the {@link ZkLocks} is closed
   */
  CompletableFuture<LockHandle> acquireAsync();

  /**
   * A view of this same lock whose grants carry a lease: a grant not released within {@code lease}
   * (or extended with {@link LockHandle#extend}) is released by the library itself, and its {@link
   * LockHandle#lost()} completes with {@link LockLostException.Reason#LEASE_EXPIRED}. This catches
   * a holder that is stuck (a deadlocked or endless critical section) but whose process and session
   * are alive, which session expiry never does. Requests through the view queue with every other
   * request of the lock, in the same order.
   *
   * <p>The lease is kept by a timer in the holder's own process, counted from the grant: it runs
   * out even while the holder's threads are blocked, but not while the whole process is paused or
   * cut off — then session expiry and fencing tokens apply, as for every grant. After the lease
   * runs out the holder may still be running its critical section; only a fenced resource is safe
   * from it. See {@code docs/guarantees.md}.
   *
   * <p>The view is a lock like this one ({@link #asLock()} included); a view of a view replaces the
   * lease. It cannot be a part of {@link ZkLocks#multiLock}: give the multi-lock a lease instead.
   *
   * @param lease how long a grant may be held without {@link LockHandle#extend}; at least 1 ms
   * @throws IllegalArgumentException if {@code lease} is not positive or too large (about 24 days)
   */
  DistributedLock withLease(Duration lease);

  /**
   * A {@link Lock} view of this distributed lock that is reentrant per thread, like {@link
   * java.util.concurrent.locks.ReentrantLock}: the owning thread may lock again and must unlock as
   * many times; {@code unlock()} by a thread that does not own it throws {@link
   * IllegalMonitorStateException}. {@code lockInterruptibly} and {@code tryLock(time, unit)} honour
   * interruption; {@code lock()} does not (it keeps waiting and restores the interrupt status).
   * {@code newCondition()} throws {@link UnsupportedOperationException}. Every call returns the
   * same view.
   *
   * <p>A loss is never hidden: once the lock held by a thread is lost (session expired, node
   * deleted), that thread's next {@code lock()}/{@code tryLock()} (a reentrant acquisition) and its
   * last {@code unlock()} (the one that would release the lock) throw {@link LockLostException},
   * and its hold is cleared, so later calls of {@code unlock()} throw {@link
   * IllegalMonitorStateException}; an inner {@code unlock()} of nested holds only counts down. A
   * thread that re-enters before this process has learned of the loss cannot be told yet: use
   * {@link LockHandle#fencingToken()} where that matters.
   *
   * <p>The view's {@code unlock()} releases as {@link LockHandle#release()} does, and may throw
   * what it throws.
   */
  Lock asLock();

  /**
   * This lock's condition; every process that asks for it on the same lock gets the same one. See
   * {@link DistributedCondition}.
   *
   * @throws UnsupportedOperationException if this kind of lock has no condition (shared, composed
   *     and cohort locks)
   */
  default DistributedCondition newCondition() {
    return newCondition("default");
  }

  /**
   * A named condition of this lock; see {@link #newCondition()}.
   *
   * @param name the condition's name, one path segment of a lock name's characters
   * @throws IllegalArgumentException if the name is not valid
   * @throws UnsupportedOperationException as {@link #newCondition()}
   */
  DistributedCondition newCondition(String name);
}
