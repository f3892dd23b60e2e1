package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.testkit.EmbeddedZooKeeper;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code zklock ls} flags a path whose directory mixes recipes that order it differently: here a
 * Curator {@code LeaderLatch} participant and a {@code LeaderSelector}'s mutex node on one path, as
 * a team migrating from Curator might leave them. Nodes are made with a plain client, named as
 * Curator's protected nodes are.
 */
class LsRecipeMixTest {
  static EmbeddedZooKeeper zk;
  static ZooKeeper client;

  @BeforeAll
  static void mixedAndPlainPaths() throws Exception {
    zk = EmbeddedZooKeeper.standalone().start();
    client = new ZooKeeper(zk.connectString(), 10_000, e -> {});
    for (String p : new String[] {"/ls-mix", "/ls-mix/jobs", "/ls-mix/jobs/leader", "/ls-mix/ok"}) {
      client.create(p, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }
    curatorNode("/ls-mix/jobs/leader", "latch-", "node-a");
    curatorNode("/ls-mix/jobs/leader", "lock-", "node-b");
    curatorNode("/ls-mix/ok", "lock-", "node-c");
    curatorNode("/ls-mix/ok", "lock-", "node-d");
  }

  private static void curatorNode(String dir, String lockName, String data) throws Exception {
    client.create(
        dir + "/_c_" + UUID.randomUUID() + "-" + lockName,
        data.getBytes(StandardCharsets.UTF_8),
        ZooDefs.Ids.OPEN_ACL_UNSAFE,
        CreateMode.EPHEMERAL_SEQUENTIAL);
  }

  @AfterAll
  static void close() throws Exception {
    client.close();
    zk.close();
  }

  @Test
  void text_flagsTheMixedPath_only() {
    Cli.Result r = Cli.run("ls", "--connect", zk.connectString(), "--namespace", "/ls-mix");

    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains("mixed recipes at jobs/leader: curator-latch, curator-mutex;")
        .doesNotContain("mixed recipes at ok");
  }

  @Test
  void json_namesTheKindsInTheLocksState() {
    Cli.Result r =
        Cli.run("ls", "--connect", zk.connectString(), "--namespace", "/ls-mix", "--json");

    assertThat(r.exitCode()).as(r.toString()).isZero();
    String out = r.out();
    int mixed = out.indexOf("\"name\":\"jobs/leader\"");
    int ok = out.indexOf("\"name\":\"ok\"");
    assertThat(mixed).isNotNegative();
    assertThat(ok).isNotNegative();
    String mixedEntry = out.substring(mixed, ok > mixed ? ok : out.length());
    assertThat(mixedEntry).contains("\"state\":{\"mix\":\"curator-latch,curator-mutex\"}");
    String okEntry = out.substring(ok, mixed > ok ? mixed : out.length());
    assertThat(okEntry).doesNotContain("\"mix\"");
  }
}
