package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.testkit.EmbeddedZooKeeper;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HelpAndErrorsTest {
  static EmbeddedZooKeeper zk;

  @BeforeAll
  static void startZooKeeper() {
    zk = EmbeddedZooKeeper.standalone().start();
  }

  @AfterAll
  static void stopZooKeeper() {
    zk.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "demo", "server", "ls", "exec", "bench"})
  void help_everyCommand_printsUsageAndExitsZero(String command) {
    Cli.Result r = command.isEmpty() ? Cli.run("--help") : Cli.run(command, "--help");

    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out()).as(r.toString()).contains("Usage: zklock");
  }

  @Test
  void bench_list_namesTheScenarios() {
    Cli.Result r = Cli.run("bench", "--list");

    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out()).contains("uncontended", "contended-10", "herd", "rw-90");
  }

  @Test
  void bench_badOption_isAUsageError() {
    Cli.Result r = Cli.run("bench", "--no-such-option");

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(2);
  }

  @Test
  void help_top_listsCommandsAndExitCodes_butNotTheHiddenWorker() {
    Cli.Result r = Cli.run("--help");

    assertThat(r.out())
        .contains("demo", "server", "ls", "exec", "bench", "Exit codes", "5 cannot connect")
        .doesNotContain("demo-worker");
  }

  @Test
  void version_printsTheProjectVersion() {
    Cli.Result r = Cli.run("--version");

    assertThat(r.exitCode()).isZero();
    assertThat(r.out()).startsWith("zklock ").doesNotContain("unknown");
  }

  @Test
  void noCommand_isAUsageError() {
    Cli.Result r = Cli.run();

    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("a command is required");
  }

  @Test
  void badDuration_isAUsageError_namingTheValue() {
    Cli.Result r = Cli.run("exec", "--timeout", "soon", "x", "--", "true");

    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("'soon' is not a duration");
  }

  @Test
  void unreachableServer_oneLineError_exitCode5() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    for (String command : new String[] {"ls", "exec"}) {
      Cli.Result r =
          command.equals("ls")
              ? Cli.run("ls", "--connect", "127.0.0.1:" + port, "--connect-timeout", "500ms")
              : Cli.run(
                  "exec",
                  "--connect",
                  "127.0.0.1:" + port,
                  "--connect-timeout",
                  "500ms",
                  "x",
                  "--",
                  "true");

      assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.CANNOT_CONNECT);
      assertThat(r.err().strip().lines()).as(r.toString()).hasSize(1);
      assertThat(r.err()).startsWith("zklock: cannot connect to ZooKeeper at '127.0.0.1:" + port);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"a//b", "/abs", "zookeeper", "x/../y"})
  void badLockName_oneLineError_usageExitCode(String name) {
    Cli.Result r = Cli.run("exec", "--connect", zk.connectString(), name, "--", "true");

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err().strip().lines()).as(r.toString()).hasSize(1);
    assertThat(r.err()).as(r.toString()).startsWith("zklock: ").contains("lock name");
  }

  @Test
  void badConnectString_isAUsageError() {
    Cli.Result r = Cli.run("ls", "--connect", "127.0.0.1:99999");

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("port out of range");
  }

  @Test
  void durations_acceptTheUsualForms() {
    assertThat(Durations.parse("500ms")).hasMillis(500);
    assertThat(Durations.parse("10s")).hasSeconds(10);
    assertThat(Durations.parse("1.5s")).hasMillis(1500);
    assertThat(Durations.parse("2m")).hasSeconds(120);
    assertThat(Durations.parse("1m30s")).hasSeconds(90);
    assertThat(Durations.parse("PT5S")).hasSeconds(5);
    assertThat(Durations.parse("7")).hasSeconds(7);
  }
}
