package io.zklock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A distributed counting semaphore: at most {@link #permits()} leases are held at once across every
 * process. A lease is a {@link LockHandle}, with a fencing token and a {@link LockHandle#lost()}
 * future; the leases of a crashed client are freed when its session ends.
 */
public interface DistributedSemaphore {
  /** The semaphore's name, relative to the namespace. */
  String name();

  /** The number of leases this client believes may be held at once. */
  int permits();

  /** Takes a lease, waiting as long as it takes. Interruption withdraws the request. */
  LockHandle acquire() throws InterruptedException;

  /** Takes a lease only if one is free now; leaves nothing behind otherwise. */
  Optional<LockHandle> tryAcquire();

  /** Takes a lease if one becomes free within {@code timeout}; withdraws the request otherwise. */
  Optional<LockHandle> tryAcquire(Duration timeout) throws InterruptedException;

  /** Requests a lease without blocking; cancelling the future withdraws the request. */
  CompletableFuture<LockHandle> acquireAsync();
}
