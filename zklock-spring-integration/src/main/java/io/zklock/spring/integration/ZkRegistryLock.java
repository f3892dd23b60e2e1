package io.zklock.spring.integration;

import io.zklock.DistributedLock;
import io.zklock.LockLostException;
import io.zklock.spring.integration.support.AbstractZkRegistryLock;
import io.zklock.spring.integration.support.RegistryLockLostException;
import java.time.Duration;
import java.util.concurrent.locks.Lock;

/**
 * The {@link Lock} of {@link ZkLockRegistry}: a zklock {@link DistributedLock} owned by a thread
 * and reentrant for it, like {@link java.util.concurrent.locks.ReentrantLock}. Its holds are
 * counted by zklock's {@link io.zklock.ThreadHolds}, the counter of {@link
 * DistributedLock#asLock()}, and so, as there, a thread that re-locks a lock it has <em>lost</em>
 * (session expired, node deleted, time to live run out) is told so, with {@link LockLostException},
 * and no longer owns it: Spring's leader initiator relies on this to learn that its leadership was
 * revoked.
 *
 * <p>{@code lockInterruptibly()} and {@code tryLock(time, unit)} wait for zklock's notification
 * that the predecessor is gone: there is no polling. {@code lock()} waits uninterruptibly (an
 * interrupt is kept and restored); {@code tryLock()} never waits. {@code unlock()} by a thread that
 * does not own the lock throws {@link IllegalMonitorStateException}; the last {@code unlock()}
 * releases the lock node and throws {@link RegistryLockLostException} (a {@link
 * java.util.ConcurrentModificationException}, as Spring's JDBC and Redis registries) if the lock
 * was lost while held.
 *
 * <p>As Spring's {@link org.springframework.integration.support.locks.DistributedLock}, a hold may
 * carry a time to live: {@link #lock(Duration)} and {@link #tryLock(Duration, Duration)} give it
 * one, the other methods the registry's ({@link ZkLockRegistry#setTimeToLive}, none by default). A
 * reentrant acquisition of a hold with a time to live renews it (for the given time to live, else
 * the hold's own); on a hold without one the time to live of a reentrant call is ignored.
 */
public final class ZkRegistryLock extends AbstractZkRegistryLock
    implements org.springframework.integration.support.locks.DistributedLock {
  ZkRegistryLock(DistributedLock lock, ZkLockRegistry registry) {
    super(lock, registry);
  }
}
