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
 * {@code zklock ls} shows a Python kazoo {@code Semaphore} as one semaphore: its tree made as kazoo
 * makes it, by a plain client (the count {@code "2"} as the path's data, a lease {@code <uuid hex>}
 * holding, a client queued for admission at {@code pool-__lock__}): the lease a {@code kazoo-lease}
 * holder of the client {@code (kazoo)}, the admission node a waiter, and no lock named {@code
 * pool-__lock__}.
 */
class LsKazooSemaphoreTest {
  static EmbeddedZooKeeper zk;
  static ZooKeeper client;

  @BeforeAll
  static void aKazooSemaphore() throws Exception {
    zk = EmbeddedZooKeeper.standalone().start();
    client = new ZooKeeper(zk.connectString(), 10_000, e -> {});
    client.create("/ls-sem", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    client.create(
        "/ls-sem/pool",
        "2".getBytes(StandardCharsets.UTF_8),
        ZooDefs.Ids.OPEN_ACL_UNSAFE,
        CreateMode.PERSISTENT);
    client.create(
        "/ls-sem/pool-__lock__", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    client.create(
        "/ls-sem/pool/3e2becd2a0f54b7e9d1c6b2a8f7e4d10",
        "export-job".getBytes(StandardCharsets.UTF_8),
        ZooDefs.Ids.OPEN_ACL_UNSAFE,
        CreateMode.EPHEMERAL);
    client.create(
        "/ls-sem/pool-__lock__/9a1f0c7e2b3d4e5f60718293a4b5c6d7__lock__",
        "export-job-2".getBytes(StandardCharsets.UTF_8),
        ZooDefs.Ids.OPEN_ACL_UNSAFE,
        CreateMode.EPHEMERAL_SEQUENTIAL);
  }

  @AfterAll
  static void close() throws Exception {
    client.close();
    zk.close();
  }

  @Test
  void text_showsOneSemaphore_itsLeaseAsKazoos_andTheAdmissionQueueAsItsWaiter() {
    Cli.Result r = Cli.run("ls", "--connect", zk.connectString(), "--namespace", "/ls-sem");

    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out())
        .containsPattern("pool \\(2 permits\\) +0 +holds +kazoo-lease +\\(kazoo\\)")
        .containsPattern("1 +admitted +kazoo-lease +\\(kazoo\\)")
        .contains("export-job")
        .doesNotContain("pool-__lock__")
        .contains("1 lock(s) under /ls-sem, 1 held, 1 waiting");
  }

  @Test
  void json_namesTheKindAndTheClient() {
    Cli.Result r =
        Cli.run("ls", "--connect", zk.connectString(), "--namespace", "/ls-sem", "--json");

    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains("\"kind\":\"kazoo-lease\"")
        .contains("\"client\":\"(kazoo)\"")
        .contains("\"permits\":2");
  }
}
