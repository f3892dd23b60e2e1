package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./zklock} launcher (issue 24): runs started at the same moment after a source change
 * build once, and every one of them runs its command. It runs here in a copy of the checkout's
 * layout whose {@code mvnw} is a stand-in: it takes a second, writes its jar in place, and fails as
 * the shade plugin does ("Could not replace original artifact") if another build of the module is
 * under way, so two builds at once fail the way they do for real.
 */
class LauncherTest {
  @TempDir Path root;
  @TempDir Path work;

  private Path buildLog;
  private Path source;

  /** A jar whose main prints {@code ran <args>}: what the stand-in build produces. */
  private Path tinyJar() throws IOException {
    Path src = work.resolve("src");
    Files.createDirectories(src);
    Files.writeString(
        src.resolve("Tiny.java"),
        "public class Tiny { public static void main(String[] a) {"
            + " System.out.println(\"ran \" + String.join(\" \", a)); } }");
    Path classes = work.resolve("classes");
    Files.createDirectories(classes);
    int rc =
        javax.tools.ToolProvider.getSystemJavaCompiler()
            .run(null, null, null, "-d", classes.toString(), src.resolve("Tiny.java").toString());
    assertThat(rc).as("javac").isZero();
    Manifest m = new Manifest();
    m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    m.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "Tiny");
    Path jar = work.resolve("tiny.jar");
    try (OutputStream out = Files.newOutputStream(jar);
        JarOutputStream j = new JarOutputStream(out, m)) {
      j.putNextEntry(new JarEntry("Tiny.class"));
      j.write(Files.readAllBytes(classes.resolve("Tiny.class")));
      j.closeEntry();
    }
    return jar;
  }

  @BeforeEach
  void checkoutWithAStandInBuild() throws Exception {
    Path launcher = root.resolve("zklock");
    Files.copy(DocSnippetsTest.repo().resolve("zklock"), launcher);
    Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
    buildLog = work.resolve("builds.log");
    Path mvnw = root.resolve("mvnw");
    Files.writeString(
        mvnw,
        String.join(
            "\n",
            "#!/usr/bin/env bash",
            "set -e",
            "echo \"build $$\" >> '" + buildLog + "'",
            "mkdir -p zklock-cli/target",
            "if ! mkdir zklock-cli/target/.building 2>/dev/null; then",
            "  echo 'Could not replace original artifact with shaded artifact!' >&2; exit 1",
            "fi",
            "sleep 1",
            "cp '" + tinyJar() + "' zklock-cli/target/zklock-cli.jar",
            "rmdir zklock-cli/target/.building",
            ""),
        StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(mvnw, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.writeString(root.resolve("pom.xml"), "<project/>\n");
    source = root.resolve("zklock-cli/src/main/java/io/zklock/cli/Main.java");
    Files.createDirectories(source.getParent());
    Files.writeString(source, "class Main {}\n");
  }

  private Process launch(Map<String, String> env, String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(root.resolve("zklock").toString());
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(work.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("ZKLOCK_"));
    pb.environment().putAll(env);
    return pb.start();
  }

  private record Run(int exitCode, String out, String err) {}

  private static Run finish(Process p) throws Exception {
    p.getOutputStream().close();
    // read both streams to their end (small outputs), then the status
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the launcher ends").isTrue();
    return new Run(p.exitValue(), out, err);
  }

  private int builds() throws IOException {
    return Files.exists(buildLog) ? Files.readAllLines(buildLog).size() : 0;
  }

  /**
   * Makes the source newer than the jar the launcher runs, as an edit does, but not in the future:
   * the jar the next build writes is newer again.
   */
  private void touchSource() throws IOException {
    FileTime jarTime;
    try (var built = Files.list(root.resolve("zklock-cli/target"))) {
      jarTime =
          built
              .filter(f -> f.toString().endsWith(".jar"))
              .map(f -> uncheckedMtime(f))
              .max(FileTime::compareTo)
              .orElseThrow();
    }
    FileTime edited = FileTime.fromMillis(jarTime.toMillis() + 10);
    assertThat(edited.toMillis())
        .as("the jar was built in the past")
        .isLessThan(System.currentTimeMillis());
    Files.setLastModifiedTime(source, edited);
  }

  private static FileTime uncheckedMtime(Path f) {
    try {
      return Files.getLastModifiedTime(f);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void runsStartedTogetherAfterASourceChange_buildOnce_andAllRunTheirCommand() throws Exception {
    Run first = finish(launch(Map.of(), "exec", "x"));
    assertThat(first.exitCode()).as(first.toString()).isZero();
    assertThat(first.out()).isEqualTo("ran exec x\n");
    assertThat(builds()).as("first use builds").isEqualTo(1);

    for (int trial = 1; trial <= 3; trial++) {
      touchSource();
      List<Process> runs = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        runs.add(launch(Map.of(), "exec", "job-" + i));
      }
      int building = 0;
      for (int i = 0; i < runs.size(); i++) {
        Run r = finish(runs.get(i));
        assertThat(r.exitCode()).as("trial %d, run %d: %s", trial, i, r).isZero();
        assertThat(r.out())
            .as("trial %d, run %d ran its command", trial, i)
            .isEqualTo("ran exec job-" + i + "\n");
        assertThat(r.err()).as("trial %d, run %d", trial, i).doesNotContain("failed");
        if (r.err().lines().anyMatch(l -> l.startsWith("building zklock"))) {
          building++;
        }
      }
      assertThat(builds()).as("trial %d: one build for three runs", trial).isEqualTo(1 + trial);
      assertThat(building).as("trial %d: one run says it builds", trial).isEqualTo(1);
    }
  }

  @Test
  void upToDate_runsWithoutBuildingOrLocking() throws Exception {
    assertThat(finish(launch(Map.of(), "ls")).exitCode()).isZero();

    Run again = finish(launch(Map.of(), "ls"));

    assertThat(again.exitCode()).isZero();
    assertThat(again.err()).isEmpty();
    assertThat(builds()).isEqualTo(1);
  }

  @Test
  void withoutFlock_aNeededBuild_failsClearly_andBuildsNothing() throws Exception {
    // a PATH with what the launcher needs, but no flock
    Path bin = work.resolve("bin");
    Files.createDirectories(bin);
    for (String tool :
        List.of(
            "bash",
            "env",
            "readlink",
            "dirname",
            "find",
            "head",
            "mktemp",
            "cat",
            "rm",
            "cp",
            "mv",
            "mkdir",
            "rmdir",
            "sleep")) {
      Path real = Path.of("/usr/bin", tool);
      if (!Files.exists(real)) {
        real = Path.of("/bin", tool);
      }
      Files.createSymbolicLink(bin.resolve(tool), real);
    }
    Files.createSymbolicLink(
        bin.resolve("java"), Path.of(System.getProperty("java.home"), "bin", "java"));

    Run r = finish(launch(Map.of("PATH", bin.toString()), "ls"));

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
    assertThat(r.err()).contains("zklock: flock(1) not found", "util-linux");
    assertThat(builds()).isZero();
  }
}
