package io.zklock;

import java.time.Duration;

/**
 * A mutex seen through {@link DistributedLock#withLease} keeps the lock contract (with a lease long
 * enough never to run out here: LeaseTest covers its running out).
 */
class LeasedMutexContractTest extends LockContractTest {
  @Override
  protected DistributedLock lock(ZkLocks locks, String name) {
    return locks.mutex(name).withLease(Duration.ofMinutes(5));
  }
}
