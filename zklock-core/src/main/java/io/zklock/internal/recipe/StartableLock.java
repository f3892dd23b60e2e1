package io.zklock.internal.recipe;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.internal.engine.Acquisitions;
import io.zklock.internal.rules.Waiting;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntConsumer;

/**
 * A lock of this library seen through its one primitive, {@link #start}: the blocking, try and
 * asynchronous ways to acquire of {@link DistributedLock} are built on it, the same for every
 * recipe.
 */
interface StartableLock extends DistributedLock {

  /** The instance whose session the lock uses. */
  RecipeContext ctx();

  /** What errors of this lock name: the lock directory, or a multi-lock's name. */
  String errorPath();

  /**
   * Starts one request that waits for a holder as {@code waiting} says. The future completes with
   * the handle, or null when busy or timed out; cancelling it withdraws the request.
   */
  CompletableFuture<LockHandle> start(Waiting waiting);

  /**
   * {@link #start(Waiting)}, telling {@code queued} (if not null) how many requests stand ahead
   * each time the request waits. By default the positions are not told.
   */
  default CompletableFuture<LockHandle> start(Waiting waiting, IntConsumer queued) {
    return start(waiting);
  }

  /** The kind of lock, as the lock event listeners are told it ({@link io.zklock.LockEvent}). */
  String eventKind();

  /**
   * {@link #start(Waiting)} for a caller of the API: told to the lock event listeners when anyone
   * listens (nothing more is made or called otherwise).
   */
  default CompletableFuture<LockHandle> startObserved(Waiting waiting) {
    if (!ctx().requests().events().on()) {
      return start(waiting);
    }
    return Observing.start(
        ctx(), name(), eventKind(), waiting.isNow(), queued -> start(waiting, queued));
  }

  /** An interrupted caller is refused before any request is made, as by the JDK's locks. */
  @Override
  default LockHandle acquire() throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException("interrupted before acquiring " + errorPath());
    }
    return Acquisitions.await(
        ctx().lifecycle().whenReady(this::startObserved, Waiting.FOREVER, errorPath()),
        errorPath());
  }

  /** Never waits for a holder, and refuses to guess while the connection is down. */
  @Override
  default Optional<LockHandle> tryAcquire() {
    ctx().lifecycle().checkConnected(errorPath());
    return Acquisitions.awaitUninterruptibly(startObserved(Waiting.NOW), errorPath());
  }

  /** A zero timeout is {@link #tryAcquire()}. */
  @Override
  default Optional<LockHandle> tryAcquire(Duration timeout) throws InterruptedException {
    Waiting waiting = Waiting.after(timeout, ctx().clock());
    if (waiting.isNow()) {
      return tryAcquire();
    }
    if (Thread.interrupted()) {
      throw new InterruptedException("interrupted before acquiring " + errorPath());
    }
    return Optional.ofNullable(
        Acquisitions.await(
            ctx().lifecycle().whenReady(this::startObserved, waiting, errorPath()), errorPath()));
  }

  @Override
  default CompletableFuture<LockHandle> acquireAsync() {
    return ctx().lifecycle().whenReady(this::startObserved, Waiting.FOREVER, errorPath());
  }

  @Override
  default DistributedLock withLease(Duration lease) {
    return new LeasedLock(this, lease);
  }

  /** How a lock without a condition refuses {@code newCondition}: naming itself, and why. */
  static UnsupportedOperationException noCondition(DistributedLock lock, String why) {
    return new UnsupportedOperationException("the " + lock + " has no condition: " + why);
  }
}
