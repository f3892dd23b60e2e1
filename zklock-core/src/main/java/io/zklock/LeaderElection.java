package io.zklock;

import java.time.Duration;
import java.util.List;
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
 *
 * <p>Anyone can follow who leads, participant or not, without polling: {@link #addObserver} (an
 * election that is never started observes without taking part). {@link #participants()} lists every
 * participant in queue order, the leader first. A leader can give up leadership and queue again at
 * the back without leaving ({@link #requeue()}, Curator's {@code requeue}); after a loss it queues
 * again by itself (Curator's {@code autoRequeue}, always on). A closed election can be started
 * again, and any number of elections of one name and id can be made on one {@link ZkLocks}, one
 * after the other.
 */
public interface LeaderElection extends AutoCloseable {
  /** This participant's id. */
  String participantId();

  /**
   * Joins the election without waiting: this participant queues at the back. Idempotent while
   * started. After {@link #close()} it starts again, as a new participant at the back of the queue
   * (with a new epoch if elected); listeners and observers added before are kept.
   *
   * @throws ZkLockException if the {@link ZkLocks} is closed
   */
  void start();

  /**
   * Gives up leadership, if this participant leads, and queues again at the back without leaving
   * the election (Curator's {@code requeue}). Resigning is ordered as on {@link #close()}: {@link
   * #isLeader()} turns false at once, the listeners hear {@code revoked}, then the node is deleted
   * (which lets the next participant be elected), then this participant queues again, behind every
   * participant queued by then; alone, it is elected again with a greater epoch. Waits as {@link
   * #close()} does. A participant that does not lead keeps its place; one not started (or closed)
   * is {@linkplain #start() started}.
   *
   * @throws ZkLockException if the {@link ZkLocks} is closed
   */
  void requeue();

  /**
   * Starts a transaction of ZooKeeper writes that commit only while this participant still leads in
   * the current term: a {@link LockHandle#transaction()} of the leader's node (see {@link
   * GuardedTransaction}). A transaction made in one term never commits in a later one.
   *
   * @throws IllegalStateException if this participant does not lead now
   */
  GuardedTransaction transaction();

  /** Whether this participant leads now, as far as it knows. */
  boolean isLeader();

  /** The epoch of the current term if this participant leads. */
  Optional<Long> epoch();

  /**
   * Waits until this participant leads, the timeout elapses, or the election is closed. A zero
   * timeout answers {@link #isLeader()} without waiting.
   *
   * @param timeout how long to wait; must not be negative
   * @return {@code true} if it leads
   * @throws IllegalArgumentException if {@code timeout} is negative or too large
   * @throws InterruptedException if the calling thread is interrupted while waiting
   * @throws ZkLockException if this participant's latest attempt to join was refused because the
   *     election's directory holds nodes of a recipe it cannot share a queue with (see {@link
   *     LockOptions}, "One recipe per path"); the participant keeps trying to join, with back-off,
   *     and joins once those nodes are gone
   */
  boolean awaitLeadership(Duration timeout) throws InterruptedException;

  /**
   * The id of the current leader, read from the head of the queue (two reads from ZooKeeper, on the
   * calling thread): the same answer for every participant, or empty if nobody takes part now.
   *
   * @throws ZkLockException if not connected, or if the election's directory holds nodes of a
   *     recipe that cannot share its queue (a Curator {@code LeaderSelector}'s beside {@code
   *     LeaderLatch}-layout participants, say, see {@link LockOptions}): then a client of the other
   *     recipe may lead as well, and no single leader can be named
   */
  Optional<String> leader();

  /**
   * Every participant, in queue order: the leader first, then the others in the order in which they
   * will be elected. Each {@link LockNode} names its {@link LockNode#participantId() participant}
   * and its owner (client name, host, pid, session); the leader's {@link LockNode#fencingToken()}
   * is its epoch. This is the election's {@link ZkLocks#inspect} (a few reads, on the calling
   * thread, not atomic: a snapshot).
   *
   * @return the participants, or an empty list if nobody takes part
   * @throws ZkLockException as {@link ZkLocks#inspect}: closed, not connected within the connect
   *     timeout, not authorized, or interrupted
   */
  List<LockNode> participants();

  /**
   * Starts telling {@code observer} who leads this election: first the leader at once (or empty if
   * nobody takes part), then every change, in order, with rising epochs, on the library's executor,
   * one call at a time (in order with this participant's {@link LeadershipListener} calls). It
   * needs no participation: an election that is never {@linkplain #start() started} observes only,
   * as a follower that does not want to lead would (Spring Integration's "leader watchers"). No
   * polling: one watch on the leader's node (or, while nobody takes part, on the election's
   * directory), and one read when it fires or the connection comes back.
   *
   * <p>What an observer can know: a leader is reported once its node is read, a little after the
   * leader itself hears {@code elected} (a round trip, plus the time the connection was down if it
   * was); a term shorter than that may be skipped, never reported out of order. Across a leader's
   * session expiry the observer hears the next leader once the ensemble has deleted the expired
   * leader's node. Nothing is reported while this election is closed; {@link #start()} resumes
   * (with the leader at that time first). Observing ends with {@link #removeObserver}, or when the
   * {@link ZkLocks} is closed.
   *
   * @throws ZkLockException if the {@link ZkLocks} is closed
   */
  void addObserver(LeaderObserver observer);

  /** Stops telling {@code observer}; with no observer left, the watching stops. */
  void removeObserver(LeaderObserver observer);

  /**
   * Adds a listener, called on the library's executor; it is told at once if this participant
   * already leads.
   */
  void addListener(LeadershipListener listener);

  /** Removes a listener. */
  void removeListener(LeadershipListener listener);

  /**
   * Leaves the election, resigning leadership if held, and deletes this participant's node; stops
   * telling the observers. Idempotent; {@link #start()} joins again.
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
