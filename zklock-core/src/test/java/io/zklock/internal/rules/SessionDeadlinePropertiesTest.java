package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/**
 * The session deadline's margin, heartbeat period and report period, as functions of the negotiated
 * timeout T: the deadline always comes strictly before T, with at least the documented margin, and
 * leaves room for a heartbeat to be proven reported and the heartbeats around it, so a single slow
 * answer never declares a live session lost.
 */
class SessionDeadlinePropertiesTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  @Property
  void margin_isPositive_atMostAQuarter_andAtLeastATenthOr500ms(
      @ForAll @LongRange(min = 2, max = 3_600_000) long timeoutMillis) {
    long t = timeoutMillis * MS;
    long margin = SessionDeadline.marginNanos(t);

    assertThat(margin).as("margin for T=%d ms", timeoutMillis).isPositive();
    assertThat(margin).isLessThanOrEqualTo(t / 4);
    assertThat(margin).isGreaterThanOrEqualTo(Math.min(t / 4, Math.max(t / 10, 500 * MS)));
    assertThat(t - margin).as("the deadline comes strictly before T").isLessThan(t);
  }

  @Property
  void deadlineWindow_holdsAProof_andTheHeartbeatsAroundIt(
      @ForAll @LongRange(min = 2, max = 3_600_000) long timeoutMillis) {
    long t = timeoutMillis * MS;
    long window = t - SessionDeadline.marginNanos(t); // from the proven instant to the deadline
    long beat = SessionDeadline.beatNanos(t);

    // a heartbeat, the report period after its answer, the one that proves it and the one after
    assertThat(window).isGreaterThan(SessionDeadline.reportNanos(t) + 3 * beat);
    assertThat(SessionDeadline.reportNanos(t))
        .as("half a tick is at most T/4 when T is at least two ticks")
        .isGreaterThanOrEqualTo(t / 4);
  }

  @Property
  void due_isTheLastHeardSendPlusTMinusTheMargin_strictlyBeforeTheEnsemblesExpiry(
      @ForAll @LongRange(min = -1_000_000_000_000L, max = 1_000_000_000_000L) long heardSentAt,
      @ForAll @LongRange(min = 2, max = 3_600_000) long timeoutMillis) {
    long t = timeoutMillis * MS;
    long due = SessionDeadline.dueNanos(heardSentAt, t);

    assertThat(due).isEqualTo(heardSentAt + t - SessionDeadline.marginNanos(t));
    assertThat(due - heardSentAt).as("strictly before heardSentAt + T").isLessThan(t);
    assertThat(due - heardSentAt)
        .as("at least 3/4 of T after it")
        .isGreaterThanOrEqualTo(t - t / 4);
  }

  @Property
  void aDeclaredLostHandle_isClosedNoEarlierThanTheEnsemblesEarliestExpiry_aMarginAfterTheDeadline(
      @ForAll @LongRange(min = -1_000_000_000_000L, max = 1_000_000_000_000L) long heardSentAt,
      @ForAll @LongRange(min = 2, max = 3_600_000) long timeoutMillis) {
    long t = timeoutMillis * MS;
    long due = SessionDeadline.dueNanos(heardSentAt, t);
    long close = SessionDeadline.closeNanos(heardSentAt, t);

    assertThat(close)
        .as("not before the ensemble could expire it")
        .isGreaterThanOrEqualTo(heardSentAt + t);
    assertThat(close - due)
        .as("the whole margin between telling the holder and ending the session")
        .isEqualTo(SessionDeadline.marginNanos(t))
        .isPositive();
  }

  @Property
  void firstProof_isTheFirstHeartbeatOnScheduleSentAReportPeriodAfterTheConnection(
      @ForAll @LongRange(min = 2, max = 3_600_000) long timeoutMillis) {
    long t = timeoutMillis * MS;
    long beat = SessionDeadline.beatNanos(t);
    long first = SessionDeadline.firstProofNanos(t);

    assertThat(first % beat).as("a whole number of heartbeats").isZero();
    assertThat(first).isGreaterThanOrEqualTo(SessionDeadline.reportNanos(t));
    assertThat(first - beat).as("one heartbeat fewer").isLessThan(SessionDeadline.reportNanos(t));
    assertThat(first).as("three heartbeats").isEqualTo(3 * beat);
    assertThat(SessionDeadline.dueNanos(0, t) - first)
        .as("a session connected at once is used")
        .isPositive();
  }

  /**
   * A new session turned away at its connection could never have a heartbeat proven before its
   * deadline, whatever its answers' times, while its heartbeats go out on schedule (the first at
   * the connection, then every beat): so it is turned away only where it would be declared lost
   * anyway. Connection instants are drawn around the boundary (to the nanosecond) and across the
   * window.
   */
  @Property(tries = 2000)
  void turnedAway_noHeartbeatOnScheduleIsProvenBeforeTheDeadline_whateverTheAnswers(
      @ForAll @LongRange(min = 2, max = 3_600_000) long timeoutMillis,
      @ForAll @LongRange(min = -1_000_000_000_000L, max = 1_000_000_000_000L) long began,
      @ForAll @LongRange(min = -2_000_000_000L, max = 2_000_000_000L) long fromBoundary,
      @ForAll long seed) {
    long t = timeoutMillis * MS;
    long connectedAt = boundary(began, t) + fromBoundary;
    if (connectedAt - began < 0 || SessionDeadline.connectedInTime(began, connectedAt, t)) {
      return; // before its attempt began, or used
    }
    SplittableRandom r = new SplittableRandom(seed);
    long rtt = new long[] {0, t / 40, t / 4}[r.nextInt(3)];
    long proven = firstProven(began, connectedAt, t, r, 0, rtt);
    assertThat(proven)
        .as("connected %d ns after the attempt, T = %d ms", connectedAt - began, timeoutMillis)
        .isEqualTo(NEVER);
  }

  /**
   * A new session that is used can have a heartbeat proven before its deadline: on schedule,
   * answered at once, the first heartbeat is proven by the one sent {@link
   * SessionDeadline#firstProofNanos} after the connection, before the deadline counted from the
   * attempt. With the property above, the threshold is exact.
   */
  @Property(tries = 2000)
  void used_aHeartbeatOnScheduleAnsweredAtOnce_isProvenBeforeTheDeadline(
      @ForAll @LongRange(min = 2, max = 3_600_000) long timeoutMillis,
      @ForAll @LongRange(min = -1_000_000_000_000L, max = 1_000_000_000_000L) long began,
      @ForAll @LongRange(min = -2_000_000_000L, max = 2_000_000_000L) long fromBoundary) {
    long t = timeoutMillis * MS;
    long connectedAt = boundary(began, t) + fromBoundary;
    if (connectedAt - began <= 0 || !SessionDeadline.connectedInTime(began, connectedAt, t)) {
      return; // not after its attempt began (a proof of that instant moves nothing), or turned away
    }
    long proven = firstProven(began, connectedAt, t, new SplittableRandom(0), 0, 0);
    assertThat(proven)
        .as("connected %d ns after the attempt, T = %d ms", connectedAt - began, timeoutMillis)
        .isEqualTo(connectedAt + SessionDeadline.firstProofNanos(t));
    assertThat(proven - SessionDeadline.dueNanos(began, t)).isNegative();
  }

  /**
   * Whatever the heartbeats' timers (each late by up to a beat, with a fixed delay) and answers, a
   * session connected no more than P before its deadline is never proven in time: no schedule can
   * do better, and such a session is always turned away.
   */
  @Property(tries = 2000)
  void withinAReportPeriodOfTheDeadline_noHeartbeatIsEverProvenInTime_andItIsTurnedAway(
      @ForAll @LongRange(min = 2, max = 3_600_000) long timeoutMillis,
      @ForAll @LongRange(min = -1_000_000_000_000L, max = 1_000_000_000_000L) long began,
      @ForAll @LongRange(min = 0, max = 2_000_000_000L) long beforeDeadline,
      @ForAll long seed) {
    long t = timeoutMillis * MS;
    long due = SessionDeadline.dueNanos(began, t);
    long connectedAt = due - Math.min(beforeDeadline, SessionDeadline.reportNanos(t));
    SplittableRandom r = new SplittableRandom(seed);
    long rtt = new long[] {0, t / 40, t / 4}[r.nextInt(3)];

    assertThat(SessionDeadline.connectedInTime(began, connectedAt, t)).isFalse();
    assertThat(firstProven(began, connectedAt, t, r, SessionDeadline.beatNanos(t), rtt))
        .isEqualTo(NEVER);
  }

  private static final long NEVER = Long.MIN_VALUE;

  /** The latest connection instant (relative to {@code began}) at which a session is used. */
  private static long boundary(long began, long t) {
    return SessionDeadline.dueNanos(began, t) - SessionDeadline.firstProofNanos(t) - 1;
  }

  /**
   * The heartbeats of a new session whose attempt began at {@code began}, connected at {@code
   * connectedAt}: sent at the connection and then each beat after the previous one, each late by up
   * to {@code maxLate}; answered in order, each at most {@code maxRtt} after it was sent. Returns
   * the instant of the first answer at which {@link HeardProof} moves past the attempt's start,
   * before the deadline counted from it, or {@link #NEVER}.
   */
  private static long firstProven(
      long began, long connectedAt, long t, SplittableRandom r, long maxLate, long maxRtt) {
    long due = SessionDeadline.dueNanos(began, t);
    long beat = SessionDeadline.beatNanos(t);
    HeardProof p = HeardProof.madeAt(began, 1);
    long sent = connectedAt;
    long lastAnswer = sent;
    while (sent - due < 0) {
      long answered = Math.max(lastAnswer, sent + r.nextLong(0, maxRtt + 1));
      if (answered - due >= 0) {
        return NEVER; // answered at or after the deadline: declared lost first
      }
      p = p.answered(1, sent, answered, t);
      if (p.provenAt() != began) {
        return answered;
      }
      lastAnswer = answered;
      sent += beat + r.nextLong(0, maxLate + 1);
    }
    return NEVER;
  }

  @Example
  void margins_atTheDocumentedPoints() {
    assertThat(SessionDeadline.marginNanos(4_000 * MS)).as("T=4 s: 500 ms").isEqualTo(500 * MS);
    assertThat(SessionDeadline.marginNanos(15_000 * MS)).as("T=15 s: 1.5 s").isEqualTo(1_500 * MS);
    assertThat(SessionDeadline.marginNanos(1_000 * MS)).as("T=1 s: T/4").isEqualTo(250 * MS);
    assertThat(SessionDeadline.marginNanos(5_000 * MS)).as("T=5 s: 500 ms").isEqualTo(500 * MS);
    assertThat(SessionDeadline.beatNanos(3_000 * MS)).isEqualTo(300 * MS);
    assertThat(SessionDeadline.reportNanos(4_000 * MS)).isEqualTo(1_100 * MS);
    assertThat(SessionDeadline.beatNanos(2)).as("never zero").isEqualTo(1);
    assertThat(SessionDeadline.dueNanos(1_000 * MS, 4_000 * MS)).isEqualTo(4_500 * MS);
    assertThat(SessionDeadline.firstProofNanos(4_000 * MS))
        .as("T=4 s: 3 x 400 ms")
        .isEqualTo(1_200 * MS);
    assertThat(SessionDeadline.connectedInTime(0, 2_300 * MS - 1, 4_000 * MS))
        .as("T=4 s: due at 3.5 s, connected 1 ns before 2.3 s")
        .isTrue();
    assertThat(SessionDeadline.connectedInTime(0, 2_300 * MS, 4_000 * MS))
        .as("connected at 2.3 s: the third heartbeat would go out at the deadline")
        .isFalse();
    assertThat(SessionDeadline.connectedInTime(0, 3_400 * MS, 4_000 * MS)).isFalse();
  }
}
