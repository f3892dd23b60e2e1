package io.zklock.micrometer;

import io.zklock.DistributedSemaphore;
import io.zklock.LockHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** A {@link DistributedSemaphore} whose requests and leases are measured (kind "semaphore"). */
final class MeteredSemaphore implements DistributedSemaphore {
  private final DistributedSemaphore delegate;
  private final Requests requests;

  MeteredSemaphore(DistributedSemaphore delegate, Meters meters) {
    this.delegate = delegate;
    this.requests =
        new Requests(
            new Requests.Source() {
              @Override
              public LockHandle acquire() throws InterruptedException {
                return delegate.acquire();
              }

              @Override
              public Optional<LockHandle> tryAcquire() {
                return delegate.tryAcquire();
              }

              @Override
              public Optional<LockHandle> tryAcquire(Duration timeout) throws InterruptedException {
                return delegate.tryAcquire(timeout);
              }

              @Override
              public CompletableFuture<LockHandle> acquireAsync() {
                return delegate.acquireAsync();
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
  public String toString() {
    return delegate.toString();
  }
}
