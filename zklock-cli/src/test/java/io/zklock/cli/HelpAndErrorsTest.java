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
  @ValueSource(strings = {"", "demo", "server", "ls", "exec", "elect", "release", "bench"})
  void help_everyCommand_printsUsageAndExitsZero(String command) {
    Cli.Result r = command.isEmpty() ? Cli.run("--help") : Cli.run(command, "--help");

    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out()).as(r.toString()).contains("Usage: zklock");
  }

  @Test
  void bench_inTheInstalledTool_saysWhereItRuns_usageExitCode() {
    for (String[] args : new String[][] {{"bench"}, {"bench", "--list"}, {"bench", "--quick"}}) {
      Cli.Result r = Cli.run(args);

      assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
      assertThat(r.err().strip().lines()).as(r.toString()).hasSize(1);
      assertThat(r.err()).contains("./zklock bench", "clone of zklock's repository");
      assertThat(r.out()).as(r.toString()).isEmpty();
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "zk1;zk2",
        "zk1:2181;zk2:2181",
        "zk 1:2181",
        "zk1:abc",
        "zk1:0",
        "zk1:99999",
        "::1:2181",
        "[::1:2181",
        ",",
        "/chroot-only"
      })
  void malformedConnectString_isAUsageError_exit2_namingIt_beforeAnyConnection(String connect) {
    for (String command : new String[] {"ls", "exec", "elect", "release", "ui", "demo"}) {
      java.util.List<String> args = new java.util.ArrayList<>();
      args.add(command);
      args.add("--connect=" + connect);
      switch (command) {
        case "exec", "elect" -> args.addAll(java.util.List.of("x", "--", "true"));
        case "release" -> args.addAll(java.util.List.of("x", "--yes"));
        case "ui" -> args.addAll(java.util.List.of("--port", "0"));
        default -> {}
      }
      long start = System.nanoTime();
      Cli.Result r = Cli.run(args.toArray(new String[0]));

      assertThat(r.exitCode()).as("%s: %s", args, r).isEqualTo(ExitCodes.USAGE);
      assertThat(r.err().strip().lines()).as("%s: %s", args, r).hasSize(1);
      assertThat(r.err()).as("%s: %s", args, r).startsWith("zklock: ").contains("connect string");
      assertThat(java.time.Duration.ofNanos(System.nanoTime() - start))
          .as("%s: refused before trying to connect (the connect timeout is 10 s)", args)
          .isLessThan(java.time.Duration.ofSeconds(5));
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "zk1",
        "zk1:2181",
        "zk1:2181,zk2:2181,zk3:2181/apps/locks",
        "zk1:2181, zk2:2181",
        "10.0.0.1:2181",
        "[::1]:2181",
        "[fe80::1%eth0]:2181",
        "zk_1.example.com:2281"
      })
  void wellFormedConnectStrings_passTheCheck(String connect) {
    assertThat(ConnectString.problem(connect)).as(connect).isNull();
  }

  @Test
  void help_top_listsCommandsAndExitCodes_butNotTheHiddenWorker() {
    Cli.Result r = Cli.run("--help");

    assertThat(r.out())
        .contains(
            "demo",
            "server",
            "ls",
            "exec",
            "elect",
            "release",
            "bench",
            "Exit codes",
            "5 cannot connect")
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
  @ValueSource(strings = {"a//b", "/abs", "x/../y", "job-\uD83D\uDE00"})
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
    assertThat(r.err()).contains("port out of range: 99999");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "exec --no-such-option x -- true",
        "exec",
        "ls --interval",
        "server --port notanumber",
        "elect --bogus x",
        "--bogus"
      })
  void usageError_isOneLine_withAHintToHelp_notTheWholeUsage(String args) {
    Cli.Result r = Cli.run(args.split(" "));

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err().strip().lines()).as(r.toString()).hasSize(1);
    assertThat(r.err())
        .as(r.toString())
        .startsWith("zklock: ")
        .contains("--help")
        .doesNotContain("Usage:");
    assertThat(r.out()).as(r.toString()).isEmpty();
  }

  @Test
  void usageError_namesTheSubcommandsHelp() {
    Cli.Result r = Cli.run("exec", "--no-such-option", "x", "--", "true");

    assertThat(r.err()).as(r.toString()).contains("'--no-such-option'", "see 'zklock exec --help'");
  }

  @Test
  @SuppressWarnings("try")
  void exec_doubleDashFirst_isAMissingLockName_andLocksNothing() throws Exception {
    Cli.Result r =
        Cli.run("exec", "--connect", zk.connectString(), "-n", "/dd-test", "--", "echo", "hi");

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err().strip().lines()).as(r.toString()).hasSize(1);
    assertThat(r.err()).as(r.toString()).contains("missing lock name");
    assertThat(r.out()).as("echo did not run").isEmpty();
    try (org.apache.zookeeper.ZooKeeper observer =
        new org.apache.zookeeper.ZooKeeper(zk.connectString(), 10_000, e -> {})) {
      assertThat(observer.exists("/dd-test", false)).as("no lock 'echo' was made").isNull();
    }
  }

  @Test
  void elect_doubleDashFirst_isAMissingName() {
    Cli.Result r = Cli.run("elect", "--connect", zk.connectString(), "--", "echo", "hi");

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("missing lock name");
  }

  @Test
  void exec_nameBeforeDoubleDash_isAccepted() {
    Cli.Result r =
        Cli.run("exec", "--connect", zk.connectString(), "x", "--", "sh", "-c", "exit 0");

    assertThat(r.exitCode()).as(r.toString()).isZero();
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "2", "4", "7"})
  void server_evenOrUnusualServerCounts_areRefused(String n) {
    Cli.Result r = Cli.run("server", "--servers", n);

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).as(r.toString()).contains("1 (standalone), 3 or 5");
    assertThat(r.out()).as("no connect string: nothing started").isEmpty();
  }

  @Test
  void demo_unwritableReport_failsBeforeTheDemoRuns(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
    long start = System.nanoTime();
    Cli.Result r =
        Cli.run("demo", "--report", dir.resolve("no-such-dir").resolve("t.html").toString());

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err())
        .as(r.toString())
        .contains("cannot write the report")
        .doesNotContain("starting");
    assertThat(java.time.Duration.ofNanos(System.nanoTime() - start))
        .as("no ensemble was started (that takes seconds)")
        .isLessThan(java.time.Duration.ofSeconds(5));
  }

  @Test
  void demo_reportIsADirectory_failsBeforeTheDemoRuns(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
    Cli.Result r = Cli.run("demo", "--report", dir.toString());

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("is a directory");
  }

  @Test
  void absentChroot_isAnError_forLsAsForExec() {
    String cs = zk.connectString() + "/no-such-chroot";
    Cli.Result ls = Cli.run("ls", "--connect", cs);
    Cli.Result exec = Cli.run("exec", "--connect", cs, "x", "--", "true");

    assertThat(exec.exitCode()).as(exec.toString()).isEqualTo(ExitCodes.CANNOT_CONNECT);
    assertThat(ls.exitCode()).as(ls.toString()).isEqualTo(ExitCodes.CANNOT_CONNECT);
    assertThat(ls.err()).as(ls.toString()).contains("chroot /no-such-chroot does not exist");
    assertThat(ls.err().strip().lines()).hasSize(1);
  }

  @Test
  void elect_withoutCommandOrObserve_isAUsageError() {
    Cli.Result r = Cli.run("elect", "--connect", zk.connectString(), "x");

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("--observe");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "--shared --permits 2",
        "--permits 0",
        "--nonblock --timeout 1s",
        "--conflict-exit-code 300",
        "--lease 0s",
        "--lease 1s --permits 2",
        "--process-group"
      })
  void exec_optionsThatDoNotGoTogether_areUsageErrors(String options) {
    java.util.List<String> args =
        new java.util.ArrayList<>(java.util.List.of("exec", "--connect", zk.connectString()));
    args.addAll(java.util.List.of(options.split(" ")));
    args.add("x");
    if (!options.equals("--process-group")) {
      args.addAll(java.util.List.of("--", "true"));
    }
    Cli.Result r = Cli.run(args.toArray(new String[0]));

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err().strip().lines()).as(r.toString()).hasSize(1);
  }

  @Test
  void unknownCommand_suggestsTheNearestOne_andListsTheCommands_onOneLine() {
    Cli.Result r = Cli.run("lss");

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err().strip())
        .isEqualTo(
            "zklock: unknown command 'lss'; did you mean 'ls'?; the commands are demo, server, ls,"
                + " ui, exec, elect, release, bench, help (see 'zklock --help')");
  }

  @Test
  void docsCli_showsTheUsageErrorsAsTheCommandPrintsThem() throws Exception {
    String doc = java.nio.file.Files.readString(DocSnippetsTest.repo().resolve("docs/cli.md"));
    for (String[] args : new String[][] {{"frobnicate"}, {"ls", "-c", "zk1;zk2"}}) {
      Cli.Result r = Cli.run(args);

      assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
      assertThat(doc)
          .as("docs/cli.md shows what 'zklock %s' prints", String.join(" ", args))
          .contains("`" + r.err().strip() + "`");
    }
  }

  @Test
  void docsCli_exitCodeTable_isTheCommandsExitCodes() throws Exception {
    String doc = java.nio.file.Files.readString(DocSnippetsTest.repo().resolve("docs/cli.md"));
    String table = doc.substring(doc.indexOf("## Exit codes"), doc.indexOf("## Common options"));
    java.util.Set<Integer> documented = new java.util.TreeSet<>();
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("(?m)^\\| (\\d+) \\|").matcher(table);
    while (m.find()) {
      documented.add(Integer.parseInt(m.group(1)));
    }
    java.util.Set<Integer> codes = new java.util.TreeSet<>();
    for (java.lang.reflect.Field f : ExitCodes.class.getFields()) {
      codes.add(f.getInt(null));
    }
    assertThat(documented).as("the exit codes docs/cli.md lists").isEqualTo(codes);
  }

  @Test
  void unknownOption_atTheTop_isStillAnUnknownOption() {
    Cli.Result r = Cli.run("--frobnicate");

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("Unknown option: '--frobnicate'").doesNotContain("command");
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
