package io.zklock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A distributed counting semaphore: at most {@link #permits()} leases are held at once across every
 * process. A lease is a {@link LockHandle}, with a fencing token (the lease node's creation zxid)
 * and a {@link LockHandle#lost()} future; the leases of a crashed client are freed when its session
 * ends. Releasing a lease frees its permit; the handle is not tied to a thread.
 *
 * <h2>How it works</h2>
 *
 * Waiting requests queue fairly, herd-free, on an internal mutex ({@code <name>/queue}); the one at
 * its head creates its lease node in {@code <name>/leases} and holds if fewer than {@code permits}
 * leases are ahead of it; otherwise it alone watches the leases for one to go. No permit stays idle
 * while a waiter could use it. {@link #tryAcquire()} skips the queue: it creates a lease, keeps it
 * if a permit is free now, and deletes it otherwise; it may therefore take a permit ahead of
 * earlier waiters (it never waits for them).
 *
 * <h2>The permit count is stored with the semaphore</h2>
 *
 * The first client to use a semaphore stores its permit count in the semaphore's directory; every
 * request checks it (a read sent alongside the request, then cached while a watch on the directory
 * stands), and a client that asks with another count is refused with a {@link ZkLockException}
 * naming both counts, whose cause is an {@link IllegalArgumentException} (a caller's mistake, not a
 * failure of the ensemble), before it takes any lease. When nobody holds or waits for a while, the
 * server removes the directory, and the next client may start the semaphore again with another
 * count. (A client of zklock from before the count was stored does not check it, and admits by its
 * own count.)
 *
 * <h2>Several permits at once</h2>
 *
 * {@link #acquire(int)} and its variants take several permits as one lease, all or nothing: the
 * request waits in the same fair queue, and once admitted asks for all its permits at once and
 * holds when every one is free (it keeps the ones freed first while it waits for the rest, as a
 * fair {@link java.util.concurrent.Semaphore} does, so a large request is not starved by small
 * ones). Its handle's {@link LockHandle#fencingToken()} is the greatest of its permits' tokens;
 * releasing it frees them all.
 */
public interface DistributedSemaphore {
  /** The semaphore's name, relative to the namespace. */
  String name();

  /** The number of leases that may be held at once. */
  int permits();

  /**
   * Takes a lease, waiting as long as it takes.
   *
   * @return the lease
   * @throws InterruptedException if the calling thread is interrupted while waiting; the request is
   *     then withdrawn (its nodes deleted) and no lease is held
   * @throws ZkLockException if the lease cannot be requested or the request fails, as {@link
   *     #acquireAsync()}'s future would: the {@link ZkLocks} is closed (before or during the wait),
   *     the semaphore stores another permit count, the server refuses the request (ACL), or no
   *     server answered within the connect timeout of {@link ZkLocks.Builder#connectInBackground()}
   */
  LockHandle acquire() throws InterruptedException;

  /**
   * Takes a lease only if one is free now. Never waits for a holder or a waiter: it skips the fair
   * queue (so it may take a permit ahead of earlier waiters) and makes one request, creating a
   * lease node and listing the leases, pipelined; the stored permit count is checked alongside.
   * When no permit is free it deletes its lease node before it returns, so nothing is left behind.
   *
   * <p>It refuses to guess while disconnected: if the session is not connected when it is called,
   * it throws at once rather than wait; if the connection is lost while its request is in flight,
   * it throws too, and a lease node its request may have made is deleted in the background, as soon
   * as the connection returns or with the session. It never waits for a holder. It is not
   * interruptible: an interrupt meanwhile is kept (the interrupt status is set again) and the
   * answer is still given.
   *
   * @return the lease, or empty if every permit is in use
   * @throws ZkLockException if the {@link ZkLocks} is closed; if the session is not connected now
   *     (suspended, re-establishing after an expiry, or not connected yet); if the semaphore stores
   *     another permit count; or if the server refuses the request (ACL)
   */
  Optional<LockHandle> tryAcquire();

  /**
   * Takes a lease if one becomes free within {@code timeout}; withdraws the request (nothing left
   * behind) otherwise. A zero timeout behaves like {@link #tryAcquire()}.
   *
   * @param timeout how long to wait; must not be negative
   * @return the lease, or empty if the timeout elapsed first
   * @throws IllegalArgumentException if {@code timeout} is negative or too large
   * @throws InterruptedException if interrupted while waiting (the request is withdrawn)
   * @throws ZkLockException as {@link #acquire()}; with a zero timeout, as {@link #tryAcquire()}
   */
  Optional<LockHandle> tryAcquire(Duration timeout) throws InterruptedException;

  /**
   * Requests a lease without blocking the caller or holding a thread, with the failure modes of
   * {@link DistributedLock#acquireAsync()}: only a request that cannot be made at all throws (the
   * {@link ZkLocks} is closed); everything else, including another stored permit count, fails the
   * future; a connection loss or a session expiry does not. Cancelling the future withdraws the
   * request (its nodes deleted in the background); a lease granted in the meantime is released; a
   * future already completed with a lease is not affected (release the lease).
   *
   * @return a future completing with the lease, on the library's executor, or exceptionally with a
   *     {@link ZkLockException}
   * @throws ZkLockException if the {@link ZkLocks} is closed
   */
  CompletableFuture<LockHandle> acquireAsync();

  /**
   * Takes {@code permits} permits at once, all or nothing, waiting as long as it takes; see the
   * class documentation.
   *
   * @param permits how many, from 1 to {@link #permits()}
   * @return one lease covering them all
   * @throws IllegalArgumentException if {@code permits} is less than 1 or more than {@link
   *     #permits()}
   * @throws InterruptedException if interrupted while waiting; the request is withdrawn and no
   *     permit is held (those taken already are released)
   * @throws ZkLockException if the request cannot be made, or the semaphore stores another permit
   *     count
   */
  LockHandle acquire(int permits) throws InterruptedException;

  /**
   * Takes {@code permits} permits only if they are all free now; never waits. It asks for each at
   * once and keeps them only if all were free: under contention it may fail although that many were
   * free a moment before or after.
   *
   * <p>It behaves as {@link #tryAcquire()} otherwise: one request per permit, all sent at once,
   * never waiting for a holder; it throws at once if not connected or if the connection is lost
   * while its requests are in flight. Leases it got before finding the rest busy are released
   * before it returns.
   *
   * @param permits how many, from 1 to {@link #permits()}
   * @return one lease covering them all, or empty: nothing held; a permit it got while another was
   *     busy was given back, its node deleted, before it returned
   * @throws IllegalArgumentException if {@code permits} is out of range (checked first, also while
   *     disconnected)
   * @throws ZkLockException if the {@link ZkLocks} is closed, the session is not connected now, the
   *     semaphore stores another permit count, or the server refuses the request (ACL)
   */
  Optional<LockHandle> tryAcquire(int permits);

  /**
   * Takes {@code permits} permits if they all become free within {@code timeout}; withdraws the
   * request (nothing held, nothing left behind) otherwise. A zero timeout behaves like {@link
   * #tryAcquire(int)}.
   *
   * @param permits how many, from 1 to {@link #permits()}
   * @param timeout how long to wait; must not be negative
   * @return one lease covering them all, or empty if the timeout elapsed first
   * @throws IllegalArgumentException if {@code permits} is out of range, or {@code timeout} is
   *     negative or too large
   * @throws InterruptedException if interrupted while waiting (the request is withdrawn)
   * @throws ZkLockException as {@link #acquire(int)}; with a zero timeout, as {@link
   *     #tryAcquire(int)}
   */
  Optional<LockHandle> tryAcquire(int permits, Duration timeout) throws InterruptedException;

  /**
   * Requests {@code permits} permits at once without blocking the caller. Cancelling the future
   * withdraws the request; permits granted in the meantime are released.
   *
   * @param permits how many, from 1 to {@link #permits()}
   * @return a future completing with one lease covering them all, on the library's executor, or
   *     exceptionally with {@link ZkLockException} as {@link #acquireAsync()}'s (for example if the
   *     semaphore stores another permit count)
   * @throws IllegalArgumentException if {@code permits} is out of range
   * @throws ZkLockException if the {@link ZkLocks} is closed
   */
  CompletableFuture<LockHandle> acquireAsync(int permits);
}
