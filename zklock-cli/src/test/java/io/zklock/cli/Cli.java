package io.zklock.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs the real {@code zklock} command line in this JVM with captured output. */
final class Cli {
  /** What a run printed and returned. */
  record Result(int exitCode, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- stdout ---\n" + out + "--- stderr ---\n" + err;
    }
  }

  private Cli() {}

  static Result run(String... args) {
    return run(Main.commandLine(), args);
  }

  static Result run(CommandLine cl, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args);
    return new Result(code, out.toString(), err.toString());
  }
}
