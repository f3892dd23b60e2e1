package io.zklock;

class MultiLockContractTest extends LockContractTest {
  @Override
  protected DistributedLock lock(ZkLocks locks, String name) {
    return locks.multiLock(locks.simpleLock(name + "/b"), locks.mutex(name + "/a"));
  }
}
