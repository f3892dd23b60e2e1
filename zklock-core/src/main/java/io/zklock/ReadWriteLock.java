package io.zklock;

/**
 * A distributed read-write lock: readers share the lock, a writer excludes everyone. Requests are
 * served in arrival order: a writer queued before a reader goes first, so writers do not starve.
 */
public interface ReadWriteLock {
  /** The lock's name, relative to the namespace. */
  String name();

  /** The shared side. */
  DistributedLock readLock();

  /** The exclusive side. */
  DistributedLock writeLock();

  /**
   * A JDK {@link java.util.concurrent.locks.ReadWriteLock} view made of the two {@code asLock()}s.
   */
  default java.util.concurrent.locks.ReadWriteLock asReadWriteLock() {
    DistributedLock r = readLock();
    DistributedLock w = writeLock();
    return new java.util.concurrent.locks.ReadWriteLock() {
      @Override
      public java.util.concurrent.locks.Lock readLock() {
        return r.asLock();
      }

      @Override
      public java.util.concurrent.locks.Lock writeLock() {
        return w.asLock();
      }
    };
  }
}
