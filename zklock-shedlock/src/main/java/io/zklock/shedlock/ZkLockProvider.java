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
 *   <li>{@code lockAtMostFor} is enforced by the holder's own process: a timer of this provider
 *       releases the lock node when it elapses, even if the task still runs. A holder that
 *       <em>crashes</em> (or is cut off for the session timeout) loses the lock with its ZooKeeper
 *       session, at once, whatever {@code lockAtMostFor} says: the next tick elsewhere runs. (A
 *       provider that writes a wall-clock "locked until" into a persistent node blocks every other
 *       instance until {@code lockAtMostFor} elapses after a crash.) A holder that is merely paused
 *       (a long GC) may still be running when the timer or the session has let someone else in: use
 *       the task's fencing token where that matters.
 *   <li>{@code lockAtLeastFor} is honoured: if the task ends sooner, {@code unlock()} returns at
 *       once and the timer releases the lock when {@code lockAtLeastFor} has elapsed since the lock
 *       was taken (not if the holder's session ends first).
 *   <li>{@link SimpleLock#extend} re-arms both from now, if the lock is still held.
 * </ul>
 *
 * Durations are measured on this process's monotonic clock from the moment the lock was granted.
 * The provider owns one timer thread: {@link #close()} stops it (Spring calls it for a bean).
 */
public final class ZkLockProvider implements ExtensibleLockProvider, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ZkLockProvider.class);

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
   * Takes the lock if it is free now; never waits.
   *
   * @return the lock, or empty if another holder has it or the ZooKeeper session is not connected
   *     now (the tick is skipped, as for a busy lock, and the cause is logged)
   * @throws IllegalArgumentException if the name is not a valid zklock lock name
   */
  @Override
  public Optional<SimpleLock> lock(LockConfiguration config) {
    DistributedLock lock = locks.apply(config.getName());
    Optional<LockHandle> handle;
    try {
      handle = lock.tryAcquire();
    } catch (ZkLockException e) {
      log.warn("ShedLock '{}' not taken: {}", config.getName(), e.getMessage());
      return Optional.empty();
    }
    return handle.map(h -> new ZkSimpleLock(config, new Grant(h, timer), System.nanoTime()));
  }

  /** Stops the timer; locks whose release it had scheduled are released now. */
  @Override
  public void close() {
    for (Runnable pending : timer.shutdownNow()) {
      pending.run();
    }
  }

  /** The handle of one acquisition and its release timer, shared by a lock and its extensions. */
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
      if (scheduled != null) {
        scheduled.cancel(false);
      }
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
        if (scheduled != null) {
          scheduled.cancel(false);
        }
        handle.releaseAsync();
      }
    }

    synchronized boolean isHeld() {
      return !released && handle.isHeld();
    }
  }

  /** One ShedLock lock: at-most from {@code startNanos} armed at creation. */
  private static final class ZkSimpleLock extends AbstractSimpleLock {
    private final Grant grant;
    private final long startNanos;

    ZkSimpleLock(LockConfiguration config, Grant grant, long startNanos) {
      super(config);
      this.grant = grant;
      this.startNanos = startNanos;
      grant.releaseAt(startNanos + nanos(config.getLockAtMostFor()));
    }

    @Override
    protected void doUnlock() {
      grant.releaseAt(startNanos + nanos(lockConfiguration.getLockAtLeastFor()));
    }

    @Override
    protected Optional<SimpleLock> doExtend(LockConfiguration newConfiguration) {
      synchronized (grant) {
        if (!grant.isHeld()) {
          return Optional.empty();
        }
        return Optional.of(new ZkSimpleLock(newConfiguration, grant, System.nanoTime()));
      }
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
