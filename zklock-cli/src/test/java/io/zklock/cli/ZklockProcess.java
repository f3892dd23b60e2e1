package io.zklock.cli;

import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/** The {@code zklock} command as a separate JVM, its stdout and stderr in files. */
final class ZklockProcess implements AutoCloseable {
  private static int counter;

  final Process process;
  final Path out;
  final Path err;

  private ZklockProcess(Process process, Path out, Path err) {
    this.process = process;
    this.out = out;
    this.err = err;
  }

  /**
   * The start of a command line that runs what follows with SIGINT at its default disposition. A
   * process started from a script in the background (as a CI runner may start the build) inherits
   * SIGINT ignored, and the JVM then leaves it ignored, as Unix programs do under {@code nohup} or
   * {@code &}: a test that sends SIGINT to zklock must start it with SIGINT restored, or it tests
   * how it was launched. Perl (on every Debian system) resets the disposition and execs the command
   * in place, so the process's pid stays the one the test signals.
   */
  static List<String> sigintRestored() {
    Path perl = Path.of("/usr/bin/perl");
    return Files.isExecutable(perl)
        ? List.of(perl.toString(), "-e", "$SIG{INT} = 'DEFAULT'; exec @ARGV or die \"exec: $!\"")
        : List.of();
  }

  /** The java command line that runs {@code zklock args...}. */
  static List<String> commandLine(String... args) {
    return commandLine(List.of(), args);
  }

  private static List<String> commandLine(List<String> jvmOptions, String... args) {
    List<String> cmd = new ArrayList<>(sigintRestored());
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmOptions);
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-Xshare:auto");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(Main.class.getName());
    cmd.addAll(List.of(args));
    return cmd;
  }

  /** Starts {@code zklock args...} with {@code env} added; stdin is a pipe (see {@link #stdin}). */
  static ZklockProcess start(Path dir, Map<String, String> env, String... args) throws IOException {
    return start(dir, env, List.of(), args);
  }

  /**
   * Starts {@code zklock args...} with the logging configuration the jar ships ({@code
   * logback.xml}), not the tests' ({@code logback-test.xml}, which the test class path puts first):
   * for what a user sees on stderr by default.
   */
  static ZklockProcess startWithShippedLogging(Path dir, String... args) throws IOException {
    java.net.URL shipped = Main.class.getResource("/logback.xml");
    if (shipped == null) {
      throw new IllegalStateException("logback.xml is not on the class path");
    }
    return start(dir, Map.of(), List.of("-Dlogback.configurationFile=" + shipped), args);
  }

  private static ZklockProcess start(
      Path dir, Map<String, String> env, List<String> jvmOptions, String... args)
      throws IOException {
    int n;
    synchronized (ZklockProcess.class) {
      n = ++counter;
    }
    Path out = dir.resolve("zklock-" + n + ".out");
    Path err = dir.resolve("zklock-" + n + ".err");
    ProcessBuilder pb =
        new ProcessBuilder(commandLine(jvmOptions, args))
            .redirectOutput(Redirect.to(out.toFile()))
            .redirectError(Redirect.to(err.toFile()));
    pb.environment().keySet().removeIf(k -> k.startsWith("ZKLOCK_"));
    pb.environment().putAll(env);
    return new ZklockProcess(pb.start(), out, err);
  }

  /**
   * Runs {@code zklock args...} to its end with stdin closed, as {@link #awaitExit} waits: no
   * wall-clock bound but the test's own time-out, a {@link #CPU_BUDGET}.
   */
  static Cli.Result run(Path dir, Map<String, String> env, String... args) throws Exception {
    try (ZklockProcess p = start(dir, env, args)) {
      p.process.getOutputStream().close();
      return p.awaitExit();
    }
  }

  java.io.OutputStream stdin() {
    return process.getOutputStream();
  }

  String stdout() throws IOException {
    return Files.readString(out, StandardCharsets.UTF_8);
  }

  String stderr() throws IOException {
    return Files.readString(err, StandardCharsets.UTF_8);
  }

  /** Sends a signal ({@code INT}, {@code TERM}...) to the JVM. */
  void signal(String name) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-s", name, Long.toString(process.pid())).start();
    if (kill.waitFor() != 0) {
      throw new IllegalStateException("kill -s " + name + " " + process.pid() + " failed");
    }
  }

  /**
   * CPU time a zklock JVM may use waiting for a state it should reach: ten times what a cold one
   * uses to start, connect and run a command (0.8-0.95 s measured, {@code exec} and {@code ls}, at
   * {@code -XX:TieredStopAtLevel=1}).
   */
  static final Duration CPU_BUDGET = Duration.ofSeconds(10);

  /**
   * Waits until {@code condition} holds. What a zklock JVM does before it gets there (start, class
   * loading, connect) is CPU work, and its wall time is that work divided by the share of the CPU
   * the machine gives it, which other builds decide; so this wait has no wall-clock bound of its
   * own. It fails at once if the process exits first, and if the process used {@link #CPU_BUDGET}
   * of CPU without getting there (busy and stuck). A process that waits without working is left to
   * the test's own time-out, whose thread dump says where the test waited.
   */
  void awaitUntil(String what, Callable<Boolean> condition) throws Exception {
    while (!condition.call()) {
      if (!process.isAlive() && !condition.call()) {
        throw new AssertionError(
            "zklock exited ("
                + process.exitValue()
                + ") before "
                + what
                + "; stderr:\n"
                + stderr());
      }
      Duration cpu = cpu();
      if (cpu.compareTo(CPU_BUDGET) > 0) {
        throw new AssertionError(
            "zklock used " + cpu + " of CPU without " + what + "; stderr so far:\n" + stderr());
      }
      Thread.sleep(20);
    }
  }

  /** Waits for the end as {@link #awaitUntil} waits (no wall-clock bound, a CPU budget). */
  Cli.Result awaitExit() throws Exception {
    awaitUntil("exiting", () -> !process.isAlive());
    process.waitFor();
    return new Cli.Result(process.exitValue(), stdout(), stderr());
  }

  /** The CPU time the process used so far (zero where the platform does not tell). */
  Duration cpu() {
    return process.info().totalCpuDuration().orElse(Duration.ZERO);
  }

  /** Waits for the end; fails if it takes longer than {@code seconds}. */
  Cli.Result await(int seconds) throws IOException, InterruptedException {
    if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
      throw new AssertionError(
          "zklock did not exit within " + seconds + " s; stderr so far:\n" + stderr());
    }
    return new Cli.Result(process.exitValue(), stdout(), stderr());
  }

  /**
   * Ends the process and, first, whatever it started: a command that {@code exec} runs would
   * otherwise outlive it (a test that fails before its command ends left a shell looping for the
   * rest of the build, its directory gone).
   */
  @Override
  public void close() {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }
}
