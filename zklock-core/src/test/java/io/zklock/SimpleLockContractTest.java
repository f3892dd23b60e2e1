package io.zklock;

class SimpleLockContractTest extends LockContractTest {
  @Override
  protected DistributedLock lock(ZkLocks locks, String name) {
    return locks.simpleLock(name);
  }

  /** A simple lock's waiter has no node: it waits with a watch on the holder's node. */
  @Override
  protected boolean isWaiting(ZkLocks client) {
    return server.server().getZKDatabase().getDataTree().getWatches().hasPaths(client.sessionId());
  }
}
