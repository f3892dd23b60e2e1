package io.zklock.cli;

import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

  /** Runs {@code zklock args...} to its end (at most 60 s) with stdin closed. */
  static Cli.Result run(Path dir, Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    try (ZklockProcess p = start(dir, env, args)) {
      p.process.getOutputStream().close();
      return p.await(60);
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

  /** Waits for the end; fails if it takes longer than {@code seconds}. */
  Cli.Result await(int seconds) throws IOException, InterruptedException {
    if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
      throw new AssertionError(
          "zklock did not exit within " + seconds + " s; stderr so far:\n" + stderr());
    }
    return new Cli.Result(process.exitValue(), stdout(), stderr());
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }
}
