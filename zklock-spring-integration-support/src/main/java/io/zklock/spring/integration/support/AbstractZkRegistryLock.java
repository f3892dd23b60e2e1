package io.zklock.spring.integration.support;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.ThreadHolds;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.springframework.scheduling.TaskScheduler;

/**
 * What {@code io.zklock.spring.integration.ZkRegistryLock} is on every Spring Integration line:
 * compiled once, used by the lock class of each line, which adds only the interfaces of its Spring
 * Integration version. Not for use on its own; documented on the line's {@code ZkRegistryLock}.
 *
 * <p>The per-thread holds are counted by zklock's {@link ThreadHolds}, the counter of {@link
 * DistributedLock#asLock()}: this class adds the time to live of a hold (a {@link HeldHandle} that
 * carries it and its renewal), renewal on reentry, and Spring's exception for an expired unlock.
 */
public abstract class AbstractZkRegistryLock implements Lock {
  private final DistributedLock lock;
  private final AbstractZkLockRegistry<?> registry;
  private final ThreadHolds holds;
  private volatile long lastUsedNanos = System.nanoTime();

  /** The lock of {@code registry} on {@code lock}. */
  protected AbstractZkRegistryLock(DistributedLock lock, AbstractZkLockRegistry<?> registry) {
    this.lock = lock;
    this.registry = registry;
    this.holds = new ThreadHolds(lock.name());
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
    LockHandle h = holds.handle();
    if (h == null) {
      throw notOwner();
    }
    return h.fencingToken();
  }

  /** Whether some thread of this process holds this lock (as far as this process knows). */
  public boolean isLocked() {
    return holds.isHeld();
  }

  /** Whether the current thread holds this lock. */
  public boolean isHeldByCurrentThread() {
    return holds.isHeldByCurrentThread();
  }

  /**
   * Acquires the lock, waiting as long as it takes, uninterruptibly: an interrupt while waiting is
   * kept and restored once the lock is held, and the request keeps its place in the queue. A
   * reentrant call counts one more hold (and renews a time to live); a reentrant call after the
   * hold was lost throws {@link LockLostException} and clears the hold.
   */
  @Override
  public void lock() {
    lockWith(registry.defaultTtl());
  }

  /**
   * Like {@link #lock()}, the hold (if new) lasting at most {@code ttl} unless renewed.
   *
   * @throws IllegalArgumentException if {@code ttl} is not from 1 ms to about 24 days
   */
  public void lock(Duration ttl) {
    lockWith(AbstractZkLockRegistry.checkTtl(ttl));
  }

  private void lockWith(Duration ttl) {
    enter(
        ttl,
        () -> {
          CompletableFuture<LockHandle> f = target(ttl).acquireAsync();
          try {
            return f.join(); // uninterruptible: keeps our place in the queue across an interrupt
          } catch (CompletionException e) {
            throw unchecked(e.getCause());
          }
        });
  }

  @Override
  public void lockInterruptibly() throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    Duration ttl = registry.defaultTtl();
    enter(ttl, () -> target(ttl).acquire());
  }

  @Override
  public boolean tryLock() {
    Duration ttl = registry.defaultTtl();
    return enter(ttl, () -> target(ttl).tryAcquire().orElse(null));
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
  public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
    Objects.requireNonNull(waitTime, "waitTime");
    long nanos;
    try {
      nanos = Math.max(0L, waitTime.toNanos());
    } catch (ArithmeticException e) {
      nanos = waitTime.isNegative() ? 0L : Long.MAX_VALUE;
    }
    return tryLockWith(nanos, AbstractZkLockRegistry.checkTtl(ttl));
  }

  private boolean tryLockWith(long nanos, Duration ttl) throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    return enter(ttl, () -> target(ttl).tryAcquire(Duration.ofNanos(nanos)).orElse(null));
  }

  /**
   * Releases one hold of the current thread; the last one releases the lock node and returns once
   * the server has acknowledged it.
   *
   * @throws IllegalMonitorStateException if the current thread does not hold this lock
   * @throws RegistryLockLostException (a {@link java.util.ConcurrentModificationException}, as
   *     Spring's JDBC and Redis registries throw) if the hold was lost before this last unlock:
   *     session expired, node deleted, time to live run out. The hold is cleared all the same.
   */
  @Override
  public void unlock() {
    int count = holds.holdCount();
    if (count == 0) {
      throw notOwner();
    }
    try {
      holds.exit();
    } catch (IllegalMonitorStateException lost) {
      throw new RegistryLockLostException(lock.name(), lost); // only the last exit throws
    } finally {
      if (count == 1) {
        lastUsedNanos = System.nanoTime();
      }
    }
  }

  // the owner renews its hold for ttl, or for the hold's own time to live when ttl is null
  void renew(Duration ttl) {
    LockHandle h = holds.handle();
    if (h == null) {
      throw notOwner();
    }
    HeldHandle held = (HeldHandle) h;
    if (held.ttl == null) {
      throw new IllegalStateException(
          "the hold of "
              + lock.name()
              + " has no time to live to renew (give it one with"
              + " ZkLockRegistry#setTimeToLive or lock(ttl))");
    }
    if (!held.extend(ttl != null ? ttl : held.ttl)) {
      throw lossOf(held); // the hold stays until unlock(), which reports the loss too
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

  // a re-entry renews the hold's time to live first: a hold whose time ran out is then no longer
  // held, and ThreadHolds reports the loss and clears the hold
  private <X extends Exception> boolean enter(Duration ttl, ThreadHolds.Acquisition<X> acquire)
      throws X {
    LockHandle mine = holds.handle();
    if (mine != null) {
      HeldHandle held = (HeldHandle) mine;
      if (held.ttl != null) {
        held.extend(ttl != null ? ttl : held.ttl);
      }
    }
    boolean entered =
        holds.enter(
            () -> {
              LockHandle got = acquire.acquire();
              return got == null ? null : new HeldHandle(got, ttl, registry.renewalScheduler());
            });
    if (entered) {
      lastUsedNanos = System.nanoTime();
    }
    return entered;
  }

  private DistributedLock target(Duration ttl) {
    return ttl == null ? lock : lock.withLease(ttl);
  }

  private IllegalMonitorStateException notOwner() {
    return new IllegalMonitorStateException(
        "the current thread does not hold " + lock.name() + " (" + holds + ")");
  }

  // a handle not held that we did not release was lost: its lost() completes at once or nearly
  private static IllegalMonitorStateException lossOf(LockHandle h) {
    try {
      LockLostException e = h.lost().get(5, TimeUnit.SECONDS);
      return new LockLostException(e.path(), e.sessionId(), e.reason());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      // fall through: no reason to give
    }
    return new IllegalMonitorStateException("lock " + h.path() + " is no longer held");
  }

  private static RuntimeException unchecked(Throwable t) {
    if (t instanceof RuntimeException r) {
      return r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new IllegalStateException(t);
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "[" + lock.name() + ", " + holds + "]";
  }

  /**
   * A grant as a thread holds it: zklock's handle, the hold's time to live (or null) and the task
   * that renews it, which ends with the release.
   */
  private static final class HeldHandle implements LockHandle {
    private final LockHandle grant;
    final Duration ttl;
    private final ScheduledFuture<?> renewal;

    HeldHandle(LockHandle grant, Duration ttl, TaskScheduler scheduler) {
      this.grant = grant;
      this.ttl = ttl;
      this.renewal =
          ttl != null && scheduler != null ? scheduleRenewal(scheduler, grant, ttl) : null;
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
              scheduler.getClock().instant().plus(period),
              period);
      self.set(f);
      return f;
    }

    private void stopRenewal() {
      if (renewal != null) {
        renewal.cancel(false);
      }
    }

    @Override
    public String lockName() {
      return grant.lockName();
    }

    @Override
    public String path() {
      return grant.path();
    }

    @Override
    public long fencingToken() {
      return grant.fencingToken();
    }

    @Override
    public boolean isHeld() {
      return grant.isHeld();
    }

    @Override
    public CompletableFuture<LockLostException> lost() {
      return grant.lost();
    }

    @Override
    public void onReleaseRequested(Runnable action) {
      grant.onReleaseRequested(action);
    }

    @Override
    public boolean isReleaseRequested() {
      return grant.isReleaseRequested();
    }

    @Override
    public boolean extend(Duration lease) {
      return grant.extend(lease);
    }

    @Override
    public io.zklock.GuardedTransaction transaction() {
      return grant.transaction();
    }

    @Override
    public void release() {
      stopRenewal();
      grant.release();
    }

    @Override
    public CompletableFuture<Void> releaseAsync() {
      stopRenewal();
      return grant.releaseAsync();
    }

    @Override
    public void close() {
      release();
    }

    @Override
    public String toString() {
      return grant.toString();
    }
  }
}
