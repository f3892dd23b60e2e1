package io.zklock.shedlock;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.ZkLockException;
import io.zklock.ZkLocks;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ShedLock {@link ExtensibleLockProvider} on zklock: each ShedLock name is a zklock simple lock
 * ({@link ZkLocks#simpleLock}, one EPHEMERAL node; a busy lock costs one create and leaves nothing
 * behind), named {@code prefix/name}.
 *
 * <pre>{@code
 * @Bean LockProvider lockProvider(ZkLocks zkLocks) { return new ZkLockProvider(zkLocks); }
 * }</pre>
 *
 * <h2>lockAtMostFor and lockAtLeastFor</h2>
 *
 * <ul>
 *   <li>{@code lockAtMostFor} is a zklock lease ({@link DistributedLock#withLease}): a holder still
 *       running its task when it elapses (stuck, or just slow) has its lock released by zklock
 *       itself, and the next tick elsewhere runs. A holder that <em>crashes</em> (or is cut off for
 *       the session timeout) loses the lock with its ZooKeeper session, at once, whatever {@code
 *       lockAtMostFor} says. (A provider that writes a wall-clock "locked until" into a persistent
 *       node blocks every other instance until {@code lockAtMostFor} elapses after a crash.) A
 *       holder that is merely paused (a long GC) may still be running when the lease or the session
 *       has let someone else in: use the task's fencing token where that matters. A {@code
 *       lockAtMostFor} over about 24 days (zklock's longest lease) counts as 24 days.
 *   <li>{@code lockAtLeastFor} is honoured: if the task ends sooner, {@code unlock()} returns at
 *       once and this provider's timer releases the lock when {@code lockAtLeastFor} has elapsed
 *       since the lock was taken (not if the holder's session ends first).
 *   <li>{@link SimpleLock#extend} extends the lease to the new {@code lockAtMostFor} from now
 *       ({@link LockHandle#extend}) and takes the new {@code lockAtLeastFor} from now, if the lock
 *       is still held.
 * </ul>
 *
 * Durations are measured on this process's monotonic clock from the moment the lock was granted.
 * The provider owns one timer thread, for {@code lockAtLeastFor}: {@link #close()} stops it (Spring
 * calls it for a bean).
 */
public final class ZkLockProvider implements ExtensibleLockProvider, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ZkLockProvider.class);
  // zklock's longest lease: Integer.MAX_VALUE ms, about 24 days
  private static final Duration MAX_LEASE = Duration.ofMillis(Integer.MAX_VALUE);
  private static final Duration MIN_LEASE = Duration.ofMillis(1);

  private final Function<String, DistributedLock> locks;
  private final ScheduledThreadPoolExecutor timer;

  /** Simple locks named {@code "shedlock/" + name}. */
  public ZkLockProvider(ZkLocks zkLocks) {
    this(zkLocks, "shedlock");
  }

  /** Simple locks named {@code prefix + "/" + name}, or {@code name} when the prefix is empty. */
  public ZkLockProvider(ZkLocks zkLocks, String prefix) {
    Objects.requireNonNull(zkLocks, "zkLocks");
    Objects.requireNonNull(prefix, "prefix");
    this.locks = name -> zkLocks.simpleLock(prefix.isEmpty() ? name : prefix + "/" + name);
    this.timer =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "zklock-shedlock-timer");
              t.setDaemon(true);
              return t;
            });
    timer.setRemoveOnCancelPolicy(true);
  }

  /**
   * Takes the lock if it is free now; never waits. Its lease is {@code lockAtMostFor}.
   *
   * @return the lock, or empty if another holder has it or the ZooKeeper session is not connected
   *     now (the tick is skipped, as for a busy lock, and the cause is logged)
   * @throws IllegalArgumentException if the name is not a valid zklock lock name
   */
  @Override
  public Optional<SimpleLock> lock(LockConfiguration config) {
    DistributedLock lock =
        locks.apply(config.getName()).withLease(lease(config.getLockAtMostFor()));
    Optional<LockHandle> handle;
    try {
      handle = lock.tryAcquire();
    } catch (ZkLockException e) {
      log.warn("ShedLock '{}' not taken: {}", config.getName(), e.getMessage());
      return Optional.empty();
    }
    return handle.map(h -> new ZkSimpleLock(config, new Grant(h, timer), System.nanoTime()));
  }

  // lockAtMostFor as a zklock lease: from 1 ms to zklock's longest
  static Duration lease(Duration atMost) {
    return atMost.compareTo(MIN_LEASE) < 0
        ? MIN_LEASE
        : atMost.compareTo(MAX_LEASE) > 0 ? MAX_LEASE : atMost;
  }

  /** Stops the timer; locks whose release it had scheduled are released now. */
  @Override
  public void close() {
    for (Runnable pending : timer.shutdownNow()) {
      pending.run();
    }
  }

  /**
   * The handle of one acquisition and its lockAtLeastFor timer, shared by a lock and its
   * extensions.
   */
  static final class Grant {
    private final LockHandle handle;
    private final ScheduledExecutorService timer;
    private ScheduledFuture<?> scheduled;
    private boolean released;

    Grant(LockHandle handle, ScheduledExecutorService timer) {
      this.handle = handle;
      this.timer = timer;
    }

    /** Releases at {@code deadlineNanos} (now if past), replacing any earlier schedule. */
    synchronized void releaseAt(long deadlineNanos) {
      if (released) {
        return;
      }
      cancelScheduled();
      long delay = deadlineNanos - System.nanoTime();
      if (delay <= 0 || timer.isShutdown()) {
        releaseNow();
      } else {
        scheduled = timer.schedule(this::releaseNow, delay, TimeUnit.NANOSECONDS);
      }
    }

    synchronized void releaseNow() {
      if (!released) {
        released = true;
        cancelScheduled();
        handle.releaseAsync();
      }
    }

    /**
     * Extends the lease to {@code atMost} from now and drops a pending lockAtLeastFor release;
     * {@code false} if no longer held.
     */
    synchronized boolean extend(Duration atMost) {
      if (released || !handle.extend(lease(atMost))) {
        return false;
      }
      cancelScheduled();
      return true;
    }

    private void cancelScheduled() {
      if (scheduled != null) {
        scheduled.cancel(false);
        scheduled = null;
      }
    }
  }

  /** One ShedLock lock: lockAtLeastFor counted from {@code startNanos}. */
  private static final class ZkSimpleLock extends AbstractSimpleLock {
    private final Grant grant;
    private final long startNanos;

    ZkSimpleLock(LockConfiguration config, Grant grant, long startNanos) {
      super(config);
      this.grant = grant;
      this.startNanos = startNanos;
    }

    @Override
    protected void doUnlock() {
      grant.releaseAt(startNanos + nanos(lockConfiguration.getLockAtLeastFor()));
    }

    @Override
    protected Optional<SimpleLock> doExtend(LockConfiguration newConfiguration) {
      long now = System.nanoTime();
      if (!grant.extend(newConfiguration.getLockAtMostFor())) {
        return Optional.empty();
      }
      return Optional.of(new ZkSimpleLock(newConfiguration, grant, now));
    }

    private static long nanos(Duration d) {
      try {
        return d.toNanos();
      } catch (ArithmeticException e) {
        return Long.MAX_VALUE / 4; // centuries
      }
    }

    @Override
    public String toString() {
      return "ZkSimpleLock[" + lockConfiguration.getName() + "]";
    }
  }
}
