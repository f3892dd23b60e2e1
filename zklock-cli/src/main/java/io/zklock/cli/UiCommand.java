package io.zklock.cli;

import io.zklock.ZkLockException;
import io.zklock.ZkLocks;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code zklock ui}: a live web page of every lock under the namespace. */
@Command(
    name = "ui",
    header = "Serves a live web page of every lock, its holders, queue and timeline.",
    mixinStandardHelpOptions = true,
    description = {
      "Serves a live web page of the locks under the namespace: every lock with its kind, holders"
          + " and waiters in queue order, elections with their leader, and a timeline of grants,"
          + " releases and losses since the page opened. One ZooKeeper watch serves every browser;"
          + " pages are updated by server-sent events. Read-only unless --allow-release: it"
          + " creates nothing, not even the namespace."
    })
final class UiCommand implements java.util.concurrent.Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection;

  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "PATH",
      description = "Only locks at or below this path, relative to the namespace.")
  String path;

  @Option(
      names = "--bind",
      paramLabel = "ADDRESS",
      defaultValue = "127.0.0.1",
      description = "Address to listen on (default: ${DEFAULT-VALUE}, this machine only).")
  String bind;

  @Option(
      names = {"-p", "--port"},
      paramLabel = "PORT",
      defaultValue = "7070",
      description = "Port to listen on; 0 for any free port (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(
      names = "--allow-release",
      description =
          "Offer force release and request release in the page. They need the access token"
              + " printed at start, ask for a confirmation, and are logged with who did them.")
  boolean allowRelease;

  /** Set by tests: called with the running server instead of waiting for Ctrl-C. */
  java.util.function.Consumer<UiServer> whenStarted;

  @Override
  public Integer call() throws InterruptedException {
    String under = path == null ? "" : path.replaceAll("^/+|/+$", "");
    PrintWriter out = spec.commandLine().getOut();
    // in the background: build() would create the namespace; the first read waits for a server
    try (ZkLocks locks = connection.connectInBackground("zklock-ui");
        UiModel model =
            new UiModel(
                locks,
                under,
                System::currentTimeMillis,
                new SessionProbe(connection.connect, connection.security().tls(), 1_000))) {
      try {
        model.start();
      } catch (IllegalArgumentException e) {
        throw new CliException(ExitCodes.USAGE, e.getMessage(), e);
      } catch (ZkLockException e) {
        throw new CliException(
            ExitCodes.CANNOT_CONNECT,
            "cannot read locks at '" + connection.connect + "': " + e.getMessage(),
            e);
      }
      try (UiServer server = new UiServer(locks, model, bind, port, allowRelease)) {
        server.start();
        String host = bind.contains(":") ? "[" + bind + "]" : bind;
        out.println(
            "zklock ui: http://"
                + host
                + ":"
                + server.port()
                + "/  ("
                + connection.connect
                + locks.namespace()
                + ", Ctrl-C to stop)");
        if (allowRelease) {
          out.println("access token for releases: " + server.token());
        }
        out.flush();
        if (whenStarted != null) {
          whenStarted.accept(server);
          return ExitCodes.OK;
        }
        new CountDownLatch(1).await(); // until Ctrl-C
        return ExitCodes.OK;
      } catch (IOException e) {
        throw new CliException(
            ExitCodes.FAILURE, "cannot listen on " + bind + ":" + port + ": " + e.getMessage(), e);
      }
    }
  }
}
