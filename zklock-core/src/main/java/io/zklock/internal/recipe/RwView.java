package io.zklock.internal.recipe;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import java.util.concurrent.locks.Lock;

/**
 * The JDK {@link java.util.concurrent.locks.ReadWriteLock} view of a {@link ReadWriteLockImpl},
 * aware of threads: both sides are {@link ReentrantView}s, so each counts holds per thread (several
 * threads may read at once); a thread holding the write side that locks the read side downgrades,
 * and a thread holding only the read side is refused the write side.
 */
final class RwView implements java.util.concurrent.locks.ReadWriteLock {
  private final ReadWriteLockImpl rw;
  private volatile ReentrantView read;
  private volatile ReentrantView write;

  RwView(ReadWriteLockImpl rw) {
    this.rw = rw;
  }

  /** Makes the view of the read side: a thread holding the write side downgrades. */
  Lock newReadView(DistributedLock readLock) {
    ReentrantView v = new ReentrantView(readLock, "ReadLock", this::downgrade);
    read = v;
    return v;
  }

  /** Makes the view of the write side: a thread holding only the read side is refused. */
  Lock newWriteView(DistributedLock writeLock) {
    ReentrantView v = new ReentrantView(writeLock, "WriteLock", this::refuseUpgrade);
    write = v;
    return v;
  }

  /** If the current thread holds the write side, the downgraded handle it reads with; else null. */
  private LockHandle downgrade() {
    ReentrantView w = write;
    LockHandle h = w == null ? null : w.handle();
    return h == null ? null : rw.downgrade(h);
  }

  /** Refuses a write acquisition by a thread holding only the read side. */
  private LockHandle refuseUpgrade() {
    ReentrantView r = read;
    if (r != null && r.isHeldByCurrentThread()) {
      throw new IllegalMonitorStateException(
          "upgrade not supported: the current thread holds the read lock of "
              + rw.name()
              + "; a write request would queue behind it and wait forever. Release the read lock"
              + " first.");
    }
    return null;
  }

  @Override
  public Lock readLock() {
    return rw.readLock().asLock();
  }

  @Override
  public Lock writeLock() {
    return rw.writeLock().asLock();
  }
}
