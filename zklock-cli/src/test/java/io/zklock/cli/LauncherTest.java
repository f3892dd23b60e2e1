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
 * The {@code ./zklock} launcher of a checkout: runs started at the same moment after a source
 * change build once, and every one of them runs its command; a build happens only when a module the
 * jar is made of changed, says nothing under {@code --quiet}, and leaves a jar every user can read;
 * {@code ./zklock bench} builds and runs the benchmarks' own jar; {@code ./zklock install} lays the
 * distribution out in a prefix, where it runs for any user without the checkout and never builds.
 * It runs here in a copy of the checkout's layout whose {@code mvnw} is a stand-in: it takes a
 * second, writes the jar of the module it is asked for ({@code -pl}) in place (for zklock-cli also
 * a distribution archive around the real installed launcher), and fails as the shade plugin does
 * ("Could not replace original artifact") if another build of the module is under way, so two
 * builds at once fail the way they do for real.
 */
class LauncherTest {
  private static final String VERSION = "1.2.3-SNAPSHOT";

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
    Path tiny = tinyJar();
    Path installed = DocSnippetsTest.repo().resolve("zklock-cli/src/dist/bin/zklock");
    String dist = "d=$(mktemp -d)/zklock-" + VERSION;
    Files.writeString(
        mvnw,
        String.join(
            "\n",
            "#!/usr/bin/env bash",
            "set -e",
            "pl=; prev=",
            "for a in \"$@\"; do [[ \"$prev\" == -pl ]] && pl=\"$a\"; prev=\"$a\"; done",
            "echo \"build $$ $pl\" >> '" + buildLog + "'",
            "mkdir -p \"$pl/target\"",
            "if ! mkdir \"$pl/target/.building\" 2>/dev/null; then",
            "  echo 'Could not replace original artifact with shaded artifact!' >&2; exit 1",
            "fi",
            "sleep 1",
            "cp '" + tiny + "' \"$pl/target/$pl.jar\"",
            "if [[ \"$pl\" == zklock-cli ]]; then",
            "  " + dist,
            "  mkdir -p \"$d/bin\" \"$d/lib/zklock\" \"$d/share/bash-completion/completions\""
                + " \"$d/share/doc/zklock\"",
            "  cp '" + installed + "' \"$d/bin/zklock\"",
            "  cp '" + tiny + "' \"$d/lib/zklock/zklock-cli.jar\"",
            "  echo '# completion' > \"$d/share/bash-completion/completions/zklock\"",
            "  echo '# manual' > \"$d/share/doc/zklock/cli.md\"",
            "  tar -czf \"$pl/target/zklock-cli-"
                + VERSION
                + "-dist.tar.gz\" -C \"$(dirname \"$d\")\""
                + " \"zklock-"
                + VERSION
                + "\"",
            "fi",
            "rmdir \"$pl/target/.building\"",
            ""),
        StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(mvnw, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.writeString(
        root.resolve("pom.xml"), "<project>\n  <version>" + VERSION + "</version>\n</project>\n");
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
            "chmod",
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

  // --- which changes build, what a build says, who can run the result ---

  private int builds(String module) throws IOException {
    return Files.exists(buildLog)
        ? (int) Files.readAllLines(buildLog).stream().filter(l -> l.endsWith(" " + module)).count()
        : 0;
  }

  /** A file of {@code relative} made newer than every jar built so far, as an edit does. */
  private void edit(String relative) throws IOException {
    Path f = root.resolve(relative);
    Files.createDirectories(f.getParent());
    Files.writeString(f, "// edited\n");
    FileTime newest = FileTime.fromMillis(0);
    try (var all = Files.walk(root)) {
      for (Path p : (Iterable<Path>) all.filter(x -> x.toString().endsWith(".jar"))::iterator) {
        FileTime t = Files.getLastModifiedTime(p);
        newest = t.compareTo(newest) > 0 ? t : newest;
      }
    }
    Files.setLastModifiedTime(f, FileTime.fromMillis(newest.toMillis() + 10));
  }

  private static boolean canRunAsNobody() {
    if (!"root".equals(System.getProperty("user.name"))) {
      return false;
    }
    try {
      Process p = new ProcessBuilder("id", "-u", "nobody").start();
      return p.waitFor(10, TimeUnit.SECONDS)
          && p.exitValue() == 0
          && (Files.isExecutable(Path.of("/usr/bin/su")) || Files.isExecutable(Path.of("/bin/su")));
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  /** Runs {@code command} (a shell line) as the user nobody, from /. */
  private static Run asNobody(String command) throws Exception {
    Process p =
        new ProcessBuilder("su", "nobody", "-s", "/bin/bash", "-c", command)
            .directory(new java.io.File("/"))
            .start();
    return finish(p);
  }

  /** Lets other users reach the files under {@code dir}, as a checkout under /home or /opt. */
  private static void openToOthers(Path dir) throws IOException {
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  @Test
  void builtJar_isAsReadableAsMavensOwn_notMktemps0600_andRunsForAnotherUser() throws Exception {
    Run first = finish(launch(Map.of(), "ls"));
    assertThat(first.exitCode()).as(first.toString()).isZero();

    Path jar = root.resolve("zklock-cli/target/zklock.jar");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(jar)))
        .as("the jar that runs has the mode Maven gave its own jar")
        .isEqualTo(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(root.resolve("zklock-cli/target/zklock-cli.jar"))))
        .endsWith("r--");

    org.junit.jupiter.api.Assumptions.assumeTrue(
        canRunAsNobody(), "not root, or no su / user nobody: the other user's run is not tried");
    openToOthers(root);
    Run other = asNobody(root.resolve("zklock") + " ls");
    assertThat(other.exitCode()).as("su nobody -c './zklock ls': %s", other).isZero();
    assertThat(other.out()).isEqualTo("ran ls\n");
    assertThat(other.err()).as("no 'Unable to access jarfile'").isEmpty();
    assertThat(builds()).as("the other user built nothing").isEqualTo(1);
  }

  @Test
  void quiet_aBuildSaysNothing_butAQuietOfTheCommandAfterDoubleDashIsNotTheLaunchers()
      throws Exception {
    Run quiet = finish(launch(Map.of(), "exec", "--quiet", "--nonblock", "job", "--", "true"));
    assertThat(quiet.exitCode()).as(quiet.toString()).isZero();
    assertThat(builds()).as("it built").isEqualTo(1);
    assertThat(quiet.err()).as("a cron job's run after a pull: no mail").isEmpty();

    touchSource();
    Run shortForm = finish(launch(Map.of(), "exec", "-q", "job", "--", "true"));
    assertThat(builds()).isEqualTo(2);
    assertThat(shortForm.err()).isEmpty();

    touchSource();
    Run notOurs = finish(launch(Map.of(), "exec", "job", "--", "grep", "-q", "x"));
    assertThat(builds()).isEqualTo(3);
    assertThat(notOurs.err()).startsWith("building zklock");
  }

  @Test
  void changes_toOtherModulesOrToTests_buildNothing_aChangeToAModuleOfTheJarBuilds()
      throws Exception {
    assertThat(finish(launch(Map.of(), "ls")).exitCode()).isZero();
    assertThat(builds()).isEqualTo(1);

    for (String unrelated :
        List.of(
            "zklock-bench/src/main/java/io/zklock/bench/BenchMain.java",
            "zklock-bench/pom.xml",
            "zklock-spring-boot-starter/src/main/java/Auto.java",
            "zklock-cli/src/test/java/io/zklock/cli/SomeTest.java",
            "zklock-core/src/test/java/io/zklock/SomeTest.java",
            "docs/cli.md")) {
      edit(unrelated);
      Run r = finish(launch(Map.of(), "ls"));
      assertThat(r.exitCode()).as(r.toString()).isZero();
      assertThat(r.err()).as("after a change to %s", unrelated).isEmpty();
      assertThat(builds()).as("after a change to %s", unrelated).isEqualTo(1);
    }

    int expected = 1;
    for (String part :
        List.of(
            "zklock-core/src/main/java/io/zklock/ZkLocks.java",
            "zklock-testkit/src/main/java/io/zklock/testkit/EmbeddedZooKeeper.java",
            "zklock-cli/src/main/resources/io/zklock/cli/ui.html",
            "zklock-core/pom.xml",
            "pom.xml")) {
      edit(part);
      Run r = finish(launch(Map.of(), "ls"));
      expected++;
      assertThat(r.exitCode()).as(r.toString()).isZero();
      assertThat(builds()).as("after a change to %s", part).isEqualTo(expected);
    }
  }

  @Test
  void bench_buildsAndRunsTheBenchmarksOwnJar_andLeavesTheCommandsJarAlone() throws Exception {
    Run bench = finish(launch(Map.of(), "bench", "--list"));

    assertThat(bench.exitCode()).as(bench.toString()).isZero();
    assertThat(bench.out()).isEqualTo("ran --list\n");
    assertThat(builds("zklock-bench")).isEqualTo(1);
    assertThat(builds("zklock-cli")).as("the command's jar is not built for bench").isZero();
    assertThat(root.resolve("zklock-bench/target/zklock-bench-run.jar")).exists();

    Run again = finish(launch(Map.of(), "bench", "--quick"));
    assertThat(again.err()).isEmpty();
    assertThat(builds("zklock-bench")).isEqualTo(1);
  }

  @Test
  void install_laysOutTheDistribution_forAnyUser_andTheInstalledToolNeverBuilds() throws Exception {
    Path prefix = work.resolve("prefix");
    // an installing user whose umask keeps everything private: the installed files are still
    // readable by all, as a tool in /usr/local must be
    Process p =
        new ProcessBuilder(
                "bash",
                "-c",
                "umask 077 && exec \"$0\" install --prefix \"$1\"",
                root.resolve("zklock").toString(),
                prefix.toString())
            .directory(work.toFile())
            .start();
    Run install = finish(p);

    assertThat(install.exitCode()).as(install.toString()).isZero();
    assertThat(install.err()).contains("installed zklock " + VERSION + " into " + prefix);
    assertThat(builds("zklock-cli")).isEqualTo(1);
    Map<String, String> modes =
        Map.of(
            "bin", "rwxr-xr-x",
            "bin/zklock", "rwxr-xr-x",
            "lib/zklock", "rwxr-xr-x",
            "lib/zklock/zklock-cli.jar", "rw-r--r--",
            "share/bash-completion/completions/zklock", "rw-r--r--",
            "share/doc/zklock/cli.md", "rw-r--r--");
    for (Map.Entry<String, String> m : modes.entrySet()) {
      assertThat(
              PosixFilePermissions.toString(
                  Files.getPosixFilePermissions(prefix.resolve(m.getKey()))))
          .as(m.getKey())
          .isEqualTo(m.getValue());
    }

    // installing again replaces the files, as an upgrade does (nothing changed: no build)
    Files.writeString(prefix.resolve("lib/zklock/zklock-cli.jar"), "stale");
    Run again = finish(launch(Map.of(), "install", "--prefix", prefix.toString(), "--quiet"));
    assertThat(again.exitCode()).as(again.toString()).isZero();
    assertThat(again.err()).as("--quiet").isEmpty();
    assertThat(Files.size(prefix.resolve("lib/zklock/zklock-cli.jar"))).isGreaterThan(5);
    assertThat(builds()).isEqualTo(1);

    if (canRunAsNobody()) {
      openToOthers(work);
      Run other = asNobody(prefix.resolve("bin/zklock") + " --version");
      assertThat(other.exitCode())
          .as("su nobody -c 'PREFIX/bin/zklock --version': %s", other)
          .isZero();
      assertThat(other.out()).isEqualTo("ran --version\n");
    }

    // the checkout changes and loses its build tool: the installed tool neither notices nor builds
    edit("zklock-core/src/main/java/io/zklock/ZkLocks.java");
    Files.delete(root.resolve("mvnw"));
    Run installed =
        finish(
            new ProcessBuilder(prefix.resolve("bin/zklock").toString(), "ls", "--quiet")
                .directory(work.toFile())
                .start());
    assertThat(installed.exitCode()).as(installed.toString()).isZero();
    assertThat(installed.out()).isEqualTo("ran ls --quiet\n");
    assertThat(installed.err()).isEmpty();
    assertThat(builds()).isEqualTo(1);
  }

  @Test
  void install_unknownOption_isAUsageError() throws Exception {
    Run r = finish(launch(Map.of(), "install", "--prefx", "/tmp/x"));

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(2);
    assertThat(r.err()).contains("unknown option '--prefx'");
    assertThat(builds()).isZero();
  }

  /** The io.zklock modules that {@code module}'s jar is made of: itself and its dependencies. */
  private static java.util.Set<String> madeOf(String module) throws Exception {
    java.util.Set<String> out = new java.util.TreeSet<>();
    java.util.Deque<String> todo = new java.util.ArrayDeque<>(List.of(module));
    while (!todo.isEmpty()) {
      String m = todo.pop();
      if (!out.add(m)) {
        continue;
      }
      org.w3c.dom.Element pom =
          ReadmeCoordinatesTest.parse(DocSnippetsTest.repo().resolve(m).resolve("pom.xml"));
      org.w3c.dom.NodeList deps =
          ReadmeCoordinatesTest.child(pom, "dependencies").getElementsByTagName("dependency");
      for (int i = 0; i < deps.getLength(); i++) {
        org.w3c.dom.Element d = (org.w3c.dom.Element) deps.item(i);
        String scope = ReadmeCoordinatesTest.text(d, "scope");
        if ("io.zklock".equals(ReadmeCoordinatesTest.text(d, "groupId"))
            && (scope == null || scope.equals("compile") || scope.equals("runtime"))) {
          todo.push(ReadmeCoordinatesTest.text(d, "artifactId"));
        }
      }
    }
    return out;
  }

  @Test
  void launchersModuleLists_areTheModulesThePomsSayEachJarIsMadeOf() throws Exception {
    String launcher = Files.readString(DocSnippetsTest.repo().resolve("zklock"));
    for (String[] tool :
        new String[][] {{"cli_modules", "zklock-cli"}, {"bench_modules", "zklock-bench"}}) {
      java.util.regex.Matcher m =
          java.util.regex.Pattern.compile("(?m)^" + tool[0] + "=\\(([^)]*)\\)").matcher(launcher);
      assertThat(m.find()).as("the launcher's %s=(...)", tool[0]).isTrue();
      assertThat(new java.util.TreeSet<>(List.of(m.group(1).trim().split("\\s+"))))
          .as(
              "%s: a change to these modules rebuilds %s, and only to these (else a module"
                  + " change would be missed, or an unrelated one would rebuild)",
              tool[0], tool[1])
          .isEqualTo(madeOf(tool[1]));
    }
  }
}
