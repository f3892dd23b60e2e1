package io.zklock.internal.rules;

import java.time.Duration;

/**
 * How long one request may wait for a holder, as one value with three cases:
 *
 * <ul>
 *   <li>{@link #NOW}: never wait for a holder ({@code tryAcquire()}); the request is still made
 *       once, whatever the time, and ends busy if the lock is held;
 *   <li>until a deadline ({@link #after}: {@code tryAcquire(timeout)} with a positive timeout);
 *   <li>{@link #FOREVER}: no deadline ({@code acquire()}, {@code acquireAsync()}).
 * </ul>
 *
 * <p>The deadline is a moment on the {@link Clock}'s scale, fixed once when the caller's timeout
 * starts to run. A wait that has already spent part of its budget (before the first connection, in
 * earlier parts of a multi-lock, in a semaphore's admission) is therefore the same value: each
 * later step reads what is left from the clock, so nothing is subtracted by hand and every step of
 * one request shares one deadline. Moments are compared by their difference, as {@link
 * System#nanoTime()} requires: a deadline that overflows {@code long} (a timeout of up to {@link
 * Long#MAX_VALUE} nanoseconds, at any clock reading) is still exact.
 *
 * <p>Pure: the clock is read only when passed in.
 */
public final class Waiting {

  private enum Kind {
    NOW,
    UNTIL,
    FOREVER
  }

  /** Never wait for a holder. */
  public static final Waiting NOW = new Waiting(Kind.NOW, 0L);

  /** Wait without a deadline. */
  public static final Waiting FOREVER = new Waiting(Kind.FOREVER, 0L);

  private final Kind kind;
  private final long deadlineNanos; // on the clock's scale; meaningful for UNTIL only

  private Waiting(Kind kind, long deadlineNanos) {
    this.kind = kind;
    this.deadlineNanos = deadlineNanos;
  }

  /**
   * A wait of {@code timeoutNanos} from now on {@code clock}; zero or negative is {@link #NOW} (the
   * caller does not wait, as {@link java.util.concurrent.locks.Lock#tryLock(long,
   * java.util.concurrent.TimeUnit)} treats a timeout that is not positive).
   */
  public static Waiting after(long timeoutNanos, Clock clock) {
    if (timeoutNanos <= 0) {
      return NOW;
    }
    return new Waiting(Kind.UNTIL, clock.nanoTime() + timeoutNanos); // may wrap; see class doc
  }

  /**
   * A public API's timeout: zero is {@link #NOW}.
   *
   * @throws IllegalArgumentException if {@code timeout} is negative or too large in nanoseconds
   *     ({@link Args#timeoutNanos})
   */
  public static Waiting after(Duration timeout, Clock clock) {
    return after(Args.timeoutNanos(timeout), clock);
  }

  /** Whether the request must not wait for a holder ({@code tryAcquire()}). */
  public boolean isNow() {
    return kind == Kind.NOW;
  }

  /** Whether the wait ends at a deadline. */
  public boolean hasDeadline() {
    return kind == Kind.UNTIL;
  }

  /**
   * The nanoseconds left until the deadline, zero or negative once it has passed; {@link #NOW} has
   * none left ({@code 0}), {@link #FOREVER} has {@link Long#MAX_VALUE}.
   */
  public long remainingNanos(Clock clock) {
    return switch (kind) {
      case NOW -> 0L;
      case UNTIL -> deadlineNanos - clock.nanoTime();
      case FOREVER -> Long.MAX_VALUE;
    };
  }

  /**
   * Whether the deadline has passed. Only a wait with a deadline expires: {@link #NOW} makes its
   * one try whatever the time, {@link #FOREVER} never gives up.
   */
  public boolean expired(Clock clock) {
    return kind == Kind.UNTIL && clock.nanoTime() - deadlineNanos >= 0;
  }

  /**
   * Whether this wait's deadline comes sooner than {@code nanos} from now: then a bound of {@code
   * nanos} on some step (the first connection) is cut short by the caller's own timeout. False for
   * {@link #NOW} and {@link #FOREVER}, which have no deadline.
   */
  public boolean endsBefore(long nanos, Clock clock) {
    return kind == Kind.UNTIL && remainingNanos(clock) < nanos;
  }

  @Override
  public String toString() {
    return kind == Kind.UNTIL ? "UNTIL(" + deadlineNanos + ")" : kind.name();
  }
}
