package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.LockHandle;
import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class LsCommandTest {
  static EmbeddedZooKeeper zk;
  static ZkLocks holder;
  static ZkLocks waiter;
  static LockHandle held;
  static CompletableFuture<LockHandle> waiting;

  @BeforeAll
  static void holderAndWaiter() throws Exception {
    zk = EmbeddedZooKeeper.standalone().start();
    holder =
        ZkLocks.builder(zk.connectString())
            .namespace("/ls-test")
            .clientName("holder-client")
            .build();
    waiter =
        ZkLocks.builder(zk.connectString())
            .namespace("/ls-test")
            .clientName("waiter-client")
            .build();
    held = holder.mutex("orders/42").acquire();
    waiting = waiter.mutex("orders/42").acquireAsync();
    try (ZooKeeper observer = new ZooKeeper(zk.connectString(), 10_000, e -> {})) {
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> observer.getChildren("/ls-test/orders/42", false).size() == 2);
    }
  }

  @AfterAll
  static void close() {
    waiting.cancel(true);
    holder.close();
    waiter.close();
    zk.close();
  }

  @Test
  void text_showsHolderThenWaiter_withTokenAndSession() {
    Cli.Result r = Cli.run("ls", "--connect", zk.connectString(), "--namespace", "/ls-test");

    assertThat(r.exitCode()).as(r.toString()).isZero();
    String[] lines = r.out().split("\n");
    assertThat(lines[0]).contains("LOCK", "STATE", "CLIENT", "SESSION", "SINCE", "TOKEN");
    assertThat(lines[1])
        .startsWith("orders/42")
        .contains("holds", "mutex", "holder-client", "0x" + Long.toHexString(holder.sessionId()))
        .contains(Long.toString(held.fencingToken()));
    assertThat(lines[2]).contains("waits", "mutex", "waiter-client");
    assertThat(r.out()).contains("1 lock(s) under /ls-test, 1 held, 1 waiting");
  }

  @Test
  void json_isMachineReadable() {
    Cli.Result r =
        Cli.run("ls", "--connect", zk.connectString(), "--namespace", "/ls-test", "--json");

    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out().strip())
        .startsWith("{\"namespace\":\"/ls-test\"")
        .contains("\"name\":\"orders/42\"")
        .contains(
            "\"state\":\"holds\",\"client\":\"holder-client\"",
            "\"state\":\"waits\",\"client\":\"waiter-client\"",
            "\"token\":" + held.fencingToken())
        .endsWith("]}]}");
    assertThat(r.out().indexOf("holder-client")).isLessThan(r.out().indexOf("waiter-client"));
  }

  @Test
  void path_filtersTheLocks() {
    Cli.Result in = Cli.run("ls", "-c", zk.connectString(), "-n", "/ls-test", "orders");
    Cli.Result out = Cli.run("ls", "-c", zk.connectString(), "-n", "/ls-test", "payments");

    assertThat(in.out()).contains("orders/42");
    assertThat(out.exitCode()).isZero();
    assertThat(out.out()).isEqualTo("no locks under /ls-test\n");
  }

  @Test
  void watch_redrawsUntilStopped() {
    picocli.CommandLine cl = Main.commandLine();
    LsCommand ls = cl.getSubcommands().get("ls").getCommand();
    ls.maxRefreshes = 2;

    Cli.Result r =
        Cli.run(
            cl,
            "ls",
            "-c",
            zk.connectString(),
            "-n",
            "/ls-test",
            "--watch",
            "--interval",
            "50ms",
            "--json");

    assertThat(r.exitCode()).isZero();
    assertThat(r.out().strip().lines()).hasSize(2).allMatch(l -> l.contains("holder-client"));
  }

  @Test
  void watch_notATerminal_writesNoScreenEscapes() {
    picocli.CommandLine cl = Main.commandLine();
    LsCommand ls = cl.getSubcommands().get("ls").getCommand();
    ls.maxRefreshes = 2;
    assertThat(ls.terminal).as("the tests' stdout is not a terminal").isFalse();

    Cli.Result r =
        Cli.run(
            cl, "ls", "-c", zk.connectString(), "-n", "/ls-test", "--watch", "--interval", "50ms");

    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out()).as(r.toString()).doesNotContain("\033").contains("holder-client");
    assertThat(r.out().split("zklock ls ", -1)).as("two snapshots").hasSize(3);
  }

  @Test
  void watch_onATerminal_clearsTheScreen() {
    picocli.CommandLine cl = Main.commandLine();
    LsCommand ls = cl.getSubcommands().get("ls").getCommand();
    ls.maxRefreshes = 1;
    ls.terminal = true;

    Cli.Result r =
        Cli.run(
            cl, "ls", "-c", zk.connectString(), "-n", "/ls-test", "--watch", "--interval", "50ms");

    assertThat(r.out()).startsWith("\033[H\033[2J");
  }

  @Test
  void verbose_showsTheNegotiatedSessionTimeout() {
    // the server grants at most 60 s (the testkit's maximum), whatever is asked
    Cli.Result r =
        Cli.run(
            "ls", "-v", "-c", zk.connectString(), "-n", "/ls-test", "--session-timeout", "100s");

    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out().lines().findFirst().orElseThrow())
        .as(r.toString())
        .contains("session timeout 1m00s negotiated (1m40s asked)", "no TLS", "no authentication");
  }

  @Test
  void semaphore_everyPermitHolderShowsAsHolding_theAdmittedWaiterAsAdmitted() throws Exception {
    java.util.List<LockHandle> leases = new java.util.ArrayList<>();
    java.util.List<CompletableFuture<LockHandle>> queued = new java.util.ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        leases.add(holder.semaphore("pool", 3).acquire());
      }
      for (int i = 0; i < 2; i++) {
        queued.add(waiter.semaphore("pool", 3).acquireAsync());
      }
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> holder.inspect("pool").map(l -> l.waiters().size()).orElse(0) == 2);

      Cli.Result r = Cli.run("ls", "-c", zk.connectString(), "-n", "/ls-test", "pool");

      assertThat(r.exitCode()).as(r.toString()).isZero();
      assertThat(r.out().lines().filter(l -> l.contains(" holds ") && l.contains("semaphore")))
          .as(r.toString())
          .hasSize(3);
      // each waiting request once: the one admitted (its lease waits for a permit), then the one
      // queued for admission
      assertThat(r.out().lines().filter(l -> l.contains(" admitted ") && l.contains("semaphore")))
          .as(r.toString())
          .hasSize(1);
      assertThat(r.out().lines().filter(l -> l.contains(" waits ") && l.contains("semaphore")))
          .as(r.toString())
          .hasSize(1);
      assertThat(r.out())
          .contains("pool (3 permits)", "1 lock(s) under /ls-test, 1 held, 2 waiting");
      Cli.Result json = Cli.run("ls", "-c", zk.connectString(), "-n", "/ls-test", "--json", "pool");
      assertThat(json.out()).contains("\"kind\":\"semaphore\",\"permits\":3");
      assertThat(json.out()).contains("\"state\":\"admitted\"", "\"state\":\"waits\"");
      String ui = UiModel.lockJson(holder.inspect("pool").orElseThrow(), 0L, 10);
      assertThat(ui)
          .as("zklock ui agrees")
          .contains("\"waitersTotal\":2", "\"state\":\"admitted\"", "\"state\":\"waits\"");
    } finally {
      queued.forEach(f -> f.cancel(true));
      leases.forEach(LockHandle::release);
    }
  }

  @Test
  @SuppressWarnings("try")
  void readWriteLock_readersShareTheLock_writerWaits() throws Exception {
    LockHandle r1 = holder.readWriteLock("inventory").readLock().acquire();
    LockHandle r2 = waiter.readWriteLock("inventory").readLock().acquire();
    CompletableFuture<LockHandle> w = holder.readWriteLock("inventory").writeLock().acquireAsync();
    try (ZooKeeper observer = new ZooKeeper(zk.connectString(), 10_000, e -> {})) {
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> observer.getChildren("/ls-test/inventory", false).size() == 3);

      Cli.Result r = Cli.run("ls", "-c", zk.connectString(), "-n", "/ls-test", "inventory");

      String[] lines = r.out().split("\n");
      assertThat(lines[1]).as(r.toString()).contains("holds", "read");
      assertThat(lines[2]).as(r.toString()).contains("holds", "read");
      assertThat(lines[3]).as(r.toString()).contains("waits", "write");
    } finally {
      w.cancel(true);
      r1.release();
      r2.release();
    }
  }
}
