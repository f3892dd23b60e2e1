package io.zklock.micrometer;

import io.zklock.DistributedSemaphore;
import io.zklock.LockHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** A {@link DistributedSemaphore} whose requests and leases are measured (kind "semaphore"). */
final class MeteredSemaphore implements DistributedSemaphore {
  private final DistributedSemaphore delegate;
  private final Meters meters;
  private final Requests requests;

  MeteredSemaphore(DistributedSemaphore delegate, Meters meters) {
    this.delegate = delegate;
    this.meters = meters;
    this.requests = requests(1);
  }

  // the requests for n permits: one measured request however many permits it asks for
  private Requests requests(int n) {
    return new Requests(
        new Requests.Source() {
          @Override
          public LockHandle acquire() throws InterruptedException {
            return n == 1 ? delegate.acquire() : delegate.acquire(n);
          }

          @Override
          public Optional<LockHandle> tryAcquire() {
            return n == 1 ? delegate.tryAcquire() : delegate.tryAcquire(n);
          }

          @Override
          public Optional<LockHandle> tryAcquire(Duration timeout) throws InterruptedException {
            return n == 1 ? delegate.tryAcquire(timeout) : delegate.tryAcquire(n, timeout);
          }

          @Override
          public CompletableFuture<LockHandle> acquireAsync() {
            return n == 1 ? delegate.acquireAsync() : delegate.acquireAsync(n);
          }
        },
        meters,
        meters.tags(delegate.name(), "semaphore"));
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public int permits() {
    return delegate.permits();
  }

  @Override
  public LockHandle acquire() throws InterruptedException {
    return requests.acquire();
  }

  @Override
  public Optional<LockHandle> tryAcquire() {
    return requests.tryAcquire();
  }

  @Override
  public Optional<LockHandle> tryAcquire(Duration timeout) throws InterruptedException {
    return requests.tryAcquire(timeout);
  }

  @Override
  public CompletableFuture<LockHandle> acquireAsync() {
    return requests.acquireAsync();
  }

  @Override
  public LockHandle acquire(int permits) throws InterruptedException {
    return requests(permits).acquire();
  }

  @Override
  public Optional<LockHandle> tryAcquire(int permits) {
    return requests(permits).tryAcquire();
  }

  @Override
  public Optional<LockHandle> tryAcquire(int permits, Duration timeout)
      throws InterruptedException {
    return requests(permits).tryAcquire(timeout);
  }

  @Override
  public CompletableFuture<LockHandle> acquireAsync(int permits) {
    return requests(permits).acquireAsync();
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
