package io.zklock;

import java.time.Duration;
import java.util.Optional;

/**
 * Leader election among participants that share a name: exactly one live participant leads at a
 * time (within the limits described on {@link LockHandle}). Leadership carries an epoch, a fencing
 * token greater than every earlier leader's.
 *
 * <p>Participants queue fairly, herd-free, as on a mutex; the head leads. When the leader's session
 * expires (or its node is deleted), it is told through {@link LeadershipListener#revoked(long)} as
 * soon as its process hears of it, and it joins the queue again, at the back, on its new session;
 * the next participant is elected. Waiting participants survive a session expiry too. Listeners are
 * called on the library's executor, never on ZooKeeper's event thread; they should not block.
 */
public interface LeaderElection extends AutoCloseable {
  /** This participant's id. */
  String participantId();

  /** Joins the election without waiting. Idempotent; does nothing after {@link #close()}. */
  void start();

  /** Whether this participant leads now, as far as it knows. */
  boolean isLeader();

  /** The epoch of the current term if this participant leads. */
  Optional<Long> epoch();

  /**
   * Waits until this participant leads, the timeout elapses, or the election is closed.
   *
   * @param timeout how long to wait; must not be negative
   * @return {@code true} if it leads
   * @throws IllegalArgumentException if {@code timeout} is negative or too large
   * @throws InterruptedException if the calling thread is interrupted while waiting
   */
  boolean awaitLeadership(Duration timeout) throws InterruptedException;

  /**
   * The id of the current leader, read from the head of the queue (two reads from ZooKeeper, on the
   * calling thread): the same answer for every participant, or empty if nobody takes part now.
   *
   * @throws ZkLockException if not connected
   */
  Optional<String> leader();

  /**
   * Adds a listener, called on the library's executor; it is told at once if this participant
   * already leads.
   */
  void addListener(LeadershipListener listener);

  /** Removes a listener. */
  void removeListener(LeadershipListener listener);

  /**
   * Leaves the election, resigning leadership if held (listeners then hear {@code revoked}) and
   * deleting this participant's node. Idempotent; the election cannot be started again.
   */
  @Override
  void close();
}
