package io.zklock.cli;

import io.zklock.ZkLockException;
import io.zklock.ZkLocks;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code zklock ls}: the locks under the namespace, their holders and queues. */
@Command(
    name = "ls",
    header = "Lists the locks, their holders and queues (--watch for live, --json for scripts).",
    mixinStandardHelpOptions = true,
    description = {
      "Lists the locks under the namespace: for each lock its queue in order, who holds it"
          + " (client, host, pid, session, since when, fencing token) and who waits."
    })
final class LsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection;

  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "PATH",
      description = "Only locks at or below this path, relative to the namespace (e.g. orders).")
  String path;

  @Option(
      names = {"-w", "--watch"},
      description = "Redraw every --interval until Ctrl-C.")
  boolean watch;

  @Option(
      names = "--interval",
      paramLabel = "DURATION",
      defaultValue = "1s",
      converter = Durations.class,
      description = "Refresh interval of --watch (default: ${DEFAULT-VALUE}).")
  Duration interval;

  @Option(
      names = "--json",
      description = "Print JSON (with --watch: one document per line, per refresh).")
  boolean json;

  @Option(
      names = {"-v", "--verbose"},
      description =
          "Also print the connection: server, session id, the session timeout the ensemble"
              + " negotiated, TLS and authentication in use.")
  boolean verbose;

  /** Stops a --watch loop after this many refreshes (tests); 0 means until interrupted. */
  int maxRefreshes;

  /** Whether stdout is a terminal (screen escapes are written only then); tests set it. */
  boolean terminal = System.console() != null;

  @Override
  public Integer call() throws InterruptedException {
    if (path != null) {
      String p = path.startsWith("/") ? path.substring(1) : path;
      path = p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    } else {
      path = "";
    }
    if (interval.isNegative() || interval.isZero()) {
      throw new CliException(ExitCodes.USAGE, "--interval must be positive");
    }
    PrintWriter out = spec.commandLine().getOut();
    try (ZkLocks locks = connection.connect("zklock-ls")) {
      if (verbose) { // stdout, unless it carries JSON
        PrintWriter to = json ? spec.commandLine().getErr() : out;
        to.println(connectionSummary(locks));
        to.flush();
      }
      int refreshes = 0;
      while (true) {
        LockListing listing = read(locks);
        if (json) {
          out.println(listing.json());
        } else {
          if (watch) {
            if (terminal) {
              out.print("\033[H\033[2J"); // home, clear screen
            } else if (refreshes > 0) {
              out.println(); // a blank line between snapshots, no escapes in a file or pipe
            }
            out.println(
                "zklock ls "
                    + connection.connect
                    + "  (every "
                    + Durations.format(interval)
                    + ", Ctrl-C to stop)");
          }
          out.print(listing.text());
        }
        out.flush();
        refreshes++;
        if (!watch || (maxRefreshes > 0 && refreshes >= maxRefreshes)) {
          return ExitCodes.OK;
        }
        Thread.sleep(interval.toMillis());
      }
    }
  }

  /**
   * One line about the connection. The session timeout is the one the ensemble granted (it clamps
   * the asked one to its limits), which is how long a holder cut off from it keeps its locks.
   */
  private String connectionSummary(ZkLocks locks) throws InterruptedException {
    return "connected to "
        + connection.connect
        + ", session 0x"
        + Long.toHexString(locks.sessionId())
        + ", session timeout "
        + Durations.format(locks.negotiatedSessionTimeout())
        + " negotiated ("
        + Durations.format(connection.sessionTimeout)
        + " asked), "
        + connection.security();
  }

  private LockListing read(ZkLocks locks) {
    try {
      return new LockListing(locks.namespace(), locks.inspectAll(path), System.currentTimeMillis());
    } catch (IllegalArgumentException e) {
      throw new CliException(ExitCodes.USAGE, e.getMessage(), e);
    } catch (ZkLockException e) {
      throw new CliException(
          ExitCodes.FAILURE,
          "cannot list locks at '" + connection.connect + "': " + e.getMessage(),
          e);
    }
  }
}
