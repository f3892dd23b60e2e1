package io.zklock;

class WriteLockContractTest extends LockContractTest {
  @Override
  protected DistributedLock lock(ZkLocks locks, String name) {
    return locks.readWriteLock(name).writeLock();
  }
}
