package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code zklock ls} shows a latch, a set barrier, a double barrier and a condition's waiters, each
 * as one line (text) or one entry with its {@code state} (JSON), beside the locks.
 */
class LsCoordinationTest {
  static EmbeddedZooKeeper zk;
  static ZkLocks client;
  static ZkLocks waiterClient;
  static ExecutorService pool = Executors.newCachedThreadPool();
  static Future<LockHandle> waiting;
  static Future<Boolean> entering;

  @BeforeAll
  static void recipes() throws Exception {
    zk = EmbeddedZooKeeper.standalone().start();
    client = ZkLocks.builder(zk.connectString()).namespace("/ls-coord").clientName("c").build();
    waiterClient =
        ZkLocks.builder(zk.connectString()).namespace("/ls-coord").clientName("w").build();
    client.countDownLatch("jobs/ready", 3).countDown();
    client.barrier("migration").set();
    entering =
        pool.submit(() -> waiterClient.doubleBarrier("step", 2).enter(Duration.ofSeconds(30)));
    DistributedLock lock = waiterClient.mutex("queue");
    LockHandle h = lock.acquire();
    waiting = pool.submit(() -> lock.newCondition("notEmpty").await(h));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                client.inspect("queue.cond-notEmpty").isPresent()
                    && client
                        .inspect("step")
                        .map(i -> i.state().get("entered"))
                        .orElse("")
                        .equals("1"));
  }

  @AfterAll
  static void close() {
    pool.shutdownNow();
    waiterClient.close();
    client.close();
    zk.close();
  }

  @Test
  void text_showsEachRecipeWithItsState() {
    Cli.Result r = Cli.run("ls", "-c", zk.connectString(), "-n", "/ls-coord");

    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out().lines())
        .as(r.toString())
        .anySatisfy(
            l -> assertThat(l).startsWith("jobs/ready").contains("closed, 2 of 3 left", "latch"))
        .anySatisfy(l -> assertThat(l).startsWith("migration").contains("set", "barrier"))
        .anySatisfy(
            l ->
                assertThat(l)
                    .startsWith("step")
                    .contains("round 0, 1 of 2 entered", "double-barrier"))
        .anySatisfy(
            l ->
                assertThat(l)
                    .startsWith("queue.cond-notEmpty")
                    .contains("1 waiting on condition notEmpty of queue", "condition"));
    assertThat(r.out())
        .contains(
            "0 lock(s) under /ls-coord, 0 held, 0 waiting; 4 latch, barrier or condition entries");
  }

  @Test
  void json_givesEachRecipesState() {
    Cli.Result r = Cli.run("ls", "-c", zk.connectString(), "-n", "/ls-coord", "--json");

    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains(
            "\"name\":\"jobs/ready\",\"path\":\"/ls-coord/jobs/ready\",\"kind\":\"latch\","
                + "\"state\":{\"count\":\"3\",\"open\":\"false\",\"remaining\":\"2\"},\"queue\":[]",
            "\"kind\":\"barrier\",\"state\":{\"set\":\"true\"}",
            "\"kind\":\"double_barrier\",\"state\":{\"entered\":\"1\",\"members\":\"2\","
                + "\"phase\":\"entering\",\"round\":\"0\"}",
            "\"kind\":\"condition\",\"state\":{\"condition\":\"notEmpty\",\"lock\":\"queue\","
                + "\"waiting\":\"1\"}");
  }

  @Test
  void ui_givesTheSameState() {
    String json =
        UiModel.lockJson(client.inspect("step").orElseThrow(), System.currentTimeMillis(), 10);
    assertThat(json)
        .contains(
            "\"kind\":\"double_barrier\",\"shownKind\":\"double-barrier\",\"state\":"
                + "{\"entered\":\"1\",\"members\":\"2\",\"phase\":\"entering\",\"round\":\"0\"}");
  }
}
