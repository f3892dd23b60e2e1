package io.zklock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

/** A semaphore of one permit keeps the lock contract. */
class SemaphoreContractTest extends LockContractTest {
  @Override
  protected DistributedLock lock(ZkLocks locks, String name) {
    DistributedSemaphore s = locks.semaphore(name, 1);
    return new DistributedLock() {
      @Override
      public String name() {
        return s.name();
      }

      @Override
      public LockHandle acquire() throws InterruptedException {
        return s.acquire();
      }

      @Override
      public Optional<LockHandle> tryAcquire() {
        return s.tryAcquire();
      }

      @Override
      public Optional<LockHandle> tryAcquire(Duration timeout) throws InterruptedException {
        return s.tryAcquire(timeout);
      }

      @Override
      public CompletableFuture<LockHandle> acquireAsync() {
        return s.acquireAsync();
      }

      @Override
      public Lock asLock() {
        throw new UnsupportedOperationException();
      }

      @Override
      public DistributedLock withLease(Duration lease) {
        throw new UnsupportedOperationException("a semaphore has no lease view");
      }

      @Override
      public DistributedCondition newCondition(String name) {
        throw new UnsupportedOperationException("a semaphore has no condition");
      }
    };
  }
}
