package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.DistributedSemaphore;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code zklock release}: forced (confirmed or --yes) and requested release, every kind. */
class ReleaseCommandTest {
  static EmbeddedZooKeeper zk;
  static final AtomicInteger namespaces = new AtomicInteger();

  @TempDir Path dir;
  String ns;
  ZkLocks holder;
  ZkLocks other;

  @BeforeAll
  static void startZooKeeper() {
    zk = EmbeddedZooKeeper.standalone().start();
  }

  @AfterAll
  static void stopZooKeeper() {
    zk.close();
  }

  @BeforeEach
  void clients() {
    ns = "/release-test-" + namespaces.incrementAndGet();
    holder = ZkLocks.builder(zk.connectString()).namespace(ns).clientName("holder").build();
    other = ZkLocks.builder(zk.connectString()).namespace(ns).clientName("other").build();
  }

  @AfterEach
  void close() {
    holder.close();
    other.close();
  }

  private Cli.Result release(String answer, String... rest) {
    CommandLine cl = Main.commandLine();
    ReleaseCommand release = cl.getSubcommands().get("release").getCommand();
    release.confirmation = new ByteArrayInputStream(answer.getBytes(StandardCharsets.UTF_8));
    String[] args = new String[rest.length + 5];
    args[0] = "release";
    args[1] = "--connect";
    args[2] = zk.connectString();
    args[3] = "-n";
    args[4] = ns;
    System.arraycopy(rest, 0, args, 5, rest.length);
    return Cli.run(cl, args);
  }

  @Test
  void yes_takesTheLockAway_theHolderLearnsOfIt_theWaiterGetsIt() throws Exception {
    LockHandle held = holder.mutex("job").acquire();
    CompletableFuture<LockHandle> waiting = other.mutex("job").acquireAsync();

    Cli.Result r = release("", "--yes", "job");

    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains("released: mutex", "client holder", "token " + held.fencingToken());
    assertThat(r.err()).doesNotContain("[y/N]");
    LockLostException lost = held.lost().get(10, TimeUnit.SECONDS);
    assertThat(lost.reason()).isEqualTo(LockLostException.Reason.NODE_DELETED);
    assertThat(waiting.get(10, TimeUnit.SECONDS).fencingToken()).isGreaterThan(held.fencingToken());
  }

  @Test
  void confirmation_no_leavesTheLock_exit1() throws Exception {
    LockHandle held = holder.mutex("job").acquire();

    Cli.Result r = release("n\n", "job");

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.FAILURE);
    assertThat(r.err()).contains("Holders of lock 'job' (mutex)", "[y/N]", "not released");
    // the command has exited: whatever it did is on the server, and it left the holder's node
    assertThat(other.inspect("job").orElseThrow().holders())
        .extracting(io.zklock.LockNode::path)
        .containsExactly(held.path());
    assertThat(held.isHeld()).isTrue();
  }

  @Test
  void confirmation_noAnswer_leavesTheLock() throws Exception {
    LockHandle held = holder.mutex("job").acquire();

    Cli.Result r = release("", "job"); // stdin closed

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.FAILURE);
    assertThat(held.isHeld()).isTrue();
  }

  @Test
  void confirmation_yes_releases() throws Exception {
    LockHandle held = holder.mutex("job").acquire();

    Cli.Result r = release("y\n", "job");

    assertThat(r.exitCode()).as(r.toString()).isZero();
    held.lost().get(10, TimeUnit.SECONDS);
  }

  @Test
  void semaphore_everyHolderIsReleased_theWaiterIsAdmitted() throws Exception {
    DistributedSemaphore sem = holder.semaphore("pool", 2);
    LockHandle a = sem.acquire();
    LockHandle b = sem.acquire();
    CompletableFuture<LockHandle> c = other.semaphore("pool", 2).acquireAsync();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> other.inspect("pool").map(i -> i.waiters().size()).orElse(0) == 1);

    Cli.Result r = release("", "--yes", "pool");

    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.err()).contains("(semaphore, 2 permits)");
    assertThat(r.out().lines().filter(l -> l.startsWith("released: semaphore"))).hasSize(2);
    a.lost().get(10, TimeUnit.SECONDS);
    b.lost().get(10, TimeUnit.SECONDS);
    assertThat(c.get(10, TimeUnit.SECONDS).isHeld()).isTrue();
  }

  @Test
  void readers_allHoldingReadersAreReleased() throws Exception {
    LockHandle r1 = holder.readWriteLock("db").readLock().acquire();
    LockHandle r2 = other.readWriteLock("db").readLock().acquire();

    Cli.Result r = release("", "--yes", "db");

    assertThat(r.exitCode()).as(r.toString()).isZero();
    r1.lost().get(10, TimeUnit.SECONDS);
    r2.lost().get(10, TimeUnit.SECONDS);
  }

  @Test
  void notHeld_saysSo_exit0() {
    Cli.Result r = release("", "--yes", "nothing-here");

    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.err()).contains("lock 'nothing-here' is not held; nothing to release");
  }

  @Test
  void request_asksTheHolder_deletesNothing() throws Exception {
    LockHandle held = holder.mutex("job").acquire();
    CountDownLatch asked = new CountDownLatch(1);
    held.onReleaseRequested(asked::countDown);

    Cli.Result r = release("", "--request", "job");

    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out()).contains("asked to release: mutex");
    assertThat(asked.await(10, TimeUnit.SECONDS)).as("the holder heard the request").isTrue();
    assertThat(held.isHeld()).isTrue();
  }

  @Test
  void exec_isTerminated_whenAnOperatorReleasesItsLock() throws Exception {
    String d = "'" + dir + "'";
    String script =
        "trap 'touch "
            + d
            + "/term; exit 143' TERM; touch "
            + d
            + "/started;"
            + " while :; do sleep 0.02; done";
    try (ZklockProcess exec =
        ZklockProcess.start(
            dir,
            Map.of(),
            "exec",
            "-c",
            zk.connectString(),
            "-n",
            ns,
            "job",
            "--",
            "sh",
            "-c",
            script)) {
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(dir.resolve("started")));

      Cli.Result r = release("", "--yes", "job");

      assertThat(r.exitCode()).as(r.toString()).isZero();
      Cli.Result e = exec.await(30);
      assertThat(e.exitCode()).as(e.toString()).isEqualTo(ExitCodes.LOCK_LOST);
      assertThat(dir.resolve("term")).exists();
    }
  }
}
