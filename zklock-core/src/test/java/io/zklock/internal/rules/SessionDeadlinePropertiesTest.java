package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

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
  }
}
