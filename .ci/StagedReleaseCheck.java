import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Checks a release staged by {@code ./mvnw -B -Prelease deploy -Dstaging.dir=DIR} (a directory
 * repository) for what a public repository (Maven Central) requires of each published artifact:
 *
 * <ul>
 *   <li>the published set is exactly zklock-bom's list, plus the parent and the BOM themselves;
 *   <li>every pom has its own name and description, and (its own or inherited from a staged parent)
 *       the project URL, an Apache-2.0 license, developers and an scm section, at the project's one
 *       home (no module path appended);
 *   <li>a release version, and no SNAPSHOT version in any dependency, managed dependency or parent;
 *   <li>each jar artifact comes with a {@code -sources.jar} and a {@code -javadoc.jar}, and is a
 *       module: {@code module-info.class} or an {@code Automatic-Module-Name} in {@code io.zklock};
 *   <li>md5 and sha1 files that match, and with {@code --signed} an ASCII-armoured signature of
 *       every file (verified with gpg when it is on the PATH);
 *   <li>every jar entry carries one time stamp (project.build.outputTimestamp: reproducible).
 * </ul>
 *
 * It also prints the reactor modules that were not published. Usage: {@code java
 * .ci/StagedReleaseCheck.java STAGING_DIR [--signed] [--compare OTHER_STAGING_DIR] [--self-test]};
 * run from the repository root. {@code --compare} checks that two stagings of the same sources have
 * the same bytes (the sha-256 of every pom and jar); {@code --self-test} breaks copies of the
 * staging one requirement at a time and fails unless the check catches each. Exit status 0 when
 * everything holds, 1 otherwise.
 */
public class StagedReleaseCheck {
  static final String GROUP = "io.zklock";
  static final String GROUP_PATH = "io/zklock";
  static final String LICENSE = "Apache-2.0";

  final Path staging;
  final Path root;
  final boolean signed;
  final List<String> problems = new ArrayList<>();
  final Map<String, Element> poms = new TreeMap<>();
  String version;

  StagedReleaseCheck(Path staging, Path root, boolean signed) {
    this.staging = staging;
    this.root = root;
    this.signed = signed;
  }

  public static void main(String[] args) throws Exception {
    Path staging = null;
    Path other = null;
    boolean signed = false;
    boolean selfTest = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--signed" -> signed = true;
        case "--self-test" -> selfTest = true;
        case "--compare" -> other = Path.of(args[++i]);
        default -> staging = Path.of(args[i]);
      }
    }
    if (staging == null || !Files.isDirectory(staging.resolve(GROUP_PATH))) {
      System.err.println(
          "usage: java .ci/StagedReleaseCheck.java STAGING_DIR [--signed] [--compare OTHER]"
              + " [--self-test]\n  (STAGING_DIR must hold "
              + GROUP_PATH
              + "/: the staging.dir of ./mvnw -B -Prelease deploy)");
      System.exit(2);
    }
    Path root = Path.of("").toAbsolutePath();
    StagedReleaseCheck check = new StagedReleaseCheck(staging, root, signed);
    check.run(true);
    int status = check.report();
    if (other != null) {
      status |= compare(staging, other);
    }
    if (selfTest && status == 0) {
      status = selfTest(staging, root, signed);
    }
    System.exit(status);
  }

  // ---------------------------------------------------------------------------------------------
  // the checks

  void run(boolean print) throws Exception {
    Path group = staging.resolve(GROUP_PATH);
    List<Path> pomFiles;
    try (Stream<Path> s = Files.walk(group)) {
      pomFiles = s.filter(p -> p.toString().endsWith(".pom")).sorted().toList();
    }
    if (pomFiles.isEmpty()) {
      problems.add("nothing staged under " + group);
      return;
    }
    for (Path p : pomFiles) {
      Element pom = parse(p);
      String a = text(pom, "artifactId");
      String v = ownOrParent(pom, "version");
      if (!p.getFileName().toString().equals(a + "-" + v + ".pom")) {
        problems.add(p + ": the pom's coordinates are " + a + ":" + v);
      }
      poms.put(a, pom);
      if (version == null) {
        version = v;
      } else if (!version.equals(v)) {
        problems.add(a + ": version " + v + ", not the release's " + version);
      }
    }
    if (version.contains("SNAPSHOT")) {
      problems.add("the staged version " + version + " is a SNAPSHOT: not a release");
    }

    Set<String> expected = new TreeSet<>(List.of("zklock-parent", "zklock-bom"));
    Element bom = poms.get("zklock-bom");
    if (bom == null) {
      problems.add("zklock-bom is not staged: the list of published artifacts is missing");
    } else {
      for (Element d : dependencies(bom, "dependencyManagement")) {
        if (GROUP.equals(text(d, "groupId"))) {
          expected.add(text(d, "artifactId"));
        }
      }
    }
    for (String a : expected) {
      if (!poms.containsKey(a)) {
        problems.add(a + ": listed in zklock-bom but not staged");
      }
    }
    for (String a : poms.keySet()) {
      if (!expected.contains(a)) {
        problems.add(
            a
                + ": staged but not listed in zklock-bom (publish it there, or mark it"
                + " <zklock.unpublished>true</zklock.unpublished>)");
      }
    }

    List<String[]> rows = new ArrayList<>();
    for (Map.Entry<String, Element> e : poms.entrySet()) {
      rows.add(checkArtifact(e.getKey(), e.getValue()));
    }

    if (print) {
      System.out.printf("staged release %s in %s%n", version, staging);
      System.out.printf(
          "  %-28s %-4s %9s %9s %9s  %s%n",
          "artifact", "type", "jar", "sources", "javadoc", "module");
      for (String[] r : rows) {
        System.out.printf("  %-28s %-4s %9s %9s %9s  %s%n", (Object[]) r);
      }
      List<String> unpublished = new ArrayList<>();
      for (String m : reactorModules(root)) {
        if (!poms.containsKey(m)) {
          unpublished.add(m);
        }
      }
      System.out.println(
          "not published (reactor modules not for users): "
              + (unpublished.isEmpty() ? "none" : String.join(", ", unpublished)));
      System.out.println(
          signed
              ? "signatures: required and checked"
                  + (onPath("gpg")
                      ? " (verified with gpg)"
                      : " (gpg not on the PATH: present only)")
              : "signatures: not checked (staged without -Dgpg.keyname: unsigned)");
    }
  }

  /** One artifact: its pom, its files; a row of the table. */
  String[] checkArtifact(String a, Element pom) throws Exception {
    String where = a + "-" + version + ".pom";
    Path dir = staging.resolve(GROUP_PATH).resolve(a).resolve(version);

    // metadata: name and description of its own, the rest possibly inherited
    String name = text(pom, "name");
    String description = text(pom, "description");
    if (blank(name)) {
      problems.add(where + ": no <name>");
    }
    if (blank(description)) {
      problems.add(where + ": no <description> of its own");
    } else if (description.strip().length() < 20) {
      problems.add(where + ": <description> too short to say anything: " + description.strip());
    }
    String home = home();
    String url = effective(pom, "url", a);
    if (blank(url)) {
      problems.add(where + ": no <url>, own or inherited");
    } else if (home != null && !url.equals(home)) {
      problems.add(
          where
              + ": <url> is "
              + url
              + ", not the project's home "
              + home
              + " (inherited with the module path appended?)");
    }
    Element licenses = inherited(pom, "licenses");
    List<Element> license = licenses == null ? List.of() : children(licenses, "license");
    if (license.isEmpty()) {
      problems.add(where + ": no <licenses>, own or inherited");
    }
    for (Element l : license) {
      if (!LICENSE.equals(text(l, "name")) || blank(text(l, "url"))) {
        problems.add(
            where
                + ": license "
                + text(l, "name")
                + " ("
                + text(l, "url")
                + "), expected "
                + LICENSE
                + " with its URL");
      }
    }
    Element developers = inherited(pom, "developers");
    if (developers == null || children(developers, "developer").isEmpty()) {
      problems.add(where + ": no <developers>, own or inherited");
    } else {
      for (Element d : children(developers, "developer")) {
        if (blank(text(d, "name")) && blank(text(d, "id"))) {
          problems.add(where + ": a <developer> with neither name nor id");
        }
      }
    }
    if (inherited(pom, "scm") == null) {
      problems.add(where + ": no <scm>, own or inherited");
    } else {
      for (String f : List.of("url", "connection")) {
        String v = effectiveScm(pom, f, a);
        if (blank(v)) {
          problems.add(where + ": no <scm><" + f + ">");
        } else if (f.equals("url") && home != null && !v.equals(home)) {
          problems.add(where + ": <scm><url> is " + v + ", not " + home);
        } else if (f.equals("connection") && !v.startsWith("scm:git:")) {
          problems.add(where + ": <scm><connection> is " + v + ", not scm:git:...");
        }
      }
    }

    // no SNAPSHOT anywhere a consumer resolves
    Element parent = child(pom, "parent");
    if (parent != null && text(parent, "version").contains("SNAPSHOT")) {
      problems.add(where + ": parent version " + text(parent, "version"));
    }
    for (String section : List.of("dependencies", "dependencyManagement")) {
      for (Element d : dependencies(pom, section)) {
        String v = text(d, "version");
        if (v == null) {
          continue; // managed: the managing pom is checked too
        }
        String resolved = interpolate(pom, v);
        if (resolved.contains("SNAPSHOT") || resolved.contains("${")) {
          problems.add(
              where
                  + ": "
                  + section
                  + " "
                  + text(d, "groupId")
                  + ":"
                  + text(d, "artifactId")
                  + ":"
                  + resolved
                  + (resolved.contains("${") ? " (unresolved)" : ""));
        }
      }
    }

    checkFiles(dir, a + "-" + version + ".pom");
    String packaging = blank(text(pom, "packaging")) ? "jar" : text(pom, "packaging");
    if (!packaging.equals("jar")) {
      return new String[] {a, packaging, "-", "-", "-", "-"};
    }
    Path jar = dir.resolve(a + "-" + version + ".jar");
    Path sources = dir.resolve(a + "-" + version + "-sources.jar");
    Path javadoc = dir.resolve(a + "-" + version + "-javadoc.jar");
    String module = "-";
    for (Path p : List.of(jar, sources, javadoc)) {
      if (!Files.isRegularFile(p)) {
        problems.add(a + ": " + p.getFileName() + " is missing");
      } else {
        checkFiles(dir, p.getFileName().toString());
      }
    }
    if (Files.isRegularFile(jar)) {
      module = checkMainJar(a, jar);
    }
    if (Files.isRegularFile(sources)) {
      checkEntries(a, sources, a.equals("zklock-kotlin") ? ".kt" : ".java", "a source file");
    }
    if (Files.isRegularFile(javadoc)) {
      checkEntries(a, javadoc, "index.html", "index.html");
    }
    return new String[] {a, "jar", size(jar), size(sources), size(javadoc), module};
  }

  /** The main jar: classes, a module name in io.zklock, one time stamp on every entry. */
  String checkMainJar(String a, Path jar) throws IOException {
    try (JarFile j = new JarFile(jar.toFile())) {
      String module = null;
      if (j.getEntry("module-info.class") != null) {
        module = moduleName(j.getInputStream(j.getEntry("module-info.class")).readAllBytes());
        module = module == null ? "module-info.class" : module + " (module-info)";
      } else if (j.getManifest() != null) {
        String name = j.getManifest().getMainAttributes().getValue("Automatic-Module-Name");
        module = name == null ? null : name + " (Automatic-Module-Name)";
      }
      if (module == null) {
        problems.add(
            a
                + ": "
                + jar.getFileName()
                + " has neither module-info.class nor an Automatic-Module-Name");
        module = "NONE";
      } else if (!module.startsWith(GROUP + ".") && !module.startsWith(GROUP + " ")) {
        problems.add(a + ": module name " + module + " is not in " + GROUP);
      }
      if (j.stream().noneMatch(e -> e.getName().endsWith(".class"))) {
        problems.add(a + ": " + jar.getFileName() + " has no classes");
      }
      checkTimestamps(a, j);
      return module;
    }
  }

  void checkEntries(String a, Path jar, String suffix, String what) throws IOException {
    try (JarFile j = new JarFile(jar.toFile())) {
      if (j.stream().noneMatch(e -> e.getName().endsWith(suffix))) {
        problems.add(a + ": " + jar.getFileName() + " has no " + what);
      }
      checkTimestamps(a, j);
    }
  }

  void checkTimestamps(String a, JarFile j) {
    Set<Long> times = new TreeSet<>();
    j.stream().forEach(e -> times.add(e.getTime()));
    if (times.size() > 1) {
      problems.add(
          a
              + ": "
              + Path.of(j.getName()).getFileName()
              + " has entries with "
              + times.size()
              + " different time stamps (project.build.outputTimestamp not applied)");
    }
  }

  /** The checksums (and signature) of one staged file. */
  void checkFiles(Path dir, String file) throws IOException {
    Path f = dir.resolve(file);
    if (!Files.isRegularFile(f)) {
      problems.add(file + " is missing");
      return;
    }
    byte[] bytes = Files.readAllBytes(f);
    for (String alg : List.of("md5", "sha1")) {
      Path sum = dir.resolve(file + "." + alg);
      if (!Files.isRegularFile(sum)) {
        problems.add(file + ": no ." + alg);
      } else {
        String want = Files.readString(sum).strip().split("\\s+")[0];
        String got = hex(alg.equals("md5") ? "MD5" : "SHA-1", bytes);
        if (!want.equalsIgnoreCase(got)) {
          problems.add(file + "." + alg + " does not match the file");
        }
      }
    }
    if (signed) {
      Path asc = dir.resolve(file + ".asc");
      if (!Files.isRegularFile(asc)) {
        problems.add(file + ": no .asc signature");
      } else if (!Files.readString(asc).startsWith("-----BEGIN PGP SIGNATURE-----")) {
        problems.add(file + ".asc is not an ASCII-armoured signature");
      } else if (onPath("gpg")) {
        Process p =
            new ProcessBuilder("gpg", "--batch", "--verify", asc.toString(), f.toString())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
          if (p.waitFor() != 0) {
            problems.add(file + ".asc does not verify: " + out.strip().replace("\n", " / "));
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException(e);
        }
      }
    }
  }

  int report() {
    if (problems.isEmpty()) {
      System.out.printf(
          "OK: %d artifacts of %s meet a public repository's requirements%n", poms.size(), version);
      return 0;
    }
    System.out.println("FAILED: " + problems.size() + " problem(s):");
    problems.forEach(p -> System.out.println("  - " + p));
    return 1;
  }

  // ---------------------------------------------------------------------------------------------
  // two stagings of the same sources: the same bytes

  static int compare(Path a, Path b) throws IOException {
    Map<String, String> ha = hashes(a);
    Map<String, String> hb = hashes(b);
    List<String> diff = new ArrayList<>();
    for (String f : new TreeSet<>(Set.copyOf(union(ha.keySet(), hb.keySet())))) {
      if (!ha.containsKey(f) || !hb.containsKey(f)) {
        diff.add(f + ": staged only in " + (ha.containsKey(f) ? a : b));
      } else if (!ha.get(f).equals(hb.get(f))) {
        diff.add(
            f
                + ": sha-256 "
                + ha.get(f).substring(0, 16)
                + "... vs "
                + hb.get(f).substring(0, 16)
                + "...");
      }
    }
    System.out.printf(
        "reproducible: %d poms and jars compared between %s and %s%n", ha.size(), a, b);
    if (diff.isEmpty()) {
      System.out.println("OK: the same bytes (sha-256) in both stagings");
      return 0;
    }
    System.out.println("FAILED: the stagings differ:");
    diff.forEach(d -> System.out.println("  - " + d));
    return 1;
  }

  static Map<String, String> hashes(Path staging) throws IOException {
    Map<String, String> out = new TreeMap<>();
    try (Stream<Path> s = Files.walk(staging)) {
      for (Path p : s.filter(Files::isRegularFile).toList()) {
        String n = p.getFileName().toString();
        if (n.endsWith(".jar") || n.endsWith(".pom")) {
          out.put(staging.relativize(p).toString(), hex("SHA-256", Files.readAllBytes(p)));
        }
      }
    }
    return out;
  }

  static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> u = new TreeSet<>(a);
    u.addAll(b);
    return u;
  }

  // ---------------------------------------------------------------------------------------------
  // the check of the check: each requirement broken once, on a copy, must be caught

  static int selfTest(Path staging, Path root, boolean signed) throws Exception {
    List<Case> cases = new ArrayList<>();
    cases.add(
        new Case(
            "a javadoc jar removed",
            "zklock-core-" + version(staging, "zklock-core") + "-javadoc.jar is missing",
            d -> delete(d, "zklock-core", "-javadoc.jar")));
    cases.add(
        new Case(
            "a sources jar removed",
            "-sources.jar is missing",
            d -> delete(d, "zklock-testkit", "-sources.jar")));
    cases.add(
        new Case(
            "the licenses removed (parent)",
            "no <licenses>",
            d ->
                editPom(
                    d, "zklock-parent", s -> s.replaceAll("(?s)<licenses>.*?</licenses>", ""))));
    cases.add(
        new Case(
            "the scm removed (parent)",
            "no <scm>",
            d -> editPom(d, "zklock-parent", s -> s.replaceAll("(?s)<scm[ >].*?</scm>", ""))));
    cases.add(
        new Case(
            "the developers removed (parent)",
            "no <developers>",
            d ->
                editPom(
                    d,
                    "zklock-parent",
                    s -> s.replaceAll("(?s)<developers>.*?</developers>", ""))));
    cases.add(
        new Case(
            "the module path appended to the URL",
            "not the project's home",
            d ->
                editPom(
                    d,
                    "zklock-parent",
                    s -> s.replace("child.project.url.inherit.append.path=\"false\"", ""))));
    cases.add(
        new Case(
            "a description removed",
            "no <description>",
            d ->
                editPom(
                    d,
                    "zklock-micrometer",
                    s -> s.replaceAll("(?s)<description>.*?</description>", ""))));
    cases.add(
        new Case(
            "a SNAPSHOT dependency",
            "1.0-SNAPSHOT",
            d ->
                editPom(
                    d,
                    "zklock-shedlock",
                    s ->
                        s.replaceFirst(
                            "</artifactId>\\s*</dependency>",
                            "</artifactId><version>1.0-SNAPSHOT</version></dependency>"))));
    cases.add(
        new Case(
            "no Automatic-Module-Name",
            "neither module-info.class nor an Automatic-Module-Name",
            d -> stripModuleName(d, "zklock-spring-integration")));
    cases.add(
        new Case(
            "a jar entry with its own time stamp",
            "different time stamps",
            d -> touchOneEntry(d, "zklock-micrometer")));
    cases.add(
        new Case(
            "an artifact missing from the staging",
            "zklock-shedlock: listed in zklock-bom but not staged",
            d -> deleteArtifact(d, "zklock-shedlock")));
    cases.add(
        new Case(
            "a checksum that does not match",
            ".jar.sha1 does not match",
            d -> {
              Path f = file(d, "zklock-testkit", "-" + version(d, "zklock-testkit") + ".jar.sha1");
              Files.writeString(f, "0000000000000000000000000000000000000000");
            }));
    if (signed) {
      cases.add(
          new Case(
              "a signature removed",
              ".pom: no .asc signature",
              d -> delete(d, "zklock-core", ".pom.asc")));
      cases.add(
          new Case(
              "a signature of other bytes",
              ".pom.asc does not verify",
              d -> {
                Path pom = file(d, "zklock-core", ".pom");
                Files.writeString(pom, Files.readString(pom) + "\n");
                rewriteSums(pom);
              }));
    }
    int failed = 0;
    System.out.println("self-test: each requirement broken on a copy of the staging");
    for (Case c : cases) {
      Path copy = Files.createTempDirectory("zklock-staging-selftest");
      try {
        copyTree(staging, copy);
        c.breakage().breakIt(copy);
        StagedReleaseCheck check = new StagedReleaseCheck(copy, root, signed);
        check.run(false);
        String caught =
            check.problems.stream().filter(p -> p.contains(c.expect())).findFirst().orElse(null);
        System.out.printf(
            "  %-40s %s%n",
            c.name(),
            caught != null
                ? "caught: " + caught
                : "NOT CAUGHT (expected a problem with \""
                    + c.expect()
                    + "\"; got "
                    + check.problems
                    + ")");
        if (caught == null) {
          failed++;
        }
      } finally {
        deleteTree(copy);
      }
    }
    System.out.println(
        failed == 0
            ? "OK: the check caught every breakage"
            : "FAILED: " + failed + " breakage(s) not caught");
    return failed == 0 ? 0 : 1;
  }

  /** One requirement broken: what, what the check must say, how. */
  record Case(String name, String expect, Breakage breakage) {}

  interface Breakage {
    void breakIt(Path staging) throws Exception;
  }

  static Path file(Path staging, String artifact, String suffix) throws IOException {
    Path dir = staging.resolve(GROUP_PATH).resolve(artifact);
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(p -> p.getFileName().toString().endsWith(suffix))
          .findFirst()
          .orElseThrow(() -> new IOException("no " + artifact + " *" + suffix + " in " + dir));
    }
  }

  static void delete(Path staging, String artifact, String suffix) throws IOException {
    Files.delete(file(staging, artifact, suffix));
  }

  static void deleteArtifact(Path staging, String artifact) throws IOException {
    deleteTree(staging.resolve(GROUP_PATH).resolve(artifact));
  }

  /** Edits a pom and rewrites its checksums, so that only the edit is wrong. */
  static void editPom(Path staging, String artifact, java.util.function.UnaryOperator<String> edit)
      throws IOException {
    Path pom = file(staging, artifact, ".pom");
    String before = Files.readString(pom);
    String after = edit.apply(before);
    if (after.equals(before)) {
      throw new IOException("the breakage did not change " + pom);
    }
    Files.writeString(pom, after);
    rewriteSums(pom);
  }

  static void stripModuleName(Path staging, String artifact) throws IOException {
    rewriteJar(staging, artifact, true, false);
  }

  static void touchOneEntry(Path staging, String artifact) throws IOException {
    rewriteJar(staging, artifact, false, true);
  }

  /**
   * Rewrites an artifact's main jar without its Automatic-Module-Name, or with one entry's time
   * moved, and its checksums.
   */
  static void rewriteJar(Path staging, String artifact, boolean stripName, boolean touch)
      throws IOException {
    Path jar = file(staging, artifact, "-" + version(staging, artifact) + ".jar");
    Path tmp = Files.createTempFile("zklock-selftest", ".jar");
    try (JarFile in = new JarFile(jar.toFile())) {
      Manifest m = new Manifest(in.getManifest());
      if (stripName
          && m.getMainAttributes().remove(new Attributes.Name("Automatic-Module-Name")) == null) {
        throw new IOException(jar + " has no Automatic-Module-Name to remove");
      }
      boolean touched = false;
      try (OutputStream os = Files.newOutputStream(tmp);
          JarOutputStream out = new JarOutputStream(os, m)) {
        for (Enumeration<JarEntry> e = in.entries(); e.hasMoreElements(); ) {
          JarEntry entry = e.nextElement();
          if (entry.getName().equals("META-INF/MANIFEST.MF")) {
            continue;
          }
          ZipEntry copy = new ZipEntry(entry.getName());
          copy.setTime(entry.getTime());
          if (touch && !touched && !entry.isDirectory()) {
            copy.setTime(entry.getTime() + 3_600_000L); // an hour later: a build-time stamp
            touched = true;
          }
          out.putNextEntry(copy);
          try (InputStream is = in.getInputStream(entry)) {
            is.transferTo(out);
          }
          out.closeEntry();
        }
      }
    }
    Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING);
    rewriteSums(jar);
  }

  static String version(Path staging, String artifact) throws IOException {
    try (Stream<Path> s = Files.list(staging.resolve(GROUP_PATH).resolve(artifact))) {
      return s.filter(Files::isDirectory).findFirst().orElseThrow().getFileName().toString();
    }
  }

  static void rewriteSums(Path f) throws IOException {
    byte[] bytes = Files.readAllBytes(f);
    Files.writeString(f.resolveSibling(f.getFileName() + ".md5"), hex("MD5", bytes));
    Files.writeString(f.resolveSibling(f.getFileName() + ".sha1"), hex("SHA-1", bytes));
  }

  static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : s.toList()) {
        Path t = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(t);
        } else {
          Files.copy(p, t, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      List<Path> all = new ArrayList<>(s.toList());
      Collections.reverse(all);
      for (Path p : all) {
        Files.delete(p);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // poms: parsing, inheritance within the staging, properties

  static Element parse(Path p) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setNamespaceAware(false);
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    Document d = f.newDocumentBuilder().parse(p.toFile());
    return d.getDocumentElement();
  }

  static Element child(Element e, String name) {
    for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element c && c.getTagName().equals(name)) {
        return c;
      }
    }
    return null;
  }

  static List<Element> children(Element e, String name) {
    List<Element> out = new ArrayList<>();
    for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element c && c.getTagName().equals(name)) {
        out.add(c);
      }
    }
    return out;
  }

  static String text(Element e, String name) {
    Element c = child(e, name);
    return c == null ? null : c.getTextContent().strip();
  }

  static String ownOrParent(Element pom, String name) {
    String own = text(pom, name);
    Element parent = child(pom, "parent");
    return own != null || parent == null ? own : text(parent, name);
  }

  static List<Element> dependencies(Element pom, String section) {
    Element s = child(pom, section);
    if (s == null) {
      return List.of();
    }
    Element deps = section.equals("dependencies") ? s : child(s, "dependencies");
    return deps == null ? List.of() : children(deps, "dependency");
  }

  /** The staged parent of a pom, if it is one of ours. */
  Element parentOf(Element pom) {
    Element parent = child(pom, "parent");
    if (parent == null || !GROUP.equals(text(parent, "groupId"))) {
      return null;
    }
    Element p = poms.get(text(parent, "artifactId"));
    if (p == null) {
      problems.add(
          text(pom, "artifactId")
              + ": its parent "
              + text(parent, "artifactId")
              + " is not staged");
    }
    return p;
  }

  Element inherited(Element pom, String name) {
    for (Element p = pom; p != null; p = parentOf(p)) {
      Element c = child(p, name);
      if (c != null) {
        return c;
      }
    }
    return null;
  }

  /** The project's home: the root parent's URL. */
  String home() {
    Element parent = poms.get("zklock-parent");
    return parent == null ? null : text(parent, "url");
  }

  /** A URL as Maven inherits it: the module's path is appended unless the parent says not to. */
  String effective(Element pom, String name, String artifactId) {
    String own = text(pom, name);
    if (own != null) {
      return own;
    }
    Element parent = parentOf(pom);
    if (parent == null) {
      return null;
    }
    String inherited = effective(parent, name, text(parent, "artifactId"));
    boolean append = !"false".equals(parent.getAttribute("child.project.url.inherit.append.path"));
    return inherited == null || !append ? inherited : inherited + "/" + artifactId;
  }

  String effectiveScm(Element pom, String name, String artifactId) {
    Element scm = child(pom, "scm");
    if (scm != null && text(scm, name) != null) {
      return text(scm, name);
    }
    Element parent = parentOf(pom);
    if (parent == null) {
      return null;
    }
    String inherited = effectiveScm(parent, name, text(parent, "artifactId"));
    Element parentScm = child(parent, "scm");
    boolean append =
        parentScm == null
            || !"false"
                .equals(parentScm.getAttribute("child.scm." + name + ".inherit.append.path"));
    return inherited == null || !append ? inherited : inherited + "/" + artifactId;
  }

  static final Pattern PROPERTY = Pattern.compile("\\$\\{([^}]+)}");

  String interpolate(Element pom, String value) {
    Map<String, String> props = new TreeMap<>();
    List<Element> chain = new ArrayList<>();
    for (Element p = pom; p != null; p = parentOf(p)) {
      chain.add(0, p);
    }
    for (Element p : chain) {
      Element ps = child(p, "properties");
      if (ps != null) {
        for (Node n = ps.getFirstChild(); n != null; n = n.getNextSibling()) {
          if (n instanceof Element e) {
            props.put(e.getTagName(), e.getTextContent().strip());
          }
        }
      }
    }
    props.put("project.version", ownOrParent(pom, "version"));
    props.put("project.groupId", ownOrParent(pom, "groupId"));
    props.put("project.artifactId", text(pom, "artifactId"));
    String v = value;
    for (int i = 0; i < 10 && v.contains("${"); i++) {
      Matcher m = PROPERTY.matcher(v);
      StringBuilder sb = new StringBuilder();
      while (m.find()) {
        String r = props.get(m.group(1));
        m.appendReplacement(sb, Matcher.quoteReplacement(r == null ? m.group() : r));
      }
      m.appendTail(sb);
      if (sb.toString().equals(v)) {
        break;
      }
      v = sb.toString();
    }
    return v;
  }

  /** The artifactIds of the reactor: the root pom's modules, recursively. */
  static List<String> reactorModules(Path root) throws Exception {
    List<String> out = new ArrayList<>();
    collectModules(root, out);
    return out;
  }

  static void collectModules(Path dir, List<String> out) throws Exception {
    Path pomFile = dir.resolve("pom.xml");
    if (!Files.isRegularFile(pomFile)) {
      return;
    }
    Element pom = parse(pomFile);
    out.add(text(pom, "artifactId"));
    Element modules = child(pom, "modules");
    if (modules != null) {
      for (Element m : children(modules, "module")) {
        collectModules(dir.resolve(m.getTextContent().strip()), out);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // small things

  /** The name of a module from its module-info.class (the constant pool's Module entry). */
  static String moduleName(byte[] c) {
    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(c);
    b.position(8);
    int count = b.getShort() & 0xffff;
    String[] utf8 = new String[count];
    int[] modules = new int[count];
    int found = 0;
    for (int i = 1; i < count; i++) {
      int tag = b.get() & 0xff;
      switch (tag) {
        case 1 -> {
          byte[] s = new byte[b.getShort() & 0xffff];
          b.get(s);
          utf8[i] = new String(s, StandardCharsets.UTF_8);
        }
        case 19 -> modules[found++] = b.getShort() & 0xffff;
        case 7, 8, 16, 20 -> b.getShort();
        case 15 -> {
          b.get();
          b.getShort();
        }
        case 3, 4, 9, 10, 11, 12, 17, 18 -> b.getInt();
        case 5, 6 -> {
          b.getLong();
          i++;
        }
        default -> {
          return null;
        }
      }
    }
    return found == 0 ? null : utf8[modules[0]];
  }

  static String size(Path p) {
    try {
      long n = Files.size(p);
      return n >= 10_000 ? (n / 1000) + " kB" : n + " B";
    } catch (IOException e) {
      return "missing";
    }
  }

  static boolean blank(String s) {
    return s == null || s.isBlank();
  }

  static String hex(String algorithm, byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance(algorithm).digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static boolean onPath(String command) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String d : path.split(java.io.File.pathSeparator)) {
      if (Files.isExecutable(Path.of(d, command))) {
        return true;
      }
    }
    return false;
  }
}
