package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The node data's JSON ({@link Json}): each escape both ways, and what the reader refuses. */
class JsonRulesTest {

  @Test
  void quote_escapesQuoteBackslashAndControlCharacters() {
    assertThat(Json.quote("")).isEqualTo("\"\"");
    assertThat(Json.quote("a\"b\\c")).isEqualTo("\"a\\\"b\\\\c\"");
    assertThat(Json.quote("\n\r\t")).isEqualTo("\"\\n\\r\\t\"");
    assertThat(Json.quote("\u0001\u001f")).isEqualTo("\"\\u0001\\u001f\"");
    assertThat(Json.quote(" ~\u007f\u00e9")).isEqualTo("\" ~\u007f\u00e9\"");
  }

  @Test
  void parse_everyEscape() {
    assertThat(Json.field("{\"k\":\"\\n\\t\\r\\b\\f\\u0041\\/\\\"\\\\\"}", "k"))
        .isEqualTo("\n\t\r\b\fA/\"\\");
  }

  @Test
  void parse_bareValuesEndAtCommaBraceOrSpace() {
    assertThat(Json.parseObject("{\"a\":1,\"b\":null}"))
        .containsExactly(Map.entry("a", "1"), Map.entry("b", "null"));
    assertThat(Json.parseObject("{\"a\":-7 }")).containsExactly(Map.entry("a", "-7"));
    assertThat(Json.parseObject("{\"a\":\"x\"}  ")).containsExactly(Map.entry("a", "x"));
    assertThat(Json.parseObject("  {  }")).isEmpty();
  }

  @Test
  void parse_malformed_givesNothing() {
    assertThat(Json.parseObject("{\"a\":}")).as("empty value").isEmpty();
    assertThat(Json.parseObject("{\"a\":,\"b\":\"x\"}")).as("empty value").isEmpty();
    assertThat(Json.parseObject("{\"a\":1 2}")).as("two values").isEmpty();
    assertThat(Json.parseObject("{\"a\" 1}")).as("no colon").isEmpty();
    assertThat(Json.parseObject("{\"a\":\"x\";\"b\":\"y\"}")).as("bad separator").isEmpty();
    assertThat(Json.parseObject("[\"a\"]")).as("not an object").isEmpty();
    assertThat(Json.parseObject("{a:1}")).as("bare key").isEmpty();
    assertThat(Json.parseObject("{\"a\":1")).as("unclosed").isEmpty();
    assertThat(Json.parseObject("{\"a\":\"\\u00\"}")).as("short escape").isEmpty();
    assertThat(Json.field("{\"a\":\"x\"}", "b")).isNull();
  }
}
