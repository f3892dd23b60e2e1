package io.zklock.internal;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleName;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The layers of zklock-core, checked on its compiled classes (read from {@code target/classes}, so
 * the check works the same on the module path). Dependencies run one way:
 *
 * <pre>
 *   internal (the ZkLocks implementation and its factory: the wiring)
 *     └► recipe ─► engine ─► protocol ─► zk ─► rules
 *          ├────► coord ──► engine, inspect, zk
 *          └────► inspect ─────────────► zk
 * </pre>
 *
 * A layer may use any layer below it, and the public API {@code io.zklock}; {@code rules} uses
 * nothing internal and makes no ZooKeeper call. The API reaches the implementation through one
 * class, {@code ZkLocksFactory}. No two internal packages depend on each other in a circle. Only
 * the session layer {@code zk} names ZooKeeper's handle; everything else calls ZooKeeper through
 * the seam {@code zk.ZkOps}.
 *
 * <p>Each rule is also run on the main classes plus a class of this test tree that breaks it on
 * purpose ({@code Crossing*}: in the API package, {@code internal.rules}, {@code internal.zk},
 * {@code internal.recipe} and {@code internal.inspect}), to show that it can fail.
 *
 * <p>Three minutes instead of the suite's 60 s per test: importing and checking the classes is
 * CPU-bound and took 31 to 60 s at a load of 20 on two cores (a few seconds quiet); nothing in it
 * waits on anything that could hang.
 */
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
@Tag("late") // CPU-bound and long: runs beside the server tests (see the pom)
class ArchitectureTest {
  private static final String INTERNAL = "io.zklock.internal";

  private static JavaClasses main;

  @BeforeAll
  static void importMainClasses() {
    Path classes = Path.of("target", "classes");
    assertThat(classes.resolve("io/zklock/ZkLocks.class"))
        .as("run from the module's directory, after compiling")
        .exists();
    main = new ClassFileImporter().importPath(classes);
  }

  /** The layers, each allowed the layers below it (and the API, which every layer may use). */
  static final ArchRule LAYERS =
      layeredArchitecture()
          .consideringOnlyDependenciesInLayers()
          .layer("api")
          .definedBy("io.zklock")
          .layer("wiring")
          .definedBy(INTERNAL)
          .layer("recipe")
          .definedBy(INTERNAL + ".recipe..")
          .layer("coord")
          .definedBy(INTERNAL + ".coord..")
          .layer("inspect")
          .definedBy(INTERNAL + ".inspect..")
          .layer("engine")
          .definedBy(INTERNAL + ".engine..")
          .layer("protocol")
          .definedBy(INTERNAL + ".protocol..")
          .layer("zk")
          .definedBy(INTERNAL + ".zk..")
          .layer("rules")
          .definedBy(INTERNAL + ".rules..")
          .whereLayer("wiring")
          .mayOnlyBeAccessedByLayers("api")
          .whereLayer("recipe")
          .mayOnlyBeAccessedByLayers("wiring")
          .whereLayer("coord")
          .mayOnlyBeAccessedByLayers("wiring", "recipe")
          .whereLayer("inspect")
          .mayOnlyBeAccessedByLayers("wiring", "recipe", "coord")
          .whereLayer("engine")
          .mayOnlyBeAccessedByLayers("wiring", "recipe", "coord")
          .whereLayer("protocol")
          .mayOnlyBeAccessedByLayers("wiring", "recipe", "engine")
          .whereLayer("zk")
          .mayOnlyBeAccessedByLayers("wiring", "recipe", "coord", "inspect", "engine", "protocol")
          .whereLayer("rules")
          .mayOnlyBeAccessedByLayers(
              "api", "wiring", "recipe", "coord", "inspect", "engine", "protocol", "zk")
          .because("dependencies run one way: recipe → engine → protocol → zk → rules");

  /** No circle between the packages of the implementation. */
  static final ArchRule NO_CYCLES =
      slices()
          .matching(INTERNAL + ".(*)..")
          .should()
          .beFreeOfCycles()
          .because("the packages of io.zklock.internal form layers, not a web");

  /** The API names one class of the implementation: the factory its builder calls. */
  static final ArchRule ONE_ENTRY_POINT =
      noClasses()
          .that()
          .resideInAPackage("io.zklock")
          .should()
          .dependOnClassesThat(
              resideInAPackage(INTERNAL + "..")
                  .and(not(simpleName("ZkLocksFactory").and(resideInAPackage(INTERNAL)))))
          .because("the API reaches the implementation through ZkLocksFactory alone");

  /** The rules are pure: no ZooKeeper call, no watch, no callback; its data types are fine. */
  static final ArchRule PURE_RULES =
      noClasses()
          .that()
          .resideInAPackage(INTERNAL + ".rules..")
          .should()
          .dependOnClassesThat(
              resideInAPackage("org.apache.zookeeper")
                  .and(
                      not(
                          nameMatching(
                              "org\\.apache\\.zookeeper\\.(KeeperException|ZooDefs)(\\$.*)?"))))
          .because("a rule is a pure function, apart from ZooKeeper I/O");

  /**
   * ZooKeeper's handle is the session layer's alone: every other class (the API, the wiring, the
   * recipes, inspection, the engine, the protocols) reaches ZooKeeper through a {@code
   * zk.Session.Conn} and its asynchronous calls ({@code zk.ZkOps}), and cannot name the handle.
   */
  static final ArchRule THROUGH_THE_SEAM =
      noClasses()
          .that()
          .resideOutsideOfPackage(INTERNAL + ".zk..")
          .should()
          .dependOnClassesThat(assignableTo("org.apache.zookeeper.ZooKeeper"))
          .because(
              "the seam is what lets the engine and the recipes run on a fake or a simulation");

  @Test
  void layers_runOneWay() {
    LAYERS.check(main);
  }

  @Test
  void internalPackages_haveNoCycles() {
    NO_CYCLES.check(main);
  }

  @Test
  void api_reachesTheImplementationThroughTheFactoryOnly() {
    ONE_ENTRY_POINT.check(main);
  }

  @Test
  void rules_makeNoZooKeeperCalls() {
    PURE_RULES.check(main);
  }

  @Test
  void onlyTheSessionLayer_namesZooKeepersHandle() {
    THROUGH_THE_SEAM.check(main);
  }

  // ---------------------------------------------------------------- the rules can fail

  @Test
  void layers_failOnAClassThatReachesUp() {
    JavaClasses crossed = withFixtures("rules", "CrossingUp");
    assertThatThrownBy(() -> LAYERS.check(crossed))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("CrossingUp")
        .hasMessageContaining("Ticket");
  }

  @Test
  void noCycles_failsOnACircleBetweenTwoPackages() {
    JavaClasses circled = withFixtures("zk", "CrossingBack");
    assertThatThrownBy(() -> NO_CYCLES.check(circled))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("Cycle detected")
        .hasMessageContaining("CrossingBack");
  }

  @Test
  void throughTheSeam_failsOnARecipeThatCallsTheHandle() {
    JavaClasses crossed = withFixtures("recipe", "CrossingSeam");
    assertThatThrownBy(() -> THROUGH_THE_SEAM.check(crossed))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("CrossingSeam")
        .hasMessageContaining("ZooKeeper.exists");
  }

  @Test
  void throughTheSeam_failsOnInspectionThatOnlyNamesTheHandle() {
    JavaClasses crossed = withFixtures("inspect", "CrossingHandle");
    assertThatThrownBy(() -> THROUGH_THE_SEAM.check(crossed))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("CrossingHandle")
        .hasMessageContaining("org.apache.zookeeper.ZooKeeper");
  }

  @Test
  void oneEntryPoint_failsOnAnApiClassThatNamesARecipe() {
    JavaClasses crossed = withFixtures("", "CrossingEntry");
    assertThatThrownBy(() -> ONE_ENTRY_POINT.check(crossed))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("CrossingEntry")
        .hasMessageContaining("NodeLock");
  }

  @Test
  void pureRules_failOnARuleThatSetsAWatch() {
    JavaClasses crossed = withFixtures("rules", "CrossingPure");
    assertThatThrownBy(() -> PURE_RULES.check(crossed))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("CrossingPure")
        .hasMessageContaining("org.apache.zookeeper.Watcher");
  }

  /**
   * The main classes plus the compiled test classes named {@code <name>*} of {@code
   * io.zklock.internal.<pkg>} (of the API package {@code io.zklock} for an empty {@code pkg}).
   */
  private static JavaClasses withFixtures(String pkg, String name) {
    Path api = Path.of("target", "test-classes", "io", "zklock");
    Path dir = pkg.isEmpty() ? api : api.resolve("internal").resolve(pkg);
    List<Path> paths;
    try (Stream<Path> files = Files.list(dir)) {
      paths =
          files
              .filter(p -> p.getFileName().toString().startsWith(name))
              .collect(Collectors.toList());
    } catch (IOException e) {
      throw new AssertionError("cannot list " + dir, e);
    }
    assertThat(paths).as("the fixture %s in %s", name, dir).isNotEmpty();
    paths.add(Path.of("target", "classes"));
    return new ClassFileImporter().importPaths(paths);
  }
}
