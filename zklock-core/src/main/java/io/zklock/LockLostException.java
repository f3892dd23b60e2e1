package io.zklock;

/**
 * The holder of a lock no longer holds it: its session expired, its lock node was deleted by
 * someone else (an operator's forced release), the connection was suspended under {@link
 * SuspensionPolicy#TREAT_AS_LOST}, the {@link ZkLocks} that made it was closed, or its lease ran
 * out ({@link DistributedLock#withLease}) or zklock's own code failed while handling it.
 *
 * <p>It extends the JDK's {@link IllegalMonitorStateException}, the exception for "you do not hold
 * this lock". It is the value with which {@link LockHandle#lost()} completes, and it is thrown when
 * a caller acts on a lock it has lost (for example {@code asLock().unlock()}).
 */
public class LockLostException extends IllegalMonitorStateException {
  private static final long serialVersionUID = 1L;

  /** Why the lock was lost. */
  public enum Reason {
    /**
     * The ZooKeeper session that held the lock is over: the ensemble expired it and deleted the
     * lock node, or zklock declared it lost at its own session deadline, having heard nothing from
     * the ensemble for the negotiated timeout less a margin (a partition, a black-holed connection,
     * an ensemble that refuses the session); the ensemble then expires it and deletes the node no
     * earlier than that margin later. Either way nobody else can have been granted the lock before
     * this is reported, unless this process was paused (see docs/guarantees.md).
     */
    SESSION_EXPIRED,
    /** The lock node was deleted by another party while this holder still held it. */
    NODE_DELETED,
    /** The connection was suspended and the policy is {@link SuspensionPolicy#TREAT_AS_LOST}. */
    SUSPENDED,
    /** The {@link ZkLocks} instance was closed while the lock was held. */
    CLOSED,
    /**
     * The grant's lease ({@link DistributedLock#withLease}) ran out before it was released or
     * extended; the library released the lock node itself.
     */
    LEASE_EXPIRED,
    /**
     * zklock's own code failed while handling this grant (a bug, or an {@link Error} such as {@link
     * OutOfMemoryError} on ZooKeeper's event thread), so it can no longer vouch for the hold: it
     * gave the lock back itself, deleting the lock node. The failure is this exception's cause, and
     * was logged at ERROR.
     */
    INTERNAL_ERROR
  }

  private final String path;
  private final long sessionId;
  private final Reason reason;

  /** The lock node {@code path} of session {@code sessionId} was lost, for {@code reason}. */
  public LockLostException(String path, long sessionId, Reason reason) {
    super(ZkLockException.decorate("lock lost: " + describe(reason), path, sessionId));
    this.path = path;
    this.sessionId = sessionId;
    this.reason = reason;
  }

  /** The znode path of the lost lock node. */
  public String path() {
    return path;
  }

  /** The session that held the lock. */
  public long sessionId() {
    return sessionId;
  }

  /** Why the lock was lost. */
  public Reason reason() {
    return reason;
  }

  private static String describe(Reason reason) {
    switch (reason) {
      case SESSION_EXPIRED:
        return "the ZooKeeper session expired";
      case NODE_DELETED:
        return "the lock node was deleted by someone else";
      case SUSPENDED:
        return "the connection was suspended (policy TREAT_AS_LOST)";
      case CLOSED:
        return "the ZkLocks instance was closed";
      case LEASE_EXPIRED:
        return "the lease ran out before the lock was released or extended";
      case INTERNAL_ERROR:
        return "zklock's own code failed while handling the lock, which it gave back";
      default:
        throw new IllegalArgumentException("unknown reason " + reason);
    }
  }
}
