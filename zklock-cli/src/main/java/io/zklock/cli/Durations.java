package io.zklock.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Parses durations as people type them: {@code 500ms}, {@code 10s}, {@code 1.5s}, {@code 2m},
 * {@code 1h}, {@code 1m30s}, ISO-8601 ({@code PT5S}), or a bare number of seconds ({@code 10}).
 */
final class Durations implements ITypeConverter<Duration> {
  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h|d)");

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  static Duration parse(String value) {
    String s = value.trim().toLowerCase(Locale.ROOT);
    if (s.isEmpty()) {
      throw bad(value);
    }
    if (s.startsWith("p") || s.startsWith("-p")) {
      try {
        return Duration.parse(s.toUpperCase(Locale.ROOT));
      } catch (DateTimeParseException e) {
        throw bad(value);
      }
    }
    if (s.matches("\\d+(\\.\\d+)?")) {
      return ofUnit(s, "s");
    }
    Matcher m = PART.matcher(s);
    Duration total = Duration.ZERO;
    int end = 0;
    while (m.find()) {
      if (m.start() != end) {
        throw bad(value);
      }
      total = total.plus(ofUnit(m.group(1), m.group(2)));
      end = m.end();
    }
    if (end != s.length() || end == 0) {
      throw bad(value);
    }
    return total;
  }

  private static Duration ofUnit(String number, String unit) {
    double n = Double.parseDouble(number);
    double nanosPerUnit;
    switch (unit) {
      case "ms":
        nanosPerUnit = 1e6;
        break;
      case "s":
        nanosPerUnit = 1e9;
        break;
      case "m":
        nanosPerUnit = 60e9;
        break;
      case "h":
        nanosPerUnit = 3600e9;
        break;
      case "d":
        nanosPerUnit = 86400e9;
        break;
      default:
        throw new IllegalStateException(unit);
    }
    double nanos = n * nanosPerUnit;
    if (nanos > Long.MAX_VALUE) {
      throw new TypeConversionException("duration too large: '" + number + unit + "'");
    }
    return Duration.ofNanos(Math.round(nanos));
  }

  private static TypeConversionException bad(String value) {
    return new TypeConversionException(
        "'" + value + "' is not a duration (examples: 500ms, 10s, 2m, 1h, PT5S)");
  }

  /** A short human form: {@code 850ms}, {@code 12.3s}, {@code 2m05s}. */
  static String format(Duration d) {
    long ms = d.toMillis();
    if (ms < 1000) {
      return ms + "ms";
    }
    if (ms < 60_000) {
      return String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
    }
    long s = ms / 1000;
    if (s < 3600) {
      return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
    }
    return String.format(Locale.ROOT, "%dh%02dm", s / 3600, (s % 3600) / 60);
  }
}
