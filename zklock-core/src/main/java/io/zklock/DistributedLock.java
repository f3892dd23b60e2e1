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
   * @return the handle of the grant
   * @throws InterruptedException if the calling thread is interrupted while waiting; the request is
   *     then withdrawn (its node deleted, also across a connection loss) and the lock is not held
   * @throws ZkLockException if the lock cannot be requested (for example the {@link ZkLocks} is
   *     closed)
   */
  LockHandle acquire() throws InterruptedException;

  /**
   * Acquires the lock only if it is free now. This makes one request to ZooKeeper but never waits
   * for another holder; when the lock is busy the request is withdrawn and nothing is left behind.
   *
   * @return the handle, or empty if the lock is held by someone else
   * @throws ZkLockException if the session is not connected now (suspended or re-establishing after
   *     an expiry): whether the lock is free cannot be known, and this method does not wait
   */
  Optional<LockHandle> tryAcquire();

  /**
   * Acquires the lock if it becomes free within {@code timeout}. A zero timeout behaves like {@link
   * #tryAcquire()}. On timeout the request is withdrawn and nothing is left behind.
   *
   * @param timeout how long to wait; must not be negative
   * @return the handle, or empty if the timeout elapsed first
   * @throws IllegalArgumentException if {@code timeout} is negative or too large to represent in
   *     nanoseconds
   * @throws InterruptedException if the calling thread is interrupted while waiting (the request is
   *     withdrawn)
   */
  Optional<LockHandle> tryAcquire(Duration timeout) throws InterruptedException;

  /**
   * Requests the lock without blocking the caller. No thread waits on the caller's behalf:
   * thousands of pending requests cost no threads. Cancelling the future ({@code cancel(true)} or
   * {@code cancel(false)}) withdraws the request; if the lock was granted in the meantime it is
   * released.
   *
   * @return a future completing with the handle, on the library's executor
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
   * @throws UnsupportedOperationException if this is not a lock made by zklock (the default)
   */
  default DistributedLock withLease(Duration lease) {
    throw new UnsupportedOperationException(
        "withLease is implemented by the locks of ZkLocks, not by " + getClass().getName());
  }

  /**
   * A {@link Lock} view of this distributed lock that is reentrant per thread, like {@link
   * java.util.concurrent.locks.ReentrantLock}: the owning thread may lock again and must unlock as
   * many times; {@code unlock()} by a thread that does not own it throws {@link
   * IllegalMonitorStateException}. {@code lockInterruptibly} and {@code tryLock(time, unit)} honour
   * interruption; {@code lock()} does not (it keeps waiting and restores the interrupt status).
   * {@code newCondition()} throws {@link UnsupportedOperationException}. Every call returns the
   * same view.
   */
  Lock asLock();
}
