package io.zklock.internal.recipe;

import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.internal.engine.Guard;
import io.zklock.internal.engine.Handle;
import io.zklock.internal.rules.Args;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A grant with a lease: when the lease runs out before the handle is released, the library releases
 * the node itself and {@link #lost()} completes with {@link
 * LockLostException.Reason#LEASE_EXPIRED}. The lease is kept by a timer on the library's scheduler,
 * so it runs out even while the holder's threads are stuck; {@link #extend} sets it again.
 */
final class LeasedHandle implements Handle {

  /** The life of the lease. */
  private enum State {
    /** Held; the timer runs. */
    HELD,
    /** Released by its holder; the timer was cancelled. */
    RELEASED,
    /** The lease ran out; the node is being deleted and the holder was told. */
    EXPIRED,
    /** The underlying grant was lost (session, deletion, close) before the lease ran out. */
    LOST
  }

  private final Handle grant;
  private final RecipeContext ctx;
  private final CompletableFuture<LockLostException> lost = new CompletableFuture<>();

  // guarded by this
  private State state = State.HELD;
  private ScheduledFuture<?> timer;
  private long generation; // drops a timer that fires after being replaced

  LeasedHandle(LockHandle grant, Duration lease, RecipeContext ctx) {
    this.grant = Handle.of(grant);
    this.ctx = ctx;
    synchronized (this) {
      schedule(lease);
    }
    grant
        .lost()
        .thenAccept(
            ex -> {
              synchronized (this) {
                if (state != State.HELD) {
                  return;
                }
                state = State.LOST;
                cancelTimer();
              }
              lost.complete(ex);
            });
  }

  /** Called holding the monitor. */
  private void schedule(Duration lease) {
    cancelTimer();
    long g = ++generation;
    timer = ctx.scheduler().schedule(() -> expire(g), lease.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Called holding the monitor. */
  private void cancelTimer() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  private void expire(long g) {
    synchronized (this) {
      if (state != State.HELD || g != generation) {
        return;
      }
      state = State.EXPIRED;
      timer = null;
    }
    if (grant instanceof io.zklock.internal.engine.LockRequest request) {
      request.releaseAsFailure(); // a lease run out is a failure: a lock-delay applies
    } else {
      grant.releaseAsync(); // deletion guaranteed, also across a connection loss
    }
    lost.complete(
        new LockLostException(
            grant.path(), ctx.session().sessionId(), LockLostException.Reason.LEASE_EXPIRED));
  }

  @Override
  public boolean extend(Duration lease) {
    Args.positiveMillis(lease, "lease");
    synchronized (this) {
      if (state != State.HELD || !grant.isHeld()) {
        return false;
      }
      schedule(lease);
      return true;
    }
  }

  @Override
  public String lockName() {
    return grant.lockName();
  }

  @Override
  public String path() {
    return grant.path();
  }

  @Override
  public long fencingToken() {
    return grant.fencingToken();
  }

  @Override
  public boolean isHeld() {
    synchronized (this) {
      if (state != State.HELD) {
        return false;
      }
    }
    return grant.isHeld();
  }

  @Override
  public CompletableFuture<LockLostException> lost() {
    return lost;
  }

  @Override
  public void onReleaseRequested(Runnable action) {
    grant.onReleaseRequested(action);
  }

  @Override
  public boolean isReleaseRequested() {
    return grant.isReleaseRequested();
  }

  /**
   * The grant's guard while the lease runs. A lease that ran out is refused here; a commit sent
   * before the lease ran out goes to the server ahead of the node's deletion, which the expiry
   * sends on the same session after it, so it commits within the hold or not at all.
   */
  @Override
  public Guard guard() {
    synchronized (this) {
      switch (state) {
        case RELEASED:
          return Guard.released(lockName());
        case EXPIRED:
          return Guard.refused(
              new LockLostException(
                  grant.path(), ctx.session().sessionId(), LockLostException.Reason.LEASE_EXPIRED));
        case LOST:
          return Guard.losing(lost);
        default:
          break;
      }
    }
    return grant.guard();
  }

  @Override
  public CompletableFuture<Void> releaseAsync() {
    synchronized (this) {
      if (state == State.HELD) {
        state = State.RELEASED;
        cancelTimer();
      }
    }
    return grant.releaseAsync(); // idempotent; harmless after expiry or loss
  }

  @Override
  public String toString() {
    return "LockHandle[" + lockName() + " (leased), node=" + path() + "]";
  }
}
