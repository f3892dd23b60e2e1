package io.zklock;

/**
 * The lock contract for the Curator-compatible mutex ({@link LockOptions#curatorCompatible()}):
 * among zklock's own clients it is a mutex like any other, with Curator's node names. Its tests
 * with real Curator clients are in zklock-curator-tests.
 */
class CuratorCompatibleMutexContractTest extends LockContractTest {
  @Override
  protected DistributedLock lock(ZkLocks locks, String name) {
    return locks.mutex(name, LockOptions.curatorCompatible());
  }
}
