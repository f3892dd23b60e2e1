package io.zklock.spring.integration;

import io.zklock.DistributedLock;
import io.zklock.ZkLocks;
import io.zklock.spring.integration.support.AbstractZkLockRegistry;
import io.zklock.spring.integration.support.RegistryLockLostException;
import java.time.Duration;
import java.util.function.Function;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

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
 * io.zklock.LockLostException}) and another process may take it at once.
 *
 * <h2>Time to live ({@link RenewableLockRegistry})</h2>
 *
 * By default a hold lasts until it is unlocked or the session ends. With {@link
 * #setTimeToLive(Duration)} (or per call, {@link ZkRegistryLock#lock(Duration)} and {@link
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
 * <p>The lock cache keeps at most {@link #setCacheCapacity capacity} locks (100,000 by default, as
 * Spring's JDBC and Redis registries), forgetting the least recently obtained unlocked ones.
 *
 * <p>The last {@code unlock()} of a hold that was lost throws {@link RegistryLockLostException}, a
 * {@link java.util.ConcurrentModificationException} as Spring's JDBC and Redis registries throw
 * when the store released an expired lock, with zklock's {@link io.zklock.LockLostException} as its
 * cause.
 *
 * <p>The registry does not own the {@link ZkLocks}: close it yourself (Spring does for a bean).
 */
public final class ZkLockRegistry extends AbstractZkLockRegistry<ZkRegistryLock>
    implements ExpirableLockRegistry<ZkRegistryLock>, RenewableLockRegistry<ZkRegistryLock> {
  /** Fair mutexes named by the keys themselves. */
  public ZkLockRegistry(ZkLocks zkLocks) {
    this(zkLocks, "");
  }

  /**
   * Fair mutexes named {@code prefix + "/" + key} (or just {@code key} when {@code prefix} is
   * empty), for example {@code "spring-integration"}.
   */
  public ZkLockRegistry(ZkLocks zkLocks, String prefix) {
    super(zkLocks, prefix);
  }

  /**
   * Locks made by {@code factory} from each key, for another kind of lock: for example {@code new
   * ZkLockRegistry(zkLocks::simpleLock)}.
   */
  public ZkLockRegistry(Function<String, DistributedLock> factory) {
    super(factory);
  }

  // declared here, not only inherited: callers compiled against either line find the same method
  @Override
  public ZkRegistryLock obtain(Object lockKey) {
    return super.obtain(lockKey);
  }

  @Override
  protected ZkRegistryLock newLock(DistributedLock lock) {
    return new ZkRegistryLock(lock, this);
  }
}
