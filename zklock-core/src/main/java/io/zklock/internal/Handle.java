package io.zklock.internal;

import io.zklock.LockHandle;

/**
 * A {@link LockHandle} of this library: {@link #release()} waits on {@link #releaseAsync()}, and
 * {@link #close()} is {@link #release()}.
 */
interface Handle extends LockHandle {

  @Override
  default void release() {
    Acquisitions.awaitRelease(releaseAsync(), path());
  }

  @Override
  default void close() {
    release();
  }
}
