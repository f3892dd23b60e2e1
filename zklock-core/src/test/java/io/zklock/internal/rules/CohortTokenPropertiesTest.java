package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * Cohort fencing tokens: ordered exactly as (node creation zxid, local handoff number), so every
 * holder a resource can see has a larger token than every earlier one; refused outside the range.
 */
class CohortTokenPropertiesTest {

  @Property
  void tokens_orderLikeCzxidThenHandoff(
      @ForAll @LongRange(min = 0, max = CohortToken.MAX_CZXID) long c1,
      @ForAll @IntRange(min = 0, max = CohortToken.MAX_LOCAL) int k1,
      @ForAll @LongRange(min = 0, max = CohortToken.MAX_CZXID) long c2,
      @ForAll @IntRange(min = 0, max = CohortToken.MAX_LOCAL) int k2) {
    long t1 = CohortToken.encode(c1, k1);
    long t2 = CohortToken.encode(c2, k2);
    int expected = c1 != c2 ? Long.compare(c1, c2) : Integer.compare(k1, k2);

    assertThat(Integer.signum(Long.compare(t1, t2))).isEqualTo(expected);
    assertThat(t1).as("tokens are positive").isNotNegative();
  }

  @Property
  void laterNode_beatsEveryHandoffOfAnEarlierNode(
      @ForAll @LongRange(min = 0, max = CohortToken.MAX_CZXID - 1) long c) {
    assertThat(CohortToken.encode(c + 1, 0))
        .isGreaterThan(CohortToken.encode(c, CohortToken.MAX_LOCAL));
  }

  @Property
  void czxidBeyondTheBound_isRefused(
      @ForAll @LongRange(min = CohortToken.MAX_CZXID + 1, max = Long.MAX_VALUE) long c) {
    assertThat(CohortToken.fits(c)).isFalse();
    assertThatThrownBy(() -> CohortToken.encode(c, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("too large");
  }

  @Property
  void epochBelow2To15_fits(
      @ForAll @LongRange(min = 0, max = (1L << 15) - 1) long epoch,
      @ForAll @LongRange(min = 0, max = 0xffffffffL) long counter) {
    assertThat(CohortToken.fits((epoch << 32) | counter)).isTrue();
  }
}
