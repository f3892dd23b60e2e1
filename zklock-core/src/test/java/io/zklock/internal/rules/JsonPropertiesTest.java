package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Tag;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;

/** The node data the library writes is read back exactly, whatever the strings hold. */
@Tag("late") // CPU-bound and long: runs beside the server tests (see the pom)
class JsonPropertiesTest {

  private static String write(Map<String, String> fields) {
    StringBuilder sb = new StringBuilder("{");
    fields.forEach(
        (k, v) -> {
          if (sb.length() > 1) {
            sb.append(',');
          }
          sb.append(Json.quote(k)).append(':').append(Json.quote(v));
        });
    return sb.append('}').toString();
  }

  // Bounded sizes: quoting does not depend on how many fields or how long a string is, and
  // jqwik's defaults (up to 255 entries of up to 255 characters, each field then read back by a
  // scan of the whole text) cost minutes of CPU on a loaded build for nothing more.
  @Property
  void quotedFields_readBackExactly(
      @ForAll @Size(max = 24)
          Map<@StringLength(max = 64) String, @StringLength(max = 64) String> fields) {
    Map<String, String> ordered = new LinkedHashMap<>(fields);
    String json = write(ordered);

    assertThat(Json.parseObject(json)).containsExactlyEntriesOf(ordered);
    ordered.forEach((k, v) -> assertThat(Json.field(json, k)).isEqualTo(v));
  }

  @Property
  void aKeyInsideAValue_isNotMistakenForAField(@ForAll String value) {
    String json = write(Map.of("client", "\"attempt\":\"" + value + "\"", "attempt", "mine"));

    assertThat(Json.field(json, "attempt")).isEqualTo("mine");
  }

  @Example
  void numbersAndSpaces_areRead_andGarbageGivesNothing() {
    assertThat(Json.parseObject(" { \"pid\" : 7 , \"ok\":true }"))
        .containsExactly(Map.entry("pid", "7"), Map.entry("ok", "true"));
    assertThat(Json.parseObject("{}")).isEmpty();
    assertThat(Json.parseObject("not json")).isEmpty();
    assertThat(Json.parseObject("{\"a\":\"unterminated")).isEmpty();
    assertThat(Json.field("", "a")).isNull();
  }
}
