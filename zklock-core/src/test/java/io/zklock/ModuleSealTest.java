package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleDescriptor.Exports;
import java.lang.module.ModuleDescriptor.Requires;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/**
 * zklock-core is the module {@code io.zklock} and exports only the API package: {@code
 * io.zklock.internal} is sealed inside it. The tests of zklock-core run on the module path, patched
 * into the module, so these checks read the module as the runtime built it from {@code
 * module-info.java}.
 */
class ModuleSealTest {
  private final Module module = ZkLocks.class.getModule();

  @Test
  void theLibraryIsTheNamedModuleIoZklock() {
    assertThat(module.isNamed()).as("tests run on the module path").isTrue();
    assertThat(module.getName()).isEqualTo("io.zklock");
  }

  @Test
  void onlyTheApiPackageIsExportedAndNothingIsOpened() {
    ModuleDescriptor d = module.getDescriptor();
    assertThat(d.isOpen()).isFalse();
    assertThat(d.opens()).isEmpty();
    assertThat(d.exports()).extracting(Exports::source).containsExactly("io.zklock");
    assertThat(d.exports()).allMatch(e -> !e.isQualified(), "unqualified");
    assertThat(d.packages()).contains("io.zklock.internal");
  }

  @Test
  void zooKeeperIsRead_notTransitively_itsTypesStayInsideTheImplementation() {
    assertThat(module.getDescriptor().requires())
        .filteredOn(r -> r.name().equals("zookeeper"))
        .singleElement()
        .satisfies(r -> assertThat(r.modifiers()).doesNotContain(Requires.Modifier.TRANSITIVE));
    assertThat(module.canRead(ZooKeeper.class.getModule())).isTrue();
  }

  /**
   * Every public or protected signature of the API (types, supertypes, fields, constructors,
   * methods, type parameters, thrown exceptions, generic arguments) names zklock's and the JDK's
   * types only: a user of the API never needs ZooKeeper's.
   */
  @Test
  void noPublicOrProtectedSignatureOfTheApi_namesAZooKeeperType() throws Exception {
    Path api = Path.of("target", "classes", "io", "zklock");
    assertThat(api).as("run from the module's directory, after compiling").isDirectory();
    List<String> offenders = new ArrayList<>();
    int seen = 0;
    try (Stream<Path> files = Files.list(api)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
        String name = f.getFileName().toString();
        Class<?> c =
            Class.forName("io.zklock." + name.substring(0, name.length() - 6), false, loader());
        if (!visible(c.getModifiers()) || c.isSynthetic() || c.isAnonymousClass()) {
          continue;
        }
        seen++;
        List<Type> types = new ArrayList<>();
        if (c.getGenericSuperclass() != null) {
          types.add(c.getGenericSuperclass());
        }
        types.addAll(List.of(c.getGenericInterfaces()));
        types.addAll(List.of(c.getTypeParameters()));
        for (Field x : c.getDeclaredFields()) {
          if (visible(x.getModifiers())) {
            types.add(x.getGenericType());
          }
        }
        for (Constructor<?> x : c.getDeclaredConstructors()) {
          if (visible(x.getModifiers())) {
            types.addAll(List.of(x.getGenericParameterTypes()));
            types.addAll(List.of(x.getGenericExceptionTypes()));
          }
        }
        for (Method x : c.getDeclaredMethods()) {
          if (visible(x.getModifiers()) && !x.isSynthetic()) {
            types.add(x.getGenericReturnType());
            types.addAll(List.of(x.getGenericParameterTypes()));
            types.addAll(List.of(x.getGenericExceptionTypes()));
            types.addAll(List.of(x.getTypeParameters()));
          }
        }
        for (Type t : types) {
          String shown = t instanceof TypeVariable<?> v ? List.of(v.getBounds()).toString() : "";
          if ((t.getTypeName() + shown).contains("org.apache.zookeeper")) {
            offenders.add(c.getName() + ": " + t.getTypeName());
          }
        }
      }
    }
    assertThat(seen).as("API types read").isGreaterThan(10);
    assertThat(offenders).as("API signatures that name ZooKeeper's types").isEmpty();
  }

  private static ClassLoader loader() {
    return ZkLocks.class.getClassLoader();
  }

  private static boolean visible(int modifiers) {
    return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
  }

  @Test
  void zooKeepersJuteRecordsArePatchedIntoTheZookeeperModuleAndExported() {
    Module zookeeper = Stat.class.getModule();
    assertThat(zookeeper.getName()).isEqualTo("zookeeper");
    assertThat(zookeeper.isExported("org.apache.zookeeper.data")).isTrue();
  }
}
