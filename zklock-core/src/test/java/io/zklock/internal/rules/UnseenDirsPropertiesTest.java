package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link UnseenDirs} played out as the batcher uses it: flushes of creates in directories not seen,
 * each flush deciding once whether they join a multi, the outcomes answered after it in any order.
 * A flush that put a create into a missing directory in a multi is a failed multi.
 */
class UnseenDirsPropertiesTest {

  /** Flushes; each a list of creates, true where the directory exists. */
  @Provide
  Arbitrary<List<List<Boolean>>> flushes() {
    // mostly found (a service's entities), or any mix
    Arbitrary<Boolean> exists =
        Arbitraries.frequency(net.jqwik.api.Tuple.of(9, true), net.jqwik.api.Tuple.of(1, false));
    Arbitrary<Boolean> anyMix = Arbitraries.of(true, false);
    return Arbitraries.oneOf(exists, anyMix).list().ofMinSize(1).ofMaxSize(12).list().ofMaxSize(60);
  }

  private record Outcome(int failedMultis, int found, int missing, int aloneWhileAllFound) {}

  private static Outcome play(List<List<Boolean>> flushes) {
    UnseenDirs rule = new UnseenDirs();
    int failed = 0;
    int found = 0;
    int missing = 0;
    int alone = 0;
    for (List<Boolean> flush : flushes) {
      boolean together = rule.batchable();
      if (together && flush.contains(false)) {
        failed++;
      }
      if (!together) {
        alone += flush.size();
      }
      for (boolean e : flush) {
        rule.answered(e);
        if (e) {
          found++;
        } else {
          missing++;
        }
      }
    }
    return new Outcome(failed, found, missing, alone);
  }

  @Property(tries = 500)
  void everyMultiThatFailsOnAMissingDirectory_followsTrustAfterCreatesThatFoundTheirs(
      @ForAll("flushes") List<List<Boolean>> flushes) {
    Outcome o = play(flushes);
    assertThat((long) o.failedMultis() * UnseenDirs.TRUST_AFTER).isLessThanOrEqualTo(o.found());
  }

  @Property(tries = 200)
  void aClientMeetingOnlyNewNames_neverPutsOneInAMulti(
      @ForAll("flushes") List<List<Boolean>> flushes) {
    List<List<Boolean>> allMissing =
        flushes.stream().map(f -> f.stream().map(e -> false).toList()).toList();
    Outcome o = play(allMissing);
    assertThat(o.failedMultis()).isZero();
  }

  @Property(tries = 200)
  void aClientWhoseDirectoriesAllExist_sendsFewAlone(
      @ForAll("flushes") List<List<Boolean>> flushes) {
    List<List<Boolean>> allFound =
        flushes.stream().map(f -> f.stream().map(e -> true).toList()).toList();
    Outcome o = play(allFound);
    assertThat(o.failedMultis()).isZero();
    // alone until TRUST_AFTER answers came: the flushes before that, whatever their sizes
    int answeredBefore = 0;
    int aloneBound = 0;
    for (List<Boolean> f : allFound) {
      if (answeredBefore >= UnseenDirs.TRUST_AFTER) {
        break;
      }
      aloneBound += f.size();
      answeredBefore += f.size();
    }
    assertThat(o.aloneWhileAllFound()).isEqualTo(aloneBound);
  }

  @Example
  void oneMissingDirectory_sendsThemAloneAgain_untilTrustAfterFoundTheirs() {
    UnseenDirs rule = new UnseenDirs();
    for (int i = 0; i < UnseenDirs.TRUST_AFTER; i++) {
      assertThat(rule.batchable()).isFalse();
      rule.answered(true);
    }
    assertThat(rule.batchable()).isTrue();
    rule.answered(false);
    assertThat(rule.batchable()).isFalse();
    for (int i = 0; i < UnseenDirs.TRUST_AFTER - 1; i++) {
      rule.answered(true);
    }
    assertThat(rule.batchable()).isFalse();
    rule.answered(true);
    assertThat(rule.batchable()).isTrue();
  }
}
