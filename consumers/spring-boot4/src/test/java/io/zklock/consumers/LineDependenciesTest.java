package io.zklock.consumers;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What an application of this Spring line resolves with zklock, read from the class path Maven
 * gave this module (a consumer's pom: Spring Boot's parent, zklock-bom, the line's artifacts and
 * the application's own ShedLock): one ShedLock major, the line's; Netty at the version Spring Boot
 * manages, which is the one the line's own modules ran their tests with (zklock's parent pom, the
 * property named by {@code expected.netty.property}); no native library of Netty.
 */
class LineDependenciesTest {
  private static final Pattern JAR = Pattern.compile("([a-z0-9.-]+?)-(\\d[^/]*?)\\.jar$");

  // Surefire runs the tests from a manifest-only jar, and names the real class path here
  private static String classPath() {
    return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
  }

  /** artifact-version of every jar on the class path, e.g. "shedlock-core" to "7.10.1". */
  private static List<String[]> jars() {
    return Arrays.stream(classPath().split(File.pathSeparator))
        .map(p -> p.substring(p.lastIndexOf(File.separatorChar) + 1))
        .map(JAR::matcher)
        .filter(Matcher::find)
        .map(m -> new String[] {m.group(1), m.group(2)})
        .toList();
  }

  private static Set<String> versionsOf(String artifactPrefix) {
    Set<String> out = new TreeSet<>();
    for (String[] j : jars()) {
      if (j[0].startsWith(artifactPrefix)) {
        out.add(j[0] + ":" + j[1]);
      }
    }
    return out;
  }

  @Test
  void shedLock_oneMajor_theLines() {
    String major = System.getProperty("expected.shedlock.major");
    Set<String> shedlock = versionsOf("shedlock-");
    shedlock.removeIf(s -> s.startsWith("shedlock-test-support:")); // the tests' own
    assertThat(shedlock).as("ShedLock's jars").isNotEmpty();
    assertThat(shedlock)
        .as("every ShedLock jar is of ShedLock %s, the application's", major)
        .allSatisfy(s -> assertThat(s.substring(s.indexOf(':') + 1)).startsWith(major + "."));
    assertThat(shedlock.stream().map(s -> s.substring(s.indexOf(':') + 1)).distinct())
        .as("one ShedLock version: %s", shedlock)
        .hasSize(1);
  }

  @Test
  void netty_theVersionSpringBootManages_theOneTheLinesTestsRanWith_noNativeLibrary()
      throws Exception {
    Set<String> netty = versionsOf("netty-");
    assertThat(netty).as("Netty's jars").isNotEmpty();
    assertThat(netty)
        .as("no native library: zklock's TLS runs on the JDK's provider, its socket on Java NIO")
        .noneMatch(s -> s.startsWith("netty-tcnative"))
        .noneMatch(s -> s.startsWith("netty-transport-native-epoll"));
    String tested = rootPomProperty(System.getProperty("expected.netty.property"));
    assertThat(netty)
        .as("Netty at %s, the version zklock's modules of this line are tested with", tested)
        .allSatisfy(s -> assertThat(s).endsWith(":" + tested));
  }

  /**
   * The versions this application declares (Spring Boot's parent, its ShedLock, ShedLock's
   * provider tests) are the ones zklock's parent pom pins for this line: one place to move them.
   */
  @Test
  void springBootAndShedLock_theVersionsZklocksParentPomPinsForThisLine() throws Exception {
    assertThat(versionsOf("spring-boot-autoconfigure"))
        .containsExactly(
            "spring-boot-autoconfigure:"
                + rootPomProperty(System.getProperty("expected.spring-boot.property")));
    assertThat(versionsOf("shedlock-core"))
        .containsExactly(
            "shedlock-core:" + rootPomProperty(System.getProperty("expected.shedlock.property")));
    assertThat(versionsOf("shedlock-test-support"))
        .containsExactly(
            "shedlock-test-support:" + rootPomProperty("shedlock-test-support.version"));
  }

  /** A property of zklock's parent pom (the repository's root). */
  private static String rootPomProperty(String name) throws Exception {
    String pom =
        Files.readString(
            Path.of(System.getProperty("zklock.root"), "pom.xml"), StandardCharsets.UTF_8);
    Matcher m = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</").matcher(pom);
    assertThat(m.find()).as("<%s> in zklock's parent pom", name).isTrue();
    return m.group(1).trim();
  }
}
