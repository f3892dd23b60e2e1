package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/**
 * How long a request waits, as a value: a positive timeout is a deadline fixed when it is made, and
 * whatever the clock read then (any {@code long}, so the deadline may overflow) and however large
 * the timeout (up to {@link Long#MAX_VALUE} nanoseconds), what is left after {@code e} nanoseconds
 * is exactly {@code timeout - e} and the wait has expired exactly when {@code e >= timeout}. A
 * timeout that is not positive never waits; no timeout never expires.
 */
class WaitingPropertiesTest {

  /** A clock that reads {@code t}. */
  private static Clock at(long t) {
    return () -> t;
  }

  @Property
  void aPositiveTimeout_leavesExactlyTheTimeoutLessTheTimeSpent_atAnyClockReading(
      @ForAll long start,
      @ForAll @LongRange(min = 1, max = Long.MAX_VALUE) long timeout,
      @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long spent) {
    Waiting w = Waiting.after(timeout, at(start));
    Clock later = at(start + spent); // wraps like System.nanoTime() may

    assertThat(w.isNow()).isFalse();
    assertThat(w.hasDeadline()).isTrue();
    assertThat(w.remainingNanos(later))
        .as("left of %d ns after %d ns, clock started at %d", timeout, spent, start)
        .isEqualTo(timeout - spent);
    assertThat(w.expired(later))
        .as("expired after %d of %d ns, clock started at %d", spent, timeout, start)
        .isEqualTo(spent >= timeout);
  }

  @Property
  void expired_isExactlyNothingLeft(
      @ForAll long start,
      @ForAll @LongRange(min = 1, max = Long.MAX_VALUE) long timeout,
      @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long spent) {
    Waiting w = Waiting.after(timeout, at(start));
    Clock later = at(start + spent);

    assertThat(w.expired(later))
        .as("the two views of one deadline agree (MultiLock reads one, Election the other)")
        .isEqualTo(w.remainingNanos(later) <= 0);
  }

  @Property
  void theDeadlineIsFixedWhenMade_soTimeSpentBeforeAStepCountsAgainstIt(
      @ForAll long start,
      @ForAll @LongRange(min = 1, max = Long.MAX_VALUE / 2) long timeout,
      @ForAll @LongRange(min = 0, max = Long.MAX_VALUE / 2) long first,
      @ForAll @LongRange(min = 0, max = Long.MAX_VALUE / 2) long second) {
    Waiting w = Waiting.after(timeout, at(start));

    // a step (the first connection, a multi-lock's first part) spends `first`, the next `second`:
    // the one value passed on leaves what a wait made afresh with the rest of the budget leaves
    long restAfterFirst = timeout - first;
    assertThat(w.remainingNanos(at(start + first + second)))
        .isEqualTo(restAfterFirst - second)
        .isEqualTo(w.remainingNanos(at(start + first)) - second);
    if (restAfterFirst > 0) {
      Waiting fresh = Waiting.after(restAfterFirst, at(start + first));
      assertThat(w.remainingNanos(at(start + first + second)))
          .isEqualTo(fresh.remainingNanos(at(start + first + second)));
      assertThat(w.expired(at(start + first + second)))
          .isEqualTo(fresh.expired(at(start + first + second)));
    }
  }

  @Property
  void endsBefore_aBound_exactlyWhenLessIsLeftThanTheBound(
      @ForAll long start,
      @ForAll @LongRange(min = 1, max = Long.MAX_VALUE) long timeout,
      @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long spent,
      @ForAll @LongRange(min = 1, max = Long.MAX_VALUE) long bound) {
    Waiting w = Waiting.after(timeout, at(start));

    assertThat(w.endsBefore(bound, at(start + spent))).isEqualTo(timeout - spent < bound);
  }

  @Property
  void aTimeoutThatIsNotPositive_neverWaits_andNeverExpires(
      @ForAll @LongRange(min = Long.MIN_VALUE, max = 0) long timeout,
      @ForAll long start,
      @ForAll long later,
      @ForAll @LongRange(min = 1, max = Long.MAX_VALUE) long bound) {
    Waiting w = Waiting.after(timeout, at(start));

    assertThat(w).isSameAs(Waiting.NOW);
    assertThat(w.isNow()).isTrue();
    assertThat(w.hasDeadline()).isFalse();
    assertThat(w.expired(at(later)))
        .as("tryAcquire() makes its one try whatever the time")
        .isFalse();
    assertThat(w.remainingNanos(at(later))).isZero();
    assertThat(w.endsBefore(bound, at(later))).isFalse();
  }

  @Property
  void forever_neverExpires(
      @ForAll long now, @ForAll @LongRange(min = 1, max = Long.MAX_VALUE) long bound) {
    Waiting w = Waiting.FOREVER;

    assertThat(w.isNow()).isFalse();
    assertThat(w.hasDeadline()).isFalse();
    assertThat(w.expired(at(now))).isFalse();
    assertThat(w.remainingNanos(at(now))).isEqualTo(Long.MAX_VALUE);
    assertThat(w.endsBefore(bound, at(now))).isFalse();
  }

  @Example
  void theLargestTimeout_atTheLargestClockReading_overflowsTheDeadline_andStaysExact() {
    Waiting w = Waiting.after(Long.MAX_VALUE, at(Long.MAX_VALUE));

    assertThat(w.remainingNanos(at(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE);
    assertThat(w.expired(at(Long.MAX_VALUE))).isFalse();
    assertThat(w.expired(at(Long.MAX_VALUE + (Long.MAX_VALUE - 1)))).isFalse();
    assertThat(w.expired(at(Long.MAX_VALUE + Long.MAX_VALUE))).isTrue();
    assertThat(w.remainingNanos(at(Long.MAX_VALUE + Long.MAX_VALUE))).isZero();
  }

  @Example
  void aDurationTimeout_zeroIsNow_theLargestIsADeadline_negativeOrTooLargeIsRefused() {
    Clock clock = at(42L);

    assertThat(Waiting.after(Duration.ZERO, clock)).isSameAs(Waiting.NOW);
    Waiting longest = Waiting.after(Duration.ofNanos(Long.MAX_VALUE), clock);
    assertThat(longest.hasDeadline()).isTrue();
    assertThat(longest.remainingNanos(clock)).isEqualTo(Long.MAX_VALUE);
    assertThat(Waiting.after(Duration.ofNanos(1), clock).remainingNanos(clock)).isEqualTo(1L);
    assertThatThrownBy(() -> Waiting.after(Duration.ofMillis(-1), clock))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("negative")
        .hasMessageContaining("PT-0.001S");
    assertThatThrownBy(() -> Waiting.after(Duration.ofDays(365L * 300), clock))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("too large");
  }
}
