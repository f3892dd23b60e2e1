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
 * <h2>When clients disagree on permits</h2>
 *
 * Each client admits by its own count: a lease is held when fewer than <em>its client's</em> {@code
 * permits} leases are ahead of it. So a client that believes in more permits may hold while the
 * others wait, the number of leases held at once is bounded by the largest {@code permits} any
 * client uses, and a client with a smaller count may wait while the larger count is in use. Use one
 * number everywhere; the number each lease was taken with is written in its node's data, for {@code
 * zklock ls}.
 */
public interface DistributedSemaphore {
  /** The semaphore's name, relative to the namespace. */
  String name();

  /** The number of leases this client believes may be held at once. */
  int permits();

  /**
   * Takes a lease, waiting as long as it takes.
   *
   * @return the lease
   * @throws InterruptedException if the calling thread is interrupted while waiting; the request is
   *     then withdrawn (its nodes deleted) and no lease is held
   * @throws ZkLockException if the lease cannot be requested (for example the {@link ZkLocks} is
   *     closed)
   */
  LockHandle acquire() throws InterruptedException;

  /**
   * Takes a lease only if one is free now. Never waits for a holder or a waiter; when none is free
   * the lease node is deleted and nothing is left behind.
   *
   * @return the lease, or empty if every permit is in use
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
   */
  Optional<LockHandle> tryAcquire(Duration timeout) throws InterruptedException;

  /**
   * Requests a lease without blocking the caller or holding a thread. Cancelling the future
   * withdraws the request; a lease granted in the meantime is released.
   *
   * @return a future completing with the lease, on the library's executor
   */
  CompletableFuture<LockHandle> acquireAsync();
}
