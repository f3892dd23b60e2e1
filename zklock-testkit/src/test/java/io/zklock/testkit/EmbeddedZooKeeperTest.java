package io.zklock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class EmbeddedZooKeeperTest {
  private static EmbeddedZooKeeper zk;

  @BeforeAll
  static void start() {
    zk = EmbeddedZooKeeper.standalone().start();
  }

  @AfterAll
  static void stop() {
    zk.close();
  }

  @Test
  void start_servesClientsOnLoopbackFreePort() throws Exception {
    assertThat(zk.connectString()).isEqualTo("127.0.0.1:" + zk.clientPort());
    try (ZkClients.Recorded c = ZkClients.connect(zk.connectString(), 2000)) {
      c.zk.create("/hello", "x".getBytes(), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      assertThat(c.zk.getData("/hello", false, null)).isEqualTo("x".getBytes());
      c.zk.delete("/hello", -1);
    }
  }

  @Test
  void inProcess_serverVersion_isTheClassPathsZooKeeper_andThereIsNoServerLog() {
    assertThat(zk.serverVersion())
        .matches("\\d+\\.\\d+\\.\\d+")
        .isEqualTo(org.apache.zookeeper.Version.getFullVersion().split("[-,]")[0]);
    assertThat(zk.serverLog()).isEmpty();
  }

  @Test
  void sessionTimeoutOfOneSecond_isGranted() throws Exception {
    try (ZkClients.Recorded c = ZkClients.connect(zk.connectString(), 1000)) {
      assertThat(c.zk.getSessionTimeout()).isEqualTo(1000);
    }
  }

  @Test
  void expireSession_clientReceivesExpiredAndEphemeralsVanish() throws Exception {
    try (ZkClients.Recorded victim = ZkClients.connect(zk.connectString(), 2000);
        ZkClients.Recorded observer = ZkClients.connect(zk.connectString(), 2000)) {
      victim.zk.create("/eph-expire", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);

      zk.expireSession(victim.zk.getSessionId());

      victim.awaitState(KeeperState.Expired, 10);
      assertThat(observer.zk.exists("/eph-expire", false))
          .as("the expired session's ephemeral node is deleted")
          .isNull();
    }
  }

  @Test
  void sessionKiller_expiresSessionThroughASecondClient() throws Exception {
    try (ZkClients.Recorded victim = ZkClients.connect(zk.connectString(), 2000)) {
      SessionKiller.expire(
          zk.connectString(), victim.zk.getSessionId(), victim.zk.getSessionPasswd());
      victim.awaitState(KeeperState.Expired, 10);
    }
  }

  @Test
  void requestsOf_countsASessionsRequests_butNotItsPingsAndSyncs() throws Exception {
    try (ZkClients.Recorded c = ZkClients.connect(zk.connectString(), 1000)) {
      long session = c.zk.getSessionId();
      long before = zk.requestsOf(session);
      c.zk.create("/counted", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
      CountDownLatch synced = new CountDownLatch(2);
      c.zk.sync("/", (rc, path, ctx) -> synced.countDown(), null);
      c.zk.sync("/", (rc, path, ctx) -> synced.countDown(), null);
      assertThat(synced.await(10, TimeUnit.SECONDS)).isTrue();
      c.zk.getData("/counted", false, null);
      // a second and a half idle at T = 1 s: ZooKeeper's client pings at least twice
      Thread.sleep(1500);
      assertThat(zk.requestsOf(session) - before).as("the create and the read").isEqualTo(2);
    }
  }

  @Test
  void setChildSequence_nearMaxValue_namesCountUpToMaxValue() throws Exception {
    try (ZkClients.Recorded c = ZkClients.connect(zk.connectString(), 2000)) {
      c.zk.create("/wrap", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);

      zk.setChildSequence("/wrap", Integer.MAX_VALUE - 1);
      String a =
          c.zk.create("/wrap/n-", null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);
      String b =
          c.zk.create("/wrap/n-", null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);

      assertThat(List.of(a, b)).containsExactly("/wrap/n-2147483646", "/wrap/n-2147483647");
    }
  }

  @Test
  void setChildSequence_atMaxValue_sequentialCreatesStickAtMaxValue() throws Exception {
    // ZooKeeper 3.9.4 behaviour, recorded so that lock code does not assume a clean wrap: the data
    // tree never lowers a parent's cversion, so once the pipeline is idle the suffix stays at MAX.
    try (ZkClients.Recorded c = ZkClients.connect(zk.connectString(), 2000)) {
      c.zk.create("/wrap-sync", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      zk.setChildSequence("/wrap-sync", Integer.MAX_VALUE);

      String first =
          c.zk.create("/wrap-sync/a-", null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);
      String second =
          c.zk.create("/wrap-sync/b-", null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);

      assertThat(List.of(first, second))
          .containsExactly("/wrap-sync/a-2147483647", "/wrap-sync/b-2147483647");
      assertThatThrownBy(
              () ->
                  c.zk.create(
                      "/wrap-sync/a-", null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL))
          .isInstanceOf(KeeperException.NodeExistsException.class);
    }
  }

  @Test
  void setChildSequence_canLowerTheCounter() throws Exception {
    try (ZkClients.Recorded c = ZkClients.connect(zk.connectString(), 2000)) {
      c.zk.create("/lower", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      zk.setChildSequence("/lower", 1000);
      zk.setChildSequence("/lower", 5);
      assertThat(
              c.zk.create("/lower/n-", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL))
          .isEqualTo("/lower/n-0000000005");
    }
  }

  @Test
  void setChildSequence_missingParent_isRejected() {
    assertThatThrownBy(() -> zk.setChildSequence("/no/such/node", 7))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("/no/such/node");
  }

  @Test
  void mntr_reportsStandaloneAndWatchCounts() throws Exception {
    Map<String, String> before = zk.mntr();
    assertThat(before).containsEntry("zk_server_state", "standalone");
    assertThat(before).containsKeys(FourLetterWords.WATCH_COUNT_SUMS.toArray(new String[0]));
    long watchesBefore = zk.watchEventsTriggered();

    try (ZkClients.Recorded c = ZkClients.connect(zk.connectString(), 2000)) {
      c.zk.create("/watched", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      c.zk.exists("/watched", e -> {});
      c.zk.delete("/watched", -1);
      Awaitility.await("one watch event counted by the server")
          .atMost(5, TimeUnit.SECONDS)
          .until(() -> zk.watchEventsTriggered() >= watchesBefore + 1);
    }
  }

  @Test
  void containerNodes_areReclaimedQuicklyWhenEmpty() throws Exception {
    try (ZkClients.Recorded c = ZkClients.connect(zk.connectString(), 2000)) {
      c.zk.create("/box", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.CONTAINER);
      c.zk.create("/box/item", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      c.zk.delete("/box/item", -1);
      Awaitility.await("empty container deleted by the server")
          .atMost(10, TimeUnit.SECONDS)
          .until(() -> c.zk.exists("/box", false) == null);
    }
  }

  @Test
  void restart_keepsPortAndData_andClientsReconnect() throws Exception {
    try (EmbeddedZooKeeper own = EmbeddedZooKeeper.standalone().start();
        ZkClients.Recorded c = ZkClients.connect(own.connectString(), 4000)) {
      int port = own.clientPort();
      c.zk.create("/kept", "v".getBytes(), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      c.states.clear();

      own.restart();

      assertThat(own.clientPort()).isEqualTo(port);
      c.awaitState(KeeperState.SyncConnected, 10);
      assertThat(c.zk.getData("/kept", false, null)).isEqualTo("v".getBytes());
    }
  }

  @Test
  void close_deletesTemporaryDataDir() {
    EmbeddedZooKeeper own = EmbeddedZooKeeper.standalone().start();
    Path dir = own.dataDir();
    assertThat(dir).exists();
    own.close();
    own.close();
    assertThat(Files.exists(dir)).isFalse();
  }

  @Test
  void builder_rejectsBadDurations() {
    assertThatThrownBy(() -> EmbeddedZooKeeper.standalone().tickTime(java.time.Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tickTime");
  }
}
