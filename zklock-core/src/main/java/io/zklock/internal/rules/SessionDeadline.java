package io.zklock.internal.rules;

import java.util.concurrent.TimeUnit;

/**
 * The arithmetic of zklock's own session deadline, apart from the I/O of the session: when a
 * session must be declared lost, counted from the latest instant at which the ensemble's leader is
 * known to have heard from it ({@link HeardProof}), and how often it is probed.
 */
public final class SessionDeadline {
  /** The smallest margin, unless the timeout is so short that T/4 is smaller. */
  static final long MIN_MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

  private SessionDeadline() {}

  /**
   * The margin by which zklock's session deadline precedes the ensemble's earliest possible expiry:
   * {@code max(T/10, 500 ms)}, but at most T/4. It absorbs the delay between the deadline and the
   * holder being told (timer and executor scheduling on a loaded machine, a short GC pause) and
   * clocks that run at slightly different rates. The time a follower takes to report a session's
   * traffic to the leader is not in it: the deadline counts only from traffic proven reported
   * ({@link HeardProof}).
   *
   * @param timeoutNanos the negotiated session timeout T, positive
   */
  static long marginNanos(long timeoutNanos) {
    return Math.min(timeoutNanos / 4, Math.max(timeoutNanos / 10, MIN_MARGIN_NANOS));
  }

  /**
   * The heartbeat period for a negotiated session timeout T: T/10. A heartbeat counts once a later
   * one on the same connection, sent at least {@link #reportNanos} after its answer, is answered:
   * the third after it when answers take less than T/40. So after the last answer the deadline is
   * 0.6 T to 0.7 T minus the margin away (with T/3 and every answer counted at once it was 2T/3 to
   * T minus the margin, but a follower cut off from the leader right after answering could leave
   * the leader's news older than that).
   */
  public static long beatNanos(long timeoutNanos) {
    return Math.max(1L, timeoutNanos / 10);
  }

  /**
   * P, the bound on the time from a server hearing a session's request to the leader's next ping
   * reaching that server: T/4 + T/40. The leader pings each learner every half tick ({@code
   * Leader.lead}); with ZooKeeper's default {@code minSessionTimeout} of two ticks a negotiated T
   * is at least two ticks, so half a tick is at most T/4; T/40 is the allowance for the leader's
   * loop, the ping's queue and link to the server, and clock rates. A server configured with a
   * {@code minSessionTimeout} below two ticks may negotiate a T for which this does not hold: a
   * heartbeat can then be counted before its traffic was reported.
   */
  public static long reportNanos(long timeoutNanos) {
    return timeoutNanos / 4 + timeoutNanos / 40;
  }

  /**
   * The moment (on the {@link Clock}'s scale) at which a session the leader is known to have heard
   * from at {@code heardSentAt} ({@link HeardProof#provenAt()}) is declared lost: {@code
   * heardSentAt + T - margin}. The ensemble cannot expire it before {@code heardSentAt + T}.
   */
  public static long dueNanos(long heardSentAt, long timeoutNanos) {
    return heardSentAt + timeoutNanos - marginNanos(timeoutNanos);
  }

  /**
   * How long after a new session connects a heartbeat of it can be proven reported to the leader
   * ({@link HeardProof}), at the earliest, when its heartbeats go out on schedule: the first at the
   * connection, then one every {@link #beatNanos beat}. The first is answered no earlier than it is
   * sent; only a heartbeat sent at least {@link #reportNanos P} after that answer can prove it, and
   * the first one sent that late on schedule is the ceil(P / beat)-th: three beats, 0.3 T, as P is
   * 2.75 beats. Answers take time, so a real proof comes later still.
   *
   * @param timeoutNanos the negotiated session timeout T, positive
   */
  public static long firstProofNanos(long timeoutNanos) {
    long beat = beatNanos(timeoutNanos);
    return (reportNanos(timeoutNanos) + beat - 1) / beat * beat;
  }

  /**
   * Whether a new session may be used: made by a connect attempt that began at {@code began}, it
   * connected at {@code connectedAt}, and its deadline ({@link #dueNanos}, counted from {@code
   * began}, all the leader is known to have heard of it) is more than {@link #firstProofNanos}
   * away, so that a heartbeat can be proven before it. A session connected later is declared lost
   * at that deadline whatever its heartbeats' answers (on schedule, nothing can be proven before
   * it), after whatever was granted on it meanwhile; turned away at its connection, it ends sooner,
   * before anything is granted on it, and the next session is opened sooner.
   *
   * <p><b>Why turn it away rather than prove sooner.</b> No timing of heartbeats can prove the
   * first sooner than P after its answer: P bounds the leader's ping reaching the server, and the
   * rule counts nothing before it. So a session connected later than its deadline less P can never
   * be proven in time, whatever it sends, and only refusing it keeps its grants from being lost at
   * once. The schedule's first proof, three beats, is T/40 later than P; a heartbeat sent at the
   * first answer plus P could win that T/40 back at most, and the schedule spends it as room for
   * the first answer instead (answered within T/40, the third heartbeat proves the first).
   *
   * <p>Not counted on: a heartbeat sent late (its timer ran late) may prove the first up to T/40
   * sooner than the schedule, and a reconnection of the session proves its attempt's start; a
   * session that only such luck would have kept is turned away, which costs one more connect.
   *
   * @param timeoutNanos the negotiated session timeout T, positive
   */
  public static boolean connectedInTime(long began, long connectedAt, long timeoutNanos) {
    return dueNanos(began, timeoutNanos) - connectedAt > firstProofNanos(timeoutNanos);
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
