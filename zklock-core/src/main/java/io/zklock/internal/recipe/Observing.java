package io.zklock.internal.recipe;

import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.internal.engine.Events;
import io.zklock.internal.engine.Handle;
import io.zklock.internal.engine.Observation;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.IntConsumer;

/**
 * A lock's acquisition told to the instance's lock event listeners, on the engine's {@link
 * Observation}: made only when someone listens ({@link Events#on()}), so that a request nobody
 * listens to makes no event and no wrapper. Its wait ends once (granted, timed out, cancelled or
 * failed), and a grant's hold ends once (released or lost), in {@link ObservedHandle}, the handle
 * the caller gets: the decorator that every observed grant is wrapped in.
 */
final class Observing {
  private Observing() {}

  /** Tells the request of a lock of {@code ctx}, or returns null if nobody listens. */
  static Observation begin(RecipeContext ctx, String name, String kind) {
    return Observation.begin(
        ctx.requests().events(), ctx.clock(), ctx.session()::sessionId, name, kind);
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
    Observation o = begin(ctx, name, kind);
    if (o == null) {
      return starter.apply(null);
    }
    return run(o, tryOnly, starter);
  }

  private static CompletableFuture<LockHandle> run(
      Observation o,
      boolean tryOnly,
      Function<IntConsumer, CompletableFuture<LockHandle>> starter) {
    CompletableFuture<LockHandle> in;
    try {
      in = starter.apply(o::queued);
    } catch (RuntimeException e) {
      o.failed(e);
      throw e;
    }
    CompletableFuture<LockHandle> out = new CompletableFuture<>();
    out.whenComplete(
        (h, e) -> {
          if (out.isCancelled()) {
            in.cancel(true); // withdraws the request; a grant made meanwhile is released
            o.cancelled();
          }
        });
    in.whenComplete(
        (h, e) -> {
          if (e != null) {
            Throwable cause =
                e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof CancellationException) {
              o.cancelled();
              out.cancel(false);
            } else {
              o.failed(cause);
              out.completeExceptionally(cause);
            }
          } else if (h == null) {
            o.notGranted(tryOnly);
            out.complete(null);
          } else {
            LockHandle mine = granted(o, h);
            if (!out.complete(mine)) {
              mine.releaseAsync();
            }
          }
        });
    return out;
  }

  /**
   * The request of {@code o} was granted {@code h}: returns the handle to give the caller, which
   * tells its release or loss. If the wait had ended already (cancelled), {@code h} is released and
   * returned.
   */
  static LockHandle granted(Observation o, LockHandle h) {
    long at = o.now();
    if (!o.granted(h.fencingToken())) {
      h.releaseAsync();
      return h;
    }
    return new ObservedHandle(o, Handle.of(h), at);
  }

  /** Unwraps a handle the caller was given, for the recipes that look inside it (a downgrade). */
  static LockHandle unwrap(LockHandle h) {
    return h instanceof ObservedHandle o ? o.handle : h;
  }

  /** The caller's handle of an observed grant: tells its release or its loss, once. */
  static final class ObservedHandle implements Handle {
    private final Observation observation;
    private final Handle handle;
    private final long granted;
    private final AtomicBoolean ended = new AtomicBoolean();

    /**
     * The caller's {@link #lost()}: completes once the loss was told, so that a non-blocking
     * listener (a meter) has counted it before anything the caller runs on the loss.
     */
    private final CompletableFuture<LockLostException> lost;

    ObservedHandle(Observation observation, Handle handle, long granted) {
      this.observation = observation;
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
        observation.lost(handle.fencingToken(), granted, e.reason());
      }
    }

    private void released() {
      if (ended.compareAndSet(false, true)) {
        observation.released(handle.fencingToken(), granted);
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
      return handle.guard();
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
