package io.zklock.soak;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One line of a soak log: {@code t=<nanoTime> ev=<EVENT> key=value ...}, values without spaces.
 *
 * <p>Every process of a soak run (orchestrator, store, clients) stamps its events with its own
 * {@link System#nanoTime()}. On Linux the JVM reads {@code CLOCK_MONOTONIC}, whose origin is the
 * host's boot, so stamps taken by different processes on one host are directly comparable (see
 * docs/reliability.md); {@link SoakClient} checks this at start-up.
 */
public record Event(long t, String ev, Map<String, String> fields) {

  /** Parses a line written by {@link #format()}; returns null for a blank or torn last line. */
  public static Event parse(String line) {
    String[] parts = line.trim().split(" ");
    Map<String, String> map = new LinkedHashMap<>();
    for (String part : parts) {
      int eq = part.indexOf('=');
      if (eq <= 0) {
        return null;
      }
      map.put(part.substring(0, eq), part.substring(eq + 1));
    }
    String t = map.remove("t");
    String ev = map.remove("ev");
    if (t == null || ev == null) {
      return null;
    }
    try {
      return new Event(Long.parseLong(t), ev, map);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** Builds an event from alternating keys and values. */
  public static Event of(long t, String ev, Object... keyValues) {
    Map<String, String> map = new LinkedHashMap<>();
    for (int i = 0; i + 1 < keyValues.length; i += 2) {
      map.put(String.valueOf(keyValues[i]), clean(String.valueOf(keyValues[i + 1])));
    }
    return new Event(t, ev, map);
  }

  /** The line, without a line terminator. */
  public String format() {
    StringBuilder b = new StringBuilder();
    b.append("t=").append(t).append(" ev=").append(ev);
    fields.forEach((k, v) -> b.append(' ').append(k).append('=').append(clean(v)));
    return b.toString();
  }

  /** A field, or null. */
  public String get(String key) {
    return fields.get(key);
  }

  /** A numeric field, or {@code otherwise}. */
  public long getLong(String key, long otherwise) {
    String v = fields.get(key);
    if (v == null || v.isEmpty() || v.equals("-")) {
      return otherwise;
    }
    return Long.parseLong(v);
  }

  static String clean(String value) {
    if (value == null || value.isEmpty()) {
      return "-";
    }
    return value.replace(' ', '_').replace('\n', '_').replace('\r', '_').replace('=', ':');
  }
}
