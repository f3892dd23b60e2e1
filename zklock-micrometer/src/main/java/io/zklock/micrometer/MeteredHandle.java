package io.zklock.micrometer;

import io.micrometer.core.instrument.Tags;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/** A granted handle that times its hold and counts its loss; everything else is the delegate's. */
final class MeteredHandle implements LockHandle {
  final LockHandle delegate;
  private final Meters meters;
  private final Tags tags;
  private final long grantedAt;
  private final AtomicBoolean ended = new AtomicBoolean();

  MeteredHandle(LockHandle delegate, Meters meters, Tags tags) {
    this.delegate = delegate;
    this.meters = meters;
    this.tags = tags;
    this.grantedAt = meters.clock.monotonicTime();
    meters.held.incrementAndGet();
    delegate.lost().thenAccept(e -> end(e.reason()));
  }

  /** The handle zklock gave, for the calls that need it (a read-write lock's downgrade). */
  static LockHandle unwrap(LockHandle h) {
    return h instanceof MeteredHandle ? ((MeteredHandle) h).delegate : h;
  }

  /** Ends the hold once: released ({@code loss == null}) or lost. */
  void end(LockLostException.Reason loss) {
    if (ended.compareAndSet(false, true)) {
      meters.held.decrementAndGet();
      meters.holdEnded(tags, loss, meters.clock.monotonicTime() - grantedAt);
    }
  }

  // a release of a handle already known lost counts the loss, not a release
  private void endByRelease() {
    LockLostException lost = delegate.lost().getNow(null);
    end(lost == null ? null : lost.reason());
  }

  @Override
  public String lockName() {
    return delegate.lockName();
  }

  @Override
  public String path() {
    return delegate.path();
  }

  @Override
  public long fencingToken() {
    return delegate.fencingToken();
  }

  @Override
  public boolean isHeld() {
    return delegate.isHeld();
  }

  @Override
  public CompletableFuture<LockLostException> lost() {
    return delegate.lost();
  }

  @Override
  public boolean extend(Duration lease) {
    return delegate.extend(lease);
  }

  /** The delegate's guarded writes: they check the delegate's own lock node. */
  @Override
  public io.zklock.GuardedTransaction transaction() {
    return delegate.transaction();
  }

  @Override
  public void onReleaseRequested(Runnable action) {
    delegate.onReleaseRequested(action);
  }

  @Override
  public boolean isReleaseRequested() {
    return delegate.isReleaseRequested();
  }

  @Override
  public void release() {
    endByRelease();
    delegate.release();
  }

  @Override
  public CompletableFuture<Void> releaseAsync() {
    endByRelease();
    return delegate.releaseAsync();
  }

  @Override
  public void close() {
    release();
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
