package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.zklock.testkit.EmbeddedZooKeeper;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code ```java} block of the README and the docs compiles against the code of this build,
 * so that the examples users copy cannot drift from the API; the README's main example also runs
 * against an embedded server.
 *
 * <p>A block that declares a class is compiled as a file; any other block is compiled as the body
 * of a method, with the imports below and the names the examples use for "your code" ({@code
 * ledger}, {@code entry}, {@code stopWorking()}) declared around it. A block whose fence names an
 * adapter module after the language ({@code ```java zklock-shedlock}) uses that module's framework,
 * which is not on this module's classpath: it is not compiled here.
 */
class DocSnippetsTest {
  private static final String IMPORTS =
      String.join(
          "\n",
          "import static java.nio.charset.StandardCharsets.UTF_8;",
          "import static org.assertj.core.api.Assertions.assertThat;",
          "import io.zklock.*;",
          "import io.zklock.testkit.*;",
          "import java.nio.file.Path;",
          "import java.time.Duration;",
          "import java.util.*;",
          "import java.util.concurrent.*;",
          "import org.apache.zookeeper.ZooKeeper;",
          "import org.junit.jupiter.api.*;",
          "");

  private static final Pattern BLOCK = Pattern.compile("(?ms)^```java\\s*\\n(.*?)^```");
  private static final Pattern CLASS = Pattern.compile("(?m)^(\\w+ )*(class|record|interface) ");

  @TempDir Path dir;

  /** One example: where it is and its text. */
  record Snippet(Path file, int line, String code) {
    String id() {
      return repo().relativize(file) + ":" + line;
    }
  }

  static Path repo() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.exists(p.resolve("mvnw"))) {
      p = p.getParent();
    }
    assertThat(p)
        .as("the repository root (with mvnw) above " + Path.of("").toAbsolutePath())
        .isNotNull();
    return p;
  }

  static List<Path> documents() throws IOException {
    Path root = repo();
    List<Path> docs = new ArrayList<>();
    docs.add(root.resolve("README.md"));
    try (Stream<Path> s = Files.list(root.resolve("docs"))) {
      s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    try (Stream<Path> s = Files.list(root)) {
      s.map(m -> m.resolve("README.md")).filter(Files::exists).sorted().forEach(docs::add);
    }
    return docs;
  }

  static List<Snippet> snippets() throws IOException {
    List<Snippet> out = new ArrayList<>();
    for (Path doc : documents()) {
      String text = Files.readString(doc, StandardCharsets.UTF_8);
      Matcher m = BLOCK.matcher(text);
      while (m.find()) {
        int line = (int) text.substring(0, m.start()).lines().count() + 1;
        out.add(new Snippet(doc, line, m.group(1)));
      }
    }
    return out;
  }

  /** The source of a compilation unit for {@code s}, in class {@code name}. */
  static String source(Snippet s, String name) {
    if (CLASS.matcher(s.code()).find()) {
      return IMPORTS + s.code().replaceFirst("class (\\w+)", "class " + name);
    }
    return IMPORTS
        + "public class "
        + name
        + " {\n"
        + "  public interface Ledger { void write(Object entry, long token); }\n"
        + "  public final List<Long> written = new CopyOnWriteArrayList<>();\n"
        + "  public Ledger ledger = (entry, token) -> written.add(token);\n"
        + "  public Object entry = \"entry\";\n"
        + "  public volatile boolean stopped;\n"
        + "  public void stopWorking() { stopped = true; }\n"
        + "  public void run() throws Exception {\n"
        + s.code()
        + "\n  }\n}\n";
  }

  /** Compiles into {@code out}; returns javac's diagnostics, empty when it compiled. */
  static String compile(String className, String source, Path out) throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    StringWriter diagnostics = new StringWriter();
    try (StandardJavaFileManager files = javac.getStandardFileManager(null, null, null)) {
      JavaFileObject unit =
          new SimpleJavaFileObject(
              java.net.URI.create("string:///" + className + ".java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
              return source;
            }
          };
      List<String> options =
          List.of(
              "-classpath",
              System.getProperty("java.class.path"),
              "-d",
              out.toString(),
              "-proc:none",
              "-Xlint:-options");
      boolean ok = javac.getTask(diagnostics, files, null, options, null, List.of(unit)).call();
      return ok ? "" : diagnostics.toString();
    }
  }

  @TestFactory
  Stream<DynamicTest> everyJavaBlockOfTheDocs_compiles() throws IOException {
    List<Snippet> all = snippets();
    assertThat(all).as("java blocks in README.md and docs/").isNotEmpty();
    return all.stream()
        .map(
            s ->
                DynamicTest.dynamicTest(
                    s.id(),
                    () -> {
                      String name = "Snippet" + Math.abs(s.id().hashCode());
                      Path out = Files.createTempDirectory(dir, "classes");
                      String src = source(s, name);
                      String errors = compile(name, src, out);
                      assertThat(errors)
                          .as("the java block at " + s.id() + " must compile; source:\n" + src)
                          .isEmpty();
                    }));
  }

  @Test
  void readmeExample_runsAgainstAServer() throws Exception {
    Snippet readme =
        snippets().stream()
            .filter(s -> s.file().getFileName().toString().equals("README.md"))
            .filter(s -> s.file().getParent().equals(repo()))
            .filter(s -> s.code().contains("ZkLocks.builder("))
            .findFirst()
            .orElseThrow(() -> new AssertionError("README.md has no ZkLocks.builder example"));
    try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.standalone().start()) {
      String code =
          readme
              .code()
              .replaceFirst(
                  "ZkLocks\\.builder\\(\"[^\"]*\"\\)",
                  "ZkLocks.builder(\"" + zk.connectString() + "\")");
      assertThat(code).as("the connect string was replaced").contains(zk.connectString());
      Snippet local = new Snippet(readme.file(), readme.line(), code);
      String src = source(local, "ReadmeExample");
      String errors = compile("ReadmeExample", src, dir);
      assertThat(errors).as(src).isEmpty();

      try (URLClassLoader loader =
          new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
        Class<?> c = loader.loadClass("ReadmeExample");
        Object example = c.getConstructor().newInstance();
        // runs to its end (a reader who copies it must not wait for ever): connects, locks,
        // writes, closes, without an exception, in well under a minute
        assertTimeoutPreemptively(
            Duration.ofSeconds(60),
            () -> c.getMethod("run").invoke(example),
            "the README's example must run to its end");
        assertThat(c.getField("stopped").getBoolean(example))
            .as("a lock released normally is not lost")
            .isFalse();
        @SuppressWarnings("unchecked")
        List<Long> written = (List<Long>) c.getField("written").get(example);
        assertThat(written)
            .as("every lock the example asks for is granted and written with")
            .hasSize(2)
            .isSorted()
            .doesNotHaveDuplicates();
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
