package io.zklock;

import java.time.Duration;
import java.util.Optional;

/**
 * Leader election among participants that share a name: exactly one live participant leads at a
 * time (within the limits described on {@link LockHandle}). Leadership carries an epoch, a fencing
 * token greater than every earlier leader's.
 */
public interface LeaderElection extends AutoCloseable {
  /** This participant's id. */
  String participantId();

  /** Joins the election. Idempotent. */
  void start();

  /** Whether this participant leads now, as far as it knows. */
  boolean isLeader();

  /** The epoch of the current term if this participant leads. */
  Optional<Long> epoch();

  /**
   * Waits until this participant leads or the timeout elapses.
   *
   * @return {@code true} if it leads
   */
  boolean awaitLeadership(Duration timeout) throws InterruptedException;

  /** The id of the current leader, as every participant sees it, or empty if there is none now. */
  Optional<String> leader();

  /** Adds a listener; it is told at once if this participant already leads. */
  void addListener(LeadershipListener listener);

  /** Removes a listener. */
  void removeListener(LeadershipListener listener);

  /** Leaves the election, resigning leadership if held. Idempotent. */
  @Override
  void close();
}
