package io.zklock.internal.engine;

import io.zklock.LockHandle;
import io.zklock.ZkLockException;
import io.zklock.internal.zk.Blocking;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** Blocking waits on an acquisition future, shared by every recipe. */
public final class Acquisitions {
  private Acquisitions() {}

  /**
   * Waits for {@code f}; on interrupt, cancels it (which withdraws the request) and rethrows.
   * Returns null when the request timed out.
   */
  public static LockHandle await(CompletableFuture<LockHandle> f, String path)
      throws InterruptedException {
    Ticket.blockedCallerOnly(f); // every caller passes a future made for it alone
    try {
      return Blocking.get(f);
    } catch (InterruptedException e) {
      f.cancel(true);
      // if the grant won the race, the future holds a handle: give it back
      if (!f.isCancelled()) {
        LockHandle h = f.getNow(null);
        if (h != null) {
          h.releaseAsync();
        }
      }
      throw e;
    } catch (ExecutionException e) {
      throw unwrap(e.getCause(), path);
    } catch (CancellationException e) {
      throw new ZkLockException("the acquisition was cancelled", path, 0L, e);
    }
  }

  /** Waits without being interruptible (for tryAcquire(), which never waits for a holder). */
  public static Optional<LockHandle> awaitUninterruptibly(
      CompletableFuture<LockHandle> f, String path) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return Optional.ofNullable(Blocking.get(f));
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          throw unwrap(e.getCause(), path);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  public static RuntimeException unwrap(Throwable cause, String path) {
    if (cause instanceof RuntimeException r) {
      return r;
    }
    return new ZkLockException("acquisition failed", path, 0L, cause);
  }

  /**
   * {@link java.util.concurrent.locks.Lock#lock()}: acquires without being interruptible; an
   * interrupt is remembered and restored once the lock is held.
   */
  public static LockHandle acquireUninterruptibly(io.zklock.DistributedLock lock) {
    CompletableFuture<LockHandle> f = lock.acquireAsync();
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return Blocking.get(f);
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          throw unwrap(e.getCause(), lock.name());
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Waits for a release to complete, as {@link LockHandle#release()} documents: an interrupt stops
   * the wait (the deletion goes on in the background) and keeps the interrupt status.
   */
  static void awaitRelease(CompletableFuture<Void> f, String path) {
    try {
      Blocking.get(f);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof ZkLockException z) {
        throw z;
      }
      throw new ZkLockException("release failed", path, 0L, cause);
    }
  }
}
