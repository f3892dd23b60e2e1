package io.zklock.internal;

import io.zklock.LockHandle;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * One waiting request for a semaphore lease: first the admission mutex, then the lease, under one
 * deadline. Withdrawal (timeout, interrupt, cancel) cancels whichever step is under way; each
 * step's {@link Attempt} deletes its own node, so nothing is left behind. The admission mutex is
 * released as soon as the lease is decided.
 */
final class SemaphoreRequest {
  private final ZkLocksImpl ctx;
  private final QueueLock admission;
  private final QueueLock leases;
  private final boolean hasDeadline;
  private final long deadlineNanos;
  private final long timeoutNanos;
  final CompletableFuture<LockHandle> result = new CompletableFuture<>();

  // guarded by this
  private CompletableFuture<LockHandle> step;

  SemaphoreRequest(
      ZkLocksImpl ctx, QueueLock admission, QueueLock leases, long nanos, boolean hasDeadline) {
    this.ctx = ctx;
    this.admission = admission;
    this.leases = leases;
    this.hasDeadline = hasDeadline;
    this.timeoutNanos = nanos;
    this.deadlineNanos = hasDeadline ? ctx.clock().nanoTime() + nanos : Long.MAX_VALUE;
  }

  void start() {
    CompletableFuture<LockHandle> first;
    synchronized (this) {
      first = admission.start(false, timeoutNanos, hasDeadline);
      step = first;
    }
    result.whenComplete(
        (h, err) -> {
          if (result.isCancelled()) {
            CompletableFuture<LockHandle> s;
            synchronized (this) {
              s = step;
            }
            s.cancel(true);
          }
        });
    first.whenComplete(this::admitted);
  }

  private void admitted(LockHandle mutex, Throwable err) {
    if (err != null || mutex == null) {
      finish(null, err);
      return;
    }
    CompletableFuture<LockHandle> lease;
    synchronized (this) {
      long remaining = hasDeadline ? deadlineNanos - ctx.clock().nanoTime() : 0L;
      if (result.isDone() || (hasDeadline && remaining <= 0)) {
        mutex.releaseAsync().whenCompleteAsync((v, t) -> finish(null, null), ctx.executor());
        return;
      }
      lease = leases.start(false, remaining, hasDeadline);
      step = lease;
    }
    lease.whenComplete(
        (h, err2) -> {
          CompletableFuture<Void> gone = mutex.releaseAsync(); // the next waiter may try now
          if (h != null && err2 == null) {
            finish(h, null);
          } else {
            // a failure is answered once the admission mutex is given back: nothing left held
            gone.whenCompleteAsync((v, t) -> finish(h, err2), ctx.executor());
          }
        });
  }

  private void finish(LockHandle h, Throwable err) {
    if (err != null) {
      Throwable cause =
          err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
      if (!(cause instanceof CancellationException)) {
        result.completeExceptionally(cause);
      }
      return;
    }
    if (!result.complete(h) && h != null) {
      h.releaseAsync(); // cancelled meanwhile
    }
  }
}
