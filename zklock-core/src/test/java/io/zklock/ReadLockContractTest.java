package io.zklock;

/**
 * The read side of a read-write lock keeps the lock contract, with the write side as the lock that
 * excludes it: readers share (ReadWriteLockTest), so "a holder keeps the other waiting" is always
 * between a reader and a writer here.
 */
class ReadLockContractTest extends LockContractTest {
  @Override
  protected DistributedLock lock(ZkLocks locks, String name) {
    return locks.readWriteLock(name).readLock();
  }

  @Override
  protected DistributedLock conflicting(ZkLocks locks, String name) {
    return locks.readWriteLock(name).writeLock();
  }
}
