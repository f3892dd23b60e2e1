package io.zklock.cli;

import io.zklock.testkit.EmbeddedZooKeeper;
import io.zklock.testkit.ZooKeeperEnsemble;
import java.io.PrintWriter;
import java.net.BindException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code zklock server}: an embedded ZooKeeper for local development. */
@Command(
    name = "server",
    header = "Runs an embedded ZooKeeper (standalone, or N servers) for local development.",
    mixinStandardHelpOptions = true,
    description = {
      "Starts an embedded ZooKeeper for local development: one standalone server, or --servers N"
          + " servers (one child process each) on 127.0.0.1.",
      "Prints the connect string on stdout and closes it (so CS=$(zklock server &) works);"
          + " stops on Ctrl-C or SIGTERM and deletes its data."
    })
final class ServerCommand implements java.util.concurrent.Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = {"-s", "--servers"},
      paramLabel = "N",
      defaultValue = "1",
      description = "Number of servers: 1 for standalone, 3 or 5 for an ensemble (default: 1).")
  int servers;

  @Option(
      names = {"-p", "--port"},
      paramLabel = "PORT",
      defaultValue = "2181",
      description =
          "Client port of a standalone server; 0 picks a free port (default: ${DEFAULT-VALUE})."
              + " An ensemble always uses free ports.")
  int port;

  @Option(
      names = "--pid-file",
      paramLabel = "FILE",
      description =
          "Write this process's pid to FILE once the server serves (deleted when it stops), for"
              + " kill \"$(cat FILE)\".")
  java.nio.file.Path pidFile;

  @Option(
      names = "--until-stdin-closes",
      description =
          "Also stop when standard input closes (end of file): a program that starts the server"
              + " with a pipe to its stdin stops it by closing the pipe, or by ending, however it"
              + " ends.")
  boolean untilStdinCloses;

  /** Where {@code --until-stdin-closes} reads; a test may give its own. */
  java.io.InputStream stdin = System.in;

  /** Counted down to stop the server: by the shutdown hook (Ctrl-C) or by a test. */
  final CountDownLatch stop = new CountDownLatch(1);

  private final CountDownLatch stopped = new CountDownLatch(1);

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (servers != 1 && servers != 3 && servers != 5) {
      throw new CliException(
          ExitCodes.USAGE,
          "--servers must be 1 (standalone), 3 or 5 (an ensemble tolerating 1 or 2 failures): "
              + servers);
    }
    if (port < 0 || port > 65535) {
      throw new CliException(ExitCodes.USAGE, "--port out of range: " + port);
    }
    boolean portGiven = spec.commandLine().getParseResult().hasMatchedOption("--port");
    if (servers > 1 && portGiven) {
      throw new CliException(
          ExitCodes.USAGE, "--port applies to a standalone server only (--servers 1)");
    }
    AutoCloseable server;
    String connectString;
    String what;
    if (servers == 1) {
      EmbeddedZooKeeper zk = startStandalone();
      server = zk;
      connectString = zk.connectString();
      what = "standalone ZooKeeper, data in " + zk.dataDir();
    } else {
      ZooKeeperEnsemble ensemble =
          EmbeddedZooKeeper.ensemble(servers)
              .childProcesses()
              .jvmOptions(List.of("-DZKLOCK_LOG=INFO"))
              .start();
      try {
        ensemble.awaitQuorum(Duration.ofSeconds(60));
      } catch (RuntimeException | InterruptedException e) {
        ensemble.close();
        throw e;
      }
      server = ensemble;
      connectString = ensemble.connectString();
      what =
          servers
              + "-server ZooKeeper ensemble (child processes), leader: server "
              + ensemble.leaderIndex();
    }
    Thread hook =
        new Thread(
            () -> {
              stop.countDown();
              try { // let the main thread close the server and delete its data before the JVM halts
                stopped.await(30, java.util.concurrent.TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "zklock-server-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    if (untilStdinCloses) {
      watchStdin();
    }
    if (pidFile != null) {
      try {
        java.nio.file.Files.writeString(pidFile, ProcessHandle.current().pid() + "\n");
      } catch (java.io.IOException e) {
        stop.countDown();
        closeQuietly(server);
        throw new CliException(
            ExitCodes.USAGE, "cannot write --pid-file " + pidFile + ": " + e.getMessage(), e);
      }
    }
    out.println(connectString);
    out.flush();
    // the connect string is all stdout carries: closing it lets CS=$(zklock server &) return
    out.close();
    err.println("zklock: " + what);
    err.println(
        "zklock: try  zklock ls --connect "
            + connectString
            + "   (Ctrl-C or kill "
            + ProcessHandle.current().pid()
            + " stops the server)");
    err.flush();
    try {
      stop.await();
    } catch (InterruptedException e) {
      // a test (or an embedding program) asks us to stop
    } finally {
      closeQuietly(server);
      if (pidFile != null) {
        try {
          java.nio.file.Files.deleteIfExists(pidFile);
        } catch (java.io.IOException e) {
          // best effort
        }
      }
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // in the hook's own shutdown: nothing to remove
      }
      err.println("zklock: server stopped, data deleted");
      err.flush();
      stopped.countDown();
    }
    return ExitCodes.OK;
  }

  /**
   * Counts {@link #stop} down once stdin reaches its end (or fails): read on a daemon thread, which
   * discards what it reads and never keeps the JVM up.
   */
  private void watchStdin() {
    Thread watch =
        new Thread(
            () -> {
              byte[] discard = new byte[512];
              try {
                while (stdin.read(discard) >= 0) {
                  // only the end matters
                }
              } catch (java.io.IOException e) {
                // a closed or broken stdin: the parent is gone all the same
              }
              stop.countDown();
            },
            "zklock-server-stdin");
    watch.setDaemon(true);
    watch.start();
  }

  private EmbeddedZooKeeper startStandalone() {
    try {
      return EmbeddedZooKeeper.standalone().clientPort(port).start();
    } catch (RuntimeException e) {
      if (causedBy(e, BindException.class)) {
        throw new CliException(
            ExitCodes.FAILURE,
            "port "
                + port
                + " is in use (another ZooKeeper?); choose one with --port, or --port 0 for a free one",
            e);
      }
      throw e;
    }
  }

  private static boolean causedBy(Throwable t, Class<? extends Throwable> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) {
        return true;
      }
    }
    return false;
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      // best effort at shutdown
    }
  }
}
