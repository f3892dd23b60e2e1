package io.zklock.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.LockInfo;
import io.zklock.LockNode;
import io.zklock.LockOptions;
import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Go's zookeeper client beside zklock, Curator and kazoo on one path, its nodes made as Go's {@code
 * Lock} makes them ({@link GoLock}, each its own session): one queue with zklock's
 * Curator-compatible mutex and Curator's mutex, in arrival order, never two holders; Go waits for
 * kazoo's names but kazoo skips Go's (unless told of them); zklock's other modes refuse Go's node,
 * naming it; Go's lock fails on zklock's plain names. The kazoo cases are skipped, saying why,
 * where kazoo is not installed.
 */
class GoClientTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Duration STILL = Duration.ofMillis(1500);
  private static final String NAMESPACE = "/zklock";
  private static final AtomicInteger COUNTER = new AtomicInteger();

  static EmbeddedZooKeeper server;
  private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void startServer() {
    server = EmbeddedZooKeeper.standalone().start();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @AfterEach
  void closeClients() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private static String newName(String what) {
    return "go/" + what + "-" + COUNTER.incrementAndGet();
  }

  private ZkLocks zklock(String clientName) {
    ZkLocks z =
        ZkLocks.builder(server.connectString())
            .namespace(NAMESPACE)
            .clientName(clientName)
            .sessionTimeout(Duration.ofSeconds(10))
            .build();
    closeables.add(z);
    return z;
  }

  /** A session of its own, as each Go process has. */
  private ZooKeeper session() throws Exception {
    CountDownLatch up = new CountDownLatch(1);
    ZooKeeper zk =
        new ZooKeeper(
            server.connectString(),
            10_000,
            e -> {
              if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                up.countDown();
              }
            });
    closeables.add(zk::close);
    assertThat(up.await(30, TimeUnit.SECONDS)).isTrue();
    return zk;
  }

  private GoLock go(String name) throws Exception {
    return new GoLock(session(), NAMESPACE + "/" + name);
  }

  private List<String> children(String name) throws Exception {
    return session().getChildren(NAMESPACE + "/" + name, false);
  }

  private static <T> T within(CompletableFuture<T> f) throws Exception {
    return f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static void stillWaiting(CompletableFuture<?> f) throws Exception {
    Thread.sleep(STILL.toMillis());
    assertThat(f).as("still waiting").isNotDone();
  }

  @Test
  void goAndTheCuratorCompatibleMutex_shareOneQueue_inArrivalOrder_neverTwoHolders()
      throws Exception {
    String name = newName("queue");
    DistributedLock zk = zklock("java-worker").mutex(name, LockOptions.curatorCompatible());
    GoLock first = go(name);
    first.lock("go-1");

    CompletableFuture<LockHandle> java = zk.acquireAsync();
    GoLock second = go(name);
    CompletableFuture<Void> goSecond = second.lockAsync("go-2");
    stillWaiting(java);
    assertThat(goSecond).isNotDone();
    assertThat(zk.tryAcquire()).as("busy while Go holds, leaving no node").isEmpty();
    LockInfo info = zklock("observer").inspect(name).orElseThrow();
    assertThat(info.holders()).extracting(LockNode::kind).containsExactly(LockNode.Kind.GO_LOCK);
    assertThat(info.holders()).extracting(LockNode::clientName).containsExactly("(go-zookeeper)");
    assertThat(info.waiters())
        .extracting(LockNode::clientName)
        .containsExactly("java-worker", "(go-zookeeper)");

    first.unlock();
    LockHandle held = within(java);
    stillWaiting(goSecond);

    long token = held.fencingToken();
    held.close();
    within(goSecond);
    assertThat(token).isPositive();
    second.unlock();
    assertThat(children(name)).isEmpty();
  }

  @Test
  void goCuratorAndZklock_oneQueue_eachWaitsForTheOneBefore() throws Exception {
    String name = newName("three");
    CuratorFramework curator =
        CuratorFrameworkFactory.newClient(server.connectString(), new RetryOneTime(100));
    curator.start();
    closeables.add(curator);
    InterProcessMutex curatorMutex = new InterProcessMutex(curator, NAMESPACE + "/" + name);
    DistributedLock zk = zklock("java-worker").mutex(name, LockOptions.curatorCompatible());

    LockHandle javaHeld = zk.acquire();
    GoLock go = go(name);
    CompletableFuture<Void> goHeld = go.lockAsync("");
    stillWaiting(goHeld);
    CompletableFuture<Boolean> curatorHeld =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return curatorMutex.acquire(WAIT.toSeconds(), TimeUnit.SECONDS);
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    stillWaiting(curatorHeld);

    javaHeld.close();
    within(goHeld);
    stillWaiting(curatorHeld);
    go.unlock();
    assertThat(within(curatorHeld)).as("Curator granted after Go").isTrue();
  }

  @Test
  void goWaitsForAKazooCompatibleHolder_andTheKazooCompatibleMode_refusesGosNode()
      throws Exception {
    String name = newName("kazoo-mode");
    LockHandle held = zklock("java-worker").mutex(name, LockOptions.kazooCompatible()).acquire();
    GoLock go = go(name);
    CompletableFuture<Void> goHeld = go.lockAsync("");
    stillWaiting(goHeld); // Go reads the sequence after kazoo's "__" and waits

    String goNode = go.node().substring(go.node().lastIndexOf('/') + 1);
    assertThatThrownBy(() -> zklock("late").mutex(name, LockOptions.kazooCompatible()).tryAcquire())
        .hasMessageContaining(goNode)
        .hasMessageContaining("Go's zookeeper client")
        .hasMessageContaining("LockOptions.curatorCompatible()");

    held.close();
    within(goHeld);
    go.unlock();
  }

  @Test
  void onAPlainZklockPath_goFailsAsItsLockDoes_andZklockRefusesItsNodeNamingGo() throws Exception {
    String name = newName("plain");
    LockHandle held = zklock("java-worker").mutex(name).acquire();
    GoLock go = go(name);

    assertThatThrownBy(() -> go.lock(""))
        .as("Go's parseSeq reads no sequence from m-<id>-<seq>: its Lock returns the error")
        .isInstanceOf(GoLock.ParseError.class);
    String goNode = go.node().substring(go.node().lastIndexOf('/') + 1);
    assertThat(children(name)).as("Go leaves its node, as lock.go does").contains(goNode);

    assertThatThrownBy(() -> zklock("late").mutex(name).tryAcquire())
        .hasMessageContaining(goNode)
        .hasMessageContaining("Go's zookeeper client")
        .hasMessageContaining("LockOptions.curatorCompatible()");
    held.close();
  }

  @Test
  void goWaitsForKazoo_kazooSkipsGo_unlessToldOfItsNames() throws Exception {
    String name = newName("kazoo");
    String path = NAMESPACE + "/" + name;
    Kazoo kazoo = Kazoo.start("py", server.connectString(), Duration.ofSeconds(10));
    closeables.add(kazoo);

    Kazoo.Recipe pyHeld = kazoo.lock(path, "settlement-job").acquire().awaitHeld();
    GoLock go = go(name);
    CompletableFuture<Void> goHeld = go.lockAsync("");
    stillWaiting(goHeld);
    pyHeld.release();
    within(goHeld);

    // kazoo as made by default skips Go's name: it holds beside Go's holder (a mix zklock refuses
    // wherever it sees it); told of "-lock-" names, it waits
    Kazoo.Recipe blind = kazoo.lock(path, "blind");
    assertThat(blind.tryAcquire()).as("kazoo's default Lock skips Go's node").isEqualTo("acquired");
    blind.release();
    Kazoo.Recipe told = kazoo.lockSeeingDashLock(path, "told").acquire();
    assertThat(told.outcomeWithin(STILL)).as("kazoo told of Go's names waits").isNull();
    go.unlock();
    assertThat(told.awaitOutcome()).isEqualTo("acquired");
    told.release();
  }
}
