package io.zklock.internal.engine;

import io.zklock.LockHandle;
import io.zklock.internal.rules.Waiting;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The caller's side of one lock request: the future the caller waits on and the deadline that
 * bounds the wait. A request ({@link LockRequest}, a cohort's) owns one ticket and keeps its own
 * state machine; the ticket knows nothing of nodes.
 *
 * <p>{@link #result} completes with the handle (granted), with null (busy, timed out, withdrawn) or
 * exceptionally (failure, close), on the library's executor: never on ZooKeeper's event thread,
 * never under the request's monitor, so that no callback of a caller runs there. One exception,
 * where no caller's callback can exist: a future that only a blocked caller waits on (a blocking
 * {@code acquire()}, declared by {@link #blockedCallerOnly}) is completed with its handle at once,
 * on the thread that grants, waking the caller without a hop through the executor.
 */
public final class Ticket {
  public final Result result = new Result();
  private final RequestContext ctx;
  private final Waiting waiting;
  private volatile ScheduledFuture<?> timer;
  private java.util.function.IntConsumer queued; // set before the request starts, or null

  /** {@code waiting}: how long the caller waits for a holder. */
  public Ticket(RequestContext ctx, Waiting waiting) {
    this.ctx = ctx;
    this.waiting = waiting;
  }

  /**
   * Tells {@code queued} each time the request waits, with how many requests stand ahead of it (for
   * the lock event listeners). Call before the request starts.
   */
  public Ticket onQueued(java.util.function.IntConsumer queued) {
    if (queued == null) {
      this.queued = null; // nobody listens: nothing to tell, nothing kept
      return this;
    }
    // once per place; the place last told is kept only for a request someone listens to
    java.util.concurrent.atomic.AtomicInteger last =
        new java.util.concurrent.atomic.AtomicInteger(-1);
    this.queued =
        position -> {
          if (last.getAndSet(position) != position) {
            queued.accept(position);
          }
        };
    return this;
  }

  /**
   * The request waits behind {@code position} others. Told once per place: a request that lists
   * again and finds itself where it was (a watch's request lost with the connection, a listing
   * shared with another request) has nothing new to tell.
   */
  void queued(int position) {
    java.util.function.IntConsumer q = queued;
    if (q != null) {
      q.accept(position);
    }
  }

  /** Runs {@code giveUp} when the deadline passes or the caller cancels {@link #result}. */
  public void onGiveUp(Runnable giveUp) {
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
  public boolean tryOnly() {
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

  /**
   * Hands {@code handle} to the caller; if the caller gave up meanwhile, releases it (on the
   * executor).
   */
  public void grant(LockHandle handle) {
    disarm();
    if (result.blockedCallerOnly) {
      // nothing but the blocked caller and this ticket's own cancel hook wait on the future
      if (!result.complete(handle)) {
        ctx.executor().execute(handle::releaseAsync);
      }
      return;
    }
    ctx.executor()
        .execute(
            () -> {
              if (!result.complete(handle)) {
                handle.releaseAsync();
              }
            });
  }

  /**
   * Declares that only the calling thread, blocked until it completes, will ever use {@code f}: no
   * callback of a caller is or will be attached to it. If {@code f} is a ticket's {@link #result},
   * a grant then completes it at once instead of through the executor (see the class comment). Call
   * it only for a future the library made for this caller and handed to nobody else.
   */
  static void blockedCallerOnly(CompletableFuture<LockHandle> f) {
    if (f instanceof Result r) {
      r.blockedCallerOnly = true;
    }
  }

  /** The caller's future, which knows whether only a blocked caller waits on it. */
  static final class Result extends CompletableFuture<LockHandle> {
    private volatile boolean blockedCallerOnly;
  }

  /** Ends the wait without a handle: null when {@code failure} is null, else exceptionally. */
  public void end(Throwable failure) {
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
  public boolean takeBack(Throwable failure) {
    boolean withdrawn =
        failure == null ? result.complete(null) : result.completeExceptionally(failure);
    return withdrawn || result.isCancelled();
  }
}
