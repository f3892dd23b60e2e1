package io.zklock.internal;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import java.util.concurrent.CompletableFuture;

/**
 * What a {@link MultiLock} needs of each lock it is made of; implemented by the library's own locks
 * only, which is why a multi-lock refuses foreign {@link DistributedLock} implementations.
 */
interface LockPart extends DistributedLock {
  /**
   * The key that puts every lock in one canonical order: the lock directory, then the kind. Two
   * parts with the same directory contend with each other (read and write side, mutex and simple
   * lock of one name), so a multi-lock refuses them.
   */
  String sortKey();

  /** The lock directory, unique per contended resource. */
  String dir();

  /** The instance whose session the part uses. */
  ZkLocksImpl ctx();

  /**
   * Starts one request: {@code tryOnly} never waits for a holder; otherwise {@code hasDeadline}
   * bounds the wait to {@code nanos}. The future completes with the handle, or null when busy or
   * timed out; cancelling it withdraws the request.
   */
  CompletableFuture<LockHandle> start(boolean tryOnly, long nanos, boolean hasDeadline);
}
