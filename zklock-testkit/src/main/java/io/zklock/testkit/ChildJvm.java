package io.zklock.testkit;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The child JVMs that run ZooKeeper servers: their command line, start, SIGKILL and signals. A
 * shutdown hook kills every child still alive when this JVM exits.
 */
final class ChildJvm {
  private static final Set<Process> live = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  for (Process p : live) {
                    p.destroyForcibly();
                  }
                },
                "zk-child-reaper"));
  }

  private ChildJvm() {}

  /**
   * The start of a server's command line: this JVM's {@code java}, a small heap, fast-startup
   * flags, ZooKeeper's settings that tests want (no AdminServer, every four-letter word, fsync as
   * asked, containers checked every {@code containerCheckMs}), and the class path: this JVM's, or
   * the jars of ZooKeeper {@code serverVersion} with slf4j-simple logging to the process output.
   */
  static List<String> serverCommand(
      String serverVersion, boolean forceSync, long containerCheckMs, List<String> jvmOptions) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx128m");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-XX:+UseSerialGC");
    command.add("-Xshare:auto");
    command.add("-XX:-UsePerfData");
    command.add("-Dzookeeper.admin.enableServer=false");
    command.add("-Dzookeeper.4lw.commands.whitelist=*");
    command.add("-Dzookeeper.forceSync=" + (forceSync ? "yes" : "no"));
    command.add("-Dzookeeper.jmx.log4j.disable=true");
    command.add("-Dznode.container.checkIntervalMs=" + containerCheckMs);
    if (serverVersion != null) {
      command.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
      command.add("-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS");
    }
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(classPath(serverVersion));
    return command;
  }

  /** Starts {@code command} in {@code dir}, its output (both streams) appended to {@code log}. */
  static Process start(List<String> command, Path dir, Path log, String what) {
    try {
      Process p =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(Redirect.appendTo(log.toFile()))
              .start();
      live.add(p);
      p.onExit().thenRun(() -> live.remove(p));
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + what, e);
    }
  }

  /** SIGKILL, then waits for the process to be gone. */
  static void kill(Process p, String what) {
    if (p == null) {
      return;
    }
    p.destroyForcibly();
    try {
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException(what + " (pid " + p.pid() + ") survived SIGKILL");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Sends {@code kill -<signal>} to the process; for {@code STOP}, returns once it has stopped. */
  static void signal(Process p, String signal, String what) {
    try {
      Process kill =
          new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid()))
              .redirectErrorStream(true)
              .start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException(
            "kill -"
                + signal
                + " "
                + p.pid()
                + " failed: "
                + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
      }
      if (signal.equals("STOP")) {
        awaitStopped(p, what);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run kill -" + signal, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while signalling " + what, e);
    }
  }

  /**
   * Waits until every thread of {@code p} is stopped. {@code kill -STOP} returns once the signal is
   * sent; the process stops when one of its threads runs to take it, and its other threads run on
   * until then: on a loaded machine a "paused" server answered a request after {@code kill}
   * returned. Reads each thread's state in {@code /proc}; where there is none (not Linux), returns.
   */
  private static void awaitStopped(Process p, String what) throws InterruptedException {
    Path tasks = Path.of("/proc", Long.toString(p.pid()), "task");
    if (!Files.isDirectory(tasks)) {
      return;
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      List<String> running = runningThreads(tasks);
      if (running.isEmpty()) {
        return;
      }
      if (!p.isAlive()) {
        throw new IllegalStateException(what + " exited instead of stopping");
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            what + " not stopped 60 s after SIGSTOP; threads not stopped: " + running);
      }
      Thread.sleep(5);
    }
  }

  /** The threads under {@code tasks} that are not stopped, as "tid state". */
  private static List<String> runningThreads(Path tasks) {
    List<String> running = new ArrayList<>();
    try (var ids = Files.list(tasks)) {
      for (Path t : ids.toList()) {
        String stat;
        try {
          stat = Files.readString(t.resolve("stat"), StandardCharsets.US_ASCII);
        } catch (IOException gone) {
          continue; // the thread ended
        }
        // "tid (name) S ...": the name may hold spaces and parentheses; the state follows the last
        int close = stat.lastIndexOf(')');
        char state = close >= 0 && close + 2 < stat.length() ? stat.charAt(close + 2) : '?';
        if (state != 'T' && state != 't') {
          running.add(t.getFileName() + " " + state);
        }
      }
    } catch (IOException e) {
      // the process ended: its caller finds out
    }
    return running;
  }

  /** The last {@code lines} lines of a log, or a note why they cannot be read. */
  static String tail(Path log, int lines) {
    try {
      if (!Files.exists(log)) {
        return "(no " + log + ")";
      }
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(cannot read " + log + ": " + e + ")";
    }
  }

  /**
   * The jars of ZooKeeper {@code serverVersion} ({@link ServerArtifacts}), or, if null, this JVM's
   * class path and its module path if it has one (a module's tests run with ZooKeeper on the module
   * path): the child runs everything from its class path.
   */
  private static String classPath(String serverVersion) {
    if (serverVersion != null) {
      List<String> jars = new ArrayList<>();
      for (Path jar : ServerArtifacts.fromSystemProperties().classPath(serverVersion)) {
        jars.add(jar.toAbsolutePath().toString());
      }
      return String.join(File.pathSeparator, jars);
    }
    return classPath(
        System.getProperty("java.class.path", ""), System.getProperty("jdk.module.path", ""));
  }

  /**
   * {@code classPath} and {@code modulePath} joined, every entry made absolute: the child runs in
   * its server's directory, and a {@code java -jar target/app.jar} has a relative class path.
   */
  static String classPath(String classPath, String modulePath) {
    String joined =
        modulePath.isEmpty()
            ? classPath
            : classPath.isEmpty() ? modulePath : classPath + File.pathSeparator + modulePath;
    List<String> absolute = new ArrayList<>();
    for (String entry : joined.split(File.pathSeparator)) {
      if (!entry.isEmpty()) {
        absolute.add(Path.of(entry).toAbsolutePath().toString());
      }
    }
    return String.join(File.pathSeparator, absolute);
  }
}
