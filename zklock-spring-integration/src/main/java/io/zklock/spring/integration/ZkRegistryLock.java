package io.zklock.spring.integration;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.springframework.scheduling.TaskScheduler;

/**
 * The {@link Lock} of {@link ZkLockRegistry}: a zklock {@link DistributedLock} owned by a thread
 * and reentrant for it, like {@link java.util.concurrent.locks.ReentrantLock} and like zklock's own
 * {@link DistributedLock#asLock()} view, with one difference that Spring's leader initiator needs:
 * a thread that re-locks a lock it has <em>lost</em> (session expired, node deleted, time to live
 * run out) is told so, with {@link LockLostException}, and no longer owns it.
 *
 * <p>{@code lockInterruptibly()} and {@code tryLock(time, unit)} wait for zklock's notification
 * that the predecessor is gone: there is no polling. {@code lock()} waits uninterruptibly (an
 * interrupt is kept and restored); {@code tryLock()} never waits. {@code unlock()} by a thread that
 * does not own the lock throws {@link IllegalMonitorStateException}; the last {@code unlock()}
 * releases the lock node and throws {@link LockLostException} if the lock was lost while held.
 *
 * <p>As Spring's {@link org.springframework.integration.support.locks.DistributedLock}, a hold may
 * carry a time to live: {@link #lock(Duration)} and {@link #tryLock(Duration, Duration)} give it
 * one, the other methods the registry's ({@link ZkLockRegistry#setTimeToLive}, none by default). A
 * reentrant acquisition of a hold with a time to live renews it (for the given time to live, else
 * the hold's own); on a hold without one the time to live of a reentrant call is ignored.
 */
public final class ZkRegistryLock
    implements org.springframework.integration.support.locks.DistributedLock {
  private final DistributedLock lock;
  private final ZkLockRegistry registry;

  // owner is written by the owning thread only; the others read it to learn they do not own it
  private volatile Thread owner;
  private int holds;
  private LockHandle handle;
  private Duration lease; // the hold's time to live, or null
  private ScheduledFuture<?> renewal;
  private volatile long lastUsedNanos = System.nanoTime();

  ZkRegistryLock(DistributedLock lock, ZkLockRegistry registry) {
    this.lock = lock;
    this.registry = registry;
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
      throw notOwner();
    }
    return handle.fencingToken();
  }

  /** Whether some thread of this process holds this lock (as far as this process knows). */
  public boolean isLocked() {
    return owner != null;
  }

  @Override
  public void lock() {
    lockWith(registry.defaultTtl());
  }

  /**
   * Like {@link #lock()}, the hold (if new) lasting at most {@code ttl} unless renewed.
   *
   * @throws IllegalArgumentException if {@code ttl} is not from 1 ms to about 24 days
   */
  @Override
  public void lock(Duration ttl) {
    lockWith(ZkLockRegistry.checkTtl(ttl));
  }

  private void lockWith(Duration ttl) {
    if (reenter(ttl)) {
      return;
    }
    CompletableFuture<LockHandle> f = target(ttl).acquireAsync();
    try {
      own(f.join(), ttl); // uninterruptible: keeps our place in the queue across an interrupt
    } catch (CompletionException e) {
      throw unchecked(e.getCause());
    }
  }

  @Override
  public void lockInterruptibly() throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    Duration ttl = registry.defaultTtl();
    if (reenter(ttl)) {
      return;
    }
    own(target(ttl).acquire(), ttl);
  }

  @Override
  public boolean tryLock() {
    Duration ttl = registry.defaultTtl();
    if (reenter(ttl)) {
      return true;
    }
    Optional<LockHandle> h = target(ttl).tryAcquire();
    h.ifPresent(held -> own(held, ttl));
    return h.isPresent();
  }

  @Override
  public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
    return tryLockWith(Math.max(0L, unit.toNanos(time)), registry.defaultTtl());
  }

  /**
   * Like {@link #tryLock(long, TimeUnit)}, the hold (if new) lasting at most {@code ttl} unless
   * renewed.
   *
   * @throws IllegalArgumentException if {@code ttl} is not from 1 ms to about 24 days
   */
  @Override
  public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
    Objects.requireNonNull(waitTime, "waitTime");
    long nanos;
    try {
      nanos = Math.max(0L, waitTime.toNanos());
    } catch (ArithmeticException e) {
      nanos = waitTime.isNegative() ? 0L : Long.MAX_VALUE;
    }
    return tryLockWith(nanos, ZkLockRegistry.checkTtl(ttl));
  }

  private boolean tryLockWith(long nanos, Duration ttl) throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    if (reenter(ttl)) {
      return true;
    }
    Optional<LockHandle> h = target(ttl).tryAcquire(Duration.ofNanos(nanos));
    h.ifPresent(held -> own(held, ttl));
    return h.isPresent();
  }

  @Override
  public void unlock() {
    if (owner != Thread.currentThread()) {
      throw notOwner();
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

  // the owner renews its hold for ttl, or for the hold's own time to live when ttl is null
  void renew(Duration ttl) {
    if (owner != Thread.currentThread()) {
      throw notOwner();
    }
    if (lease == null) {
      throw new IllegalStateException(
          "the hold of "
              + lock.name()
              + " has no time to live to renew (give it one with"
              + " ZkLockRegistry#setTimeToLive or lock(ttl))");
    }
    if (!handle.extend(ttl != null ? ttl : lease)) {
      throw lossOf(handle); // the hold stays until unlock(), which reports the loss too
    }
    lastUsedNanos = System.nanoTime();
  }

  /** Not supported: a distributed lock has no condition queues. */
  @Override
  public Condition newCondition() {
    throw new UnsupportedOperationException("a distributed lock does not support conditions");
  }

  long lastUsedNanos() {
    return lastUsedNanos;
  }

  // the owner locks again: counted (and its time to live renewed), unless the lock was lost
  // meanwhile (then the hold is void)
  private boolean reenter(Duration ttl) {
    if (owner != Thread.currentThread()) {
      return false;
    }
    if (!handle.isHeld() || (lease != null && !handle.extend(ttl != null ? ttl : lease))) {
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

  private DistributedLock target(Duration ttl) {
    return ttl == null ? lock : lock.withLease(ttl);
  }

  private void own(LockHandle h, Duration ttl) {
    handle = h;
    holds = 1;
    lease = ttl;
    owner = Thread.currentThread();
    lastUsedNanos = System.nanoTime();
    TaskScheduler scheduler = registry.renewalScheduler();
    if (ttl != null && scheduler != null) {
      renewal = scheduleRenewal(scheduler, h, ttl);
    }
  }

  // renews every third of the time to live until the hold ends
  private static ScheduledFuture<?> scheduleRenewal(
      TaskScheduler scheduler, LockHandle h, Duration ttl) {
    Duration period = ttl.dividedBy(3);
    if (period.toMillis() < 1) {
      period = Duration.ofMillis(1);
    }
    AtomicReference<ScheduledFuture<?>> self = new AtomicReference<>();
    ScheduledFuture<?> f =
        scheduler.scheduleAtFixedRate(
            () -> {
              if (!h.extend(ttl)) {
                ScheduledFuture<?> me = self.get();
                if (me != null) {
                  me.cancel(false); // released or lost: nothing left to renew
                }
              }
            },
            ZkLockRegistry.now(scheduler).plus(period),
            period);
    self.set(f);
    return f;
  }

  private void disown() {
    if (renewal != null) {
      renewal.cancel(false);
      renewal = null;
    }
    handle = null;
    holds = 0;
    lease = null;
    owner = null;
    lastUsedNanos = System.nanoTime();
  }

  private IllegalMonitorStateException notOwner() {
    return new IllegalMonitorStateException(
        "the current thread does not hold " + lock.name() + " (owner: " + owner + ")");
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
