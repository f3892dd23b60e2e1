package io.zklock;

import java.time.Duration;
import java.util.Objects;

/**
 * One step in the life of a lock request, or a change of the session, as a {@link
 * LockEventListener} hears it. Immutable.
 *
 * <p>A request is told as {@link Type#REQUESTED}, then perhaps {@link Type#QUEUED} (once or more:
 * each time it comes to wait at a new place behind others; listing again at the same place is not
 * told), then exactly one of {@link Type#GRANTED}, {@link Type#TIMED_OUT}, {@link Type#CANCELLED}
 * or {@link Type#FAILED}; a grant ends with exactly one of {@link Type#RELEASED} or {@link
 * Type#LOST}. Every event of one request carries the same {@link #requestId()}, unique within its
 * {@link ZkLocks}; an event of the session ({@link Type#SESSION}) carries none (0).
 *
 * <p><b>Coordination waits.</b> A blocking wait of a coordination recipe ({@link
 * #isCoordination()}: kinds {@code latch}, {@code barrier}, {@code double-barrier-enter}, {@code
 * double-barrier-leave}, {@code condition}) is a request that never holds: {@link Type#REQUESTED},
 * then exactly one of {@link Type#PASSED} (what it waited for happened: the latch opened, the
 * barrier was removed, the members entered or left, the waiter was signalled), {@link
 * Type#TIMED_OUT}, {@link Type#CANCELLED} (interrupted), {@link Type#FAILED} or, for a {@code
 * condition} only, {@link Type#LOST} (the lock the waiter held when it called {@code await} was
 * lost: the call throws {@link LockLostException}); no {@link Type#QUEUED}, and no hold follows. A
 * zero time-out is told too (a check that does not wait: passed or timed out). A condition's wait
 * ends when the waiter is signalled (or times out); the lock it takes again afterwards is told as a
 * request of that lock, as the release of its hold before the wait was. A condition waiter woken
 * because its session ended (a spurious wake-up, which {@code await} returns as the JDK's does) is
 * told as passed. What does not wait is not told: a count-down, a barrier's set or remove, a
 * signal; each is one write that returns at once, and their effect shows as the waits they end.
 *
 * @param type what happened
 * @param lockName the lock's name as the user gave it (a multi-lock's is its parts' names joined
 *     with {@code ","}); {@code ""} for a session event
 * @param kind the kind of lock: {@code mutex}, {@code read}, {@code write}, {@code simple}, {@code
 *     semaphore}, {@code multi}, {@code cohort}, {@code cohort-read}, {@code cohort-write}, {@code
 *     election}; for a coordination wait {@code latch}, {@code barrier}, {@code
 *     double-barrier-enter}, {@code double-barrier-leave}, {@code condition} (its {@code lockName}
 *     is then {@code <lock name>.cond-<condition name>}); {@code ""} for a session event
 * @param requestId the request this event belongs to, or 0 for a session event
 * @param sessionId the ZooKeeper session id at the time of the event (0 when none)
 * @param fencingToken the grant's fencing token for {@link Type#GRANTED}, {@link Type#RELEASED} and
 *     {@link Type#LOST} (a condition waiter's: the token of the grant that was lost); otherwise 0
 * @param position for {@link Type#QUEUED}: how many requests stand ahead of this one in the queue;
 *     otherwise -1
 * @param elapsed for the end of a wait (granted, passed, timed out, cancelled, failed, a
 *     coordination wait's lost): the time waited; for {@link Type#RELEASED} and {@link Type#LOST}
 *     of a grant: the time held; otherwise zero
 * @param reason for {@link Type#LOST}: why ({@link LockLostException.Reason#name()}); for {@link
 *     Type#TIMED_OUT}: {@code "busy"} when a {@code tryAcquire()} found the lock held, {@code
 *     "timeout"} otherwise; otherwise {@code ""}
 * @param failure for {@link Type#FAILED}: the exception the caller got; otherwise null
 * @param sessionState for {@link Type#SESSION}: the new state; otherwise null
 */
public record LockEvent(
    Type type,
    String lockName,
    String kind,
    long requestId,
    long sessionId,
    long fencingToken,
    int position,
    Duration elapsed,
    String reason,
    Throwable failure,
    SessionState sessionState) {

  /** What a {@link LockEvent} tells. */
  public enum Type {
    /** An acquisition was asked for (acquire, tryAcquire, acquireAsync, an election's start). */
    REQUESTED,
    /** The request waits behind {@link LockEvent#position()} others. */
    QUEUED,
    /** The request holds the lock; {@link LockEvent#elapsed()} is the time it waited. */
    GRANTED,
    /**
     * A coordination wait ended because what it waited for happened; {@link LockEvent#elapsed()} is
     * the time it waited. Not a grant: no hold follows (see the class documentation).
     */
    PASSED,
    /** The holder released the grant; {@link LockEvent#elapsed()} is the time it held it. */
    RELEASED,
    /**
     * The grant was lost ({@link LockEvent#reason()}); {@link LockEvent#elapsed()} as held. For a
     * {@code condition} wait: the waiter's lock was lost, which ends the wait.
     */
    LOST,
    /** The request ended without a grant at its timeout, or busy for a {@code tryAcquire()}. */
    TIMED_OUT,
    /** The caller cancelled or was interrupted while waiting. */
    CANCELLED,
    /** The request failed ({@link LockEvent#failure()}), for example when closed. */
    FAILED,
    /** The session changed state ({@link LockEvent#sessionState()}). */
    SESSION
  }

  /** Checks the fields that are never null. */
  public LockEvent {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(lockName, "lockName");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(elapsed, "elapsed");
    Objects.requireNonNull(reason, "reason");
  }

  /**
   * Whether this event ends a wait: granted, passed, timed out, cancelled or failed, or lost for a
   * coordination wait.
   */
  public boolean endsWait() {
    return type == Type.GRANTED
        || type == Type.PASSED
        || type == Type.TIMED_OUT
        || type == Type.CANCELLED
        || type == Type.FAILED
        || (type == Type.LOST && isCoordination());
  }

  /** Whether this event ends a hold: released, or lost by a grant (not a coordination wait). */
  public boolean endsHold() {
    return type == Type.RELEASED || (type == Type.LOST && !isCoordination());
  }

  /**
   * Whether this event is of a coordination recipe's wait, a request that never holds: its {@link
   * #kind()} is {@code latch}, {@code barrier}, {@code double-barrier-enter}, {@code
   * double-barrier-leave} or {@code condition}.
   */
  public boolean isCoordination() {
    return switch (kind) {
      case "latch", "barrier", "double-barrier-enter", "double-barrier-leave", "condition" -> true;
      default -> false;
    };
  }
}
