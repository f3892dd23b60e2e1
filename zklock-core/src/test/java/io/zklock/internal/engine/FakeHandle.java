package io.zklock.internal.engine;

import io.zklock.LockHandle;
import io.zklock.LockLostException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/** A lock handle without a server, for the pure tests of the views' counting: counts releases. */
public final class FakeHandle implements LockHandle {
  private static final AtomicInteger NEXT = new AtomicInteger();

  private final String path = "/fake/m-" + NEXT.incrementAndGet();
  private final CompletableFuture<LockLostException> lost = new CompletableFuture<>();
  private volatile boolean held = true;
  private final AtomicInteger releases = new AtomicInteger();

  /** The node was deleted by someone else: not held any more, {@link #lost()} says why. */
  public void lose() {
    held = false;
    lost.complete(new LockLostException(path, 1L, LockLostException.Reason.NODE_DELETED));
  }

  /** How many times {@link #release()} or {@link #releaseAsync()} was called. */
  public int releases() {
    return releases.get();
  }

  @Override
  public String lockName() {
    return "fake";
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public long fencingToken() {
    return 1L;
  }

  @Override
  public boolean isHeld() {
    return held;
  }

  @Override
  public CompletableFuture<LockLostException> lost() {
    return lost;
  }

  @Override
  public void release() {
    releases.incrementAndGet();
    held = false;
  }

  @Override
  public CompletableFuture<Void> releaseAsync() {
    release();
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public void onReleaseRequested(Runnable action) {
    // nobody asks a fake to release
  }

  @Override
  public boolean isReleaseRequested() {
    return false;
  }

  @Override
  public boolean extend(java.time.Duration lease) {
    throw new IllegalStateException("a fake grant has no lease");
  }

  @Override
  public io.zklock.GuardedTransaction transaction() {
    throw new UnsupportedOperationException("a fake grant guards no writes");
  }

  @Override
  public void close() {
    release();
  }

  @Override
  public String toString() {
    return "FakeHandle[" + path + "]";
  }
}
