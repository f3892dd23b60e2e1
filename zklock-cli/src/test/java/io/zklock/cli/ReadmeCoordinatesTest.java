package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/**
 * The coordinates users copy from the README (Maven {@code <dependency>} blocks and Gradle lines)
 * stay in step with the poms, as {@link DocSnippetsTest} keeps the Java examples: every published
 * artifact (zklock-bom's list, and the BOM itself) is offered with the version this build makes, in
 * both forms; every zklock artifact that any document names is published; and the example service
 * builds on the same version.
 */
class ReadmeCoordinatesTest {
  private static final String GROUP = "io.zklock";
  private static final Pattern XML_BLOCK = Pattern.compile("(?ms)^```xml\\s*\\n(.*?)^```");

  /** A Gradle string, {@code "io.zklock:artifact:version"}, or without the version (the BOM's). */
  private static final Pattern GRADLE =
      Pattern.compile("\"" + Pattern.quote(GROUP) + ":([\\w.-]+)(?::([^\"]+))?\"");

  /** Gradle's import of a BOM: {@code platform("io.zklock:zklock-bom:version")}. */
  private static final Pattern GRADLE_PLATFORM =
      Pattern.compile("platform\\(\"" + Pattern.quote(GROUP) + ":zklock-bom:([^\"]+)\"\\)");

  /** One coordinate found in a document: where, which artifact, which version (null if none). */
  record Coordinate(String where, String artifactId, String version) {}

  static Element parse(String xml) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    return f.newDocumentBuilder()
        .parse(new InputSource(new StringReader(xml)))
        .getDocumentElement();
  }

  static Element parse(Path pom) throws Exception {
    return parse(Files.readString(pom, StandardCharsets.UTF_8));
  }

  static Element child(Element e, String name) {
    for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element c && c.getTagName().equals(name)) {
        return c;
      }
    }
    return null;
  }

  static String text(Element e, String name) {
    Element c = child(e, name);
    return c == null ? null : c.getTextContent().strip();
  }

  /** The version of the build: the root pom's. */
  static String projectVersion() throws Exception {
    return text(parse(DocSnippetsTest.repo().resolve("pom.xml")), "version");
  }

  /** What a release publishes: zklock-bom's managed io.zklock artifacts, and the BOM. */
  static Set<String> published() throws Exception {
    Element bom = parse(DocSnippetsTest.repo().resolve("zklock-bom/pom.xml"));
    Set<String> out = new TreeSet<>();
    out.add(text(bom, "artifactId"));
    NodeList deps =
        child(child(bom, "dependencyManagement"), "dependencies")
            .getElementsByTagName("dependency");
    for (int i = 0; i < deps.getLength(); i++) {
      Element d = (Element) deps.item(i);
      if (GROUP.equals(text(d, "groupId"))) {
        out.add(text(d, "artifactId"));
      }
    }
    return out;
  }

  /** Every zklock coordinate of a document: dependencies in xml blocks, and Gradle strings. */
  static List<Coordinate> coordinates(Path doc) throws Exception {
    String text = Files.readString(doc, StandardCharsets.UTF_8);
    String name = DocSnippetsTest.repo().relativize(doc).toString();
    List<Coordinate> out = new ArrayList<>();
    Matcher m = XML_BLOCK.matcher(text);
    while (m.find()) {
      int line = (int) text.substring(0, m.start()).lines().count() + 1;
      Element block = parse("<block>" + m.group(1) + "</block>");
      NodeList deps = block.getElementsByTagName("dependency");
      for (int i = 0; i < deps.getLength(); i++) {
        Element d = (Element) deps.item(i);
        if (GROUP.equals(text(d, "groupId"))) {
          out.add(new Coordinate(name + ":" + line, text(d, "artifactId"), text(d, "version")));
        }
      }
    }
    Matcher g = GRADLE.matcher(text);
    while (g.find()) {
      int line = (int) text.substring(0, g.start()).lines().count() + 1;
      out.add(new Coordinate(name + ":" + line + " (Gradle)", g.group(1), g.group(2)));
    }
    return out;
  }

  /** The README, the docs, each module's README, the examples' READMEs, the changelog. */
  static List<Path> documents() throws IOException {
    Path root = DocSnippetsTest.repo();
    List<Path> docs = new ArrayList<>(DocSnippetsTest.documents());
    Path examples = root.resolve("examples");
    if (Files.isDirectory(examples)) {
      try (Stream<Path> s = Files.list(examples)) {
        s.map(e -> e.resolve("README.md")).filter(Files::exists).sorted().forEach(docs::add);
      }
    }
    Path changelog = root.resolve("CHANGELOG.md");
    if (Files.exists(changelog)) {
      docs.add(changelog);
    }
    return docs;
  }

  /** The version at which a document imports zklock-bom in Maven (scope import), or null. */
  static String mavenBomImport(String text) {
    Matcher m = XML_BLOCK.matcher(text);
    while (m.find()) {
      try {
        Element block = parse("<block>" + m.group(1) + "</block>");
        NodeList deps = block.getElementsByTagName("dependency");
        for (int i = 0; i < deps.getLength(); i++) {
          Element d = (Element) deps.item(i);
          if (GROUP.equals(text(d, "groupId"))
              && "zklock-bom".equals(text(d, "artifactId"))
              && "pom".equals(text(d, "type"))
              && "import".equals(text(d, "scope"))) {
            return text(d, "version");
          }
        }
      } catch (Exception e) {
        throw new AssertionError("an xml block that does not parse: " + m.group(1), e);
      }
    }
    return null;
  }

  /**
   * README.md offers every published artifact (zklock-bom's list, and the BOM itself) for Maven and
   * for Gradle, each either at the version this build makes, or without a version where the README
   * imports the BOM at that version (as a user copies it, the BOM then gives the version).
   */
  @Test
  void readme_offersEveryPublishedArtifact_atTheProjectVersion_forMavenAndGradle()
      throws Exception {
    String version = projectVersion();
    Path readmePath = DocSnippetsTest.repo().resolve("README.md");
    String text = Files.readString(readmePath, StandardCharsets.UTF_8);
    List<Coordinate> readme = coordinates(readmePath);
    boolean mavenBom = version.equals(mavenBomImport(text));
    Matcher platform = GRADLE_PLATFORM.matcher(text);
    boolean gradleBom = platform.find() && version.equals(platform.group(1));
    Set<String> maven = new LinkedHashSet<>();
    Set<String> gradle = new LinkedHashSet<>();
    for (Coordinate c : readme) {
      boolean isGradle = c.where().endsWith("(Gradle)");
      boolean managed = c.version() == null && (isGradle ? gradleBom : mavenBom);
      if (version.equals(c.version()) || managed) {
        (isGradle ? gradle : maven).add(c.artifactId());
      }
    }
    assertThat(maven)
        .as(
            "README.md must give a <dependency> for every published artifact (zklock-bom's list"
                + " and the BOM), with <version>%s</version> or with no version under an import of"
                + " zklock-bom %s; found %s",
            version, version, readme)
        .containsAll(published());
    assertThat(gradle)
        .as(
            "README.md must give a Gradle line \"io.zklock:<artifact>:%s\" (or"
                + " \"io.zklock:<artifact>\" under platform(\"io.zklock:zklock-bom:%s\")) for every"
                + " published artifact; found %s",
            version, version, readme)
        .containsAll(published());
  }

  @Test
  void everyZklockCoordinateOfTheDocs_isPublished_atTheProjectVersion() throws Exception {
    String version = projectVersion();
    Set<String> published = published();
    List<String> wrong = new ArrayList<>();
    int seen = 0;
    for (Path doc : documents()) {
      for (Coordinate c : coordinates(doc)) {
        seen++;
        if (!published.contains(c.artifactId())) {
          wrong.add(c + ": " + c.artifactId() + " is not published (zklock-bom lists " + published);
        } else if (c.version() != null
            && !c.version().equals(version)
            && !c.version().equals("${zklock.version}")) {
          wrong.add(c + ": version " + c.version() + ", but this build makes " + version);
        }
      }
    }
    assertThat(seen).as("zklock coordinates in the docs").isPositive();
    assertThat(wrong)
        .as("coordinates that a user would copy and not find (.ci/set-version updates them)")
        .isEmpty();
  }

  @Test
  void everyPublishedArtifact_isAModuleOfThisBuild_thatIsNotMarkedUnpublished() throws Exception {
    Path root = DocSnippetsTest.repo();
    Element parent = parse(root.resolve("pom.xml"));
    Set<String> modules = new TreeSet<>();
    NodeList ms = child(parent, "modules").getElementsByTagName("module");
    for (int i = 0; i < ms.getLength(); i++) {
      Element pom = parse(root.resolve(ms.item(i).getTextContent().strip()).resolve("pom.xml"));
      Element props = child(pom, "properties");
      boolean unpublished = props != null && "true".equals(text(props, "zklock.unpublished"));
      if (!unpublished) {
        modules.add(text(pom, "artifactId"));
      }
      if (published().contains(text(pom, "artifactId"))) {
        assertThat(unpublished)
            .as(text(pom, "artifactId") + " is in zklock-bom but marked zklock.unpublished")
            .isFalse();
      }
    }
    assertThat(modules)
        .as("the modules a release publishes (every module not marked zklock.unpublished)")
        .containsAll(published());
  }

  /**
   * RELEASING.md's "What is published" names every artifact a release publishes (the BOM's list,
   * the BOM and the parent pom) before "Not published", and after it every module of the build that
   * a release leaves out (marked {@code zklock.unpublished}, and the examples).
   */
  @Test
  void releasingMd_namesEveryPublishedArtifact_andEveryModuleItLeavesOut() throws Exception {
    Path root = DocSnippetsTest.repo();
    String releasing = Files.readString(root.resolve("RELEASING.md"), StandardCharsets.UTF_8);
    int start = releasing.indexOf("## What is published");
    assertThat(start).as("RELEASING.md has a section 'What is published'").isNotNegative();
    int end = releasing.indexOf("\n## ", start + 1);
    String section = releasing.substring(start, end < 0 ? releasing.length() : end);
    int not = section.indexOf("Not published");
    assertThat(not).as("the section says what is not published").isPositive();
    Pattern name = Pattern.compile("`((?:zklock-[a-z0-9-]+)|(?:examples/[a-z0-9-]+))`");
    Set<String> published = new TreeSet<>();
    Set<String> left = new TreeSet<>();
    Matcher m = name.matcher(section);
    while (m.find()) {
      (m.start() < not ? published : left).add(m.group(1));
    }
    published.remove("zklock-bom"); // also named as "the list"; it is published
    Set<String> expected = new TreeSet<>(published());
    expected.add("zklock-parent");
    expected.remove("zklock-bom");
    assertThat(published)
        .as("RELEASING.md's published artifacts (before 'Not published'): the BOM's list")
        .isEqualTo(expected);

    Element parent = parse(root.resolve("pom.xml"));
    Set<String> unpublished = new TreeSet<>();
    NodeList ms = child(parent, "modules").getElementsByTagName("module");
    for (int i = 0; i < ms.getLength(); i++) {
      String dir = ms.item(i).getTextContent().strip();
      Element pom = parse(root.resolve(dir).resolve("pom.xml"));
      Element props = child(pom, "properties");
      if (dir.startsWith("examples/")) {
        unpublished.add(dir);
      } else if (props != null && "true".equals(text(props, "zklock.unpublished"))) {
        unpublished.add(text(pom, "artifactId"));
      }
    }
    assertThat(left)
        .as("RELEASING.md's modules not published (after 'Not published')")
        .isEqualTo(unpublished);
  }

  @Test
  void exampleService_buildsOnTheProjectVersion() throws Exception {
    Path examples = DocSnippetsTest.repo().resolve("examples");
    List<Path> poms;
    try (Stream<Path> s = Files.list(examples)) {
      poms = s.map(e -> e.resolve("pom.xml")).filter(Files::exists).sorted().toList();
    }
    assertThat(poms).as("examples/*/pom.xml").isNotEmpty();
    for (Path pom : poms) {
      Element props = child(parse(pom), "properties");
      assertThat(props == null ? null : text(props, "zklock.version"))
          .as(
              "%s: <zklock.version> must be this build's version, or the example is built"
                  + " against artifacts that are not in this reactor",
              pom)
          .isEqualTo(projectVersion());
    }
  }

  /**
   * The example service is a Spring Boot 4 application with its own parent (Spring Boot's) and its
   * own ShedLock property: both at the versions zklock's parent pom pins for that line, the ones
   * zklock's Boot 4 modules are built and tested with.
   */
  @Test
  void exampleService_springBootAndShedLock_atTheParentPomsVersions() throws Exception {
    Element rootProps = child(parse(DocSnippetsTest.repo().resolve("pom.xml")), "properties");
    Path pom = DocSnippetsTest.repo().resolve("examples/scheduled-job/pom.xml");
    Element example = parse(pom);
    Element parent = child(example, "parent");
    assertThat(text(parent, "artifactId")).isEqualTo("spring-boot-starter-parent");
    assertThat(text(parent, "version"))
        .as("%s: Spring Boot's parent at the parent pom's <spring-boot.version>", pom)
        .isEqualTo(text(rootProps, "spring-boot.version"));
    assertThat(text(child(example, "properties"), "shedlock.version"))
        .as("%s: <shedlock.version> is the parent pom's", pom)
        .isEqualTo(text(rootProps, "shedlock.version"));
  }
}
