package io.zklock;

/**
 * A cohort mutex ({@link LockOptions#cohort()}) keeps the lock contract between clients: its
 * sharing of one node among the requests of one client changes nothing seen from another.
 */
class CohortMutexContractTest extends LockContractTest {
  @Override
  protected DistributedLock lock(ZkLocks locks, String name) {
    return locks.mutex(name, LockOptions.cohort());
  }
}
