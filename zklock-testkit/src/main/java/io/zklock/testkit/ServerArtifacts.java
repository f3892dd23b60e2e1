package io.zklock.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;

/**
 * The class path of a ZooKeeper server release, from its artifacts on a Maven repository (Maven
 * Central unless told otherwise), kept in the local Maven repository ({@code ~/.m2/repository}
 * layout) so that each file is downloaded once per machine.
 *
 * <p>What a release needs is read from its own POMs: {@code zookeeper-<v>.pom} says which libraries
 * the server uses, its parent POM ({@code org.apache.zookeeper:parent:<v>}) which versions. The
 * server runs from: {@code zookeeper}, {@code zookeeper-jute}, {@code audience-annotations}, Netty
 * ({@code netty-handler} and the modules it needs, at the release's Netty version), {@code
 * slf4j-api} with {@code slf4j-simple} of the same version as the binding, and where the release
 * lists them {@code metrics-core}, {@code snappy-java} and {@code commons-io}. What serves only
 * ZooKeeper's tools (the CLI, the AdminServer, OpenSSL) is left out.
 *
 * <p>Every file is checked against the SHA-1 the repository serves for it ({@code <file>.sha1}),
 * written to a temporary file and moved into place, so concurrent builds on one machine never see
 * half a file. A file already in the local repository is used if it matches the {@code .sha1}
 * stored beside it (Maven stores one with each download), or the repository's.
 *
 * <p>System properties: {@value #REMOTE_PROPERTY} (a mirror of Maven Central, default {@value
 * #DEFAULT_REMOTE}), {@value #LOCAL_PROPERTY} (default {@code maven.repo.local}, else {@code
 * ~/.m2/repository}). The JDK's HTTP proxy properties apply.
 */
final class ServerArtifacts {
  static final String REMOTE_PROPERTY = "zklock.testkit.remoteRepository";
  static final String LOCAL_PROPERTY = "zklock.testkit.localRepository";
  static final String DEFAULT_REMOTE = "https://repo.maven.apache.org/maven2/";

  /** Server lines whose artifacts and start-up this class knows: 3.5 to 3.9. */
  private static final Pattern VERSION = Pattern.compile("3\\.([5-9])\\.(\\d+)");

  /** netty-handler and the Netty modules it depends on, all of one version. */
  private static final List<String> NETTY =
      List.of(
          "netty-common",
          "netty-buffer",
          "netty-resolver",
          "netty-transport",
          "netty-transport-native-unix-common",
          "netty-codec",
          "netty-handler");

  /** Dependencies of the zookeeper artifact that the server needs at run time, when listed. */
  private static final Set<String> RUNTIME =
      Set.of("audience-annotations", "slf4j-api", "metrics-core", "snappy-java", "commons-io");

  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final Map<String, List<Path>> RESOLVED = new ConcurrentHashMap<>();

  private final URI remote;
  private final Path local;
  private HttpClient http;

  ServerArtifacts(URI remote, Path local) {
    String base = remote.toString();
    this.remote = URI.create(base.endsWith("/") ? base : base + "/");
    this.local = local;
  }

  /** The repositories named by the system properties (see the class comment). */
  static ServerArtifacts fromSystemProperties() {
    String remote = System.getProperty(REMOTE_PROPERTY, DEFAULT_REMOTE);
    String local = System.getProperty(LOCAL_PROPERTY, System.getProperty("maven.repo.local"));
    Path localRepo =
        local != null && !local.isBlank()
            ? Path.of(local)
            : Path.of(System.getProperty("user.home"), ".m2", "repository");
    return new ServerArtifacts(URI.create(remote), localRepo);
  }

  /**
   * Checks that {@code version} names a server release this class can start.
   *
   * @throws IllegalArgumentException naming the version otherwise
   */
  static String checkVersion(String version) {
    if (version == null || !VERSION.matcher(version).matches()) {
      throw new IllegalArgumentException(
          "unsupported ZooKeeper server version '"
              + version
              + "': give a release of 3.5 to 3.9 as major.minor.patch, for example 3.5.10");
    }
    return version;
  }

  /**
   * The jars to run the server release {@code version}, downloading what the local repository
   * lacks. Resolved once per JVM.
   *
   * @throws UncheckedIOException if a file cannot be downloaded or stored
   * @throws IllegalStateException if a download does not match its checksum, or the POMs do not say
   *     what is needed
   */
  List<Path> classPath(String version) {
    checkVersion(version);
    String key = remote + "|" + local.toAbsolutePath() + "|" + version;
    List<Path> known = RESOLVED.get(key);
    if (known != null) {
      return known;
    }
    synchronized (RESOLVED) {
      return RESOLVED.computeIfAbsent(key, k -> List.copyOf(resolve(version)));
    }
  }

  private List<Path> resolve(String version) {
    Element zkPom = pom("org.apache.zookeeper", "zookeeper", version);
    Element parentRef = child(zkPom, "parent");
    if (parentRef == null) {
      throw new IllegalStateException("zookeeper-" + version + ".pom names no parent POM");
    }
    Element parentPom =
        pom(text(parentRef, "groupId"), text(parentRef, "artifactId"), text(parentRef, "version"));
    Map<String, String> managed = managedVersions(parentPom, version);

    Map<String, String[]> jars = new LinkedHashMap<>(); // artifactId -> {groupId, version}
    jars.put("zookeeper", new String[] {"org.apache.zookeeper", version});
    jars.put("zookeeper-jute", new String[] {"org.apache.zookeeper", version});
    Element deps = child(zkPom, "dependencies");
    for (Element d : children(deps, "dependency")) {
      String artifact = text(d, "artifactId");
      if (RUNTIME.contains(artifact)) {
        String group = text(d, "groupId");
        jars.put(artifact, new String[] {group, need(managed, group, artifact, version)});
      }
    }
    String netty = managed.get("io.netty:netty-handler");
    if (netty == null) {
      netty = managed.get("io.netty:netty-bom"); // 3.9 imports Netty's BOM
    }
    if (netty == null) {
      throw new IllegalStateException(
          "the POMs of ZooKeeper " + version + " name no Netty version");
    }
    for (String module : NETTY) {
      jars.put(module, new String[] {"io.netty", netty});
    }
    String[] slf4j = jars.get("slf4j-api");
    if (slf4j == null) {
      throw new IllegalStateException("zookeeper-" + version + ".pom does not depend on slf4j-api");
    }
    jars.put("slf4j-simple", new String[] {"org.slf4j", slf4j[1]});

    List<Path> out = new ArrayList<>();
    for (Map.Entry<String, String[]> e : jars.entrySet()) {
      out.add(fetch(e.getValue()[0], e.getKey(), e.getValue()[1], "jar"));
    }
    return out;
  }

  private static String need(
      Map<String, String> managed, String group, String artifact, String version) {
    String v = managed.get(group + ":" + artifact);
    if (v == null) {
      throw new IllegalStateException(
          "the parent POM of ZooKeeper "
              + version
              + " gives no version of "
              + group
              + ":"
              + artifact);
    }
    return v;
  }

  /** groupId:artifactId -> version of the parent POM's dependencyManagement, properties applied. */
  private static Map<String, String> managedVersions(Element parentPom, String version) {
    Map<String, String> props = new HashMap<>();
    props.put("project.version", version);
    Element properties = child(parentPom, "properties");
    if (properties != null) {
      for (Node n = properties.getFirstChild(); n != null; n = n.getNextSibling()) {
        if (n instanceof Element) {
          props.put(n.getNodeName(), n.getTextContent().trim());
        }
      }
    }
    Map<String, String> managed = new HashMap<>();
    Element dm = child(parentPom, "dependencyManagement");
    for (Element d : children(child(dm, "dependencies"), "dependency")) {
      String v = text(d, "version");
      if (v != null) {
        managed.put(text(d, "groupId") + ":" + text(d, "artifactId"), interpolate(v, props));
      }
    }
    return managed;
  }

  private static String interpolate(String value, Map<String, String> props) {
    Matcher m = Pattern.compile("\\$\\{([^}]+)}").matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String v = props.get(m.group(1));
      if (v == null) {
        throw new IllegalStateException("no property " + m.group(1) + " for version " + value);
      }
      m.appendReplacement(out, Matcher.quoteReplacement(v));
    }
    m.appendTail(out);
    return out.toString();
  }

  private Element pom(String group, String artifact, String version) {
    Path file = fetch(group, artifact, version, "pom");
    try (InputStream in = Files.newInputStream(file)) {
      DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
      f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      Document doc = f.newDocumentBuilder().parse(in);
      return doc.getDocumentElement();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    } catch (ParserConfigurationException | SAXException e) {
      throw new IllegalStateException("cannot parse " + file, e);
    }
  }

  private static Element child(Element parent, String name) {
    if (parent == null) {
      return null;
    }
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element && name.equals(n.getNodeName())) {
        return (Element) n;
      }
    }
    return null;
  }

  private static List<Element> children(Element parent, String name) {
    List<Element> out = new ArrayList<>();
    if (parent != null) {
      for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
        if (n instanceof Element && name.equals(n.getNodeName())) {
          out.add((Element) n);
        }
      }
    }
    return out;
  }

  private static String text(Element parent, String name) {
    Element e = child(parent, name);
    return e == null ? null : e.getTextContent().trim();
  }

  /**
   * The local file of one artifact, downloaded and checked first if the local repository lacks it
   * or holds a copy that does not match its checksum.
   */
  Path fetch(String group, String artifact, String version, String extension) {
    String relative =
        group.replace('.', '/')
            + "/"
            + artifact
            + "/"
            + version
            + "/"
            + artifact
            + "-"
            + version
            + "."
            + extension;
    Path file = local.resolve(relative);
    Path sha1File = file.resolveSibling(file.getFileName() + ".sha1");
    try {
      if (Files.isRegularFile(file) && Files.isRegularFile(sha1File)) {
        if (sha1(Files.readAllBytes(file))
            .equals(parseSha1(Files.readString(sha1File), sha1File))) {
          return file;
        }
      }
      String expected =
          parseSha1(
              new String(get(relative + ".sha1"), StandardCharsets.US_ASCII), relative + ".sha1");
      if (Files.isRegularFile(file) && sha1(Files.readAllBytes(file)).equals(expected)) {
        store(sha1File, expected.getBytes(StandardCharsets.US_ASCII));
        return file;
      }
      byte[] body = get(relative);
      String actual = sha1(body);
      if (!actual.equals(expected)) {
        throw new IllegalStateException(
            "checksum mismatch for "
                + remote.resolve(relative)
                + ": SHA-1 "
                + actual
                + ", the repository says "
                + expected
                + "; nothing stored");
      }
      store(file, body);
      store(sha1File, expected.getBytes(StandardCharsets.US_ASCII));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot store " + file, e);
    }
  }

  private static String parseSha1(String text, Object source) {
    String trimmed = text.trim();
    String first = trimmed.isEmpty() ? "" : trimmed.split("\\s+")[0].toLowerCase(Locale.ROOT);
    if (!first.matches("[0-9a-f]{40}")) {
      throw new IllegalStateException("not a SHA-1 checksum in " + source + ": " + trimmed);
    }
    return first;
  }

  private static void store(Path target, byte[] content) throws IOException {
    Files.createDirectories(target.getParent());
    Path temp = target.resolveSibling(target.getFileName() + "." + UUID.randomUUID() + ".part");
    try {
      Files.write(temp, content);
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  private byte[] get(String relative) {
    URI uri = remote.resolve(relative);
    HttpResponse<byte[]> response;
    try {
      response =
          client()
              .send(
                  HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().build(),
                  HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot download " + uri, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while downloading " + uri, e);
    }
    if (response.statusCode() != 200) {
      throw new UncheckedIOException(
          new IOException("cannot download " + uri + ": HTTP " + response.statusCode()));
    }
    return response.body();
  }

  private synchronized HttpClient client() {
    if (http == null) {
      http =
          HttpClient.newBuilder()
              .connectTimeout(Duration.ofSeconds(20))
              .followRedirects(HttpClient.Redirect.NORMAL)
              .build();
    }
    return http;
  }

  static String sha1(byte[] content) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(content));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("no SHA-1 in this JVM", e);
    }
  }
}
