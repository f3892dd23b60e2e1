package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.zklock.testkit.ServerFreePhase;
import java.io.IOException;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.PostDiscoveryFilter;
import org.junit.platform.launcher.TagFilter;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The module's tests run in two phases (the pom's two Surefire executions): every test that is not
 * tagged {@code server} or {@code late}, then those that are. This check discovers the compiled
 * test classes as Surefire's JUnit Platform provider does, with each phase's tag filter, and holds
 * that the phases split the tests without loss or overlap: every test runs in exactly one phase, no
 * class has tests in both (their reports would overwrite each other), and no class with tests is
 * named so that Surefire never runs it.
 */
class TestPhasesTest {
  /** Surefire's default includes, as class names: Test*, *Test, *Tests, *TestCase. */
  private static final Pattern SUREFIRE_INCLUDES =
      Pattern.compile("(.*\\.)?(Test[^.]*|[^.]*Test|[^.]*Tests|[^.]*TestCase)");

  /** The second phase's tag expression, as the pom gives it to the first phase. */
  private static final String SECOND =
      System.getProperty("zklock.test.secondPhase", ServerFreePhase.SERVER_TAG + " | late");

  private static List<DiscoverySelector> classes;
  private static TreeMap<String, Set<String>> all;

  @BeforeAll
  static void compiledTestClasses() throws IOException {
    Path root = Path.of("target", "test-classes");
    assertThat(root.resolve("io/zklock/TestPhasesTest.class")).as("run from the module").exists();
    List<DiscoverySelector> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.filter(f -> f.toString().endsWith(".class")).toList()) {
        String name = root.relativize(p).toString().replace('/', '.').replaceAll("\\.class$", "");
        if (name.contains("$") || name.endsWith("module-info") || name.endsWith("package-info")) {
          continue;
        }
        Class<?> c;
        try {
          c = Class.forName(name, false, TestPhasesTest.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
          throw new AssertionError("cannot load test class " + name, e);
        }
        if (!Modifier.isAbstract(c.getModifiers()) && !c.isInterface()) {
          found.add(selectClass(c));
        }
      }
    }
    classes = found;
    all = discover();
  }

  /** The tests of {@code filters} (none: every test), by class name. */
  private static TreeMap<String, Set<String>> discover(PostDiscoveryFilter... filters) {
    LauncherDiscoveryRequest request =
        LauncherDiscoveryRequestBuilder.request()
            .selectors(classes)
            .filters(filters)
            .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "false")
            .build();
    TestPlan plan = LauncherFactory.create().discover(request);
    TreeMap<String, Set<String>> byClass = new TreeMap<>();
    for (TestIdentifier root : plan.getRoots()) {
      for (TestIdentifier t : plan.getDescendants(root)) {
        if (t.isTest()) {
          byClass.computeIfAbsent(classOf(plan, t), k -> new TreeSet<>()).add(t.getUniqueId());
        }
      }
    }
    return byClass;
  }

  private static String classOf(TestPlan plan, TestIdentifier t) {
    for (TestIdentifier i = t; i != null; i = plan.getParent(i).orElse(null)) {
      TestSource s = i.getSource().orElse(null);
      if (s instanceof MethodSource m) {
        return m.getClassName();
      }
      if (s instanceof ClassSource c) {
        return c.getClassName();
      }
    }
    throw new AssertionError("a test with no class: " + t.getUniqueId());
  }

  private static Set<String> ids(TreeMap<String, Set<String>> byClass) {
    return byClass.values().stream().flatMap(Set::stream).collect(Collectors.toSet());
  }

  @Test
  void everyTestRunsInExactlyOnePhase_andNoClassInBoth() {
    TreeMap<String, Set<String>> serverFree = discover(TagFilter.excludeTags(SECOND));
    TreeMap<String, Set<String>> server = discover(TagFilter.includeTags(SECOND));

    assertThat(all).as("tests discovered").hasSizeGreaterThan(50);
    assertThat(serverFree).as("classes of the server-free phase").isNotEmpty();
    assertThat(server).as("classes of the server phase").isNotEmpty();
    Set<String> both = new TreeSet<>(serverFree.keySet());
    both.retainAll(server.keySet());
    assertThat(both)
        .as("classes with tests in both phases: tag the class, not some of its methods")
        .isEmpty();
    Set<String> union = new TreeSet<>(ids(serverFree));
    union.addAll(ids(server));
    assertThat(ids(serverFree).size() + ids(server).size())
        .as("tests of the two phases, counted apart")
        .isEqualTo(union.size());
    assertThat(union).as("the tests of the two phases together").isEqualTo(ids(all));
    assertThat(serverFree.keySet())
        .as("this check runs in the server-free phase")
        .contains(TestPhasesTest.class.getName());
  }

  @Test
  void everyClassWithTests_isOneSurefireRuns() {
    Set<String> unnamed =
        all.keySet().stream()
            .filter(c -> !SUREFIRE_INCLUDES.matcher(c).matches())
            .collect(Collectors.toCollection(TreeSet::new));
    assertThat(unnamed)
        .as(
            "classes with tests whose names Surefire's includes (Test*, *Test, *Tests, *TestCase)"
                + " never run")
        .isEmpty();
  }
}
