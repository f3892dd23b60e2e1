package io.zklock.cli;

import java.util.Locale;
import java.util.Set;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * What {@code exec} does when someone asks its holder to let go ({@code zklock release --request},
 * {@code ZkLocks#requestRelease}): {@code stop} the command (SIGTERM, SIGKILL after the grace),
 * send it a {@code signal:NAME} and let it decide, only {@code log} it, or {@code ignore} it.
 *
 * @param kind what to do
 * @param signal the signal's name without {@code SIG} ({@code TERM}, {@code USR1}...), for {@link
 *     Kind#SIGNAL}; {@code TERM} for {@link Kind#STOP}; null otherwise
 */
record ReleaseRequestAction(Kind kind, String signal) {
  /** The kinds of action. */
  enum Kind {
    /** SIGTERM to the command, SIGKILL after {@code --grace}; in hold mode, release and exit. */
    STOP,
    /** One signal to the command; it decides whether and when to exit. */
    SIGNAL,
    /** A line on stderr; the command runs on. */
    LOG,
    /** Nothing. */
    IGNORE
  }

  static final ReleaseRequestAction DEFAULT = new ReleaseRequestAction(Kind.STOP, "TERM");

  /** The signals a command may be sent; others are refused as a usage error. */
  static final Set<String> SIGNALS =
      Set.of("HUP", "INT", "QUIT", "USR1", "USR2", "TERM", "ALRM", "WINCH", "CONT", "PWR");

  @Override
  public String toString() {
    return switch (kind) {
      case STOP -> "stop";
      case SIGNAL -> "signal:" + signal;
      case LOG -> "log";
      case IGNORE -> "ignore";
    };
  }

  /**
   * Parses {@code stop}, {@code log}, {@code ignore}, {@code signal:NAME} ({@code signal:SIGUSR1}).
   */
  static final class Converter implements ITypeConverter<ReleaseRequestAction> {
    @Override
    public ReleaseRequestAction convert(String value) {
      String v = value.trim().toLowerCase(Locale.ROOT);
      switch (v) {
        case "stop":
          return DEFAULT;
        case "log":
          return new ReleaseRequestAction(Kind.LOG, null);
        case "ignore":
          return new ReleaseRequestAction(Kind.IGNORE, null);
        default:
          break;
      }
      if (v.startsWith("signal:")) {
        String sig = v.substring("signal:".length()).toUpperCase(Locale.ROOT);
        if (sig.startsWith("SIG")) {
          sig = sig.substring(3);
        }
        if (SIGNALS.contains(sig)) {
          return new ReleaseRequestAction(Kind.SIGNAL, sig);
        }
        throw new TypeConversionException(
            "'"
                + value
                + "' names no signal a command can be asked with; one of signal:"
                + String.join(", signal:", SIGNALS.stream().sorted().toList()));
      }
      throw new TypeConversionException(
          "'" + value + "' is not an action: stop, signal:NAME (e.g. signal:USR1), log or ignore");
    }
  }
}
