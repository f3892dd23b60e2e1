package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ExecCommandTest extends CliServerTestSupport {
  private CompletableFuture<Cli.Result> exec(String namespace, String... rest) {
    String[] args = args("exec", namespace, rest);
    return CompletableFuture.supplyAsync(() -> Cli.run(args));
  }

  private String sh(String script) {
    return script.replace("$DIR", "'" + dir + "'");
  }

  private int queued(String lockDir) throws Exception {
    return children(lockDir).size();
  }

  @Test
  void twoInvocations_areSerialised_andEachSeesNameAndIncreasingToken() throws Exception {
    String ns = namespace();
    String script =
        "echo \"$1 start $ZKLOCK_NAME $ZKLOCK_TOKEN\" >> $DIR/log; touch $DIR/$1.started;"
            + " while [ ! -f $DIR/$1.go ]; do sleep 0.02; done; echo \"$1 end\" >> $DIR/log";
    CompletableFuture<Cli.Result> a =
        exec(ns, "jobs/nightly", "--", "sh", "-c", sh(script), "sh", "A");
    await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(dir.resolve("A.started")));

    Files.createFile(dir.resolve("B.go")); // B may finish as soon as it runs
    CompletableFuture<Cli.Result> b =
        exec(ns, "jobs/nightly", "--", "sh", "-c", sh(script), "sh", "B");
    await().atMost(Duration.ofSeconds(20)).until(() -> queued(ns + "/jobs/nightly") == 2);
    assertThat(dir.resolve("B.started")).as("B runs while A holds the lock").doesNotExist();

    Files.createFile(dir.resolve("A.go"));
    Cli.Result ra = a.get(20, TimeUnit.SECONDS);
    Cli.Result rb = b.get(20, TimeUnit.SECONDS);

    assertThat(ra.exitCode()).as(ra.toString()).isZero();
    assertThat(rb.exitCode()).as(rb.toString()).isZero();
    List<String> log = Files.readAllLines(dir.resolve("log"), StandardCharsets.UTF_8);
    assertThat(log).hasSize(4);
    assertThat(log.get(0)).startsWith("A start jobs/nightly ");
    assertThat(log.get(1)).isEqualTo("A end");
    assertThat(log.get(2)).startsWith("B start jobs/nightly ");
    assertThat(log.get(3)).isEqualTo("B end");
    long tokenA = Long.parseLong(log.get(0).split(" ")[3]);
    long tokenB = Long.parseLong(log.get(2).split(" ")[3]);
    assertThat(tokenB).as("fencing tokens increase across holders").isGreaterThan(tokenA);
    await().atMost(Duration.ofSeconds(10)).until(() -> queued(ns + "/jobs/nightly") == 0);
  }

  @Test
  void exitStatus_isTheCommands() throws Exception {
    Cli.Result r = exec(namespace(), "x", "--", "sh", "-c", "exit 42").get(20, TimeUnit.SECONDS);

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(42);
  }

  @Test
  void commandNotFound_exit127_andTheLockIsReleased() throws Exception {
    String ns = namespace();
    Cli.Result r =
        exec(ns, "x", "--", dir.resolve("no-such-program").toString()).get(20, TimeUnit.SECONDS);

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.CANNOT_RUN);
    assertThat(r.err()).startsWith("zklock: cannot run ");
    assertThat(queued(ns + "/x")).isZero();
  }

  @Test
  void timeout_whileAnotherHolds_exit3_withOneLine() throws Exception {
    String ns = namespace();
    CompletableFuture<Cli.Result> holder =
        exec(
            ns,
            "x",
            "--",
            "sh",
            "-c",
            sh("touch $DIR/held; while [ ! -f $DIR/go ]; do sleep 0.02; done"));
    await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(dir.resolve("held")));

    Cli.Result r = exec(ns, "x", "--timeout", "300ms", "--", "true").get(20, TimeUnit.SECONDS);

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.TIMEOUT);
    assertThat(r.err().strip()).isEqualTo("zklock: timed out after 300ms waiting for lock 'x'");
    Files.createFile(dir.resolve("go"));
    assertThat(holder.get(20, TimeUnit.SECONDS).exitCode()).isZero();
  }

  @Test
  void lockLost_sessionExpired_commandGetsSigterm_exit4() throws Exception {
    String ns = namespace();
    String script =
        "trap 'echo terminated > $DIR/term; exit 143' TERM; touch $DIR/started;"
            + " while :; do sleep 0.02; done";
    CompletableFuture<Cli.Result> run = exec(ns, "x", "--", "sh", "-c", sh(script));
    await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(dir.resolve("started")));

    zk.expireSession(sessionOfHolder(ns + "/x"));
    Cli.Result r = run.get(30, TimeUnit.SECONDS);

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.LOCK_LOST);
    assertThat(r.err()).as(r.toString()).contains("zklock: lost lock 'x'").contains("terminating");
    assertThat(dir.resolve("term")).as("the command received SIGTERM").exists();
  }

  @Test
  void lockLost_commandIgnoresSigterm_isKilledAfterGrace() throws Exception {
    String ns = namespace();
    String script = "trap '' TERM; touch $DIR/started; while :; do sleep 0.02; done";
    CompletableFuture<Cli.Result> run =
        exec(ns, "x", "--grace", "300ms", "--", "sh", "-c", sh(script));
    await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(dir.resolve("started")));

    observer.delete(ns + "/x/" + observer.getChildren(ns + "/x", false).get(0), -1); // forced
    Cli.Result r = run.get(30, TimeUnit.SECONDS);

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.LOCK_LOST);
    assertThat(r.err()).as(r.toString()).contains("deleted").contains("sending SIGKILL");
  }

  private static long sessionOfHolder(String lockDir) throws Exception {
    String child = observer.getChildren(lockDir, false).get(0);
    return observer.exists(lockDir + "/" + child, false).getEphemeralOwner();
  }
}
