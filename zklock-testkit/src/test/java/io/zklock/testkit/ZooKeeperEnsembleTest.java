package io.zklock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs.Ids;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class ZooKeeperEnsembleTest {

  @Test
  void syncLimit_isAbout2sOfTicksByDefault_andTheBuildersRoundedUpToWholeTicks() {
    ZooKeeperEnsemble.Builder b = EmbeddedZooKeeper.ensemble(3);
    assertThat(ZooKeeperEnsemble.syncLimitTicks(b, 250)).isEqualTo(8);
    assertThat(ZooKeeperEnsemble.syncLimitTicks(b, 1000)).isEqualTo(5);
    b.syncLimit(Duration.ofSeconds(20));
    assertThat(ZooKeeperEnsemble.syncLimitTicks(b, 1000)).isEqualTo(20);
    b.syncLimit(Duration.ofMillis(2_100));
    assertThat(ZooKeeperEnsemble.syncLimitTicks(b, 1000)).isEqualTo(3);
    b.syncLimit(Duration.ofMillis(10));
    assertThat(ZooKeeperEnsemble.syncLimitTicks(b, 1000)).isEqualTo(1);
    assertThatThrownBy(() -> b.syncLimit(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void childProcesses_leaderKilled_restSurvivesAndKilledServerRejoins() throws Exception {
    try (ZooKeeperEnsemble ensemble = EmbeddedZooKeeper.ensemble(3).childProcesses().start();
        ZkClients.Recorded client = ZkClients.connect(ensemble.connectString(), 4000)) {
      client.zk.create("/before", "1".getBytes(), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      int leader = ensemble.awaitQuorum(Duration.ofSeconds(30));
      assertThat(leader).as("a leader after start").isBetween(0, 2);

      ensemble.kill(leader);

      assertThat(ensemble.isRunning(leader)).isFalse();
      assertThat(ensemble.awaitQuorum(Duration.ofSeconds(30)))
          .as("a new leader among the survivors")
          .isNotEqualTo(leader);
      Awaitility.await("a write through the surviving servers")
          .atMost(20, TimeUnit.SECONDS)
          .ignoreExceptionsInstanceOf(KeeperException.ConnectionLossException.class)
          .until(
              () ->
                  client.zk.create(
                          "/after", "2".getBytes(), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT)
                      != null);
      assertThat(client.zk.getData("/before", false, null)).isEqualTo("1".getBytes());

      ensemble.restart(leader);
      ensemble.awaitQuorum(Duration.ofSeconds(30));

      try (ZkClients.Recorded direct = ZkClients.connect(ensemble.connectString(leader), 4000)) {
        direct.zk.sync("/", (rc, path, ctx) -> {}, null);
        assertThat(direct.zk.getData("/after", false, null))
            .as("the restarted server caught up with writes made while it was down")
            .isEqualTo("2".getBytes());
      }
    }
  }

  @Test
  void childProcesses_pausedFollower_isUnreachableUntilResumed() throws Exception {
    try (ZooKeeperEnsemble ensemble = EmbeddedZooKeeper.ensemble(3).childProcesses().start()) {
      int follower = (ensemble.awaitQuorum(Duration.ofSeconds(30)) + 1) % 3;

      ensemble.pause(follower);

      assertThatThrownBy(() -> ensemble.mntr(follower))
          .as("a stopped process answers nothing")
          .isInstanceOf(java.io.UncheckedIOException.class);
      try (ZkClients.Recorded client =
          ZkClients.connect(ensemble.connectString((follower + 1) % 3), 4000)) {
        client.zk.create("/while-paused", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      }

      ensemble.resume(follower);
      // Resumed, the server first answers as the follower it was, then notices it lost its leader
      // and re-syncs, refusing requests meanwhile: wait until it serves again.
      Awaitility.await("the resumed server serves again")
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .untilAsserted(
              () ->
                  assertThat(ensemble.mntr(follower).get("zk_server_state"))
                      .isIn("follower", "leader"));
      ensemble.awaitQuorum(Duration.ofSeconds(30));
      Awaitility.await("the resumed server has caught up with what was written while it slept")
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                try (ZkClients.Recorded c =
                    ZkClients.connect(ensemble.connectString(follower), 4000)) {
                  c.zk.sync("/", (rc, path, ctx) -> {}, null);
                  assertThat(c.zk.exists("/while-paused", false)).isNotNull();
                }
              });
    }
  }

  @Test
  void inProcess_servesAndFailsOver() throws Exception {
    try (ZooKeeperEnsemble ensemble = EmbeddedZooKeeper.ensemble(3).inProcess().start()) {
      int leader = ensemble.awaitQuorum(Duration.ofSeconds(30));
      int other = (leader + 1) % 3;
      try (ZkClients.Recorded a = ZkClients.connect(ensemble.connectString(leader), 4000)) {
        a.zk.create("/in-process", "x".getBytes(), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      }

      ensemble.kill(leader);
      ensemble.awaitQuorum(Duration.ofSeconds(30));

      try (ZkClients.Recorded b = ZkClients.connect(ensemble.connectString(other), 4000)) {
        assertThat(b.zk.getData("/in-process", false, null)).isEqualTo("x".getBytes());
      }
      ensemble.restart(leader);
      ensemble.awaitQuorum(Duration.ofSeconds(30));
      try (ZkClients.Recorded victim = ZkClients.connect(ensemble.connectString(), 4000)) {
        ensemble.expireSession(victim.zk.getSessionId(), victim.zk.getSessionPasswd());
        victim.awaitState(org.apache.zookeeper.Watcher.Event.KeeperState.Expired, 15);
      }
      assertThatThrownBy(() -> ensemble.pause(other))
          .isInstanceOf(UnsupportedOperationException.class);
    }
  }

  @Test
  void maxClientConnectionsAndSessionTimeout_writtenToEveryServersConfiguration() throws Exception {
    try (ZooKeeperEnsemble ensemble =
        EmbeddedZooKeeper.ensemble(3)
            .inProcess()
            .maxClientConnections(0)
            .maxSessionTimeout(Duration.ofSeconds(30))
            .start()) {
      for (int i = 0; i < 3; i++) {
        String cfg =
            java.nio.file.Files.readString(ensemble.dataDir(i).getParent().resolve("zoo.cfg"));
        assertThat(cfg)
            .as("server %d's zoo.cfg", i)
            .contains("maxClientCnxns=0")
            .contains("maxSessionTimeout=30000");
      }
      // a client asking for 30 s is granted 30 s, not the default's 20 ticks (5 s)
      try (ZkClients.Recorded c = ZkClients.connect(ensemble.connectString(), 30_000)) {
        assertThat(c.zk.getSessionTimeout()).isEqualTo(30_000);
      }
    }
    assertThatThrownBy(() -> EmbeddedZooKeeper.ensemble(3).maxClientConnections(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> EmbeddedZooKeeper.ensemble(3).maxSessionTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxSessionTimeout");
  }

  @Test
  void childClassPath_relativeEntries_madeAbsolute() {
    String sep = java.io.File.pathSeparator;
    String cp = ChildJvm.classPath("target/app.jar" + sep + "/abs/lib.jar", "mods");
    for (String entry : cp.split(sep)) {
      assertThat(java.nio.file.Path.of(entry).isAbsolute())
          .as("a child runs in its server's directory: %s must be absolute", entry)
          .isTrue();
    }
    assertThat(cp)
        .startsWith(java.nio.file.Path.of("target/app.jar").toAbsolutePath().toString())
        .contains(sep + "/abs/lib.jar" + sep);
  }

  @Test
  void builder_rejectsEmptyEnsemble() {
    assertThatThrownBy(() -> EmbeddedZooKeeper.ensemble(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0");
  }
}
