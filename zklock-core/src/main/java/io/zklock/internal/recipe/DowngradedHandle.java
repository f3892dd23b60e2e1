package io.zklock.internal.recipe;

import io.zklock.LockLostException;
import io.zklock.internal.engine.Guard;
import io.zklock.internal.engine.Handle;
import java.util.concurrent.CompletableFuture;

/**
 * The read hold made by a downgrade: it shares the write request's node, which is deleted once both
 * handles are released.
 */
final class DowngradedHandle implements Handle {
  private final WriteHandle write;
  private final CompletableFuture<LockLostException> lost = new CompletableFuture<>();

  // guarded by this
  private CompletableFuture<Void> released;

  DowngradedHandle(WriteHandle write) {
    this.write = write;
    write
        .lostAny()
        .thenAccept(
            ex -> {
              synchronized (this) {
                if (released != null) {
                  return;
                }
              }
              lost.complete(ex);
            });
  }

  @Override
  public String lockName() {
    return write.lockName();
  }

  @Override
  public String path() {
    return write.path();
  }

  @Override
  public long fencingToken() {
    return write.fencingToken();
  }

  @Override
  public boolean isHeld() {
    synchronized (this) {
      if (released != null) {
        return false;
      }
    }
    return write.nodeHeld();
  }

  @Override
  public CompletableFuture<LockLostException> lost() {
    return lost;
  }

  /** The request is made to the shared node: the write handle's and this one's hear it alike. */
  @Override
  public void onReleaseRequested(Runnable action) {
    write.onReleaseRequested(action);
  }

  @Override
  public boolean isReleaseRequested() {
    return write.isReleaseRequested();
  }

  @Override
  public Guard guard() {
    synchronized (this) {
      if (released != null) {
        return Guard.released(lockName());
      }
    }
    return write.nodeGuard();
  }

  @Override
  public synchronized CompletableFuture<Void> releaseAsync() {
    if (released == null) {
      released = write.unpin();
    }
    return released;
  }

  @Override
  public String toString() {
    return "LockHandle[" + lockName() + " (downgraded), node=" + path() + "]";
  }
}
