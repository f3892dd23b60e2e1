package io.zklock.internal.recipe;

import io.zklock.LockLostException;
import io.zklock.internal.engine.Guard;
import io.zklock.internal.engine.Handle;
import io.zklock.internal.engine.LockRequest;
import java.util.concurrent.CompletableFuture;

/**
 * A grant of a read-write lock's write side: the request's handle, plus the pins of downgrades
 * ({@link ReadWriteLockImpl#downgrade}). A downgraded read hold shares the write node; the node is
 * deleted once this handle and every pin are released, and this handle no longer holds (nor hears
 * of a loss) once its owner released it.
 */
final class WriteHandle implements Handle {
  private final LockRequest request;
  private final ReadWriteLockImpl lock;
  private final CompletableFuture<LockLostException> lost = new CompletableFuture<>();

  // guarded by this
  private int pins;
  private boolean ownerReleased;
  private CompletableFuture<Void> released;

  WriteHandle(LockRequest request, ReadWriteLockImpl lock) {
    this.request = request;
    this.lock = lock;
    request
        .lost()
        .thenAccept(
            ex -> {
              synchronized (this) {
                if (ownerReleased) {
                  return;
                }
              }
              lost.complete(ex);
            });
  }

  /** The read-write lock whose write side granted this handle. */
  ReadWriteLockImpl lock() {
    return lock;
  }

  /**
   * Adds a downgraded read hold sharing this node.
   *
   * @return false if this handle does not hold the lock now
   */
  synchronized boolean pin() {
    if (ownerReleased || !request.isHeld()) {
      return false;
    }
    pins++;
    return true;
  }

  /** Drops one pin; the last one, after the owner's release, deletes the node. */
  CompletableFuture<Void> unpin() {
    synchronized (this) {
      if (pins == 0) {
        throw new IllegalStateException("no pin to drop on " + path());
      }
      pins--;
      if (pins > 0 || !ownerReleased) {
        return CompletableFuture.completedFuture(null);
      }
    }
    return request.releaseAsync();
  }

  /** Whether the node is still ours (for pins, which outlive the owner's release). */
  boolean nodeHeld() {
    return request.isHeld();
  }

  /** The node's guard whoever holds it (for pins, which outlive the owner's release). */
  Guard nodeGuard() {
    return request.guard();
  }

  /** Completes on any loss of the node, also after the owner released it while pinned. */
  CompletableFuture<LockLostException> lostAny() {
    return request.lost();
  }

  @Override
  public String lockName() {
    return request.lockName();
  }

  @Override
  public String path() {
    return request.path();
  }

  @Override
  public long fencingToken() {
    return request.fencingToken();
  }

  @Override
  public synchronized boolean isHeld() {
    return !ownerReleased && request.isHeld();
  }

  @Override
  public CompletableFuture<LockLostException> lost() {
    return lost;
  }

  @Override
  public void onReleaseRequested(Runnable action) {
    request.onReleaseRequested(action);
  }

  @Override
  public boolean isReleaseRequested() {
    return request.isReleaseRequested();
  }

  /** The write node's guard, until the owner released (a downgraded read hold guards alike). */
  @Override
  public Guard guard() {
    synchronized (this) {
      if (ownerReleased) {
        return Guard.released(request.lockName());
      }
    }
    return request.guard();
  }

  @Override
  public CompletableFuture<Void> releaseAsync() {
    synchronized (this) {
      if (released != null) {
        return released;
      }
      if (pins > 0 && request.isHeld()) {
        // downgraded: the node stays, as the read hold's, until the last pin is released
        ownerReleased = true;
        released = CompletableFuture.completedFuture(null);
        return released;
      }
      ownerReleased = true;
    }
    CompletableFuture<Void> r = request.releaseAsync();
    synchronized (this) {
      released = r;
    }
    return r;
  }

  @Override
  public String toString() {
    return request.toString();
  }
}
