package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.testkit.EmbeddedZooKeeper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The commands as separate processes, stopped by SIGTERM (what Ctrl-C does, through the hook). */
class SignalsTest {
  @TempDir Path dir;
  private final List<Process> started = new ArrayList<>();

  @AfterEach
  void killLeftovers() {
    started.forEach(Process::destroyForcibly);
  }

  private Process zklock(String... args) throws IOException {
    List<String> cmd = new ArrayList<>(ZklockProcess.sigintRestored());
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(Main.class.getName());
    cmd.addAll(List.of(args));
    Process p =
        new ProcessBuilder(cmd)
            .redirectError(Redirect.appendTo(dir.resolve("stderr").toFile()))
            .start();
    started.add(p);
    return p;
  }

  private String stderr() throws IOException {
    return Files.readString(dir.resolve("stderr"), StandardCharsets.UTF_8);
  }

  @Test
  void server_sigterm_stopsAndDeletesItsData() throws Exception {
    // --until-stdin-closes: if this JVM is killed, the server's stdin closes and it stops too
    Process server = zklock("server", "--port", "0", "--until-stdin-closes");
    String connect;
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))) {
      connect = out.readLine();
      assertThat(connect).as("first stdout line").matches("127\\.0\\.0\\.1:\\d+");
      await().atMost(Duration.ofSeconds(10)).until(() -> stderr().contains("data in "));
      String dataDir = stderr().replaceAll("(?s).*data in (\\S+).*", "$1");
      assertThat(Path.of(dataDir)).exists();

      server.destroy(); // SIGTERM

      assertThat(server.waitFor(30, TimeUnit.SECONDS)).as("server exits").isTrue();
      assertThat(stderr()).contains("server stopped, data deleted");
      assertThat(Path.of(dataDir)).doesNotExist();
    }
  }

  /**
   * What the kernel does to the server's stdin when the process that started it ends, however it
   * ends (a build killed by its time-out): the pipe closes, and the server stops and deletes its
   * data as on SIGTERM.
   */
  @Test
  void server_untilStdinCloses_stopsWhenItsStdinCloses() throws Exception {
    Process server = zklock("server", "--port", "0", "--until-stdin-closes");
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))) {
      assertThat(out.readLine()).as("first stdout line").matches("127\\.0\\.0\\.1:\\d+");
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> stderr().contains("data in "));
    String dataDir = stderr().replaceAll("(?s).*data in (\\S+).*", "$1");

    server.getOutputStream().close();

    assertThat(server.waitFor(30, TimeUnit.SECONDS)).as("server exits").isTrue();
    assertThat(server.exitValue()).isZero();
    assertThat(stderr()).contains("server stopped, data deleted");
    assertThat(Path.of(dataDir)).doesNotExist();
  }

  @ParameterizedTest
  @CsvSource({"TERM, 143", "INT, 130"})
  void exec_signal_stopsTheCommand_releasesTheLock_exits128PlusTheSignal(
      String signal, int exitCode) throws Exception {
    try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.standalone().start();
        ZooKeeperCloser observer =
            new ZooKeeperCloser(new ZooKeeper(zk.connectString(), 10_000, e -> {}))) {
      String script =
          "trap 'echo terminated > \"$0\"/term; exit 143' TERM; touch \"$0\"/started;"
              + " while :; do sleep 0.02; done";
      Process exec =
          zklock(
              "exec",
              "--connect",
              zk.connectString(),
              "x",
              "--",
              "sh",
              "-c",
              script,
              dir.toString());
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(dir.resolve("started")));
      assertThat(observer.zk.getChildren("/zklock/x", false)).hasSize(1);

      Process kill =
          new ProcessBuilder("kill", "-s", signal, Long.toString(exec.pid())).inheritIO().start();
      assertThat(kill.waitFor()).isZero();

      assertThat(exec.waitFor(30, TimeUnit.SECONDS)).as("zklock exits").isTrue();
      assertThat(exec.exitValue()).as("SIG%s: %s", signal, stderr()).isEqualTo(exitCode);
      assertThat(dir.resolve("term")).as("the command got SIGTERM").exists();
      await().atMost(Duration.ofSeconds(10)).until(() -> observer.isEmpty("/zklock/x"));
    }
  }

  private record ZooKeeperCloser(ZooKeeper zk) implements AutoCloseable {
    /** True when the directory has no children or is gone (the server reaps empty containers). */
    boolean isEmpty(String path) throws Exception {
      try {
        return zk.getChildren(path, false).isEmpty();
      } catch (org.apache.zookeeper.KeeperException.NoNodeException e) {
        return true;
      }
    }

    @Override
    public void close() throws InterruptedException {
      zk.close();
    }
  }
}
