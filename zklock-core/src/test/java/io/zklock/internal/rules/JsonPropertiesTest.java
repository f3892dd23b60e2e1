package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Tag;

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

  @Property
  void quotedFields_readBackExactly(@ForAll Map<String, String> fields) {
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
