package io.zklock.internal.engine;

import io.zklock.LockHandle;
import io.zklock.internal.rules.Args;

/**
 * A {@link LockHandle} of this library: {@link #release()} waits on {@link #releaseAsync()}, and
 * {@link #close()} is {@link #release()}.
 */
public interface Handle extends LockHandle {

  /**
   * A grant of this library as the engine's type, for the decorators that wrap one (a lease, an
   * observed grant, a multi-lock, a cohort's local hold) and reach its {@link #guard()}: every
   * handle a recipe's {@code start} gives is one. The one place that converts.
   *
   * @throws IllegalArgumentException if {@code h} is not a handle of this library
   */
  static Handle of(LockHandle h) {
    if (h instanceof Handle handle) {
      return handle;
    }
    throw new IllegalArgumentException("not a grant of zklock: " + h);
  }

  @Override
  default void release() {
    Acquisitions.awaitRelease(releaseAsync(), path());
  }

  @Override
  default void close() {
    release();
  }

  /**
   * What a guarded transaction of this grant checks, asked when its commit starts and again right
   * before it is sent ({@link Transaction}).
   */
  default Guard guard() {
    throw new UnsupportedOperationException("no guarded writes from " + getClass().getName());
  }

  @Override
  default io.zklock.GuardedTransaction transaction() {
    return new Transaction(this, this::guard);
  }

  /** Grants without a lease cannot be extended; a leased grant overrides this. */
  @Override
  default boolean extend(java.time.Duration lease) {
    Args.positiveMillis(lease, "lease");
    throw new IllegalStateException(
        "this grant of " + path() + " has no lease (acquire it through withLease(...))");
  }
}
