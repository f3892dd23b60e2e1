package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.internal.rules.StoredNumber.Verdict;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * {@link StoredNumber}: a recipe writes its number only over a directory with no data or with data
 * of its own kind, and refuses every other directory, whatever its data.
 */
class StoredNumberPropertiesTest {
  private static final String[] KINDS = {"semaphore", "latch", "double-barrier", "barrier"};

  @Provide
  Arbitrary<String> kinds() {
    return Arbitraries.of(KINDS);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] written(String kind, String field, int n) {
    return utf8("{\"kind\":" + Json.quote(kind) + "," + Json.quote(field) + ":" + n + "}");
  }

  @Property
  void ownKind_sameNumber_isSame_anotherPositive_isAMistake_noneIsUnclaimed(
      @ForAll("kinds") String kind,
      @ForAll @IntRange(min = 1, max = 1_000) int expected,
      @ForAll @IntRange(min = -5, max = 1_000) int stored) {
    StoredNumber.Read r = StoredNumber.judge(written(kind, "n", stored), kind, "n", expected);

    if (stored == expected) {
      assertThat(r.verdict()).isEqualTo(Verdict.SAME);
    } else if (stored > 0) {
      assertThat(r.verdict()).isEqualTo(Verdict.OTHER_NUMBER);
      assertThat(r.stored()).isEqualTo(stored);
    } else {
      assertThat(r.verdict()).isEqualTo(Verdict.UNCLAIMED);
    }
  }

  @Property
  void anotherKindsData_isNeverWrittenOver(
      @ForAll("kinds") String kind,
      @ForAll("kinds") String other,
      @ForAll @IntRange(min = 1, max = 9) int expected,
      @ForAll @IntRange(min = 1, max = 9) int stored) {
    if (kind.equals(other)) {
      return;
    }
    StoredNumber.Read r = StoredNumber.judge(written(other, "n", stored), kind, "n", expected);

    assertThat(r.verdict()).isEqualTo(Verdict.OTHER_KIND);
    assertThat(r.otherKind()).isEqualTo(other);
    assertThat(r.otherKindMessage("/ns/x", kind))
        .isEqualTo("/ns/x is a " + other + ", not a " + kind);
  }

  @Property
  void anyOtherNonEmptyData_isRefused_unlessItNamesTheKind(
      @ForAll("kinds") String kind, @ForAll byte[] data) {
    StoredNumber.Read r = StoredNumber.judge(data, kind, "n", 3);
    String named =
        Json.parseObject(new String(data, StandardCharsets.UTF_8)).get(StoredNumber.KIND_FIELD);

    if (data.length == 0) {
      assertThat(r.verdict()).isEqualTo(Verdict.UNCLAIMED);
    } else if (!kind.equals(named)) {
      assertThat(r.verdict())
          .as("someone else's data: never claimed")
          .isEqualTo(Verdict.OTHER_KIND);
    }
  }

  @Example
  void noData_isUnclaimed() {
    assertThat(StoredNumber.judge(null, "latch", "count", 3).verdict())
        .isEqualTo(Verdict.UNCLAIMED);
    assertThat(StoredNumber.judge(new byte[0], "latch", "count", 3).verdict())
        .isEqualTo(Verdict.UNCLAIMED);
    assertThat(StoredNumber.judge(utf8("{\"kind\":\"latch\"}"), "latch", "count", 3).verdict())
        .as("the kind without a number: a claim writes the number")
        .isEqualTo(Verdict.UNCLAIMED);
  }

  @Example
  void aLocksReleaseRecord_andForeignData_areRefused_namingNoKind() {
    for (byte[] data :
        new byte[][] {LockDelay.released("m-x-0000000001"), utf8("10.0.0.7"), utf8("{}")}) {
      StoredNumber.Read r = StoredNumber.judge(data, "semaphore", "permits", 3);
      assertThat(r.verdict()).isEqualTo(Verdict.OTHER_KIND);
      assertThat(r.otherKindMessage("/ns/x", "semaphore"))
          .isEqualTo("/ns/x holds data that is not a semaphore's");
    }
  }

  @Example
  void theRecipesOwnData_asTheyWriteIt() {
    byte[] latch = utf8("{\"kind\":\"latch\",\"count\":3,\"remaining\":1}");
    byte[] barrier =
        utf8("{\"kind\":\"double-barrier\",\"members\":2,\"round\":7,\"phase\":\"entering\"}");
    assertThat(StoredNumber.judge(latch, "latch", "count", 3).verdict()).isEqualTo(Verdict.SAME);
    assertThat(StoredNumber.judge(latch, "latch", "count", 2).stored()).isEqualTo(3);
    assertThat(StoredNumber.judge(barrier, "double-barrier", "members", 2).verdict())
        .isEqualTo(Verdict.SAME);
    assertThat(StoredNumber.judge(latch, "semaphore", "permits", 3).otherKind()).isEqualTo("latch");
    assertThat(StoredNumber.judge(barrier, "latch", "count", 2).otherKind())
        .isEqualTo("double-barrier");
  }
}
