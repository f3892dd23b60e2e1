package io.zklock.cli;

import io.zklock.ZkLockException;
import java.io.PrintWriter;
import java.util.List;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/** Turns exceptions into one line on stderr and an exit code. */
final class Errors implements IExecutionExceptionHandler {

  /** Runs {@code connect}, turning a failure to reach ZooKeeper into exit code 5. */
  static <T> T connecting(Supplier<T> connect) {
    try {
      return connect.get();
    } catch (ZkLockException e) {
      throw new CliException(ExitCodes.CANNOT_CONNECT, e.getMessage(), e);
    } catch (IllegalArgumentException e) {
      throw new CliException(ExitCodes.USAGE, e.getMessage(), e);
    }
  }

  /**
   * A usage error (unknown option, missing parameter, bad value): one line naming the problem and
   * where the help is, not the whole usage text.
   */
  static int usage(CommandLine.ParameterException e, String[] args) {
    CommandLine cmd = e.getCommandLine();
    PrintWriter err = cmd.getErr();
    String unknown = unknownCommand(e);
    if (unknown != null) {
      err.println("zklock: " + unknown + " (see '" + helpCommand(cmd) + "')");
      err.flush();
      return ExitCodes.USAGE;
    }
    String suggestion = "";
    if (e instanceof CommandLine.UnmatchedArgumentException) {
      List<String> s = ((CommandLine.UnmatchedArgumentException) e).getSuggestions();
      if (!s.isEmpty()) {
        suggestion = "; did you mean '" + s.get(0) + "'?";
      }
    }
    err.println(
        "zklock: " + oneLine(e.getMessage()) + suggestion + " (see '" + helpCommand(cmd) + "')");
    err.flush();
    return ExitCodes.USAGE;
  }

  /**
   * {@code zklock frobnicate}: names the unknown command, the nearest one if it is close, and the
   * commands there are; null if {@code e} is about something else.
   */
  private static String unknownCommand(CommandLine.ParameterException e) {
    if (!(e instanceof CommandLine.UnmatchedArgumentException unmatched)) {
      return null;
    }
    CommandLine cmd = e.getCommandLine();
    if (cmd.getSubcommands().isEmpty() || unmatched.getUnmatched().isEmpty()) {
      return null; // a command's own arguments, not the name of a command
    }
    String word = unmatched.getUnmatched().get(0);
    if (word.startsWith("-")) {
      return null; // an unknown option: said the usual way
    }
    List<String> commands = new java.util.ArrayList<>();
    cmd.getSubcommands()
        .forEach(
            (name, sub) -> {
              if (!sub.getCommandSpec().usageMessage().hidden() && !commands.contains(name)) {
                commands.add(name);
              }
            });
    List<String> near = unmatched.getSuggestions();
    return "unknown command '"
        + word
        + "'"
        + (near.isEmpty() ? "" : "; did you mean '" + near.get(0) + "'?")
        + "; the commands are "
        + String.join(", ", commands);
  }

  private static String helpCommand(CommandLine cmd) {
    return cmd.getCommandSpec().qualifiedName() + " --help";
  }

  private static String oneLine(String message) {
    String m = message == null ? "bad usage" : message.strip();
    return m.replaceAll("\\s*\\R\\s*", "; ");
  }

  @Override
  public int handleExecutionException(Exception e, CommandLine cmd, ParseResult parseResult) {
    PrintWriter err = cmd.getErr();
    int code;
    if (e instanceof CliException) {
      code = ((CliException) e).exitCode();
      err.println(
          "zklock: "
              + e.getMessage()
              + (code == ExitCodes.USAGE ? " (see '" + helpCommand(cmd) + "')" : ""));
    } else if (e instanceof IllegalArgumentException) {
      code = ExitCodes.USAGE;
      err.println("zklock: " + e.getMessage() + " (see '" + helpCommand(cmd) + "')");
    } else if (e instanceof ZkLockException) {
      code = ExitCodes.FAILURE;
      err.println("zklock: " + e.getMessage());
    } else if (e instanceof InterruptedException) {
      code = ExitCodes.INTERRUPTED;
      err.println("zklock: interrupted");
    } else {
      code = ExitCodes.FAILURE;
      err.println("zklock: unexpected error: " + e);
      err.println("zklock: set ZKLOCK_DEBUG=1 for the stack trace, ZKLOCK_LOG=DEBUG for logs");
    }
    if (System.getenv("ZKLOCK_DEBUG") != null) {
      e.printStackTrace(err);
    }
    err.flush();
    return code;
  }
}
