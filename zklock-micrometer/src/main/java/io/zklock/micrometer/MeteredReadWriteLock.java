package io.zklock.micrometer;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.ReadWriteLock;
import java.util.concurrent.locks.Lock;

/** A {@link ReadWriteLock} whose two sides are measured (kinds "read" and "write"). */
final class MeteredReadWriteLock implements ReadWriteLock {
  private final ReadWriteLock delegate;
  private final Meters meters;
  private final MeteredLock read;
  private final MeteredLock write;
  private final java.util.concurrent.locks.ReadWriteLock view;

  MeteredReadWriteLock(ReadWriteLock delegate, Meters meters) {
    this.delegate = delegate;
    this.meters = meters;
    // the JDK views come from zklock's own read-write view, which refuses an upgrade
    java.util.concurrent.locks.ReadWriteLock jdk = delegate.asReadWriteLock();
    this.read = new MeteredLock(delegate.readLock(), meters, "read", jdk.readLock());
    this.write = new MeteredLock(delegate.writeLock(), meters, "write", jdk.writeLock());
    this.view =
        new java.util.concurrent.locks.ReadWriteLock() {
          @Override
          public Lock readLock() {
            return read.asLock();
          }

          @Override
          public Lock writeLock() {
            return write.asLock();
          }
        };
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public DistributedLock readLock() {
    return read;
  }

  @Override
  public DistributedLock writeLock() {
    return write;
  }

  /** A read hold begins (not counted as a request); the write hold ends when it is released. */
  @Override
  public LockHandle downgrade(LockHandle writeHandle) {
    LockHandle readHandle = delegate.downgrade(MeteredHandle.unwrap(writeHandle));
    return new MeteredHandle(readHandle, meters, meters.tags(delegate.name(), "read"));
  }

  @Override
  public java.util.concurrent.locks.ReadWriteLock asReadWriteLock() {
    return view;
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
