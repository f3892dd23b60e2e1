package io.zklock.internal.rules;

import java.util.LinkedHashMap;
import java.util.Map;

/** The little JSON the library writes into lock nodes, and reads back. */
public final class Json {
  private Json() {}

  /** {@code s} as a JSON string literal. */
  public static String quote(String s) {
    StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"':
          sb.append("\\\"");
          break;
        case '\\':
          sb.append("\\\\");
          break;
        case '\n':
          sb.append("\\n");
          break;
        case '\r':
          sb.append("\\r");
          break;
        case '\t':
          sb.append("\\t");
          break;
        default:
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
      }
    }
    return sb.append('"').toString();
  }

  /**
   * The string value of {@code key} in a flat JSON object such as the library writes into lock
   * nodes, or null if absent or not a flat object.
   */
  public static String field(String json, String key) {
    return parseObject(json).get(key);
  }

  /**
   * Reads a flat JSON object such as the library writes into lock nodes ({@code
   * {"client":"a","pid":7}}): string, number, boolean and null values, no nesting; values other
   * than strings are kept as their text. Anything else yields an empty map.
   */
  public static Map<String, String> parseObject(String json) {
    try {
      return new Reader(json).object();
    } catch (RuntimeException e) {
      return Map.of();
    }
  }

  /** A cursor over one flat object; throws on anything it does not understand. */
  private static final class Reader {
    private final String s;
    private int i;

    Reader(String s) {
      this.s = s;
    }

    Map<String, String> object() {
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
        if (c != '\\') {
          sb.append(c);
          continue;
        }
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
}
