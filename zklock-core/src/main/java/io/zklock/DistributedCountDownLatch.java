package io.zklock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A count-down latch shared by every process that uses its name: {@link #await()} blocks until
 * {@link #countDown()} has been called {@code count} times, by any processes. The distributed
 * counterpart of {@link java.util.concurrent.CountDownLatch}: "start when all N workers are ready".
 *
 * <h2>The count is stored with the latch</h2>
 *
 * The first client to use a latch stores its count in the latch's directory; every call checks it,
 * and a client that gives another count is refused with a {@link ZkLockException} naming both,
 * whose cause is an {@link IllegalArgumentException} (as a semaphore's permits are).
 *
 * <h2>What a count-down is</h2>
 *
 * Each {@link #countDown()} is one transaction on the ensemble: it lowers the stored count by one
 * and leaves a marker with an id of its own, and the one that brings the count to zero opens the
 * latch in the same transaction. A count-down whose answer is lost to a connection loss (or whose
 * session expires meanwhile) finds its marker and is never applied twice; a crash between the last
 * count-down and the opening cannot happen, since they are one write. {@code countDown()} on a
 * latch at zero does nothing.
 *
 * <h2>Waiting, herd-free</h2>
 *
 * A waiter watches only the node that opens the latch: it hears one notification, when the count
 * reaches zero, however many count-downs come before. A dropped connection does not wake it (only
 * the opening does); after a session expiry it watches again on the new session, and sees an
 * opening it missed.
 *
 * <h2>Reuse after zero</h2>
 *
 * Like the JDK's latch, this one is one-shot: once at zero it stays open for every client, and
 * {@link #await()} returns at once. To count again, use a new name per round (for example {@code
 * "start/round-8"}). A latch's directory (its count, its markers, its opening) stays on the
 * ensemble until it is deleted, once no client uses it, with any ZooKeeper client ({@code deleteall
 * <namespace>/<name>}).
 *
 * @see ZkLocks#countDownLatch(String, int)
 */
public interface DistributedCountDownLatch {
  /** The latch's name, relative to the namespace. */
  String name();

  /** The count this client gave: how many count-downs open the latch. */
  int initialCount();

  /**
   * Lowers the count by one, opening the latch when it reaches zero; does nothing if it is zero.
   * Returns once the ensemble has applied it. Not interruptible (as the JDK's is not); it waits for
   * a connection as long as the {@link ZkLocks} is open.
   *
   * @throws ZkLockException if the latch stores another count, the {@link ZkLocks} is closed, or
   *     the server refuses the write (ACL)
   */
  void countDown();

  /** {@link #countDown()} without blocking: the future completes when it is applied. */
  CompletableFuture<Void> countDownAsync();

  /**
   * The count now: how many count-downs are still missing; 0 once open. One read.
   *
   * @throws ZkLockException as {@link #countDown()}
   */
  long count();

  /**
   * Waits until the count reaches zero; returns at once if it is zero.
   *
   * @throws InterruptedException if the thread is interrupted while waiting (the watch is removed)
   * @throws ZkLockException if the latch stores another count, or the {@link ZkLocks} is closed
   *     before or during the wait
   */
  void await() throws InterruptedException;

  /**
   * Waits until the count reaches zero, or {@code timeout} passes.
   *
   * @param timeout zero: one check, no wait
   * @return true if the latch is open, false if the time-out came first
   * @throws IllegalArgumentException if {@code timeout} is negative
   * @throws InterruptedException if the thread is interrupted while waiting (the watch is removed)
   * @throws ZkLockException as {@link #await()}
   */
  boolean await(Duration timeout) throws InterruptedException;
}
