package io.zklock.internal.recipe;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.internal.rules.Args;
import io.zklock.internal.rules.Waiting;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.Lock;
import java.util.function.IntConsumer;

/**
 * {@link DistributedLock#withLease}: the same lock, whose grants expire {@code lease} after they
 * are made unless extended. Requests are the underlying lock's; each granted handle is wrapped in a
 * {@link LeasedHandle} that keeps the lease.
 */
final class LeasedLock implements StartableLock {
  private final StartableLock lock;
  private final Duration lease;
  private final Lock view;

  LeasedLock(StartableLock lock, Duration lease) {
    this.lock = lock instanceof LeasedLock l ? l.lock : lock;
    this.lease = Args.positiveMillis(lease, "lease");
    this.view = new ReentrantView(this);
  }

  @Override
  public RecipeContext ctx() {
    return lock.ctx();
  }

  @Override
  public String errorPath() {
    return lock.errorPath();
  }

  @Override
  public String name() {
    return lock.name();
  }

  @Override
  public String eventKind() {
    return lock.eventKind();
  }

  @Override
  public CompletableFuture<LockHandle> start(Waiting waiting) {
    return start(waiting, null);
  }

  @Override
  public CompletableFuture<LockHandle> start(Waiting waiting, IntConsumer queued) {
    CompletableFuture<LockHandle> in = lock.start(waiting, queued);
    CompletableFuture<LockHandle> out = new CompletableFuture<>();
    out.whenComplete(
        (h, e) -> {
          if (out.isCancelled()) {
            in.cancel(true); // withdraws the request; a grant made meanwhile is released
          }
        });
    in.whenComplete(
        (h, e) -> {
          if (e != null) {
            Throwable cause =
                e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (!(cause instanceof CancellationException)) {
              out.completeExceptionally(cause);
            }
          } else if (h == null) {
            out.complete(null);
          } else {
            LeasedHandle leased = new LeasedHandle(h, lease, ctx());
            if (!out.complete(leased)) {
              leased.releaseAsync();
            }
          }
        });
    return out;
  }

  @Override
  public Lock asLock() {
    return view;
  }

  /**
   * A leased view has no condition: an await would give the grant back and take it again without
   * its lease. Make the condition on the lock itself.
   */
  @Override
  public io.zklock.DistributedCondition newCondition(String conditionName) {
    throw StartableLock.noCondition(this, "make it on the lock itself, not on its leased view");
  }

  @Override
  public String toString() {
    return lock + " with a lease of " + lease;
  }
}
