package io.zklock.micrometer;

import io.micrometer.observation.Observation;
import java.util.Objects;

/**
 * The context of an observation of zklock: one lock request's wait, or the hold that follows its
 * grant. What a {@link LockObservationConvention} names and keys; its fields are set by {@link
 * ZkLockObservations} as the request's steps happen, the outcome last.
 */
public final class LockObservationContext extends Observation.Context {
  /** Which part of a request an observation covers. */
  public enum Phase {
    /** From the request to its outcome (granted, timed out, busy, cancelled, failed, passed). */
    WAIT,
    /** From the grant to its release or loss. */
    HOLD
  }

  private final Phase phase;
  private final String lockName;
  private final String lockTag;
  private final String kind;
  private volatile String outcome;
  private volatile String lossReason;
  private volatile long fencingToken = -1;

  /**
   * An observation of {@code phase} of a request of the lock {@code lockName}, whose guarded tag
   * value ({@link LockNameTags#tagValue}) is {@code lockTag}, of {@code kind} ({@code mutex},
   * {@code read}, ..., see {@link ZkLockMetrics}).
   */
  public LockObservationContext(Phase phase, String lockName, String lockTag, String kind) {
    this.phase = Objects.requireNonNull(phase, "phase");
    this.lockName = Objects.requireNonNull(lockName, "lockName");
    this.lockTag = Objects.requireNonNull(lockTag, "lockTag");
    this.kind = Objects.requireNonNull(kind, "kind");
  }

  /** The wait or the hold. */
  public Phase phase() {
    return phase;
  }

  /**
   * The lock's full name: as many values as the application has locks, so for high-cardinality key
   * values (a span's attributes) only.
   */
  public String lockName() {
    return lockName;
  }

  /**
   * The lock's name where {@link LockNameTags} allows it its own tag, else {@value
   * LockNameTags#OTHER}: safe as a low-cardinality key value (a meter's tag).
   */
  public String lockTag() {
    return lockTag;
  }

  /** The kind of request: {@code mutex}, {@code read}, {@code write}, {@code latch}, ... */
  public String kind() {
    return kind;
  }

  /**
   * How it ended, or null while it runs: for a wait {@code granted}, {@code timeout}, {@code busy},
   * {@code cancelled}, {@code failed}, {@code passed} (a coordination wait) or {@code lost} (a
   * condition waiter whose lock was lost); for a hold {@code released} or {@code lost}.
   */
  public String outcome() {
    return outcome;
  }

  /**
   * Why a hold was lost ({@code session_expired}, {@code node_deleted}, {@code suspended}, {@code
   * closed}, {@code lease_expired}), {@code none} for a release; null for a wait, or while it runs.
   */
  public String lossReason() {
    return lossReason;
  }

  /** The grant's fencing token, or -1 before the grant. */
  public long fencingToken() {
    return fencingToken;
  }

  void end(String outcome, String lossReason) {
    this.lossReason = lossReason;
    this.outcome = outcome;
  }

  void granted(long fencingToken) {
    this.fencingToken = fencingToken;
  }
}
