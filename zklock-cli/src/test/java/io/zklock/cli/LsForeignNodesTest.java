package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.testkit.EmbeddedZooKeeper;
import java.nio.charset.StandardCharsets;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code zklock ls} shows another library's lock nodes rather than "no locks": here a Python kazoo
 * client's lock node on the path {@code polyglot}, named and written as kazoo's {@code Lock} writes
 * it ({@code <uuid hex>__lock__<sequence>}, its identifier as data), by a plain client: a {@code
 * kazoo-lock} node of the client {@code (kazoo)}, the kind zklock's kazoo-compatible mode shares.
 */
class LsForeignNodesTest {
  static EmbeddedZooKeeper zk;
  static ZooKeeper client;
  static String node;

  @BeforeAll
  static void aKazooHolder() throws Exception {
    zk = EmbeddedZooKeeper.standalone().start();
    client = new ZooKeeper(zk.connectString(), 10_000, e -> {});
    for (String p : new String[] {"/ls-foreign", "/ls-foreign/polyglot"}) {
      client.create(p, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }
    String path =
        client.create(
            "/ls-foreign/polyglot/3e2becd2a0f54b7e9d1c6b2a8f7e4d10__lock__",
            "settlement-job".getBytes(StandardCharsets.UTF_8),
            ZooDefs.Ids.OPEN_ACL_UNSAFE,
            CreateMode.EPHEMERAL_SEQUENTIAL);
    node = path.substring(path.lastIndexOf('/') + 1);
  }

  @AfterAll
  static void close() throws Exception {
    client.close();
    zk.close();
  }

  @Test
  void text_showsTheKazooHolder_asKazoos() {
    Cli.Result r = Cli.run("ls", "--connect", zk.connectString(), "--namespace", "/ls-foreign");

    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out())
        .doesNotContain("no locks")
        .containsPattern("polyglot +0 +holds +kazoo-lock +\\(kazoo\\)")
        .contains("settlement-job")
        .contains("1 lock(s) under /ls-foreign, 1 held, 0 waiting");
  }

  @Test
  void json_namesTheKindTheClientAndTheNode() {
    Cli.Result r =
        Cli.run("ls", "--connect", zk.connectString(), "--namespace", "/ls-foreign", "--json");

    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains("\"node\":\"" + node + "\"")
        .contains("\"kind\":\"kazoo-lock\"")
        .contains("\"client\":\"(kazoo)\"");
  }

  @Test
  void release_leavesTheKazooHolderAlone_andSaysWhy() throws Exception {
    Cli.Result r =
        Cli.run(
            "release",
            "polyglot",
            "--yes",
            "--connect",
            zk.connectString(),
            "--namespace",
            "/ls-foreign");

    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out()).doesNotContain("released:");
    assertThat(r.err()).contains("left alone").contains("(kazoo)").doesNotContain("had released");
    assertThat(client.getChildren("/ls-foreign/polyglot", false)).containsExactly(node);
  }
}
