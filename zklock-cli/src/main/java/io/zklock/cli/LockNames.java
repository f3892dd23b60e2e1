package io.zklock.cli;

import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/** Where a lock name may come from on the command line. */
final class LockNames {
  private LockNames() {}

  /**
   * Refuses {@code zklock exec -- echo hi}: everything after {@code --} is the command, so a NAME
   * taken from there (picocli would take "echo") means the name is missing.
   *
   * @throws CliException with exit code 2
   */
  static void requireBeforeDoubleDash(CommandSpec spec, List<String> command) {
    List<String> args = spec.commandLine().getParseResult().originalArgs();
    int dd = args.indexOf("--");
    if (dd < 0) {
      return;
    }
    int afterDoubleDash = args.size() - dd - 1;
    int commandWords = command == null ? 0 : command.size();
    if (afterDoubleDash > commandWords) {
      throw new CliException(
          ExitCodes.USAGE,
          "missing lock name: give NAME before '--', as in "
              + spec.qualifiedName()
              + " NAME -- COMMAND");
    }
  }
}
