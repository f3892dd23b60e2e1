package io.zklock.micrometer;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

/** A {@link DistributedLock} whose requests and holds are measured. */
final class MeteredLock implements DistributedLock {
  final DistributedLock delegate;
  private final Meters meters;
  private final String kind;
  private final Requests requests;
  private final Lock view;

  MeteredLock(DistributedLock delegate, Meters meters, String kind) {
    this(delegate, meters, kind, delegate.asLock());
  }

  MeteredLock(DistributedLock delegate, Meters meters, String kind, Lock jdkView) {
    this.delegate = delegate;
    this.meters = meters;
    this.kind = kind;
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
            meters.tags(delegate.name(), kind));
    this.view = new MeteredJdkLock(jdkView, meters, requests.tags);
  }

  /** The lock zklock made, for the calls that need it (a multi-lock's parts). */
  static DistributedLock unwrap(DistributedLock lock) {
    return lock instanceof MeteredLock ? ((MeteredLock) lock).delegate : lock;
  }

  @Override
  public String name() {
    return delegate.name();
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

  /**
   * zklock's leased view of the same lock, measured like this one (same tags): a lease that runs
   * out counts as a loss with reason {@code lease_expired}.
   */
  @Override
  public DistributedLock withLease(Duration lease) {
    return new MeteredLock(delegate.withLease(lease), meters, kind);
  }

  /** zklock's thread-reentrant view, measured per thread's outermost hold. */
  @Override
  public Lock asLock() {
    return view;
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
