package io.zklock.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The command {@code exec} and {@code elect} run: started with the terminal's stdin, stdout and
 * stderr, stopped with SIGTERM and, after a grace period, SIGKILL. With {@code processGroup} it is
 * started as the leader of a new session and process group ({@code setsid(1)}), and signals go to
 * the whole group, so that the jobs a script starts in the background stop with it.
 */
final class Child {
  private final Process process;
  private final boolean processGroup;

  private Child(Process process, boolean processGroup) {
    this.process = process;
    this.processGroup = processGroup;
  }

  /**
   * Starts {@code command} with {@code env} added to this process's environment.
   *
   * @throws CliException with exit code 127 if it cannot be started
   */
  static Child start(List<String> command, Map<String, String> env, boolean processGroup) {
    List<String> argv = new ArrayList<>();
    if (processGroup) {
      argv.add("setsid");
      argv.add("--wait"); // setsid forks only if it leads a group already: then it waits
    }
    argv.addAll(command);
    ProcessBuilder pb = new ProcessBuilder(argv).inheritIO();
    pb.environment().putAll(env);
    try {
      return new Child(pb.start(), processGroup);
    } catch (IOException e) {
      String what =
          processGroup ? "setsid (needed by --process-group)" : "'" + command.get(0) + "'";
      throw new CliException(ExitCodes.CANNOT_RUN, "cannot run " + what + ": " + e.getMessage(), e);
    }
  }

  Process process() {
    return process;
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive() || (processGroup && groupAlive());
  }

  /**
   * Sends SIGTERM (to the group, with {@code processGroup}), waits up to {@code grace} for it to
   * exit, then sends SIGKILL.
   *
   * @return whether SIGKILL was needed
   */
  boolean terminate(Duration grace, PrintWriter err) throws InterruptedException {
    if (!isAlive()) {
      return false;
    }
    signal("TERM");
    long deadline = System.nanoTime() + grace.toNanos();
    process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS);
    while (processGroup && groupAlive() && System.nanoTime() - deadline < 0) {
      Thread.sleep(20);
    }
    if (!isAlive()) {
      return false;
    }
    if (err != null) {
      err.println(
          "zklock: the command did not exit within "
              + Durations.format(grace)
              + " of SIGTERM; sending SIGKILL");
      err.flush();
    }
    signal("KILL");
    process.waitFor();
    return true;
  }

  /**
   * Sends {@code signal} ({@code TERM}, {@code USR1}...) to the command, or to its whole group with
   * {@code processGroup}, if it still runs.
   */
  void send(String signal) throws InterruptedException {
    if (isAlive()) {
      signal(signal);
    }
  }

  private void signal(String signal) throws InterruptedException {
    if (!processGroup) {
      switch (signal) {
        case "KILL" -> process.destroyForcibly();
        case "TERM" -> process.destroy();
        default -> kill("-s", signal, "--", Long.toString(process.pid()));
      }
      return;
    }
    kill("-s", signal, "--", "-" + process.pid());
  }

  private boolean groupAlive() {
    try {
      return kill("-0", "--", "-" + process.pid()) == 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static int kill(String... args) throws InterruptedException {
    List<String> argv = new ArrayList<>();
    argv.add("kill");
    argv.addAll(List.of(args));
    try {
      Process k =
          new ProcessBuilder(argv)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      return k.waitFor();
    } catch (IOException e) {
      return -1;
    }
  }
}
