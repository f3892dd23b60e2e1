package io.zklock.internal.recipe;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.internal.engine.Acquisitions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.function.Supplier;

/**
 * The {@link Lock} view of a {@link DistributedLock}: reentrant per thread, like {@link
 * java.util.concurrent.locks.ReentrantLock}. The first {@code lock()} of a thread acquires the
 * distributed lock; nested ones count; the last {@code unlock()} releases it. Reentrant
 * acquisitions keep the first one's fencing token. A thread that re-enters after its lock was lost
 * gets the {@link LockLostException} instead, and its hold is cleared. The counting is {@link
 * ReentrantHolds}'.
 *
 * <p>Several threads hold at once where the lock is shared (the read side of a read-write lock, see
 * {@link RwView}).
 */
final class ReentrantView implements Lock {
  private static final Supplier<LockHandle> ACQUIRE = () -> null;

  private final DistributedLock lock;
  private final String label;
  private final Supplier<LockHandle> beforeAcquire;
  private final ReentrantHolds holds;

  ReentrantView(DistributedLock lock) {
    this(lock, "Lock", ACQUIRE);
  }

  /**
   * A view that runs {@code beforeAcquire} before each first (not reentrant) acquisition of a
   * thread: it returns a handle the thread then holds instead of acquiring (the read-write view's
   * downgrade), or null to acquire; it may throw to refuse the acquisition (the read-write view's
   * upgrade).
   *
   * @param label names the view in {@link #toString()}
   */
  ReentrantView(DistributedLock lock, String label, Supplier<LockHandle> beforeAcquire) {
    this.lock = lock;
    this.label = label;
    this.beforeAcquire = beforeAcquire;
    this.holds = new ReentrantHolds(lock);
  }

  /** The handle held by the current thread, or null. For {@code lost()} and the token. */
  LockHandle handle() {
    return holds.handle();
  }

  /** Whether the current thread holds this view. */
  boolean isHeldByCurrentThread() {
    return holds.isHeldByCurrentThread();
  }

  /** Acquires, not interruptibly: an interrupt is remembered and restored when the lock is held. */
  @Override
  public void lock() {
    enter(() -> Acquisitions.acquireUninterruptibly(lock));
  }

  @Override
  public void lockInterruptibly() throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    enter(lock::acquire);
  }

  @Override
  public boolean tryLock() {
    return enter(() -> lock.tryAcquire().orElse(null));
  }

  @Override
  public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    long nanos = Math.max(0L, unit.toNanos(time));
    return enter(() -> lock.tryAcquire(Duration.ofNanos(nanos)).orElse(null));
  }

  /**
   * Re-enters, or runs {@code beforeAcquire} and then, unless it gave a handle, {@code acquire}.
   */
  private <X extends Exception> boolean enter(ReentrantHolds.Acquisition<X> acquire) throws X {
    return holds.enter(
        () -> {
          LockHandle instead = beforeAcquire.get();
          return instead != null ? instead : acquire.acquire();
        });
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
    holds.exit();
  }

  /** How many holds the current thread has. */
  int holdCount() {
    return holds.holdCount();
  }

  /**
   * The lock's condition ({@link DistributedLock#newCondition()}: the same waiters) as a JDK {@link
   * Condition} of this view.
   *
   * @throws UnsupportedOperationException if the lock has no condition
   */
  @Override
  public Condition newCondition() {
    if (lock.newCondition() instanceof ConditionImpl c) {
      return new ViewCondition(this, c);
    }
    throw new UnsupportedOperationException(lock + " has no condition");
  }

  @Override
  public String toString() {
    return label + "[" + lock.name() + ", " + holds.describeHolders() + "]";
  }
}
