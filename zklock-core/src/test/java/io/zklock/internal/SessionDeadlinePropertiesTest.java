package io.zklock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/**
 * The session deadline's margin and heartbeat period, as functions of the negotiated timeout T: the
 * deadline always comes strictly before T, with at least the documented margin, and leaves room for
 * more than one heartbeat, so a single slow answer never declares a live session lost.
 */
class SessionDeadlinePropertiesTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  @Property
  void margin_isPositive_atMostAQuarter_andAtLeastATenthOr500ms(
      @ForAll @LongRange(min = 2, max = 3_600_000) long timeoutMillis) {
    long t = timeoutMillis * MS;
    long margin = Session.marginNanos(t);

    assertThat(margin).as("margin for T=%d ms", timeoutMillis).isPositive();
    assertThat(margin).isLessThanOrEqualTo(t / 4);
    assertThat(margin).isGreaterThanOrEqualTo(Math.min(t / 4, Math.max(t / 10, 500 * MS)));
    assertThat(t - margin).as("the deadline comes strictly before T").isLessThan(t);
  }

  @Property
  void deadlineWindow_holdsTwoHeartbeats(
      @ForAll @LongRange(min = 2, max = 3_600_000) long timeoutMillis) {
    long t = timeoutMillis * MS;
    long window = t - Session.marginNanos(t); // from the last answered send to the deadline

    assertThat(window).isGreaterThanOrEqualTo(2 * Session.beatNanos(t));
  }
}
