package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code exec} as a process: hold mode ({@code --hold}), signals while waiting and while holding
 * and their exit codes, process groups; {@code server}.
 */
class ExecProcessTest extends CliServerTestSupport {
  private ZklockProcess exec(String ns, String... rest) throws Exception {
    String[] args = args("exec", ns, rest);
    return ZklockProcess.start(dir, Map.of(), args);
  }

  private int queued(String lockDir) throws Exception {
    return children(lockDir).size();
  }

  private static long tokenOfHolder(String lockDir) throws Exception {
    List<String> children = observer.getChildren(lockDir, false);
    children.sort(null);
    return observer.exists(lockDir + "/" + children.get(0), false).getCzxid();
  }

  private String firstLine(ZklockProcess p) throws Exception {
    await()
        .atMost(Duration.ofSeconds(30))
        .failFast(() -> !p.process.isAlive())
        .alias("the first line on stdout")
        .until(() -> p.stdout().contains("\n"));
    return p.stdout().lines().findFirst().orElseThrow();
  }

  @Test
  void holdMode_printsTheToken_holdsUntilStdinCloses() throws Exception {
    String ns = namespace();
    try (ZklockProcess hold = exec(ns, "--hold", "job")) {
      String token = firstLine(hold);

      assertThat(token).as("stdout: the fencing token").matches("\\d+");
      assertThat(queued(ns + "/job")).isEqualTo(1);
      assertThat(Long.parseLong(token)).isEqualTo(tokenOfHolder(ns + "/job"));
      assertThat(hold.process.waitFor(300, TimeUnit.MILLISECONDS))
          .as("exited (released) while stdin is open")
          .isFalse();
      assertThat(queued(ns + "/job")).as("still holding while stdin is open").isEqualTo(1);

      hold.stdin().close();

      Cli.Result r = hold.await(30);
      assertThat(r.exitCode()).as(r.toString()).isZero();
      assertThat(queued(ns + "/job")).as("released").isZero();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"TERM", "INT"})
  void holdMode_signal_releases_andExits0(String signal) throws Exception {
    // a signal is how a hold is meant to end: the lock is released, and that is a success
    for (int trial = 0; trial < 2; trial++) {
      String ns = namespace();
      try (ZklockProcess hold = exec(ns, "--hold", "job")) {
        firstLine(hold);
        assertThat(queued(ns + "/job")).isEqualTo(1);

        hold.signal(signal);

        Cli.Result r = hold.await(30);
        assertThat(r.exitCode()).as("SIG%s, trial %d: %s", signal, trial, r).isZero();
        assertThat(queued(ns + "/job")).as("released before it exited").isZero();
      }
    }
  }

  @Test
  void holdMode_lockLost_exits4() throws Exception {
    String ns = namespace();
    try (ZklockProcess hold = exec(ns, "--hold", "job")) {
      firstLine(hold);

      observer.delete(ns + "/job/" + observer.getChildren(ns + "/job", false).get(0), -1);

      Cli.Result r = hold.await(30);
      assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.LOCK_LOST);
      assertThat(r.err()).contains("zklock: lost lock 'job'");
    }
  }

  @ParameterizedTest
  @CsvSource({"INT, 130", "TERM, 143"})
  void signal_whileWaiting_saysCancelled_exits128PlusTheSignal_andLeavesNothingBehind(
      String signal, int exitCode) throws Exception {
    String ns = namespace();
    try (ZklockProcess holder = exec(ns, "--hold", "job")) {
      firstLine(holder);
      try (ZklockProcess waiter = exec(ns, "job", "--", "touch", dir.resolve("ran").toString())) {
        cancelWhileWaiting(ns, holder, waiter, signal, exitCode);
      }
    }
  }

  @Test
  void holdMode_signal_whileWaiting_isACancel_notASuccess() throws Exception {
    String ns = namespace();
    try (ZklockProcess holder = exec(ns, "--hold", "job")) {
      firstLine(holder);
      try (ZklockProcess waiter = exec(ns, "--hold", "job")) {
        cancelWhileWaiting(ns, holder, waiter, "TERM", ExitCodes.TERMINATED);
        assertThat(waiter.stdout()).as("no token: it never held").isEmpty();
      }
    }
  }

  private void cancelWhileWaiting(
      String ns, ZklockProcess holder, ZklockProcess waiter, String signal, int exitCode)
      throws Exception {
    await().atMost(Duration.ofSeconds(30)).until(() -> queued(ns + "/job") == 2);

    waiter.signal(signal);

    Cli.Result r = waiter.await(30);
    assertThat(r.exitCode()).as(r.toString()).isEqualTo(exitCode);
    assertThat(r.err().strip())
        .as(r.toString())
        .isEqualTo(
            "zklock: cancelled while waiting for lock 'job'; the request was withdrawn, nothing"
                + " is left behind")
        .doesNotContain("closed");
    assertThat(queued(ns + "/job")).as("only the holder's node is left").isEqualTo(1);
    assertThat(dir.resolve("ran")).doesNotExist();
    holder.stdin().close();
    assertThat(holder.await(30).exitCode()).isZero();
  }

  @Test
  void processGroup_lockLost_backgroundJobsAreSignalledToo() throws Exception {
    String ns = namespace();
    Path bgPid = dir.resolve("bg.pid");
    // the command starts a background job (a grandchild of zklock) and waits
    String script =
        "sh -c 'while :; do sleep 0.05; done' & echo $! > '"
            + bgPid
            + "'; while :; do sleep 0.05; done";
    try (ZklockProcess run =
        exec(ns, "--process-group", "--grace", "5s", "job", "--", "sh", "-c", script)) {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> Files.exists(bgPid) && Files.size(bgPid) > 0);
      long pid = Long.parseLong(Files.readString(bgPid, StandardCharsets.UTF_8).strip());
      assertThat(ProcessHandle.of(pid)).isPresent();

      observer.delete(ns + "/job/" + observer.getChildren(ns + "/job", false).get(0), -1);

      Cli.Result r = run.await(30);
      assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.LOCK_LOST);
      assertThat(r.err()).contains("its process group");
      await()
          .atMost(Duration.ofSeconds(10))
          .alias("the background job got SIGTERM with its group")
          .until(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
    }
  }

  @Test
  void server_inCommandSubstitution_returnsTheConnectString() throws Exception {
    Path pidFile = dir.resolve("server.pid");
    StringBuilder java = new StringBuilder();
    for (String word :
        ZklockProcess.commandLine("server", "--port", "0", "--pid-file", pidFile.toString())) {
      java.append('\'').append(word.replace("'", "'\\''")).append("' ");
    }
    // as docs/cli.md shows: CS=$(zklock server &)
    String script = "CS=$(" + java + "2>/dev/null &); echo \"CS=$CS\"";
    Process sh = new ProcessBuilder("sh", "-c", script).redirectErrorStream(true).start();
    try {
      String line;
      try (BufferedReader out =
          new BufferedReader(new InputStreamReader(sh.getInputStream(), StandardCharsets.UTF_8))) {
        assertThat(sh.waitFor(60, TimeUnit.SECONDS))
            .as("CS=$(zklock server &) returns once the connect string is printed")
            .isTrue();
        line = out.readLine();
      }
      assertThat(line).matches("CS=127\\.0\\.0\\.1:\\d+");
      Cli.Result ls = Cli.run("ls", "--connect", line.substring(3));
      assertThat(ls.exitCode()).as("the server still serves: " + ls).isZero();
      long pid = Long.parseLong(Files.readString(pidFile, StandardCharsets.UTF_8).strip());
      new ProcessBuilder("kill", Long.toString(pid)).start().waitFor(); // as docs/cli.md shows
      ProcessHandle.of(pid).ifPresent(h -> h.onExit().join());
      assertThat(pidFile).as("deleted when the server stops").doesNotExist();
    } finally {
      sh.destroyForcibly();
      if (Files.exists(pidFile)) {
        long pid = Long.parseLong(Files.readString(pidFile, StandardCharsets.UTF_8).strip());
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
        ProcessHandle.of(pid).ifPresent(h -> h.onExit().join());
      }
    }
  }
}
