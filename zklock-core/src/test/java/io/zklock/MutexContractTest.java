package io.zklock;

class MutexContractTest extends LockContractTest {
  @Override
  protected DistributedLock lock(ZkLocks locks, String name) {
    return locks.mutex(name);
  }
}
