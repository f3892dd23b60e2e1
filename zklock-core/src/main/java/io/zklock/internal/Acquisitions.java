package io.zklock.internal;

import io.zklock.LockHandle;
import io.zklock.ZkLockException;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** Blocking waits on an acquisition future, shared by every recipe. */
final class Acquisitions {
  private Acquisitions() {}

  /** Starts one request of a lock; see {@link LockPart#start}. */
  @FunctionalInterface
  interface Starter {
    CompletableFuture<LockHandle> start(boolean tryOnly, long nanos, boolean hasDeadline);
  }

  /** {@link io.zklock.DistributedLock#acquire()} of any lock that can {@link Starter start}. */
  static LockHandle acquire(Starter lock, String path) throws InterruptedException {
    return await(lock.start(false, 0L, false), path);
  }

  /** {@link io.zklock.DistributedLock#tryAcquire()}: never waits, refuses to guess offline. */
  static Optional<LockHandle> tryAcquire(Starter lock, ZkLocksImpl ctx, String path) {
    ctx.checkConnected(path);
    return awaitUninterruptibly(lock.start(true, 0L, false), path);
  }

  /** {@link io.zklock.DistributedLock#tryAcquire(java.time.Duration)}: zero means no wait. */
  static Optional<LockHandle> tryAcquire(
      Starter lock, ZkLocksImpl ctx, String path, java.time.Duration timeout)
      throws InterruptedException {
    long nanos = Args.timeoutNanos(timeout);
    if (nanos == 0) {
      return tryAcquire(lock, ctx, path);
    }
    return Optional.ofNullable(await(lock.start(false, nanos, true), path));
  }

  /**
   * Waits for {@code f}; on interrupt, cancels it (which withdraws the request) and rethrows.
   * Returns null when the request timed out.
   */
  static LockHandle await(CompletableFuture<LockHandle> f, String path)
      throws InterruptedException {
    try {
      return f.get();
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
  static Optional<LockHandle> awaitUninterruptibly(CompletableFuture<LockHandle> f, String path) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return Optional.ofNullable(f.get());
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

  static RuntimeException unwrap(Throwable cause, String path) {
    if (cause instanceof RuntimeException r) {
      return r;
    }
    return new ZkLockException("acquisition failed", path, 0L, cause);
  }

  /**
   * Waits for a release to complete, as {@link LockHandle#release()} documents: an interrupt stops
   * the wait (the deletion goes on in the background) and keeps the interrupt status.
   */
  static void awaitRelease(CompletableFuture<Void> f, String path) {
    try {
      f.get();
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
