package io.zklock.cli;

import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.ZkLocks;
import io.zklock.internal.Args;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code zklock exec}: runs a command while holding a mutex, like flock(1). */
@Command(
    name = "exec",
    header = "Runs a command while holding a lock, like flock(1).",
    mixinStandardHelpOptions = true,
    description = {
      "Waits for the mutex NAME, runs COMMAND while holding it, releases it when COMMAND exits,"
          + " and exits with COMMAND's status.",
      "COMMAND sees ZKLOCK_NAME and ZKLOCK_TOKEN (the fencing token: pass it to whatever the lock"
          + " protects). If the lock is lost while COMMAND runs (session expired, node deleted),"
          + " COMMAND gets SIGTERM, then SIGKILL after --grace, and zklock exits with 4.",
      "",
      "Example: zklock exec --timeout 30s nightly-report -- ./make-report.sh"
    })
final class ExecCommand implements java.util.concurrent.Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection;

  @Parameters(index = "0", paramLabel = "NAME", description = "Lock name, e.g. orders/42.")
  String name;

  @Parameters(
      index = "1..*",
      arity = "1..*",
      paramLabel = "COMMAND",
      description = "The command and its arguments (put -- before it).")
  List<String> command;

  @Option(
      names = {"-t", "--timeout"},
      paramLabel = "DURATION",
      converter = Durations.class,
      description = "Give up after waiting this long for the lock (exit 3). Default: wait forever.")
  Duration timeout;

  @Option(
      names = "--grace",
      paramLabel = "DURATION",
      defaultValue = "10s",
      converter = Durations.class,
      description =
          "After losing the lock: how long COMMAND may take to exit after SIGTERM before SIGKILL"
              + " (default: ${DEFAULT-VALUE}).")
  Duration grace;

  @Option(
      names = "--client-name",
      paramLabel = "NAME",
      description = "Name shown by zklock ls (default: host:pid).")
  String clientName;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter err = spec.commandLine().getErr();
    try {
      Args.lockName(name);
      if (timeout != null) {
        Args.timeoutNanos(timeout);
      }
      if (grace.isNegative()) {
        throw new IllegalArgumentException("--grace must not be negative: " + grace);
      }
    } catch (IllegalArgumentException e) {
      throw new CliException(ExitCodes.USAGE, e.getMessage(), e);
    }
    try (ZkLocks locks = connection.connect(clientName)) {
      Run run = new Run(locks, err);
      Thread hook = new Thread(run::onShutdown, "zklock-exec-shutdown");
      Runtime.getRuntime().addShutdownHook(hook);
      try {
        return run.call();
      } finally {
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
          // Ctrl-C: the hook cleans up
        }
      }
    }
  }

  /** One execution: acquire, run, watch for loss, release. */
  private final class Run {
    private final ZkLocks locks;
    private final PrintWriter err;
    private volatile Process process;
    private volatile LockHandle handle;

    Run(ZkLocks locks, PrintWriter err) {
      this.locks = locks;
      this.err = err;
    }

    int call() throws InterruptedException {
      LockHandle h;
      if (timeout == null) {
        h = locks.mutex(name).acquire();
      } else {
        Optional<LockHandle> got = locks.mutex(name).tryAcquire(timeout);
        if (got.isEmpty()) {
          throw new CliException(
              ExitCodes.TIMEOUT,
              "timed out after " + Durations.format(timeout) + " waiting for lock '" + name + "'");
        }
        h = got.get();
      }
      handle = h;
      try {
        ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
        pb.environment().put("ZKLOCK_NAME", name);
        pb.environment().put("ZKLOCK_TOKEN", Long.toString(h.fencingToken()));
        Process p;
        try {
          p = pb.start();
        } catch (IOException e) {
          throw new CliException(
              ExitCodes.CANNOT_RUN, "cannot run '" + command.get(0) + "': " + e.getMessage(), e);
        }
        process = p;
        CompletableFuture<Object> first =
            CompletableFuture.anyOf(p.onExit(), h.lost().thenApply(lost -> (Object) lost));
        Object outcome;
        try {
          outcome = first.get();
        } catch (ExecutionException e) {
          throw new IllegalStateException("waiting for the command failed", e.getCause());
        }
        if (outcome instanceof LockLostException && p.isAlive()) {
          return terminate(p, (LockLostException) outcome);
        }
        return p.waitFor();
      } finally {
        h.release();
      }
    }

    private int terminate(Process p, LockLostException lost) throws InterruptedException {
      err.println(
          "zklock: lost lock '"
              + name
              + "' while the command ran: "
              + lost.getMessage()
              + "; terminating it (pid "
              + p.pid()
              + ")");
      err.flush();
      p.destroy(); // SIGTERM
      if (!p.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        err.println(
            "zklock: the command did not exit within "
                + Durations.format(grace)
                + " of SIGTERM; sending SIGKILL");
        err.flush();
        p.destroyForcibly();
        p.waitFor();
      }
      return ExitCodes.LOCK_LOST;
    }

    /** Ctrl-C or SIGTERM to zklock: stop the command (the grace applies), then release. */
    void onShutdown() {
      Process p = process;
      if (p != null && p.isAlive()) {
        p.destroy();
        try {
          if (!p.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      LockHandle h = handle;
      if (h != null) {
        try {
          h.release();
        } catch (RuntimeException e) {
          // the session ends with the JVM anyway
        }
      }
      locks.close();
    }
  }
}
