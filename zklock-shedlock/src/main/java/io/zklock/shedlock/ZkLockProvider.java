package io.zklock.shedlock;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.ZkLockException;
import io.zklock.ZkLocks;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
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
 *       lockAtMostFor} says (unless {@code lockAtLeastFor} still runs, below). A holder that is
 *       merely paused (a long GC) may still be running when the lease or the session has let
 *       someone else in. A {@code lockAtMostFor} over about 24 days (zklock's longest lease) counts
 *       as 24 days. The lease is kept by the holder's monotonic clock, from the grant.
 *   <li>{@code lockAtLeastFor} is kept by the ensemble, not by the holder: when a lock is taken
 *       with a {@code lockAtLeastFor}, a hold-off mark ({@link ZkLocks#holdOff}) is written in the
 *       lock's directory, a persistent node whose creation time, stamped by the ZooKeeper leader,
 *       is the start. Every lock attempt that is granted the node asks {@link
 *       ZkLocks#holdOffRemaining} first, which compares the mark's start and duration with the
 *       server's time of a write made now, and gives the lock back while the mark is in force. So
 *       {@code lockAtLeastFor} holds after an early {@code unlock()}, after the holder's {@code
 *       close()}, a crash of its process, the expiry of its session, or a rolling restart. It rests
 *       on the ZooKeeper servers' clocks alone (no client's clock is compared with another's); if
 *       the leader changes between the start and a check, the skew between those two servers'
 *       clocks moves the end by as much.
 *   <li>{@link SimpleLock#extend} extends the lease to the new {@code lockAtMostFor} from now
 *       ({@link LockHandle#extend}) and replaces the mark with the new {@code lockAtLeastFor} from
 *       now, if the lock is still held and its {@code lockAtMostFor} has not passed.
 * </ul>
 *
 * <p>Costs: a granted attempt reads the mark (one round trip; two more while a mark is in force or
 * has just run out, the second of which deletes it), and a lock with a {@code lockAtLeastFor}
 * writes one (one round trip). A busy lock costs one create, as before.
 *
 * <p>The provider owns no thread; {@link #close()} does nothing and is kept for compatibility.
 */
public final class ZkLockProvider implements ExtensibleLockProvider, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ZkLockProvider.class);
  // zklock's longest lease: Integer.MAX_VALUE ms, about 24 days
  private static final Duration MAX_LEASE = Duration.ofMillis(Integer.MAX_VALUE);
  private static final Duration MIN_LEASE = Duration.ofMillis(1);

  private final ZkLocks zkLocks;
  private final String prefix;

  /** Simple locks named {@code "shedlock/" + name}. */
  public ZkLockProvider(ZkLocks zkLocks) {
    this(zkLocks, "shedlock");
  }

  /** Simple locks named {@code prefix + "/" + name}, or {@code name} when the prefix is empty. */
  public ZkLockProvider(ZkLocks zkLocks, String prefix) {
    this.zkLocks = Objects.requireNonNull(zkLocks, "zkLocks");
    this.prefix = Objects.requireNonNull(prefix, "prefix");
  }

  /**
   * Takes the lock if it is free now and no {@code lockAtLeastFor} of an earlier holder still runs;
   * never waits. Its lease is {@code lockAtMostFor}; a {@code lockAtLeastFor} is marked in
   * ZooKeeper.
   *
   * @return the lock, or empty if another holder has it, an earlier holder's {@code lockAtLeastFor}
   *     still runs, or the ZooKeeper session is not connected now (the tick is skipped, as for a
   *     busy lock, and the cause is logged)
   * @throws IllegalArgumentException if the name is not a valid zklock lock name
   */
  @Override
  public Optional<SimpleLock> lock(LockConfiguration config) {
    String name = lockName(config.getName());
    DistributedLock lock = zkLocks.simpleLock(name).withLease(lease(config.getLockAtMostFor()));
    long grantedAt = System.nanoTime();
    Optional<LockHandle> handle;
    try {
      handle = lock.tryAcquire();
    } catch (ZkLockException e) {
      log.warn("ShedLock '{}' not taken: {}", config.getName(), e.getMessage());
      return Optional.empty();
    }
    if (handle.isEmpty()) {
      return Optional.empty();
    }
    LockHandle h = handle.get();
    try {
      if (!zkLocks.holdOffRemaining(name).isZero()) {
        h.releaseAsync(); // an earlier holder's lockAtLeastFor still runs
        return Optional.empty();
      }
      holdOff(name, config.getLockAtLeastFor());
    } catch (ZkLockException e) {
      h.releaseAsync();
      log.warn("ShedLock '{}' not taken: {}", config.getName(), e.getMessage());
      return Optional.empty();
    }
    return Optional.of(new ZkSimpleLock(config, name, h, grantedAt));
  }

  private String lockName(String shedlockName) {
    return prefix.isEmpty() ? shedlockName : prefix + "/" + shedlockName;
  }

  // marks lockAtLeastFor from now; none for zero (an earlier mark has run out: it was checked)
  private void holdOff(String name, Duration atLeast) {
    if (atLeast.compareTo(MIN_LEASE) >= 0) {
      zkLocks.holdOff(name, atLeast.compareTo(MAX_LEASE) > 0 ? MAX_LEASE : atLeast);
    }
  }

  // lockAtMostFor as a zklock lease: from 1 ms to zklock's longest
  static Duration lease(Duration atMost) {
    return atMost.compareTo(MIN_LEASE) < 0
        ? MIN_LEASE
        : atMost.compareTo(MAX_LEASE) > 0 ? MAX_LEASE : atMost;
  }

  /** Does nothing: the provider owns no thread. Kept for compatibility. */
  @Override
  public void close() {}

  /** One ShedLock lock: the grant, and its lockAtMostFor counted from {@code startNanos}. */
  private final class ZkSimpleLock extends AbstractSimpleLock {
    private final String name;
    private final LockHandle handle;
    private final long startNanos;

    ZkSimpleLock(LockConfiguration config, String name, LockHandle handle, long startNanos) {
      super(config);
      this.name = name;
      this.handle = handle;
      this.startNanos = startNanos;
    }

    /**
     * Releases the node and returns once it is gone (so the lock can be taken right after): a
     * lockAtLeastFor is kept by its mark in ZooKeeper.
     */
    @Override
    protected void doUnlock() {
      try {
        handle.release();
      } catch (ZkLockException e) {
        log.warn("ShedLock '{}' released late: {}", name, e.getMessage());
      }
    }

    /**
     * Extends while the lock is held and its lockAtMostFor has not passed on this process's clock
     * (the lease's own timer may not have fired yet): the lease to the new lockAtMostFor from now,
     * and the mark to the new lockAtLeastFor from now.
     */
    @Override
    protected Optional<SimpleLock> doExtend(LockConfiguration newConfiguration) {
      long now = System.nanoTime();
      if (now - startNanos >= nanos(lockConfiguration.getLockAtMostFor())
          || !handle.extend(lease(newConfiguration.getLockAtMostFor()))) {
        return Optional.empty();
      }
      try {
        Duration atLeast = newConfiguration.getLockAtLeastFor();
        // a zero lockAtLeastFor from now ends the earlier one: the shortest mark there is
        zkLocks.holdOff(name, atLeast.compareTo(MIN_LEASE) < 0 ? MIN_LEASE : atLeast);
      } catch (ZkLockException e) {
        log.warn("ShedLock '{}' extended without its new lockAtLeastFor: {}", name, e.getMessage());
      }
      return Optional.of(new ZkSimpleLock(newConfiguration, name, handle, now));
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
