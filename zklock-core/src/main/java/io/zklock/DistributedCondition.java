package io.zklock;

import java.time.Duration;

/**
 * A condition of a distributed lock: "wait, releasing the lock, until the holder signals", as
 * {@link java.util.concurrent.locks.Condition} is for a JDK lock. Get one with {@link
 * DistributedLock#newCondition()} (the lock's condition: every process that calls it on the same
 * lock gets the same one) or {@link DistributedLock#newCondition(String)} (a named one). The thread
 * view, {@code lock.asLock().newCondition()}, is a {@link java.util.concurrent.locks.Condition} on
 * the same waiters, so that code written for {@code Lock} and {@code Condition} works unchanged.
 *
 * <h2>How it works</h2>
 *
 * {@link #await(LockHandle)} makes a waiter node (EPHEMERAL_SEQUENTIAL, so arrival order is the
 * order in which holders awaited) while it still holds the lock, then releases the lock, then
 * watches only its own node. {@link #signal(LockHandle)} deletes the earliest waiter node, {@link
 * #signalAll(LockHandle)} every one: each waiter hears one notification, its own, and no signal
 * wakes a herd. Because the node exists before the lock is released, a signal sent by the next
 * holder finds it even if the waiter has not started to watch yet: no signal is lost to that
 * window. A woken waiter queues for the lock again and returns holding it with a new handle (a new
 * fencing token: the lock changed hands meanwhile).
 *
 * <h2>Faults</h2>
 *
 * <ul>
 *   <li>A waiter whose session expires while it waits loses its node (no signal can go to it any
 *       more, so none is lost to it): it wakes as by a spurious wake-up, which {@code Condition}
 *       permits and callers already loop for, and queues for the lock again.
 *   <li>A handle that is not held when {@code await} or {@code signal} is called: {@link
 *       LockLostException} if it was lost (session expired, node deleted), else {@link
 *       IllegalMonitorStateException} (released, or of another lock), as the JDK throws when the
 *       caller does not hold the lock.
 *   <li>Interrupted while waiting for a signal: the waiter's node is withdrawn and {@link
 *       InterruptedException} thrown, without the lock (the handle form cannot hand a new handle
 *       back with an exception; the thread view re-acquires first, as the JDK does). If the signal
 *       came first, the wait is not interrupted: it re-acquires and returns with the thread's
 *       interrupt status set.
 * </ul>
 *
 * <p>Supported by the mutex, the write side of a read-write lock and the simple lock. Shared and
 * composed kinds (read side, semaphore, multi-lock) and cohort locks throw {@link
 * UnsupportedOperationException} from {@code newCondition}.
 */
public interface DistributedCondition {
  /** What a timed wait gives back: the new handle, and whether a signal woke it. */
  record Wakeup(LockHandle handle, boolean signalled) {}

  /** The condition's name ({@code "default"} for {@link DistributedLock#newCondition()}). */
  String name();

  /**
   * Releases {@code held}, waits for a signal, then acquires the lock again.
   *
   * @param held the caller's handle of this lock; released by this call
   * @return the new handle (a new fencing token)
   * @throws LockLostException if {@code held} was lost
   * @throws IllegalMonitorStateException if {@code held} is not held or not of this lock
   * @throws InterruptedException if interrupted while waiting for a signal (the lock is then not
   *     held)
   */
  LockHandle await(LockHandle held) throws InterruptedException;

  /**
   * As {@link #await(LockHandle)}, waiting at most {@code timeout} for a signal; the lock is
   * acquired again either way (that wait has no time-out, as in the JDK).
   *
   * @param timeout zero: release, and queue again at once
   * @throws IllegalArgumentException if {@code timeout} is negative
   */
  Wakeup await(LockHandle held, Duration timeout) throws InterruptedException;

  /**
   * Wakes the earliest waiter, if any.
   *
   * @param held the caller's handle: only the holder may signal
   * @throws LockLostException if {@code held} was lost
   * @throws IllegalMonitorStateException if {@code held} is not held or not of this lock
   */
  void signal(LockHandle held);

  /** Wakes every waiter; as {@link #signal(LockHandle)} otherwise. */
  void signalAll(LockHandle held);
}
