package io.zklock.spring.integration;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * The {@link Lock} of {@link ZkLockRegistry}: a zklock {@link DistributedLock} owned by a thread
 * and reentrant for it, like {@link java.util.concurrent.locks.ReentrantLock} and like zklock's own
 * {@link DistributedLock#asLock()} view, with one difference that Spring's leader initiator needs:
 * a thread that re-locks a lock it has <em>lost</em> (session expired, node deleted) is told so,
 * with {@link LockLostException}, and no longer owns it.
 *
 * <p>{@code lockInterruptibly()} and {@code tryLock(time, unit)} wait for zklock's notification
 * that the predecessor is gone: there is no polling. {@code lock()} waits uninterruptibly (an
 * interrupt is kept and restored); {@code tryLock()} never waits. {@code unlock()} by a thread that
 * does not own the lock throws {@link IllegalMonitorStateException}; the last {@code unlock()}
 * releases the lock node and throws {@link LockLostException} if the lock was lost while held.
 */
public final class ZkRegistryLock implements Lock {
  private final DistributedLock lock;

  // owner is written by the owning thread only; the others read it to learn they do not own it
  private volatile Thread owner;
  private int holds;
  private LockHandle handle;
  private volatile long lastUsedNanos = System.nanoTime();

  ZkRegistryLock(DistributedLock lock) {
    this.lock = lock;
  }

  /** The zklock lock behind this one. */
  public DistributedLock distributedLock() {
    return lock;
  }

  /**
   * The fencing token of the current thread's hold.
   *
   * @throws IllegalMonitorStateException if the current thread does not hold this lock
   */
  public long fencingToken() {
    if (owner != Thread.currentThread()) {
      throw new IllegalMonitorStateException(
          "the current thread does not hold " + lock.name() + " (owner: " + owner + ")");
    }
    return handle.fencingToken();
  }

  /** Whether some thread of this process holds this lock (as far as this process knows). */
  public boolean isLocked() {
    return owner != null;
  }

  @Override
  public void lock() {
    if (reenter()) {
      return;
    }
    CompletableFuture<LockHandle> f = lock.acquireAsync();
    try {
      own(f.join()); // uninterruptible: keeps our place in the queue across an interrupt
    } catch (CompletionException e) {
      throw unchecked(e.getCause());
    }
  }

  @Override
  public void lockInterruptibly() throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    if (reenter()) {
      return;
    }
    own(lock.acquire());
  }

  @Override
  public boolean tryLock() {
    if (reenter()) {
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
    if (reenter()) {
      return true;
    }
    Optional<LockHandle> h = lock.tryAcquire(Duration.ofNanos(Math.max(0L, unit.toNanos(time))));
    h.ifPresent(this::own);
    return h.isPresent();
  }

  @Override
  public void unlock() {
    if (owner != Thread.currentThread()) {
      throw new IllegalMonitorStateException(
          "the current thread does not hold " + lock.name() + " (owner: " + owner + ")");
    }
    if (--holds > 0) {
      return;
    }
    LockHandle h = handle;
    disown();
    boolean wasHeld = h.isHeld();
    h.release();
    if (!wasHeld) {
      throw lossOf(h);
    }
  }

  /** Not supported: a distributed lock has no condition queues. */
  @Override
  public Condition newCondition() {
    throw new UnsupportedOperationException("a distributed lock does not support conditions");
  }

  long lastUsedNanos() {
    return lastUsedNanos;
  }

  // the owner locks again: counted, unless the lock was lost meanwhile (then the hold is void)
  private boolean reenter() {
    if (owner != Thread.currentThread()) {
      return false;
    }
    if (!handle.isHeld()) {
      LockHandle h = handle;
      disown();
      h.releaseAsync(); // harmless after a loss; clears the handle
      throw lossOf(h);
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
    lastUsedNanos = System.nanoTime();
  }

  private void disown() {
    handle = null;
    holds = 0;
    owner = null;
    lastUsedNanos = System.nanoTime();
  }

  // a handle not held that we did not release was lost: its lost() completes at once or nearly
  private static IllegalMonitorStateException lossOf(LockHandle h) {
    try {
      LockLostException e = h.lost().get(5, TimeUnit.SECONDS);
      return new LockLostException(e.path(), e.sessionId(), e.reason());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException | CancellationException e) {
      // fall through
    }
    return new IllegalMonitorStateException("lock " + h.path() + " is no longer held");
  }

  private static RuntimeException unchecked(Throwable t) {
    if (t instanceof RuntimeException) {
      return (RuntimeException) t;
    }
    if (t instanceof Error) {
      throw (Error) t;
    }
    return new IllegalStateException(t);
  }

  @Override
  public String toString() {
    Thread o = owner;
    return "ZkRegistryLock["
        + lock.name()
        + (o == null ? ", unlocked]" : ", held by " + o.getName() + "]");
  }
}
