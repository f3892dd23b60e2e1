package io.zklock;

import java.time.Duration;

/**
 * A double barrier for a group of {@link #members()} processes: nobody passes {@link #enter} before
 * {@code members} have entered, and nobody passes {@link #leave} before every member that entered
 * has left. "Start the computation together, finish it together."
 *
 * <h2>The member count is stored with the barrier</h2>
 *
 * The first client stores {@code members} in the barrier's directory; a client that gives another
 * number is refused with a {@link ZkLockException} whose cause is an {@link
 * IllegalArgumentException}.
 *
 * <h2>Rounds</h2>
 *
 * The barrier is used round after round. A round opens when its {@code members}-th member has
 * entered (one transaction marks it open and makes its {@code ready-<round>} node); a process that
 * calls {@link #enter} after that waits for the next round rather than joining a group that has
 * already gone through. A round ends when its last member has left (one transaction starts the next
 * round and removes the old {@code ready} node). A member that leaves a round never waits for
 * members of the next one.
 *
 * <h2>Only the opening lets a member through</h2>
 *
 * A member waiting in {@code enter} watches only its round's {@code ready} node: a dropped
 * connection, a reconnection, or any other session event does not let it through (the bypass of
 * curator#1290, where a connection event woke a timed enter that then passed without counting,
 * cannot happen here: the wait ends only on the node's creation, the time-out, or an error).
 *
 * <h2>A member whose session expires</h2>
 *
 * <ul>
 *   <li>while waiting in {@code enter}: its node went with its session, so it stops counting; it
 *       enters again on its new session (same deadline), unless its round opened meanwhile (then it
 *       was counted, and passes);
 *   <li>after passing {@code enter}: its node went with its session, so for the others it has left;
 *       its own {@code leave} then only waits for the others.
 * </ul>
 *
 * <h2>Time-outs</h2>
 *
 * {@code enter(timeout)} that times out withdraws this member in one transaction that also checks
 * that the round has not opened: it returns false only if nobody was let through counting it; if
 * the round opened first, it returns true. {@code leave(timeout)} that times out has left (its node
 * is deleted); false says only that others have not left yet.
 *
 * <p>One instance is one member: call {@code enter} and {@code leave} in turn, from one thread at a
 * time.
 *
 * @see ZkLocks#doubleBarrier(String, int)
 */
public interface DistributedDoubleBarrier {
  /** The barrier's name, relative to the namespace. */
  String name();

  /** The group's size: how many members open a round. */
  int members();

  /**
   * Enters, waiting until {@code members} have entered.
   *
   * @throws InterruptedException if interrupted while waiting; the member is withdrawn as by a
   *     time-out (if the round opened first, the interrupt status is set again and it has entered)
   * @throws ZkLockException if the barrier stores another member count, or the {@link ZkLocks} is
   *     closed
   */
  void enter() throws InterruptedException;

  /**
   * Enters, waiting at most {@code timeout} until {@code members} have entered.
   *
   * @return true if the round opened with this member in it; false if the time-out came first (this
   *     member was withdrawn, and nobody passed counting it)
   * @throws IllegalArgumentException if {@code timeout} is negative
   * @throws InterruptedException as {@link #enter()}
   * @throws ZkLockException as {@link #enter()}
   */
  boolean enter(Duration timeout) throws InterruptedException;

  /**
   * Leaves, waiting until every member of this round has left.
   *
   * @throws IllegalStateException if this member has not entered
   * @throws InterruptedException if interrupted while waiting (this member has left)
   * @throws ZkLockException if the {@link ZkLocks} is closed
   */
  void leave() throws InterruptedException;

  /**
   * Leaves, waiting at most {@code timeout} until every member of this round has left.
   *
   * @return true if all have left; false if the time-out came first (this member has left anyway)
   * @throws IllegalArgumentException if {@code timeout} is negative
   * @throws IllegalStateException if this member has not entered
   * @throws InterruptedException as {@link #leave()}
   * @throws ZkLockException as {@link #leave()}
   */
  boolean leave(Duration timeout) throws InterruptedException;
}
