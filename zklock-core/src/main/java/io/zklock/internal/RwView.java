package io.zklock.internal;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * The JDK {@link java.util.concurrent.locks.ReadWriteLock} view of a {@link ReadWriteLockImpl},
 * aware of threads: the read side counts holds per thread (several threads may read at once), a
 * thread holding the write side that locks the read side downgrades, and a thread holding only the
 * read side is refused the write side.
 */
final class RwView implements java.util.concurrent.locks.ReadWriteLock {
  private final ReadWriteLockImpl rw;
  private volatile ReadView read;

  RwView(ReadWriteLockImpl rw) {
    this.rw = rw;
  }

  Lock newReadView(DistributedLock readLock) {
    ReadView v = new ReadView(readLock);
    read = v;
    return v;
  }

  /** Refuses a write acquisition by a thread holding only the read side. */
  void refuseUpgrade() {
    ReadView r = read;
    if (r != null && r.holds.containsKey(Thread.currentThread())) {
      throw new IllegalMonitorStateException(
          "upgrade not supported: the current thread holds the read lock of "
              + rw.name()
              + "; a write request would queue behind it and wait forever. Release the read lock"
              + " first.");
    }
  }

  @Override
  public Lock readLock() {
    return rw.readLock().asLock();
  }

  @Override
  public Lock writeLock() {
    return rw.writeLock().asLock();
  }

  /** Holds of one thread: its handle and how many times it locked. */
  static final class Hold {
    final LockHandle handle;
    int count = 1;

    Hold(LockHandle handle) {
      this.handle = handle;
    }
  }

  /** The read side: reentrant per thread, shared among threads. */
  final class ReadView implements Lock {
    private final DistributedLock lock;
    final Map<Thread, Hold> holds = new ConcurrentHashMap<>();

    ReadView(DistributedLock lock) {
      this.lock = lock;
    }

    private boolean reenter() {
      Thread me = Thread.currentThread();
      Hold h = holds.get(me);
      if (h == null) {
        return false;
      }
      if (!h.handle.isHeld()) {
        // lost meanwhile: clear the hold and say so, as the write side does
        holds.remove(me);
        h.handle.release();
        throw Acquisitions.lostException(h.handle);
      }
      if (h.count == Integer.MAX_VALUE) {
        throw new Error("maximum lock count exceeded");
      }
      h.count++;
      return true;
    }

    /** If this thread holds the write side, downgrades and returns true. */
    private boolean downgrade() {
      LockHandle w = ((ReentrantView) rw.writeLock().asLock()).handle();
      if (w == null) {
        return false;
      }
      own(rw.downgrade(w));
      return true;
    }

    private void own(LockHandle h) {
      holds.put(Thread.currentThread(), new Hold(h));
    }

    @Override
    public void lock() {
      if (reenter() || downgrade()) {
        return;
      }
      own(Acquisitions.acquireUninterruptibly(lock));
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      if (reenter() || downgrade()) {
        return;
      }
      own(lock.acquire());
    }

    @Override
    public boolean tryLock() {
      if (reenter() || downgrade()) {
        return true;
      }
      Optional<LockHandle> h = lock.tryAcquire();
      h.ifPresent(this::own);
      return h.isPresent();
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      if (reenter() || downgrade()) {
        return true;
      }
      Optional<LockHandle> h = lock.tryAcquire(Duration.ofNanos(Math.max(0L, unit.toNanos(time))));
      h.ifPresent(this::own);
      return h.isPresent();
    }

    /**
     * Releases one hold of the current thread; the last releases its read node.
     *
     * @throws IllegalMonitorStateException if the current thread does not hold the read side
     * @throws io.zklock.LockLostException if the lock was lost while this thread held it
     */
    @Override
    public void unlock() {
      Thread me = Thread.currentThread();
      Hold h = holds.get(me);
      if (h == null) {
        throw new IllegalMonitorStateException(
            "the current thread does not hold the read lock of " + rw.name());
      }
      if (--h.count > 0) {
        return;
      }
      holds.remove(me);
      Acquisitions.releaseChecked(h.handle);
    }

    @Override
    public Condition newCondition() {
      throw new UnsupportedOperationException("a distributed lock does not support conditions");
    }

    @Override
    public String toString() {
      return "ReadLock[" + rw.name() + ", " + holds.size() + " reading threads]";
    }
  }
}
