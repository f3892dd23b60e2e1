package io.zklock.internal.recipe;

import io.zklock.DistributedLock;

/**
 * What a {@link MultiLock} needs of each lock it is made of; implemented by the library's own locks
 * only, which is why a multi-lock refuses foreign {@link DistributedLock} implementations.
 */
interface LockPart extends StartableLock {
  /**
   * The key that puts every lock in one canonical order: the lock directory, then the kind. Two
   * parts with the same directory contend with each other (read and write side, mutex and simple
   * lock of one name), so a multi-lock refuses them.
   */
  String sortKey();

  /** The lock directory, unique per contended resource. */
  String dir();

  /** Errors of a part name its lock directory. */
  @Override
  default String errorPath() {
    return dir();
  }
}
