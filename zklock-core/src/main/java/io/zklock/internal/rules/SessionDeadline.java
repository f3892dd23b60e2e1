package io.zklock.internal.rules;

import java.util.concurrent.TimeUnit;

/**
 * The arithmetic of zklock's own session deadline, apart from the I/O of the session: when a
 * session that was last heard from (the send time of the latest answered request) must be declared
 * lost, and how often it is probed.
 */
public final class SessionDeadline {
  /** The smallest margin, unless the timeout is so short that T/4 is smaller. */
  static final long MIN_MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

  private SessionDeadline() {}

  /**
   * The margin by which zklock's session deadline precedes the ensemble's earliest possible expiry:
   * {@code max(T/10, 500 ms)}, but at most T/4. It absorbs the delay between the deadline and the
   * holder being told (timer and executor scheduling on a loaded machine, a short GC pause), and on
   * an ensemble the up to half a tick that a follower takes to report a session's traffic to the
   * leader.
   *
   * @param timeoutNanos the negotiated session timeout T, positive
   */
  static long marginNanos(long timeoutNanos) {
    return Math.min(timeoutNanos / 4, Math.max(timeoutNanos / 10, MIN_MARGIN_NANOS));
  }

  /** The heartbeat period for a negotiated session timeout T: T/3. */
  public static long beatNanos(long timeoutNanos) {
    return Math.max(1L, timeoutNanos / 3);
  }

  /**
   * The moment (on the {@link Clock}'s scale) at which a session last heard from by a request sent
   * at {@code heardSentAt} is declared lost: {@code heardSentAt + T - margin}. The ensemble cannot
   * expire it before {@code heardSentAt + T}.
   */
  public static long dueNanos(long heardSentAt, long timeoutNanos) {
    return heardSentAt + timeoutNanos - marginNanos(timeoutNanos);
  }

  /**
   * The earliest moment at which zklock may close the handle of a session it declared lost: {@code
   * heardSentAt + T}, the ensemble's earliest possible expiry. Closing the handle ends the session
   * on the ensemble at once if the handle is connected (its ephemeral nodes go, and the next waiter
   * is granted); closed at the declaration, it would throw away the margin by which the holder is
   * told before another is granted. So the handle stays open, its events ignored, until the
   * ensemble could have expired it anyway.
   */
  public static long closeNanos(long heardSentAt, long timeoutNanos) {
    return heardSentAt + timeoutNanos;
  }
}
