package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code exec --shared}, {@code --permits}, {@code --nonblock}, {@code --conflict-exit-code}. */
class ExecKindsTest extends CliServerTestSupport {
  private CompletableFuture<Cli.Result> exec(String ns, String... rest) {
    List<String> args = new ArrayList<>(List.of("exec", "--connect", zk.connectString(), "-n", ns));
    args.addAll(List.of(rest));
    return CompletableFuture.supplyAsync(() -> Cli.run(args.toArray(new String[0])));
  }

  /** A command that marks itself started as {@code $DIR/<tag>.started} and waits for {@code go}. */
  private String[] holder(String tag) {
    String d = "'" + dir + "'";
    return new String[] {
      "sh",
      "-c",
      "touch " + d + "/" + tag + ".started; while [ ! -f " + d + "/go ]; do sleep 0.02; done"
    };
  }

  private boolean started(String tag) {
    return Files.exists(dir.resolve(tag + ".started"));
  }

  private int nodes(String path) throws Exception {
    int n = 0;
    for (String child : children(path)) {
      n += child.matches("[a-z]-.*") ? 1 : nodes(path + "/" + child);
    }
    return n;
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = new String[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private void awaitAll(List<CompletableFuture<Cli.Result>> runs) throws Exception {
    Files.createFile(dir.resolve("go"));
    for (CompletableFuture<Cli.Result> r : runs) {
      Cli.Result result = r.get(30, TimeUnit.SECONDS);
      assertThat(result.exitCode()).as(result.toString()).isZero();
    }
  }

  @Test
  void shared_twoHoldersAtOnce_exclusiveWaitsForBoth() throws Exception {
    String ns = namespace();
    CompletableFuture<Cli.Result> r1 =
        exec(ns, concat(new String[] {"--shared", "db", "--"}, holder("r1")));
    CompletableFuture<Cli.Result> r2 =
        exec(ns, concat(new String[] {"--shared", "db", "--"}, holder("r2")));
    await().atMost(Duration.ofSeconds(20)).until(() -> started("r1") && started("r2"));

    CompletableFuture<Cli.Result> w = exec(ns, concat(new String[] {"db", "--"}, holder("w")));
    await().atMost(Duration.ofSeconds(20)).until(() -> nodes(ns + "/db") == 3);
    assertThat(started("w")).as("plain exec waits while --shared holders run").isFalse();

    awaitAll(List.of(r1, r2, w));
    assertThat(started("w")).isTrue();
  }

  @Test
  void shared_waitsWhilePlainExecHolds() throws Exception {
    String ns = namespace();
    CompletableFuture<Cli.Result> w = exec(ns, concat(new String[] {"db", "--"}, holder("w")));
    await().atMost(Duration.ofSeconds(20)).until(() -> started("w"));

    CompletableFuture<Cli.Result> r =
        exec(ns, concat(new String[] {"--shared", "db", "--"}, holder("r")));
    await().atMost(Duration.ofSeconds(20)).until(() -> nodes(ns + "/db") == 2);
    assertThat(started("r")).as("--shared waits while plain exec holds").isFalse();

    awaitAll(List.of(w, r));
    assertThat(started("r")).isTrue();
  }

  @Test
  void permits_twoHoldersOfTwoPermits_theThirdWaits() throws Exception {
    String ns = namespace();
    CompletableFuture<Cli.Result> a =
        exec(ns, concat(new String[] {"--permits", "2", "pool", "--"}, holder("a")));
    CompletableFuture<Cli.Result> b =
        exec(ns, concat(new String[] {"--permits", "2", "pool", "--"}, holder("b")));
    await().atMost(Duration.ofSeconds(20)).until(() -> started("a") && started("b"));

    CompletableFuture<Cli.Result> c =
        exec(ns, concat(new String[] {"--permits", "2", "pool", "--"}, holder("c")));
    await().atMost(Duration.ofSeconds(20)).until(() -> nodes(ns + "/pool") >= 3);
    assertThat(started("c")).as("the third waits for a permit").isFalse();

    awaitAll(List.of(a, b, c));
    assertThat(started("c")).isTrue();
  }

  @Test
  void permits_nonblock_whenAllTaken_exitsWithTheConflictCode() throws Exception {
    String ns = namespace();
    CompletableFuture<Cli.Result> a =
        exec(ns, concat(new String[] {"--permits", "1", "pool", "--"}, holder("a")));
    await().atMost(Duration.ofSeconds(20)).until(() -> started("a"));

    Cli.Result r =
        exec(ns, "--permits", "1", "--nonblock", "--conflict-exit-code", "75", "pool", "--", "true")
            .get(20, TimeUnit.SECONDS);

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(75);
    assertThat(r.err()).contains("a permit of semaphore 'pool' is taken");
    awaitAll(List.of(a));
  }

  @Test
  void nonblock_whileHeld_exits3AtOnce_leavingNothingBehind() throws Exception {
    String ns = namespace();
    CompletableFuture<Cli.Result> a = exec(ns, concat(new String[] {"job", "--"}, holder("a")));
    await().atMost(Duration.ofSeconds(20)).until(() -> started("a"));

    long start = System.nanoTime();
    Cli.Result r =
        exec(ns, "--nonblock", "job", "--", "touch", dir.resolve("ran").toString())
            .get(20, TimeUnit.SECONDS);

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.TIMEOUT);
    assertThat(r.err().strip())
        .isEqualTo("zklock: lock 'job' is taken (--nonblock); nothing is left behind");
    assertThat(dir.resolve("ran")).as("the command did not run").doesNotExist();
    assertThat(nodes(ns + "/job")).as("only the holder's node").isEqualTo(1);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    awaitAll(List.of(a));
  }

  @Test
  void nonblock_whenFree_runsTheCommand() throws Exception {
    Cli.Result r =
        exec(namespace(), "--nonblock", "job", "--", "sh", "-c", "exit 7")
            .get(20, TimeUnit.SECONDS);

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(7);
  }

  @Test
  void timeout_withConflictExitCode_exitsWithThatCode() throws Exception {
    String ns = namespace();
    CompletableFuture<Cli.Result> a = exec(ns, concat(new String[] {"job", "--"}, holder("a")));
    await().atMost(Duration.ofSeconds(20)).until(() -> started("a"));

    Cli.Result r =
        exec(ns, "--timeout", "200ms", "--conflict-exit-code", "75", "job", "--", "true")
            .get(20, TimeUnit.SECONDS);
    Cli.Result ok =
        exec(ns, "--timeout", "200ms", "--conflict-exit-code", "0", "job", "--", "true")
            .get(20, TimeUnit.SECONDS);

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(75);
    assertThat(r.err()).contains("timed out after 200ms waiting for lock 'job'");
    assertThat(ok.exitCode()).as(ok.toString()).isZero();
    assertThat(ok.err()).as("0 made it a success: nothing to say").isEmpty();
    awaitAll(List.of(a));
  }

  @Test
  void shared_nonblock_whileWriterHolds_isAConflict() throws Exception {
    String ns = namespace();
    CompletableFuture<Cli.Result> a = exec(ns, concat(new String[] {"db", "--"}, holder("a")));
    await().atMost(Duration.ofSeconds(20)).until(() -> started("a"));

    Cli.Result r = exec(ns, "--shared", "--nonblock", "db", "--", "true").get(20, TimeUnit.SECONDS);

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.TIMEOUT);
    assertThat(r.err()).contains("read lock 'db' is taken");
    awaitAll(List.of(a));
  }

  @Test
  void lease_runsOut_commandGetsSigterm_exit4_andTheNextOneGetsTheLock() throws Exception {
    String ns = namespace();
    String d = "'" + dir + "'";
    String script =
        "trap 'touch "
            + d
            + "/term; exit 143' TERM; touch "
            + d
            + "/a.started;"
            + " while :; do sleep 0.02; done";
    Cli.Result r =
        exec(ns, "--lease", "500ms", "job", "--", "sh", "-c", script).get(30, TimeUnit.SECONDS);

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.LOCK_LOST);
    assertThat(r.err()).as(r.toString()).contains("lost lock 'job'", "lease ran out");
    assertThat(dir.resolve("term")).as("the command got SIGTERM").exists();
    Cli.Result next = exec(ns, "--nonblock", "job", "--", "true").get(30, TimeUnit.SECONDS);
    assertThat(next.exitCode()).as("the lease's end released the lock: " + next).isZero();
  }

  @Test
  void lease_longerThanTheCommand_isJustAnExec() throws Exception {
    Cli.Result r =
        exec(namespace(), "--lease", "1m", "job", "--", "sh", "-c", "exit 3")
            .get(30, TimeUnit.SECONDS);

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(3);
  }
}
