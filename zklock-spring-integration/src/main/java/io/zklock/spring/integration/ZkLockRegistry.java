package io.zklock.spring.integration;

import io.zklock.DistributedLock;
import io.zklock.ZkLocks;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.springframework.integration.support.locks.ExpirableLockRegistry;

/**
 * Spring Integration's {@link ExpirableLockRegistry} on zklock: {@link #obtain(Object)} returns,
 * for each key, one {@link ZkRegistryLock} shared by every thread of this registry and exclusive
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
 * io.zklock.LockLostException}) and another process may take it at once. Spring's {@code
 * RenewableLockRegistry} is not implemented: zklock's locks are not time-limited leases.
 *
 * <p>The registry does not own the {@link ZkLocks}: close it yourself (Spring does for a bean).
 */
public final class ZkLockRegistry implements ExpirableLockRegistry<ZkRegistryLock> {
  private final Function<String, DistributedLock> locks;
  private final Map<String, ZkRegistryLock> cache = new ConcurrentHashMap<>();

  /** Fair mutexes named by the keys themselves. */
  public ZkLockRegistry(ZkLocks zkLocks) {
    this(zkLocks, "");
  }

  /**
   * Fair mutexes named {@code prefix + "/" + key} (or just {@code key} when {@code prefix} is
   * empty), for example {@code "spring-integration"}.
   */
  public ZkLockRegistry(ZkLocks zkLocks, String prefix) {
    Objects.requireNonNull(zkLocks, "zkLocks");
    Objects.requireNonNull(prefix, "prefix");
    this.locks = key -> zkLocks.mutex(prefix.isEmpty() ? key : prefix + "/" + key);
  }

  /**
   * Locks made by {@code factory} from each key, for another kind of lock: for example {@code new
   * ZkLockRegistry(zkLocks::simpleLock)}.
   */
  public ZkLockRegistry(Function<String, DistributedLock> factory) {
    this.locks = Objects.requireNonNull(factory, "factory");
  }

  /**
   * The lock of {@code lockKey}, the same instance for the same key until it is expired.
   *
   * @throws IllegalArgumentException if the key is not a {@link String}, or not a valid zklock lock
   *     name (see {@link ZkLocks#mutex(String)})
   */
  @Override
  public ZkRegistryLock obtain(Object lockKey) {
    if (!(lockKey instanceof String)) {
      throw new IllegalArgumentException(
          "lock keys must be Strings: " + (lockKey == null ? null : lockKey.getClass()));
    }
    return cache.computeIfAbsent((String) lockKey, k -> new ZkRegistryLock(locks.apply(k)));
  }

  /**
   * Forgets the locks that no thread holds and that were last locked or unlocked more than {@code
   * age} milliseconds ago; a later {@link #obtain} makes a new one. Held locks are kept.
   */
  @Override
  public void expireUnusedOlderThan(long age) {
    long now = System.nanoTime();
    long ageNanos = TimeUnit.MILLISECONDS.toNanos(age);
    for (Iterator<ZkRegistryLock> it = cache.values().iterator(); it.hasNext(); ) {
      ZkRegistryLock lock = it.next();
      if (!lock.isLocked() && now - lock.lastUsedNanos() > ageNanos) {
        it.remove();
      }
    }
  }

  @Override
  public String toString() {
    return "ZkLockRegistry" + cache.keySet();
  }
}
