package io.zklock;

import java.time.Duration;

/**
 * A barrier: while it is set, {@link #await()} blocks in every process; {@link #remove()} lets them
 * all through. The distributed form of a gate that one process holds shut ("nobody starts until the
 * migration is done").
 *
 * <p>The barrier is one persistent node ({@code <namespace>/<name>}): it outlives the session of
 * the client that set it, so a crashed setter leaves it set until someone removes it. A waiter
 * watches only that node: it hears one notification, its removal. A dropped connection does not let
 * a waiter through (only the removal does); after a session expiry it watches again on the new
 * session, and a removal made meanwhile is seen.
 *
 * @see ZkLocks#barrier(String)
 */
public interface DistributedBarrier {
  /** The barrier's name, relative to the namespace. */
  String name();

  /**
   * Sets the barrier (idempotent). Returns once the ensemble has applied it.
   *
   * @throws ZkLockException if the {@link ZkLocks} is closed or the server refuses (ACL)
   */
  void set();

  /**
   * Removes the barrier, letting every waiter through (idempotent).
   *
   * @throws ZkLockException as {@link #set()}
   */
  void remove();

  /**
   * Whether the barrier is set now (one read).
   *
   * @throws ZkLockException as {@link #set()}
   */
  boolean isSet();

  /**
   * Waits while the barrier is set; returns at once if it is not.
   *
   * @throws InterruptedException if the thread is interrupted while waiting
   * @throws ZkLockException if the {@link ZkLocks} is closed before or during the wait
   */
  void await() throws InterruptedException;

  /**
   * Waits while the barrier is set, at most {@code timeout}.
   *
   * @param timeout zero: one check, no wait
   * @return true if the barrier is not set, false if the time-out came first
   * @throws IllegalArgumentException if {@code timeout} is negative
   * @throws InterruptedException if the thread is interrupted while waiting
   * @throws ZkLockException as {@link #await()}
   */
  boolean await(Duration timeout) throws InterruptedException;
}
