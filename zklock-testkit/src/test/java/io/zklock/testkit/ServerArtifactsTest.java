package io.zklock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the jars of a server release are found: read from its POMs, fetched from a repository (here a
 * local HTTP server standing in for Maven Central), checked against the SHA-1 it serves, kept in
 * the local repository.
 */
class ServerArtifactsTest {
  private final Map<String, byte[]> files = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();
  private HttpServer http;
  private URI remote;
  @TempDir Path local;

  @BeforeEach
  void serve() throws IOException {
    http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    http.createContext(
        "/",
        exchange -> {
          String path = exchange.getRequestURI().getPath().substring("/repo/".length());
          requests.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
          byte[] body = files.get(path);
          if (body == null) {
            exchange.sendResponseHeaders(404, -1);
          } else {
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
          }
          exchange.close();
        });
    http.start();
    remote = URI.create("http://127.0.0.1:" + http.getAddress().getPort() + "/repo");
  }

  @AfterEach
  void stop() {
    http.stop(0);
  }

  /** Puts a file and its {@code .sha1} (in Central's "hash name" form) on the fake repository. */
  private void publish(String path, byte[] content) {
    files.put(path, content);
    String name = path.substring(path.lastIndexOf('/') + 1);
    files.put(
        path + ".sha1",
        (ServerArtifacts.sha1(content) + "  " + name).getBytes(StandardCharsets.US_ASCII));
  }

  private void publishJar(String group, String artifact, String version) {
    publish(
        jarPath(group, artifact, version),
        (group + ":" + artifact + ":" + version).getBytes(StandardCharsets.UTF_8));
  }

  private static String jarPath(String group, String artifact, String version) {
    return group.replace('.', '/')
        + "/"
        + artifact
        + "/"
        + version
        + "/"
        + artifact
        + "-"
        + version
        + ".jar";
  }

  /**
   * A release laid out like ZooKeeper's: its pom names libraries, its parent pom their versions.
   */
  private void publishRelease(String version, boolean nettyBom) {
    String zkPom =
        "<project xmlns=\"http://maven.apache.org/POM/4.0.0\"><modelVersion>4.0.0</modelVersion>"
            + "<parent><groupId>org.apache.zookeeper</groupId><artifactId>parent</artifactId>"
            + "<version>"
            + version
            + "</version></parent><artifactId>zookeeper</artifactId><dependencies>"
            + dep("org.apache.zookeeper", "zookeeper-jute", "compile")
            + dep("org.apache.yetus", "audience-annotations", "compile")
            + dep("io.netty", "netty-handler", "compile")
            + dep("io.netty", "netty-transport-native-epoll", "compile")
            + dep("org.slf4j", "slf4j-api", "compile")
            + dep("org.eclipse.jetty", "jetty-server", "provided")
            + dep("io.dropwizard.metrics", "metrics-core", "provided")
            + dep("org.xerial.snappy", "snappy-java", "provided")
            + dep("commons-io", "commons-io", "compile")
            + "</dependencies></project>";
    String netty =
        nettyBom
            ? managed("io.netty", "netty-bom", "${netty.version}")
            : managed("io.netty", "netty-handler", "${netty.version}");
    String parentPom =
        "<project xmlns=\"http://maven.apache.org/POM/4.0.0\"><modelVersion>4.0.0</modelVersion>"
            + "<groupId>org.apache.zookeeper</groupId><artifactId>parent</artifactId><version>"
            + version
            + "</version><properties><netty.version>4.1.99.Final</netty.version>"
            + "<slf4j.version>1.7.99</slf4j.version><audience.version>0.9</audience.version>"
            + "</properties><dependencyManagement><dependencies>"
            + managed("org.apache.zookeeper", "zookeeper-jute", "${project.version}")
            + managed("org.apache.yetus", "audience-annotations", "${audience.version}")
            + netty
            + managed("org.slf4j", "slf4j-api", "${slf4j.version}")
            + managed("org.eclipse.jetty", "jetty-server", "9.9")
            + managed("io.dropwizard.metrics", "metrics-core", "4.1.12.1")
            + managed("org.xerial.snappy", "snappy-java", "1.1.10.5")
            + managed("commons-io", "commons-io", "2.11.0")
            + "</dependencies></dependencyManagement></project>";
    publish(
        "org/apache/zookeeper/zookeeper/" + version + "/zookeeper-" + version + ".pom",
        zkPom.getBytes(StandardCharsets.UTF_8));
    publish(
        "org/apache/zookeeper/parent/" + version + "/parent-" + version + ".pom",
        parentPom.getBytes(StandardCharsets.UTF_8));
    publishJar("org.apache.zookeeper", "zookeeper", version);
    publishJar("org.apache.zookeeper", "zookeeper-jute", version);
    publishJar("org.apache.yetus", "audience-annotations", "0.9");
    for (String m :
        List.of(
            "netty-common",
            "netty-buffer",
            "netty-resolver",
            "netty-transport",
            "netty-transport-native-unix-common",
            "netty-codec",
            "netty-handler")) {
      publishJar("io.netty", m, "4.1.99.Final");
    }
    publishJar("org.slf4j", "slf4j-api", "1.7.99");
    publishJar("org.slf4j", "slf4j-simple", "1.7.99");
    publishJar("io.dropwizard.metrics", "metrics-core", "4.1.12.1");
    publishJar("org.xerial.snappy", "snappy-java", "1.1.10.5");
    publishJar("commons-io", "commons-io", "2.11.0");
  }

  private static String dep(String group, String artifact, String scope) {
    return "<dependency><groupId>"
        + group
        + "</groupId><artifactId>"
        + artifact
        + "</artifactId><scope>"
        + scope
        + "</scope></dependency>";
  }

  private static String managed(String group, String artifact, String version) {
    return "<dependency><groupId>"
        + group
        + "</groupId><artifactId>"
        + artifact
        + "</artifactId><version>"
        + version
        + "</version></dependency>";
  }

  private static List<String> names(List<Path> paths) {
    return paths.stream().map(p -> p.getFileName().toString()).toList();
  }

  @Test
  void classPath_isTheServersRuntimeLibraries_atTheParentPomsVersions() {
    publishRelease("3.7.99", false);

    List<Path> jars = new ServerArtifacts(remote, local).classPath("3.7.99");

    assertThat(names(jars))
        .containsExactlyInAnyOrder(
            "zookeeper-3.7.99.jar",
            "zookeeper-jute-3.7.99.jar",
            "audience-annotations-0.9.jar",
            "netty-common-4.1.99.Final.jar",
            "netty-buffer-4.1.99.Final.jar",
            "netty-resolver-4.1.99.Final.jar",
            "netty-transport-4.1.99.Final.jar",
            "netty-transport-native-unix-common-4.1.99.Final.jar",
            "netty-codec-4.1.99.Final.jar",
            "netty-handler-4.1.99.Final.jar",
            "slf4j-api-1.7.99.jar",
            "slf4j-simple-1.7.99.jar",
            "metrics-core-4.1.12.1.jar",
            "snappy-java-1.1.10.5.jar",
            "commons-io-2.11.0.jar");
    for (Path jar : jars) {
      assertThat(jar).startsWith(local).exists();
      assertThat(jar.resolveSibling(jar.getFileName() + ".sha1")).exists();
    }
    assertThat(local.resolve("org/apache/zookeeper/zookeeper/3.7.99/zookeeper-3.7.99.jar"))
        .as("Maven's local repository layout")
        .exists();
  }

  @Test
  void nettyBomImport_givesTheNettyVersion() {
    publishRelease("3.9.99", true);

    List<Path> jars = new ServerArtifacts(remote, local).classPath("3.9.99");

    assertThat(names(jars)).contains("netty-handler-4.1.99.Final.jar");
  }

  @Test
  void fileAlreadyInTheLocalRepository_matchingItsSha1_isNotDownloadedAgain() throws Exception {
    publishJar("org.example", "lib", "1.0");
    String path = jarPath("org.example", "lib", "1.0");
    new ServerArtifacts(remote, local).fetch("org.example", "lib", "1.0", "jar");
    assertThat(requests.get(path)).hasValue(1);

    Path again = new ServerArtifacts(remote, local).fetch("org.example", "lib", "1.0", "jar");

    assertThat(requests.get(path)).as("no second download").hasValue(1);
    assertThat(again).hasBinaryContent(files.get(path));
  }

  @Test
  void corruptLocalCopy_isReplacedByAVerifiedDownload() throws Exception {
    publishJar("org.example", "lib", "2.0");
    String path = jarPath("org.example", "lib", "2.0");
    Path file = new ServerArtifacts(remote, local).fetch("org.example", "lib", "2.0", "jar");
    Files.write(file, "truncat".getBytes(StandardCharsets.UTF_8));

    new ServerArtifacts(remote, local).fetch("org.example", "lib", "2.0", "jar");

    assertThat(file).hasBinaryContent(files.get(path));
  }

  @Test
  void downloadNotMatchingTheServedSha1_isRefused_andNothingIsStored() throws Exception {
    publishJar("org.example", "bad", "1.0");
    String path = jarPath("org.example", "bad", "1.0");
    files.put(path, "tampered".getBytes(StandardCharsets.UTF_8));

    assertThatThrownBy(
            () -> new ServerArtifacts(remote, local).fetch("org.example", "bad", "1.0", "jar"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("checksum mismatch")
        .hasMessageContaining("bad-1.0.jar");
    try (Stream<Path> stored = Files.walk(local)) {
      assertThat(stored.filter(Files::isRegularFile)).as("no file, no partial file").isEmpty();
    }
  }

  @Test
  void missingArtifact_failsNamingItsAddress() {
    assertThatThrownBy(
            () -> new ServerArtifacts(remote, local).fetch("org.example", "none", "1.0", "jar"))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining(remote + "/org/example/none/1.0/none-1.0.jar.sha1")
        .hasMessageContaining("404");
  }
}
