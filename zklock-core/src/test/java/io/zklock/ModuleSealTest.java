package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleDescriptor.Exports;
import java.lang.module.ModuleDescriptor.Requires;
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
  void zooKeeperIsReadTransitivelyBecauseNodeAclNamesItsAclType() {
    assertThat(module.getDescriptor().requires())
        .filteredOn(r -> r.name().equals("zookeeper"))
        .singleElement()
        .satisfies(r -> assertThat(r.modifiers()).contains(Requires.Modifier.TRANSITIVE));
    assertThat(module.canRead(ZooKeeper.class.getModule())).isTrue();
  }

  @Test
  void zooKeepersJuteRecordsArePatchedIntoTheZookeeperModuleAndExported() {
    Module zookeeper = Stat.class.getModule();
    assertThat(zookeeper.getName()).isEqualTo("zookeeper");
    assertThat(zookeeper.isExported("org.apache.zookeeper.data")).isTrue();
  }
}
