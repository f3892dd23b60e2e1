package io.zklock.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** The {@code zklock} command. */
@Command(
    name = "zklock",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description =
        "Distributed locks on Apache ZooKeeper: try them, watch them, use them from shell.",
    subcommands = {
      DemoCommand.class,
      ServerCommand.class,
      LsCommand.class,
      UiCommand.class,
      ExecCommand.class,
      ElectCommand.class,
      ReleaseCommand.class,
      BenchCommand.class,
      DemoWorker.class,
      CommandLine.HelpCommand.class
    },
    footerHeading = "%nExit codes:%n",
    footer = {
      "  0 ok (exec: the command's own status)   1 failure   2 bad usage",
      "  3 did not get the lock (--timeout, --nonblock)   4 lock lost",
      "  5 cannot connect   127 exec: cannot run the command",
      "  130 Ctrl-C (SIGINT), 143 SIGTERM: while waiting, or while the command ran",
      "",
      "Start with: zklock demo        More: docs/cli.md"
    })
public final class Main implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a command is required");
  }

  /** A configured command line: the entry point for {@link #main} and the tests. */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Main());
    // hidden: prints the bash completion script, which the distribution installs
    cl.addSubcommand("generate-completion", new AutoComplete.GenerateCompletion());
    cl.getSubcommands().get("generate-completion").getCommandSpec().usageMessage().hidden(true);
    cl.setExecutionExceptionHandler(new Errors());
    cl.setParameterExceptionHandler(Errors::usage);
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    cl.setUsageHelpAutoWidth(true);
    return cl;
  }

  public static void main(String[] args) {
    int code = commandLine().execute(args);
    System.exit(code);
  }

  /** The version from the build ({@code version.properties}). */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {
        "zklock " + version(),
        "Java "
            + System.getProperty("java.version")
            + " ("
            + System.getProperty("java.vm.name")
            + ")"
      };
    }

    static String version() {
      Properties p = new Properties();
      try (InputStream in = Main.class.getResourceAsStream("version.properties")) {
        if (in != null) {
          p.load(in);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return p.getProperty("version", "unknown");
    }
  }
}
