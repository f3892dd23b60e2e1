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
 * called on the library's executor, never on ZooKeeper's event thread, one call at a time and in
 * order; they should not block (a slow {@code revoked} delays the handover on {@link #close()}).
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
   * Leaves the election, resigning leadership if held, and deletes this participant's node.
   * Idempotent; the election cannot be started again.
   *
   * <p>Resigning is ordered: {@link #isLeader()} turns false at once, then the listeners hear
   * {@code revoked}, and only once every {@code revoked} has returned is the node deleted, which is
   * what lets the next participant be elected. So no two participants of one live election believe
   * they lead at once; a listener that must stop work before the next leader starts does so in
   * {@code revoked}. This method returns after the deletion (waiting for the connection or the end
   * of the session, as {@link LockHandle#release()} does). Called on one of the library's threads
   * (inside a listener or a {@code lost()} callback), or interrupted while waiting, it returns
   * early and the same steps finish in the background, in the same order.
   */
  @Override
  void close();
}
