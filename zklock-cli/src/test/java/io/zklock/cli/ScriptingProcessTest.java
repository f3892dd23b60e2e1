package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code zklock} as cron jobs and scripts run it (issue 24), each case a separate process: what it
 * prints on stderr (cron mails any output) and the exit status a script branches on.
 */
class ScriptingProcessTest extends CliServerTestSupport {

  private Cli.Result run(String... args) throws Exception {
    return ZklockProcess.run(dir, Map.of(), args);
  }

  private ZklockProcess holdInBackground(String ns, String... rest) throws Exception {
    ZklockProcess p = ZklockProcess.start(dir, Map.of(), args("exec", ns, rest));
    await()
        .atMost(Duration.ofSeconds(30))
        .failFast(() -> !p.process.isAlive())
        .alias("the holder printed its token")
        .until(() -> p.stdout().contains("\n"));
    return p;
  }

  // ------------------------------------------------------------------ an empty COMMAND

  @ParameterizedTest
  @ValueSource(strings = {"with --", "without --"})
  void exec_emptyCommand_isAUsageError_namingTheHoldForm_andLocksNothing(String form)
      throws Exception {
    String ns = namespace();
    // `zklock exec nightly -- $CMD` with CMD empty
    Cli.Result r =
        form.equals("with --")
            ? run(args("exec", ns, "nightly", "--"))
            : run(args("exec", ns, "nightly"));

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.out()).as("no token: nothing was locked").isEmpty();
    assertThat(r.err().strip().lines()).as(r.toString()).hasSize(1);
    assertThat(r.err())
        .startsWith("zklock: a COMMAND is required")
        .contains("zklock exec --hold NAME");
    assertThat(observer.exists(ns, false)).as("did not even connect").isNull();
  }

  @Test
  void exec_holdWithACommand_isAUsageError() throws Exception {
    Cli.Result r = run(args("exec", namespace(), "--hold", "nightly", "--", "true"));

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("--hold takes no COMMAND");
  }

  // ------------------------------------------------------------------ skipped runs

  @Test
  void nonblock_taken_quiet_printsNothing_exits3() throws Exception {
    String ns = namespace();
    try (ZklockProcess holder = holdInBackground(ns, "--hold", "cronjob")) {
      Cli.Result r = run(args("exec", ns, "--nonblock", "--quiet", "cronjob", "--", "true"));

      assertThat(r.exitCode()).as(r.toString()).isEqualTo(3);
      assertThat(r.err()).as("a skipped run says nothing: cron mails any output").isEmpty();
      assertThat(r.out()).isEmpty();
      holder.stdin().close();
      assertThat(holder.await(30).exitCode()).isZero();
    }
  }

  @Test
  void nonblock_taken_conflictExitCode0_isASilentSuccess_likeFlockNE0() throws Exception {
    String ns = namespace();
    try (ZklockProcess holder = holdInBackground(ns, "--hold", "cronjob")) {
      Cli.Result r =
          run(
              args(
                  "exec",
                  ns,
                  "--nonblock",
                  "--conflict-exit-code",
                  "0",
                  "cronjob",
                  "--",
                  "touch",
                  dir.resolve("ran").toString()));

      assertThat(r.exitCode()).as(r.toString()).isZero();
      assertThat(r.err()).as("0 made skipping a success: nothing to report").isEmpty();
      assertThat(dir.resolve("ran")).as("the command did not run").doesNotExist();
      holder.stdin().close();
      holder.await(30);
    }
  }

  @Test
  void nonblock_taken_withoutQuiet_saysSo() throws Exception {
    String ns = namespace();
    try (ZklockProcess holder = holdInBackground(ns, "--hold", "cronjob")) {
      Cli.Result r = run(args("exec", ns, "--nonblock", "cronjob", "--", "true"));

      assertThat(r.exitCode()).as(r.toString()).isEqualTo(3);
      assertThat(r.err().strip())
          .isEqualTo("zklock: lock 'cronjob' is taken (--nonblock); nothing is left behind");
      holder.stdin().close();
      holder.await(30);
    }
  }

  @Test
  void timeout_quiet_printsNothing_exits3() throws Exception {
    String ns = namespace();
    try (ZklockProcess holder = holdInBackground(ns, "--hold", "cronjob")) {
      Cli.Result r = run(args("exec", ns, "--timeout", "300ms", "-q", "cronjob", "--", "true"));

      assertThat(r.exitCode()).as(r.toString()).isEqualTo(3);
      assertThat(r.err()).isEmpty();
      holder.stdin().close();
      holder.await(30);
    }
  }

  // ------------------------------------------------------------------ bad usage

  @Test
  void semaphore_otherPermitCount_isBadUsage_exit2() throws Exception {
    String ns = namespace();
    try (ZklockProcess holder = holdInBackground(ns, "--permits", "3", "--hold", "pool")) {
      Cli.Result r =
          run(args("exec", ns, "--permits", "2", "pool", "--", "touch", dir.resolve("ran") + ""));

      assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
      assertThat(r.err().strip().lines()).as(r.toString()).hasSize(1);
      assertThat(r.err()).contains("semaphore has 3 permits", "asked for 2");
      assertThat(dir.resolve("ran")).doesNotExist();
      holder.stdin().close();
      assertThat(holder.await(30).exitCode()).isZero();
    }
  }

  @Test
  void unknownCommand_namesIt_andListsTheCommands() throws Exception {
    Cli.Result r = run("frobnicate");

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err().strip())
        .isEqualTo(
            "zklock: unknown command 'frobnicate'; the commands are demo, server, ls, ui, exec,"
                + " elect, release, bench, help (see 'zklock --help')");
  }

  @Test
  void lockName_withAnEmoji_isRefusedNamingTheCharacter() throws Exception {
    Cli.Result r = run(args("exec", namespace(), "job-\uD83D\uDE00", "--", "true"));

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err())
        .contains("invalid character U+1F600 '\uD83D\uDE00'")
        .doesNotContain("\\ud83d");
  }

  @Test
  void lockName_zookeeper_underTheNamespace_isAnOrdinaryLock() throws Exception {
    String ns = namespace();
    Cli.Result r = run(args("exec", ns, "zookeeper", "--", "sh", "-c", "echo $ZKLOCK_NAME"));

    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out()).isEqualTo("zookeeper\n");
  }
}
