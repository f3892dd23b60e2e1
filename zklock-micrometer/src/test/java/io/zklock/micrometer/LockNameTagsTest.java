package io.zklock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import org.junit.jupiter.api.Test;

class LockNameTagsTest {

  @Test
  void none_tagsEveryNameOther() {
    assertThat(LockNameTags.none().tagValue("orders/42")).isEqualTo(LockNameTags.OTHER);
  }

  @Test
  void allow_tagsOnlyListedNames() {
    LockNameTags tags = LockNameTags.allow(Set.of("billing", "nightly-report"));

    assertThat(tags.tagValue("billing")).isEqualTo("billing");
    assertThat(tags.tagValue("nightly-report")).isEqualTo("nightly-report");
    assertThat(tags.tagValue("orders/42")).isEqualTo(LockNameTags.OTHER);
  }

  @Test
  void firstDistinct_keepsTheFirstNamesAndTagsLaterOnesOther() {
    LockNameTags tags = LockNameTags.firstDistinct(2);

    assertThat(tags.tagValue("a")).isEqualTo("a");
    assertThat(tags.tagValue("b")).isEqualTo("b");
    assertThat(tags.tagValue("c")).as("a third distinct name exceeds the limit").isEqualTo("other");
    assertThat(tags.tagValue("a")).as("an admitted name keeps its tag").isEqualTo("a");
  }

  @Test
  void matchingWithLimit_appliesBoth() {
    LockNameTags tags = LockNameTags.matching(n -> !n.contains("/")).limit(1);

    assertThat(tags.tagValue("orders/42")).isEqualTo("other");
    assertThat(tags.tagValue("billing")).isEqualTo("billing");
    assertThat(tags.tagValue("reports")).isEqualTo("other");
  }

  @Test
  void limit_negative_isRejectedNamingTheValue() {
    assertThatThrownBy(() -> LockNameTags.none().limit(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
  }
}
