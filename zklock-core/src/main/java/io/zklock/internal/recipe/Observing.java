package io.zklock.internal.recipe;

import io.zklock.LockEvent;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.internal.engine.Events;
import io.zklock.internal.engine.Handle;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.IntConsumer;

/**
 * One acquisition told to the instance's lock event listeners: made only when someone listens
 * ({@link Events#on()}), so that a request nobody listens to makes no event and no wrapper. Its
 * wait ends once (granted, timed out, cancelled or failed: the first to happen is told), and a
 * grant's hold ends once (released or lost), in {@link ObservedHandle}, the handle the caller gets.
 * A coordination recipe's blocking wait is told through the same object ({@link #begin}, then
 * {@link #waited} or {@link #waitThrew}): it ends passed, timed out, cancelled, failed or lost, and
 * never holds.
 */
final class Observing {
  private final RecipeContext ctx;
  private final Events events;
  private final String name;
  private final String kind;
  private final long id;
  private final long start;
  private final AtomicBoolean waitEnded = new AtomicBoolean();

  private Observing(RecipeContext ctx, Events events, String name, String kind) {
    this.ctx = ctx;
    this.events = events;
    this.name = name;
    this.kind = kind;
    this.id = events.nextId();
    this.start = ctx.clock().nanoTime();
    emit(LockEvent.Type.REQUESTED, 0L, -1, Duration.ZERO, "", null);
  }

  /** Tells the request, or returns null if nobody listens. */
  static Observing begin(RecipeContext ctx, String name, String kind) {
    Events events = ctx.requests().events();
    return events.on() ? new Observing(ctx, events, name, kind) : null;
  }

  /**
   * Starts an observed acquisition: {@code starter} is handed where to tell queue positions and
   * returns the request's future (a handle, or null when busy or timed out); the future returned
   * completes with the observed handle, and cancelling it cancels the request.
   *
   * @param tryOnly whether the request never waits (a null result is then "busy")
   */
  static CompletableFuture<LockHandle> start(
      RecipeContext ctx,
      String name,
      String kind,
      boolean tryOnly,
      Function<IntConsumer, CompletableFuture<LockHandle>> starter) {
    Observing o = begin(ctx, name, kind);
    if (o == null) {
      return starter.apply(null);
    }
    return o.run(tryOnly, starter);
  }

  private CompletableFuture<LockHandle> run(
      boolean tryOnly, Function<IntConsumer, CompletableFuture<LockHandle>> starter) {
    CompletableFuture<LockHandle> in;
    try {
      in = starter.apply(this::queued);
    } catch (RuntimeException e) {
      failed(e);
      throw e;
    }
    CompletableFuture<LockHandle> out = new CompletableFuture<>();
    out.whenComplete(
        (h, e) -> {
          if (out.isCancelled()) {
            in.cancel(true); // withdraws the request; a grant made meanwhile is released
            cancelled();
          }
        });
    in.whenComplete(
        (h, e) -> {
          if (e != null) {
            Throwable cause =
                e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof CancellationException) {
              cancelled();
              out.cancel(false);
            } else {
              failed(cause);
              out.completeExceptionally(cause);
            }
          } else if (h == null) {
            notGranted(tryOnly);
            out.complete(null);
          } else {
            LockHandle mine = granted(h);
            if (!out.complete(mine)) {
              mine.releaseAsync();
            }
          }
        });
    return out;
  }

  /** A coordination wait: true if what it waited for happened, false at its time-out. */
  @FunctionalInterface
  interface PassingWait {
    boolean run() throws InterruptedException;
  }

  /**
   * Runs {@code wait}, told on the lock event seam as a coordination wait of {@code kind} named
   * {@code name}: passed, timed out, cancelled (interrupted) or failed. Nothing is made or told
   * when nobody listens.
   */
  static boolean observed(RecipeContext ctx, String name, String kind, PassingWait wait)
      throws InterruptedException {
    Observing o = begin(ctx, name, kind);
    try {
      boolean passed = wait.run();
      waited(o, passed);
      return passed;
    } catch (InterruptedException | RuntimeException | Error e) {
      waitThrew(o, e, 0L);
      throw e;
    }
  }

  /**
   * Ends a coordination wait ({@link io.zklock.LockEvent#isCoordination()}) that returned: passed,
   * or timed out. Does nothing for null (nobody listened at its start).
   */
  static void waited(Observing o, boolean passed) {
    if (o == null) {
      return;
    }
    if (passed) {
      o.passed();
    } else {
      o.notGranted(false);
    }
  }

  /**
   * Ends a coordination wait that threw {@code t}: cancelled (interrupted), lost (a {@link
   * LockLostException}: the token of the grant lost is {@code token}), or failed. Does nothing for
   * null.
   */
  static void waitThrew(Observing o, Throwable t, long token) {
    if (o == null) {
      return;
    }
    if (t instanceof InterruptedException || t instanceof CancellationException) {
      o.cancelled();
    } else if (t instanceof LockLostException lost) {
      if (o.waitEnded.compareAndSet(false, true)) {
        o.emit(LockEvent.Type.LOST, token, -1, o.since(o.start), lost.reason().name(), null);
      }
    } else {
      o.failed(t);
    }
  }

  void passed() {
    if (waitEnded.compareAndSet(false, true)) {
      emit(LockEvent.Type.PASSED, 0L, -1, since(start), "", null);
    }
  }

  /** The request waits behind {@code position} others. */
  void queued(int position) {
    if (!waitEnded.get()) {
      emit(LockEvent.Type.QUEUED, 0L, position, Duration.ZERO, "", null);
    }
  }

  /**
   * The request was granted {@code h}: returns the handle to give the caller, which tells its
   * release or loss. If the wait had ended already (cancelled), {@code h} is released and returned.
   */
  LockHandle granted(LockHandle h) {
    if (!waitEnded.compareAndSet(false, true)) {
      h.releaseAsync();
      return h;
    }
    long granted = ctx.clock().nanoTime();
    emit(LockEvent.Type.GRANTED, h.fencingToken(), -1, since(start), "", null);
    return new ObservedHandle(h, granted);
  }

  /** The request ended without a grant: busy ({@code tryAcquire()}) or at its timeout. */
  void notGranted(boolean busy) {
    if (waitEnded.compareAndSet(false, true)) {
      emit(LockEvent.Type.TIMED_OUT, 0L, -1, since(start), busy ? "busy" : "timeout", null);
    }
  }

  void cancelled() {
    if (waitEnded.compareAndSet(false, true)) {
      emit(LockEvent.Type.CANCELLED, 0L, -1, since(start), "", null);
    }
  }

  void failed(Throwable failure) {
    if (waitEnded.compareAndSet(false, true)) {
      emit(LockEvent.Type.FAILED, 0L, -1, since(start), "", failure);
    }
  }

  private Duration since(long from) {
    return Duration.ofNanos(Math.max(0L, ctx.clock().nanoTime() - from));
  }

  private void emit(
      LockEvent.Type type,
      long token,
      int position,
      Duration elapsed,
      String reason,
      Throwable failure) {
    events.emit(
        new LockEvent(
            type,
            name,
            kind,
            id,
            ctx.session().sessionId(),
            token,
            position,
            elapsed,
            reason,
            failure,
            null));
  }

  /** Unwraps a handle the caller was given, for the recipes that look inside it (a downgrade). */
  static LockHandle unwrap(LockHandle h) {
    return h instanceof ObservedHandle o ? o.handle : h;
  }

  /** The caller's handle of an observed grant: tells its release or its loss, once. */
  final class ObservedHandle implements Handle {
    private final LockHandle handle;
    private final long granted;
    private final AtomicBoolean ended = new AtomicBoolean();

    /**
     * The caller's {@link #lost()}: completes once the loss was told, so that a non-blocking
     * listener (a meter) has counted it before anything the caller runs on the loss.
     */
    private final CompletableFuture<LockLostException> lost;

    ObservedHandle(LockHandle handle, long granted) {
      this.handle = handle;
      this.granted = granted;
      this.lost =
          handle
              .lost()
              .thenApply(
                  e -> {
                    lost(e);
                    return e;
                  });
    }

    private void lost(LockLostException e) {
      if (ended.compareAndSet(false, true)) {
        emit(
            LockEvent.Type.LOST,
            handle.fencingToken(),
            -1,
            since(granted),
            e.reason().name(),
            null);
      }
    }

    private void released() {
      if (ended.compareAndSet(false, true)) {
        emit(LockEvent.Type.RELEASED, handle.fencingToken(), -1, since(granted), "", null);
      }
    }

    @Override
    public String lockName() {
      return handle.lockName();
    }

    @Override
    public String path() {
      return handle.path();
    }

    @Override
    public long fencingToken() {
      return handle.fencingToken();
    }

    @Override
    public boolean isHeld() {
      return handle.isHeld();
    }

    @Override
    public CompletableFuture<LockLostException> lost() {
      return lost;
    }

    @Override
    public void onReleaseRequested(Runnable action) {
      handle.onReleaseRequested(action);
    }

    @Override
    public boolean isReleaseRequested() {
      return handle.isReleaseRequested();
    }

    @Override
    public boolean extend(Duration lease) {
      return handle.extend(lease);
    }

    @Override
    public io.zklock.GuardedTransaction transaction() {
      return handle.transaction(); // guarded by the grant's own node(s)
    }

    @Override
    public io.zklock.internal.engine.Guard guard() {
      if (handle instanceof Handle h) {
        return h.guard();
      }
      return Handle.super.guard();
    }

    @Override
    public void release() {
      released();
      handle.release();
    }

    @Override
    public CompletableFuture<Void> releaseAsync() {
      released();
      return handle.releaseAsync();
    }

    @Override
    public void close() {
      release();
    }

    @Override
    public String toString() {
      return handle.toString();
    }
  }
}
