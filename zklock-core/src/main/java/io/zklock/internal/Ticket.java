package io.zklock.internal;

import io.zklock.LockHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The caller's side of one lock request: the future the caller waits on and the deadline that
 * bounds the wait. A request ({@link LockRequest}, a cohort's) owns one ticket and keeps its own
 * state machine; the ticket knows nothing of nodes.
 *
 * <p>{@link #result} completes with the handle (granted), with null (busy, timed out, withdrawn) or
 * exceptionally (failure, close), always on the library's executor: never on ZooKeeper's event
 * thread, never under the request's monitor.
 */
final class Ticket {
  final CompletableFuture<LockHandle> result = new CompletableFuture<>();
  private final RequestContext ctx;
  private final Waiting waiting;
  private volatile ScheduledFuture<?> timer;

  /** {@code waiting}: how long the caller waits for a holder. */
  Ticket(RequestContext ctx, Waiting waiting) {
    this.ctx = ctx;
    this.waiting = waiting;
  }

  /** Runs {@code giveUp} when the deadline passes or the caller cancels {@link #result}. */
  void onGiveUp(Runnable giveUp) {
    result.whenComplete(
        (h, err) -> {
          if (result.isCancelled()) {
            giveUp.run();
          }
        });
    if (waiting.hasDeadline()) {
      timer =
          ctx.scheduler()
              .schedule(giveUp, waiting.remainingNanos(ctx.clock()), TimeUnit.NANOSECONDS);
    }
  }

  /** Whether the request must not wait for a holder ({@code tryAcquire()}). */
  boolean tryOnly() {
    return waiting.isNow();
  }

  /** Whether the caller's deadline has passed. */
  boolean expired() {
    return waiting.expired(ctx.clock());
  }

  /** Stops the deadline's timer: the request was granted or ended. Idempotent. */
  void disarm() {
    ScheduledFuture<?> t = timer;
    if (t != null) {
      t.cancel(false);
    }
  }

  /** Hands {@code handle} to the caller; if the caller gave up meanwhile, releases it. */
  void grant(LockHandle handle) {
    disarm();
    ctx.executor()
        .execute(
            () -> {
              if (!result.complete(handle)) {
                handle.releaseAsync();
              }
            });
  }

  /** Ends the wait without a handle: null when {@code failure} is null, else exceptionally. */
  void end(Throwable failure) {
    endAfter(CompletableFuture.completedFuture(null), failure);
  }

  /** Like {@link #end}, once {@code done} completes (however it completes). */
  void endAfter(CompletableFuture<?> done, Throwable failure) {
    disarm();
    done.whenCompleteAsync(
        (v, t) -> {
          if (failure != null) {
            result.completeExceptionally(failure);
          } else {
            result.complete(null);
          }
        },
        ctx.executor());
  }

  /**
   * A withdrawal raced a grant that was not yet delivered: whoever completes {@link #result} first
   * decides. Returns true when the caller will never see the handle, which must then be released.
   */
  boolean takeBack(Throwable failure) {
    boolean withdrawn =
        failure == null ? result.complete(null) : result.completeExceptionally(failure);
    return withdrawn || result.isCancelled();
  }
}
