package io.zklock.internal;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * The {@link Lock} view of a {@link DistributedLock}: reentrant per thread, like {@link
 * java.util.concurrent.locks.ReentrantLock}. The first {@code lock()} of a thread acquires the
 * distributed lock; nested ones count; the last {@code unlock()} releases it. Reentrant
 * acquisitions keep the first one's fencing token. A thread that re-enters after its lock was lost
 * gets the {@link LockLostException} instead, and its hold is cleared.
 */
final class ReentrantView implements Lock {
  private final DistributedLock lock;
  private final Runnable beforeAcquire;

  // written by the owning thread only, read by others to learn they are not the owner
  private volatile Thread owner;
  private int holds;
  private LockHandle handle;

  ReentrantView(DistributedLock lock) {
    this(lock, () -> {});
  }

  /**
   * A view that runs {@code beforeAcquire} before each first (not reentrant) acquisition; it may
   * throw to refuse it, as the read-write view does for an upgrade.
   */
  ReentrantView(DistributedLock lock, Runnable beforeAcquire) {
    this.lock = lock;
    this.beforeAcquire = beforeAcquire;
  }

  /** The handle held by the current thread, or null. For {@code lost()} and the token. */
  LockHandle handle() {
    return owner == Thread.currentThread() ? handle : null;
  }

  /** Acquires, not interruptibly: an interrupt is remembered and restored when the lock is held. */
  @Override
  public void lock() {
    if (reenter()) {
      return;
    }
    beforeAcquire.run();
    own(Acquisitions.acquireUninterruptibly(lock));
  }

  @Override
  public void lockInterruptibly() throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    if (reenter()) {
      return;
    }
    beforeAcquire.run();
    own(lock.acquire());
  }

  @Override
  public boolean tryLock() {
    if (reenter()) {
      return true;
    }
    beforeAcquire.run();
    Optional<LockHandle> h = lock.tryAcquire();
    h.ifPresent(this::own);
    return h.isPresent();
  }

  @Override
  public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    if (reenter()) {
      return true;
    }
    beforeAcquire.run();
    long nanos = Math.max(0L, unit.toNanos(time));
    Optional<LockHandle> h = lock.tryAcquire(Duration.ofNanos(nanos));
    h.ifPresent(this::own);
    return h.isPresent();
  }

  /**
   * Releases one hold; the last releases the distributed lock.
   *
   * @throws IllegalMonitorStateException if the current thread does not hold this lock
   * @throws LockLostException if the lock was lost while this thread held it (the hold is cleared
   *     and the node is gone: the critical section was not protected to the end)
   */
  @Override
  public void unlock() {
    if (owner != Thread.currentThread()) {
      throw new IllegalMonitorStateException(
          "the current thread does not hold " + lock + " (owner: " + owner + ")");
    }
    if (--holds > 0) {
      return;
    }
    LockHandle h = handle;
    handle = null;
    owner = null;
    Acquisitions.releaseChecked(h);
  }

  /** Not supported: a distributed lock has no condition queues. */
  @Override
  public Condition newCondition() {
    throw new UnsupportedOperationException("a distributed lock does not support conditions");
  }

  /**
   * Counts one more hold if the current thread holds the lock. If its handle was lost meanwhile,
   * the hold is cleared (so the thread's later {@code unlock()} calls throw too) and the loss is
   * thrown: a reentrant acquisition never succeeds on a lock that is gone.
   */
  private boolean reenter() {
    if (owner != Thread.currentThread()) {
      return false;
    }
    if (!handle.isHeld()) {
      LockHandle h = handle;
      handle = null;
      holds = 0;
      owner = null;
      h.release();
      throw Acquisitions.lostException(h);
    }
    if (holds == Integer.MAX_VALUE) {
      throw new Error("maximum lock count exceeded");
    }
    holds++;
    return true;
  }

  private void own(LockHandle h) {
    handle = h;
    holds = 1;
    owner = Thread.currentThread();
  }

  @Override
  public String toString() {
    Thread o = owner;
    return "Lock[" + lock.name() + (o == null ? ", unlocked]" : ", held by " + o.getName() + "]");
  }
}
