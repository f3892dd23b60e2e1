package io.zklock.internal;

/** The little JSON the library writes: string quoting. */
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
   * The string value of {@code key} in a flat JSON object written by {@link #quote}, or null if
   * absent. Only the escapes {@link #quote} produces are understood.
   */
  public static String field(String json, String key) {
    String k = quote(key) + ":";
    int i = json.indexOf(k);
    if (i < 0) {
      return null;
    }
    i += k.length();
    if (i >= json.length() || json.charAt(i) != '"') {
      return null;
    }
    StringBuilder sb = new StringBuilder();
    for (i = i + 1; i < json.length(); i++) {
      char c = json.charAt(i);
      if (c == '"') {
        return sb.toString();
      }
      if (c == '\\' && i + 1 < json.length()) {
        char e = json.charAt(++i);
        switch (e) {
          case 'n':
            sb.append('\n');
            break;
          case 'r':
            sb.append('\r');
            break;
          case 't':
            sb.append('\t');
            break;
          case 'u':
            if (i + 4 < json.length()) {
              sb.append((char) Integer.parseInt(json.substring(i + 1, i + 5), 16));
              i += 4;
            }
            break;
          default:
            sb.append(e);
        }
      } else {
        sb.append(c);
      }
    }
    return null;
  }
}
