package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.internal.zk.Batcher;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** {@link BatchHold}: when a batching client holds its calls for the next reply. */
class BatchHoldPropertiesTest {

  @Property(tries = 300)
  void aLoneThread_neverWaits_whateverTheThreshold(
      @ForAll @IntRange(min = 0, max = 2) int packetsInFlight,
      @ForAll @IntRange(min = 3, max = 10) int atOnceBelow,
      @ForAll @IntRange(min = 0, max = 10_000) int callsOutstanding,
      @ForAll @IntRange(min = 0, max = 64) int holdFrom) {
    // a create, the listing pipelined behind it, a release's delete: at most two in flight
    assertThat(BatchHold.holds(packetsInFlight, atOnceBelow, callsOutstanding, holdFrom)).isFalse();
  }

  @Property(tries = 300)
  void aClientWithFewThreadsBusy_neverWaits(
      @ForAll @IntRange(min = 0, max = 5) int threadsBusy,
      @ForAll @IntRange(min = 0, max = 2) int callsEach,
      @ForAll @IntRange(min = 0, max = 12) int packetsInFlight,
      @ForAll @IntRange(min = 1, max = 10) int atOnceBelow) {
    // each request has at most two calls outstanding; the default lets five threads go unheld
    int outstanding = threadsBusy * callsEach;
    assertThat(BatchHold.holds(packetsInFlight, atOnceBelow, outstanding, Batcher.HOLD_FROM))
        .isFalse();
  }

  @Property(tries = 300)
  void manyCallsOutstanding_andTheWindowFull_areHeld(
      @ForAll @IntRange(min = 1, max = 10) int atOnceBelow,
      @ForAll @IntRange(min = 0, max = 100) int extraInFlight,
      @ForAll @IntRange(min = 0, max = 10_000) int extraOutstanding,
      @ForAll @IntRange(min = 0, max = 64) int holdFrom) {
    assertThat(
            BatchHold.holds(
                atOnceBelow + extraInFlight, atOnceBelow, holdFrom + extraOutstanding, holdFrom))
        .isTrue();
  }

  @Property(tries = 300)
  void moreInFlight_orMoreOutstanding_neverTurnsAHoldIntoASend(
      @ForAll @IntRange(min = 0, max = 100) int inFlight,
      @ForAll @IntRange(min = 1, max = 10) int atOnceBelow,
      @ForAll @IntRange(min = 0, max = 1_000) int outstanding,
      @ForAll @IntRange(min = 0, max = 64) int holdFrom,
      @ForAll @IntRange(min = 0, max = 10) int moreInFlight,
      @ForAll @IntRange(min = 0, max = 100) int moreOutstanding) {
    if (BatchHold.holds(inFlight, atOnceBelow, outstanding, holdFrom)) {
      assertThat(
              BatchHold.holds(
                  inFlight + moreInFlight, atOnceBelow, outstanding + moreOutstanding, holdFrom))
          .isTrue();
    }
  }

  @Property(tries = 300)
  void holdFromZero_isThePacketWindowAlone(
      @ForAll @IntRange(min = 0, max = 100) int inFlight,
      @ForAll @IntRange(min = 1, max = 10) int atOnceBelow,
      @ForAll @IntRange(min = 0, max = 1_000) int outstanding) {
    assertThat(BatchHold.holds(inFlight, atOnceBelow, outstanding, 0))
        .isEqualTo(inFlight >= atOnceBelow);
  }

  @Property(tries = 300)
  void whileAReplyIsAnswered_enoughCallsOutstanding_waitForItsFlush_whateverTheWindow(
      @ForAll @IntRange(min = 0, max = 100) int inFlight,
      @ForAll @IntRange(min = 1, max = 10) int atOnceBelow,
      @ForAll @IntRange(min = 0, max = 1_000) int extraOutstanding,
      @ForAll @IntRange(min = 0, max = 64) int holdFrom) {
    assertThat(BatchHold.holds(inFlight, atOnceBelow, holdFrom + extraOutstanding, holdFrom, true))
        .isTrue();
  }

  @Property(tries = 300)
  void whileAReplyIsAnswered_aClientWithFewCallsOutstanding_stillNeverWaits(
      @ForAll @IntRange(min = 0, max = 100) int inFlight,
      @ForAll @IntRange(min = 1, max = 10) int atOnceBelow,
      @ForAll @IntRange(min = 1, max = 64) int holdFrom,
      @ForAll @IntRange(min = 1, max = 64) int fewer) {
    int outstanding = Math.max(0, holdFrom - fewer);
    assertThat(BatchHold.holds(inFlight, atOnceBelow, outstanding, holdFrom, true)).isFalse();
  }

  @Property(tries = 300)
  void aReplyBeingAnswered_neverTurnsAHoldIntoASend(
      @ForAll @IntRange(min = 0, max = 100) int inFlight,
      @ForAll @IntRange(min = 1, max = 10) int atOnceBelow,
      @ForAll @IntRange(min = 0, max = 1_000) int outstanding,
      @ForAll @IntRange(min = 0, max = 64) int holdFrom) {
    if (BatchHold.holds(inFlight, atOnceBelow, outstanding, holdFrom)) {
      assertThat(BatchHold.holds(inFlight, atOnceBelow, outstanding, holdFrom, true)).isTrue();
    }
  }
}
