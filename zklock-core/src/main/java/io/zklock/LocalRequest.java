package io.zklock;

import java.time.Duration;
import java.util.Objects;

/**
 * One request of this {@link ZkLocks} instance, seen by {@link ZkLocks#localLocks()}: a lock it
 * holds or waits for, as this process knows it (not as the ensemble does: see {@link
 * ZkLocks#inspect} for that). A read-only snapshot.
 *
 * @param lockName the lock's name, relative to the namespace
 * @param kind what kind of node the request makes (for a read-write lock, which side)
 * @param state whether the request waits or holds
 * @param path the request's node, or empty while it has none (its create not yet answered, or a
 *     simple lock's waiter, which has no node)
 * @param sessionId the session of the request's latest create, or 0 before the first
 * @param fencingToken the node's creation zxid ({@link LockHandle#fencingToken()} once held), or 0
 *     while the request has no node
 * @param waited how long the request waited: from its start until its grant, or until now while it
 *     waits (by this process's monotonic clock)
 * @param held how long it has been held, since its grant; zero while it waits
 * @param releaseRequested whether someone asked this holder to release ({@link
 *     ZkLocks#requestRelease})
 */
public record LocalRequest(
    String lockName,
    LockNode.Kind kind,
    State state,
    String path,
    long sessionId,
    long fencingToken,
    Duration waited,
    Duration held,
    boolean releaseRequested) {

  /** Where a request is in its life. */
  public enum State {
    /** Not granted yet: queued, or its node being created or found again after a lost reply. */
    WAITING,
    /** Granted, and the handle given out. */
    HELD,
    /**
     * Granted, but its node was found deleted; the loss is being confirmed and will be told through
     * {@link LockHandle#lost()} at once. Not held.
     */
    LOSING
  }

  /** Checks that no component is null. */
  public LocalRequest {
    Objects.requireNonNull(lockName, "lockName");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(waited, "waited");
    Objects.requireNonNull(held, "held");
  }
}
