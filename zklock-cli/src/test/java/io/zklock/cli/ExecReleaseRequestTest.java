package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code zklock release --request} reaches a command run by {@code exec} (issue 24), as {@code
 * --on-release-request} says: stopped (SIGTERM, the default), sent a signal of its choice, or only
 * told on stderr. Real processes: zklock, and a shell that traps the signals.
 */
class ExecReleaseRequestTest extends CliServerTestSupport {

  /**
   * A command that records each of TERM and USR1 it hears in {@code $DIR/<signal>}, marks itself
   * started, and runs until SIGTERM (exit 7) or until {@code $DIR/go} exists (exit 0).
   */
  private String[] trapping() {
    String d = "'" + dir + "'";
    return new String[] {
      "sh",
      "-c",
      "trap 'touch "
          + d
          + "/TERM; exit 7' TERM; trap 'touch "
          + d
          + "/USR1' USR1; touch "
          + d
          + "/started; while [ ! -f "
          + d
          + "/go ]; do sleep 0.02; done"
    };
  }

  private ZklockProcess exec(String ns, String... options) throws Exception {
    List<String> rest = new ArrayList<>(List.of(options));
    rest.add("job");
    rest.add("--");
    rest.addAll(List.of(trapping()));
    ZklockProcess p =
        ZklockProcess.start(dir, Map.of(), args("exec", ns, rest.toArray(new String[0])));
    p.awaitUntil("its command started", () -> Files.exists(dir.resolve("started")));
    return p;
  }

  /**
   * {@code zklock release --request job}, run in this JVM: the command under test is {@code exec}'s
   * process, and a second cold JVM per case only doubled the CPU each case needs.
   */
  private void requestRelease(String ns) throws Exception {
    Cli.Result r = Cli.run(args("release", ns, "--request", "job"));
    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out()).contains("asked to release: mutex");
  }

  private int nodes(String ns) throws Exception {
    return children(ns + "/job").size();
  }

  @Test
  void byDefault_theCommandGetsSigterm_andZklockExitsWithItsStatus() throws Exception {
    String ns = namespace();
    try (ZklockProcess p = exec(ns)) {
      requestRelease(ns);

      Cli.Result r = p.awaitExit();
      assertThat(dir.resolve("TERM")).as("the command heard SIGTERM").exists();
      assertThat(r.exitCode()).as("the command's own status: " + r).isEqualTo(7);
      assertThat(r.err())
          .contains("zklock: release of lock 'job' requested; stopping the command (pid");
      assertThat(nodes(ns)).as("released once the command ended").isZero();
    }
  }

  @Test
  void signalUsr1_theCommandDecides_andKeepsTheLockUntilItExits() throws Exception {
    String ns = namespace();
    try (ZklockProcess p = exec(ns, "--on-release-request", "signal:USR1")) {
      requestRelease(ns);

      p.awaitUntil("the command heard SIGUSR1", () -> Files.exists(dir.resolve("USR1")));
      assertThat(p.process.isAlive()).as("it decides when to exit").isTrue();
      assertThat(nodes(ns)).as("still held").isEqualTo(1);
      Files.createFile(dir.resolve("go"));

      Cli.Result r = p.awaitExit();
      assertThat(r.exitCode()).as(r.toString()).isZero();
      assertThat(dir.resolve("TERM")).as("no SIGTERM").doesNotExist();
      assertThat(r.err()).contains("requested; sending SIGUSR1 to the command (pid");
      assertThat(nodes(ns)).isZero();
    }
  }

  @Test
  void log_onlySaysSo_theCommandRunsOn() throws Exception {
    String ns = namespace();
    try (ZklockProcess p = exec(ns, "--on-release-request", "log")) {
      requestRelease(ns);

      p.awaitUntil(
          "saying the request was logged",
          () -> p.stderr().contains("requested (--on-release-request log)"));
      assertThat(p.process.isAlive()).isTrue();
      Files.createFile(dir.resolve("go"));

      Cli.Result r = p.awaitExit();
      assertThat(r.exitCode()).as(r.toString()).isZero();
      assertThat(dir.resolve("TERM")).doesNotExist();
      assertThat(dir.resolve("USR1")).doesNotExist();
    }
  }

  @Test
  void ignore_saysNothing_theCommandRunsOn() throws Exception {
    String ns = namespace();
    try (ZklockProcess p = exec(ns, "--on-release-request", "ignore")) {
      requestRelease(ns);
      Cli.Result ls = Cli.run(args("ls", ns));
      assertThat(ls.out()).as("the request is on the node").contains("holds (release requested)");

      await()
          .alias("the command runs on, unsignalled")
          .during(Duration.ofSeconds(1))
          .atMost(Duration.ofSeconds(5))
          .until(() -> p.process.isAlive() && !Files.exists(dir.resolve("TERM")));
      Files.createFile(dir.resolve("go"));

      Cli.Result r = p.awaitExit();
      assertThat(r.exitCode()).as(r.toString()).isZero();
      assertThat(r.err()).isEmpty();
      assertThat(dir.resolve("TERM")).doesNotExist();
    }
  }

  @Test
  void holdMode_releasesAndExits0_onARequest() throws Exception {
    String ns = namespace();
    try (ZklockProcess hold =
        ZklockProcess.start(dir, Map.of(), args("exec", ns, "--hold", "job"))) {
      hold.awaitUntil("holding", () -> hold.stdout().contains("\n"));

      requestRelease(ns);

      Cli.Result r = hold.awaitExit();
      assertThat(r.exitCode()).as(r.toString()).isZero();
      assertThat(r.err()).contains("zklock: release of lock 'job' requested; releasing it");
      assertThat(nodes(ns)).isZero();
    }
  }

  @Test
  void badAction_isAUsageError() throws Exception {
    Cli.Result r =
        ZklockProcess.run(
            dir,
            Map.of(),
            args("exec", namespace(), "--on-release-request", "signal:FOO", "job", "--", "true"));

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("'signal:FOO' names no signal");
  }
}
