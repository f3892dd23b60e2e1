package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution this build made ({@code target/zklock-cli-VERSION-dist.tar.gz}), as an operator
 * gets it: unpacked anywhere, it holds the launcher, the jar, the completion script and the manual,
 * every file readable by all; the tool it holds runs with no checkout, as another user too, starts
 * a server, lists its locks, refuses a malformed connect string with 2 and says where the
 * benchmarks run; its jar carries none of the benchmarks' peers. Runs after {@code package}
 * (surefire's {@code distribution} execution, in {@code verify}); {@code ./zklock install} itself
 * is LauncherTest's.
 */
class DistributionIT {
  @TempDir Path dir;

  private record Run(int exitCode, String out, String err) {}

  private static Run run(List<String> cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).directory(new java.io.File("/")).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("%s ends", cmd).isTrue();
    return new Run(p.exitValue(), out, err);
  }

  private static String version() throws Exception {
    return ReadmeCoordinatesTest.projectVersion();
  }

  /** The archive unpacked into {@code dir}; returns its top directory. */
  private Path unpacked() throws Exception {
    Path archive =
        DocSnippetsTest.repo()
            .resolve("zklock-cli/target/zklock-cli-" + version() + "-dist.tar.gz");
    assertThat(archive).as("the distribution archive (built by package)").exists();
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    Run tar = run(List.of("tar", "-xzf", archive.toString(), "-C", dir.toString()));
    assertThat(tar.exitCode()).as(tar.toString()).isZero();
    return dir.resolve("zklock-" + version());
  }

  @Test
  void archive_holdsTheTool_readableByAll_withoutTheBenchmarksPeers() throws Exception {
    Path top = unpacked();

    for (String[] f :
        new String[][] {
          {"bin/zklock", "rwxr-xr-x"},
          {"lib/zklock/zklock-cli.jar", "rw-r--r--"},
          {"share/bash-completion/completions/zklock", "rw-r--r--"},
          {"share/doc/zklock/cli.md", "rw-r--r--"},
          {"share/doc/zklock/README", "rw-r--r--"},
          {"share/doc/zklock/LICENSE", "rw-r--r--"},
          {"share/doc/zklock/NOTICE", "rw-r--r--"}
        }) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(top.resolve(f[0]))))
          .as(f[0])
          .isEqualTo(f[1]);
    }
    assertThat(Files.readString(top.resolve("share/doc/zklock/README")))
        .contains("zklock " + version());

    List<String> peers = new ArrayList<>();
    try (ZipFile jar = new ZipFile(top.resolve("lib/zklock/zklock-cli.jar").toFile())) {
      jar.stream()
          .map(e -> e.getName())
          .filter(
              n ->
                  n.startsWith("org/apache/curator/")
                      || n.startsWith("org/redisson/")
                      || n.startsWith("io/etcd/")
                      || n.startsWith("org/bouncycastle/")
                      || n.startsWith("io/zklock/bench/")
                      || n.startsWith("META-INF/native/libnetty_tcnative"))
          .limit(5)
          .forEach(peers::add);
    }
    assertThat(peers)
        .as("the benchmarks' peers and unused native code are not in the tool")
        .isEmpty();
    long bytes = Files.size(top.resolve("lib/zklock/zklock-cli.jar"));
    System.out.printf("DistributionIT: zklock-cli.jar %.1f MB%n", bytes / 1e6);
    assertThat(bytes).as("the jar's size (64 MB with the benchmarks)").isLessThan(20_000_000L);
  }

  // Seven tool JVMs one after another and a server's: about 4 s of CPU in all, measured (0.35-0.45
  // s
  // for --version, generate-completion, bench and the bad connect string, 0.8 s for the server to
  // start and for each ls). The verify loop beside other builds gave a test's JVMs about 5% of a
  // core (ExecReleaseRequestTest: some 10 s of CPU in 192 s), at which they take 80 s, past the
  // default time-out of 60 s (hit at 61.8 s in that loop); three minutes leave more than twice
  // that.
  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void installedTool_runsWithoutACheckout_serverLsBenchAndABadConnectString() throws Exception {
    Path top = unpacked();
    String zklock = top.resolve("bin/zklock").toString();

    Run version = run(List.of(zklock, "--version"));
    assertThat(version.exitCode()).as(version.toString()).isZero();
    assertThat(version.out()).startsWith("zklock " + version() + "\n");

    Run completion = run(List.of(zklock, "generate-completion"));
    assertThat(completion.exitCode()).as(completion.toString()).isZero();
    assertThat(completion.out().strip())
        .as("the installed completion script is the one the command generates")
        .isEqualTo(
            Files.readString(top.resolve("share/bash-completion/completions/zklock")).strip())
        .contains("exec", "elect", "release", "ui");

    Run bench = run(List.of(zklock, "bench", "--quick"));
    assertThat(bench.exitCode()).as(bench.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(bench.err()).contains("./zklock bench");

    Run bad = run(List.of(zklock, "ls", "-c", "zk1;zk2"));
    assertThat(bad.exitCode()).as(bad.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(bad.err()).startsWith("zklock: bad connect string 'zk1;zk2'");

    Path pidFile = dir.resolve("zk.pid");
    // its stdin is a pipe from this JVM, which the kernel closes when this JVM ends however it
    // ends (a build killed by its CI's time-out too): then the server stops, never orphaned
    Process server =
        new ProcessBuilder(
                zklock,
                "server",
                "--port",
                "0",
                "--pid-file",
                pidFile.toString(),
                "--until-stdin-closes")
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    try {
      String connect;
      try (BufferedReader out =
          new BufferedReader(
              new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))) {
        connect = out.readLine();
      }
      assertThat(connect)
          .as("the server's connect string on stdout")
          .matches("127\\.0\\.0\\.1:\\d+");
      Run ls = run(List.of(zklock, "ls", "-c", connect));
      assertThat(ls.exitCode()).as(ls.toString()).isZero();
      assertThat(ls.out()).contains("no locks under /zklock");

      if (runsAsRootWithSu()) {
        Run other =
            run(List.of("su", "nobody", "-s", "/bin/sh", "-c", zklock + " ls -c " + connect));
        assertThat(other.exitCode()).as("as the user nobody: %s", other).isZero();
        assertThat(other.out()).contains("no locks under /zklock");
      }
    } finally {
      server.destroy();
      assertThat(server.waitFor(30, TimeUnit.SECONDS)).as("the server stops on SIGTERM").isTrue();
    }
  }

  private static boolean runsAsRootWithSu() throws IOException, InterruptedException {
    if (!"root".equals(System.getProperty("user.name"))
        || !(Files.isExecutable(Path.of("/usr/bin/su"))
            || Files.isExecutable(Path.of("/bin/su")))) {
      return false;
    }
    Process id = new ProcessBuilder("id", "-u", "nobody").start();
    return id.waitFor(10, TimeUnit.SECONDS) && id.exitValue() == 0;
  }
}
