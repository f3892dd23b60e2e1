package io.zklock;

class MutexContractTest extends LockContractTest {
  @Override
  protected DistributedLock lock(ZkLocks locks, String name) {
    return locks.mutex(name);
  }

  /** The mutex, the recipe most used, is checked under heavier contention. */
  @Override
  protected int sessions() {
    return 20;
  }
}
