package io.zklock;

/**
 * The read side of a cohort read-write lock keeps the lock contract, its write side excluding it.
 */
class CohortReadLockContractTest extends LockContractTest {
  @Override
  protected DistributedLock lock(ZkLocks locks, String name) {
    return locks.readWriteLock(name, LockOptions.cohort()).readLock();
  }

  @Override
  protected DistributedLock conflicting(ZkLocks locks, String name) {
    return locks.readWriteLock(name, LockOptions.cohort()).writeLock();
  }
}
