package io.zklock.cli;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the small flat JSON objects zklock writes into lock nodes ({@code {"client":"a","pid":7}}):
 * string, number, boolean and null values, no nesting. Anything else yields an empty map.
 */
final class FlatJson {
  private final String s;
  private int i;

  private FlatJson(String s) {
    this.s = s;
  }

  static Map<String, String> parse(String text) {
    try {
      return new FlatJson(text).object();
    } catch (RuntimeException e) {
      return Map.of();
    }
  }

  private Map<String, String> object() {
    Map<String, String> out = new LinkedHashMap<>();
    ws();
    expect('{');
    ws();
    if (peek() == '}') {
      return out;
    }
    while (true) {
      ws();
      String key = string();
      ws();
      expect(':');
      ws();
      String value = peek() == '"' ? string() : bare();
      out.put(key, value);
      ws();
      char c = s.charAt(i++);
      if (c == '}') {
        return out;
      }
      if (c != ',') {
        throw new IllegalArgumentException("expected , or }");
      }
    }
  }

  private String string() {
    expect('"');
    StringBuilder sb = new StringBuilder();
    while (true) {
      char c = s.charAt(i++);
      if (c == '"') {
        return sb.toString();
      }
      if (c == '\\') {
        char e = s.charAt(i++);
        switch (e) {
          case 'n':
            sb.append('\n');
            break;
          case 't':
            sb.append('\t');
            break;
          case 'r':
            sb.append('\r');
            break;
          case 'b':
            sb.append('\b');
            break;
          case 'f':
            sb.append('\f');
            break;
          case 'u':
            sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
            i += 4;
            break;
          default:
            sb.append(e);
        }
      } else {
        sb.append(c);
      }
    }
  }

  private String bare() {
    int start = i;
    while (i < s.length()
        && ",}".indexOf(s.charAt(i)) < 0
        && !Character.isWhitespace(s.charAt(i))) {
      i++;
    }
    if (start == i) {
      throw new IllegalArgumentException("empty value");
    }
    return s.substring(start, i);
  }

  private void ws() {
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
      i++;
    }
  }

  private char peek() {
    return s.charAt(i);
  }

  private void expect(char c) {
    if (s.charAt(i++) != c) {
      throw new IllegalArgumentException("expected " + c);
    }
  }
}
