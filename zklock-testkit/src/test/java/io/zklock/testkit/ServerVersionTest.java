package io.zklock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A server of another ZooKeeper release, in a child JVM from its Maven Central artifacts: the
 * oldest line zklock supports (3.5.10), so what works here works on every line in between.
 */
class ServerVersionTest {
  private static final String OLDEST = "3.5.10";
  private static EmbeddedZooKeeper zk;

  @BeforeAll
  static void start() {
    zk = EmbeddedZooKeeper.standalone().serverVersion(OLDEST).start();
  }

  @AfterAll
  static void stop() {
    if (zk != null) {
      zk.close();
    }
  }

  @Test
  void serverVersion_runsThatRelease_andServesClientsOnLoopback() throws Exception {
    assertThat(zk.serverVersion()).isEqualTo(OLDEST);
    assertThat(FourLetterWords.send("127.0.0.1", zk.clientPort(), "srvr"))
        .as("the child answers as the release asked for")
        .contains("Zookeeper version: " + OLDEST + "-");
    assertThat(zk.connectString()).isEqualTo("127.0.0.1:" + zk.clientPort());
    try (ZkClients.Recorded c = ZkClients.connect(zk.connectString(), 2000)) {
      c.zk.create("/hello-old", "x".getBytes(), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      assertThat(c.zk.getData("/hello-old", false, null)).isEqualTo("x".getBytes());
      c.zk.delete("/hello-old", -1);
    }
    assertThat(zk.mntr()).containsKey("zk_version");
    assertThat(zk.serverLog()).hasValueSatisfying(log -> assertThat(log).exists());
  }

  @Test
  void expireSession_clientReceivesExpiredAndEphemeralsVanish() throws Exception {
    try (ZkClients.Recorded victim = ZkClients.connect(zk.connectString(), 2000);
        ZkClients.Recorded observer = ZkClients.connect(zk.connectString(), 2000)) {
      victim.zk.create("/eph-old", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);

      zk.expireSession(victim.zk.getSessionId());

      victim.awaitState(KeeperState.Expired, 10);
      Awaitility.await("the expired session's ephemeral node is deleted")
          .atMost(10, TimeUnit.SECONDS)
          .until(() -> observer.zk.exists("/eph-old", false) == null);
    }
  }

  @Test
  void emptiedContainer_isReaped_withinTheTestkitsCheckInterval() throws Exception {
    try (ZkClients.Recorded c = ZkClients.connect(zk.connectString(), 2000)) {
      c.zk.create("/box", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.CONTAINER);
      c.zk.create("/box/item", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      c.zk.delete("/box/item", -1);

      Awaitility.await("the emptied container is reclaimed")
          .atMost(15, TimeUnit.SECONDS)
          .until(() -> c.zk.exists("/box", false) == null);
    }
  }

  @Test
  void internals_areRefused_forAServerInAChildJvm() {
    assertThatThrownBy(() -> zk.server())
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining(OLDEST);
    assertThatThrownBy(() -> zk.setChildSequence("/", 5))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void restart_keepsTheData_andTheRelease() throws Exception {
    try (EmbeddedZooKeeper own = EmbeddedZooKeeper.standalone().serverVersion(OLDEST).start()) {
      try (ZkClients.Recorded c = ZkClients.connect(own.connectString(), 4000)) {
        c.zk.create("/kept", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      }
      int port = own.clientPort();

      own.restart();

      assertThat(own.clientPort()).isEqualTo(port);
      assertThat(FourLetterWords.send("127.0.0.1", port, "srvr")).contains(OLDEST);
      try (ZkClients.Recorded c = ZkClients.connect(own.connectString(), 4000)) {
        assertThat(c.zk.exists("/kept", false)).isNotNull();
      }
    }
  }

  @Test
  void close_killsTheChild_andDeletesItsDirectories() throws Exception {
    EmbeddedZooKeeper own = EmbeddedZooKeeper.standalone().serverVersion(OLDEST).start();
    java.nio.file.Path log = own.serverLog().orElseThrow();
    java.nio.file.Path data = own.dataDir();
    int port = own.clientPort();

    own.close();

    assertThat(Files.exists(log)).as("run directory deleted").isFalse();
    assertThat(Files.exists(data)).as("data directory deleted").isFalse();
    assertThatThrownBy(
            () -> FourLetterWords.send("127.0.0.1", port, "ruok", Duration.ofMillis(500)))
        .as("nothing listens on the port any more")
        .isInstanceOf(java.io.UncheckedIOException.class);
  }

  @Test
  void ensemble_ofThatRelease_formsAQuorum() throws Exception {
    try (ZooKeeperEnsemble ensemble = EmbeddedZooKeeper.ensemble(3).serverVersion(OLDEST).start()) {
      for (int i = 0; i < 3; i++) {
        assertThat(FourLetterWords.send("127.0.0.1", ensemble.clientPort(i), "srvr"))
            .contains("Zookeeper version: " + OLDEST + "-");
      }
      try (ZkClients.Recorded c = ZkClients.connect(ensemble.connectString(), 4000)) {
        c.zk.create("/q", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      }
      int leader = ensemble.awaitQuorum(Duration.ofSeconds(60));
      ensemble.kill(leader);
      assertThat(ensemble.awaitQuorum(Duration.ofSeconds(60))).isNotEqualTo(leader);
    }
  }

  @Test
  void unsupportedVersions_areRefusedNamingThem() {
    assertThatThrownBy(() -> EmbeddedZooKeeper.standalone().serverVersion("3.4.14"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("3.4.14");
    assertThatThrownBy(() -> EmbeddedZooKeeper.standalone().serverVersion("latest"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("latest");
    assertThatThrownBy(
            () -> EmbeddedZooKeeper.ensemble(1).inProcess().serverVersion(OLDEST).start())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("child processes");
  }
}
