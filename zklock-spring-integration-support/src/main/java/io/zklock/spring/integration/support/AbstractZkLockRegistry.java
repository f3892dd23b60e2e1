package io.zklock.spring.integration.support;

import io.zklock.DistributedLock;
import io.zklock.ZkLocks;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.scheduling.TaskScheduler;

/**
 * What {@code io.zklock.spring.integration.ZkLockRegistry} is on every Spring Integration line:
 * compiled once, used by the registry of each line (zklock-spring-integration for Spring
 * Integration 7, zklock-spring-integration6 for 6.5), which adds only its constructors, the making
 * of its lock class and the interfaces of its Spring Integration version. Not for use on its own;
 * the documentation is the registry's:
 *
 * <p>Spring Integration's {@code ExpirableLockRegistry} on zklock: {@link #obtain(Object)} returns,
 * for each key, one {@code ZkRegistryLock} shared by every thread of this registry and exclusive
 * with every other registry (process) on the same ensemble and namespace. The locks are zklock
 * mutexes by default (fair, herd-free); waiting is woken by ZooKeeper's notification, never by
 * polling.
 *
 * <pre>{@code
 * ZkLockRegistry registry = new ZkLockRegistry(zkLocks);          // lock name = key
 * registry.executeLocked("orders/42", () -> ship(order));
 * new LockRegistryLeaderInitiator(registry);                      // leader election on it
 * }</pre>
 *
 * <p>A lock is bound to the {@link ZkLocks} session: if the session expires, the holder loses it
 * (its {@code unlock()}, or a reentrant {@code lock()}/{@code tryLock()}, throws {@link
 * io.zklock.LockLostException}) and another process may take it at once.
 *
 * <h2>Time to live ({@code RenewableLockRegistry})</h2>
 *
 * By default a hold lasts until it is unlocked or the session ends. With {@link
 * #setTimeToLive(Duration)} (or per call, {@code ZkRegistryLock#lock(Duration)} and {@code
 * ZkRegistryLock#tryLock(Duration, Duration)}) each hold is a zklock lease ({@link
 * DistributedLock#withLease}): a hold neither unlocked nor renewed within its time to live is
 * released by zklock itself and the lock goes to the next waiter, which catches a holder stuck in
 * its critical section while its process and session stay healthy. Keep a hold with {@link
 * #renewLock(Object)} (or a reentrant {@code lock()}/{@code tryLock()}, which renews too, as
 * Spring's {@code LockRegistryLeaderInitiator} relies on), or let a {@link #setRenewalTaskScheduler
 * renewal scheduler} do it. A holder whose time ran out learns it from its next {@code unlock()},
 * re-lock or renewal: {@link io.zklock.LockLostException} with reason {@code LEASE_EXPIRED}. The
 * time is kept by a timer in the holder's own process, counted from the grant; see zklock's {@code
 * docs/guarantees.md} (leases) for what it cannot promise.
 *
 * <p>The registry does not own the {@link ZkLocks}: close it yourself (Spring does for a bean).
 *
 * @param <L> the line's lock class
 */
public abstract class AbstractZkLockRegistry<L extends AbstractZkRegistryLock> {
  /**
   * The default {@linkplain #setCacheCapacity capacity of the lock cache}: 100,000, as Spring
   * Integration's JDBC and Redis lock registries.
   */
  public static final int DEFAULT_CACHE_CAPACITY = 100_000;

  // the largest lease zklock accepts (Integer.MAX_VALUE ms, about 24 days)
  private static final Duration MAX_TTL = Duration.ofMillis(Integer.MAX_VALUE);

  private final Function<String, DistributedLock> locks;
  private final ReentrantLock cacheLock = new ReentrantLock();
  // least recently obtained first; guarded by cacheLock
  private final LinkedHashMap<String, L> cache = new LinkedHashMap<>(16, 0.75f, true);
  private int cacheCapacity = DEFAULT_CACHE_CAPACITY;
  private volatile Duration timeToLive;
  private volatile TaskScheduler renewalScheduler;

  /** Fair mutexes named {@code prefix/key}, or the key alone when {@code prefix} is empty. */
  protected AbstractZkLockRegistry(ZkLocks zkLocks, String prefix) {
    Objects.requireNonNull(zkLocks, "zkLocks");
    Objects.requireNonNull(prefix, "prefix");
    this.locks = key -> zkLocks.mutex(prefix.isEmpty() ? key : prefix + "/" + key);
  }

  /** Locks made by {@code factory} from each key. */
  protected AbstractZkLockRegistry(Function<String, DistributedLock> factory) {
    this.locks = Objects.requireNonNull(factory, "factory");
  }

  /** The line's lock object for {@code lock}, owned by this registry. */
  protected abstract L newLock(DistributedLock lock);

  /**
   * The lock of {@code lockKey}, the same instance for the same key while it stays in the cache.
   *
   * <p>The cache holds at most {@link #setCacheCapacity capacity} locks. Obtaining a lock that is
   * not cached when the cache is full forgets the least recently obtained locks that no thread of
   * this process holds, as Spring's JDBC and Redis registries do. A forgotten lock object still
   * works, and still excludes every other holder of its key through ZooKeeper; only a later {@code
   * obtain} of its key returns a new object (so a thread holding the old one does not re-enter
   * through the new one: keep using the object you locked).
   *
   * @throws IllegalArgumentException if the key is not a {@link String}, or not a valid zklock lock
   *     name (see {@link ZkLocks#mutex(String)})
   * @throws CannotAcquireLockException if the cache is full of locks that threads of this process
   *     hold (as Spring's registries); nothing is cached then
   */
  public L obtain(Object lockKey) {
    if (!(lockKey instanceof String)) {
      throw new IllegalArgumentException(
          "lock keys must be Strings: " + (lockKey == null ? null : lockKey.getClass()));
    }
    String key = (String) lockKey;
    cacheLock.lock();
    try {
      L lock = cache.get(key);
      if (lock != null) {
        return lock;
      }
      L made = newLock(locks.apply(key));
      if (cache.size() >= cacheCapacity) {
        evictUnlocked(cacheCapacity - 1);
        if (cache.size() >= cacheCapacity) {
          throw new CannotAcquireLockException(
              "There are already "
                  + cacheCapacity
                  + " unique locks held in this process from "
                  + this
                  + ". Cannot obtain more at the moment.");
        }
      }
      cache.put(key, made);
      return made;
    } finally {
      cacheLock.unlock();
    }
  }

  /**
   * How many locks the cache keeps (default {@value #DEFAULT_CACHE_CAPACITY}, as Spring
   * Integration's JDBC and Redis registries); see {@link #obtain}. If the cache holds more, the
   * least recently obtained locks that no thread holds are forgotten now.
   *
   * @throws IllegalArgumentException if {@code capacity} is not positive
   */
  public void setCacheCapacity(int capacity) {
    if (capacity <= 0) {
      throw new IllegalArgumentException("the cache capacity must be positive: " + capacity);
    }
    cacheLock.lock();
    try {
      this.cacheCapacity = capacity;
      evictUnlocked(capacity);
    } finally {
      cacheLock.unlock();
    }
  }

  /** How many locks the cache keeps; see {@link #setCacheCapacity}. */
  public int getCacheCapacity() {
    cacheLock.lock();
    try {
      return cacheCapacity;
    } finally {
      cacheLock.unlock();
    }
  }

  // forgets the least recently obtained unlocked locks until at most max are cached; cacheLock held
  private void evictUnlocked(int max) {
    for (Iterator<L> it = cache.values().iterator(); cache.size() > max && it.hasNext(); ) {
      if (!it.next().isLocked()) {
        it.remove();
      }
    }
  }

  /**
   * Gives every later hold of this registry's locks a time to live: a hold neither unlocked nor
   * renewed within {@code ttl} of its grant (or of its last renewal) is released by zklock, and its
   * holder's next {@code unlock()}, re-lock or {@link #renewLock} throws {@link
   * io.zklock.LockLostException} ({@code LEASE_EXPIRED}). {@code null}, the default, means no time
   * to live: a hold lasts until unlocked or until the session ends. Holds made before the call keep
   * their own time to live.
   *
   * @throws IllegalArgumentException if {@code ttl} is zero, negative, under 1 ms or over about 24
   *     days
   */
  public void setTimeToLive(Duration ttl) {
    this.timeToLive = ttl == null ? null : checkTtl(ttl);
  }

  /** The time to live of new holds, or {@code null} for none (see {@link #setTimeToLive}). */
  public Duration getTimeToLive() {
    return timeToLive;
  }

  /**
   * Renews every later hold with a time to live from {@code scheduler}, every third of its time to
   * live, until it is unlocked or lost: the hold then ends only by {@code unlock()} or loss of the
   * session, as without a time to live, but a process that stops (or whose scheduler stops) still
   * loses it within one time to live. {@code null} stops renewing later holds.
   */
  public void setRenewalTaskScheduler(TaskScheduler scheduler) {
    this.renewalScheduler = scheduler;
  }

  /**
   * Renews the current thread's hold of {@code lockKey} for the time to live it was acquired with,
   * from now.
   *
   * @throws IllegalStateException if this registry has no lock of {@code lockKey} (never obtained,
   *     or expired), or if the hold has no time to live to renew
   * @throws IllegalMonitorStateException if the current thread does not hold the lock; {@link
   *     io.zklock.LockLostException} if it held it but lost it (its time to live ran out, or the
   *     session ended): the hold stays with the thread until its {@code unlock()}, which throws the
   *     same
   */
  public void renewLock(Object lockKey) {
    lockOf(lockKey).renew(null);
  }

  /**
   * Renews the current thread's hold of {@code lockKey} for {@code ttl} from now; later plain
   * renewals use the hold's original time to live again.
   *
   * @throws IllegalArgumentException if {@code ttl} is not a valid time to live (see {@link
   *     #setTimeToLive})
   * @throws IllegalStateException if this registry has no lock of {@code lockKey}, or if the hold
   *     has no time to live to renew
   * @throws IllegalMonitorStateException if the current thread does not hold the lock; {@link
   *     io.zklock.LockLostException} if it held it but lost it
   */
  public void renewLock(Object lockKey, Duration ttl) {
    checkTtl(ttl);
    lockOf(lockKey).renew(ttl);
  }

  private L lockOf(Object lockKey) {
    L lock;
    cacheLock.lock();
    try {
      lock = lockKey instanceof String ? cache.get(lockKey) : null;
    } finally {
      cacheLock.unlock();
    }
    if (lock == null) {
      throw new IllegalStateException(
          "no lock of key " + lockKey + " in this registry to renew (obtain and lock it first)");
    }
    return lock;
  }

  static Duration checkTtl(Duration ttl) {
    Objects.requireNonNull(ttl, "ttl");
    if (ttl.isNegative() || ttl.toMillis() < 1 || ttl.compareTo(MAX_TTL) > 0) {
      throw new IllegalArgumentException(
          "a time to live must be from 1 ms to about 24 days: " + ttl);
    }
    return ttl;
  }

  Duration defaultTtl() {
    return timeToLive;
  }

  TaskScheduler renewalScheduler() {
    return renewalScheduler;
  }

  /**
   * Forgets the locks that no thread holds and that were last locked or unlocked more than {@code
   * age} milliseconds ago; a later {@link #obtain} makes a new one. Held locks are kept.
   */
  public void expireUnusedOlderThan(long age) {
    long now = System.nanoTime();
    long ageNanos = TimeUnit.MILLISECONDS.toNanos(age);
    cacheLock.lock();
    try {
      cache.values().removeIf(lock -> !lock.isLocked() && now - lock.lastUsedNanos() > ageNanos);
    } finally {
      cacheLock.unlock();
    }
  }

  @Override
  public String toString() {
    cacheLock.lock();
    try {
      return getClass().getSimpleName()
          + (cache.size() <= 10 ? cache.keySet().toString() : "[" + cache.size() + " locks]");
    } finally {
      cacheLock.unlock();
    }
  }
}
