package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.testkit.EmbeddedZooKeeper;
import io.zklock.testkit.ServerFreePhase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInfo;

/**
 * One embedded ZooKeeper per test class; each test gets its own namespace, and every client a test
 * makes is closed after it. {@link #assertNoLockNodes()} checks that nothing was orphaned.
 *
 * <p>Tagged {@code server} (inherited by every subclass): these classes run in the second phase of
 * the module's tests, after every server-free one passed.
 */
@Tag(ServerFreePhase.SERVER_TAG)
public abstract class ZkTestSupport {
  private static final AtomicInteger COUNTER = new AtomicInteger();

  protected static EmbeddedZooKeeper server;

  protected String namespace;
  private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();
  private ZooKeeper raw;

  @BeforeAll
  static void startServer() {
    server =
        EmbeddedZooKeeper.standalone()
            .tickTime(Duration.ofMillis(100))
            .containerCheckInterval(Duration.ofMillis(500))
            .start();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  @BeforeEach
  void newNamespace(TestInfo info) {
    String method = info.getTestMethod().map(m -> m.getName()).orElse("t");
    if (method.length() > 40) {
      method = method.substring(0, 40);
    }
    namespace = "/test-" + COUNTER.incrementAndGet() + "-" + method;
  }

  @AfterEach
  void closeClients() throws Exception {
    for (AutoCloseable c : closeables) {
      try {
        c.close();
      } catch (Exception e) {
        // closing after a failed test must not hide the failure
      }
    }
    closeables.clear();
    if (raw != null) {
      raw.close();
      raw = null;
    }
  }

  /** A builder for a client of the test's server and namespace. */
  protected ZkLocks.Builder builder() {
    return ZkLocks.builder(server.connectString())
        .namespace(namespace)
        .sessionTimeout(Duration.ofSeconds(10))
        .connectTimeout(Duration.ofSeconds(10));
  }

  /** A new client (a new ZooKeeper session), closed after the test. */
  protected ZkLocks client() {
    return track(builder().build());
  }

  protected ZkLocks client(String name) {
    return track(builder().clientName(name).build());
  }

  protected <T extends AutoCloseable> T track(T closeable) {
    closeables.add(closeable);
    return closeable;
  }

  /** A plain ZooKeeper client for looking at the tree. */
  protected synchronized ZooKeeper raw() throws Exception {
    if (raw == null) {
      java.util.concurrent.CountDownLatch connected = new java.util.concurrent.CountDownLatch(1);
      raw =
          new ZooKeeper(
              server.connectString(),
              10_000,
              e -> {
                if (e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                  connected.countDown();
                }
              });
      connected.await();
    }
    return raw;
  }

  /**
   * The children of {@code path}, none when it does not exist. Lock directories are containers the
   * server reaps once empty, so "exists, then list" races with the reaper; this does not.
   */
  protected List<String> children(String path) throws Exception {
    try {
      return raw().getChildren(path, false);
    } catch (org.apache.zookeeper.KeeperException.NoNodeException e) {
      return List.of();
    }
  }

  /** The lock nodes (children of lock directories) under the namespace, recursively. */
  protected List<String> lockNodes() throws Exception {
    List<String> out = new ArrayList<>();
    collect(namespace, out);
    return out;
  }

  private void collect(String path, List<String> out) throws Exception {
    List<String> children;
    try {
      children = raw().getChildren(path, false);
    } catch (org.apache.zookeeper.KeeperException.NoNodeException e) {
      return;
    }
    for (String child : children) {
      String p = path + "/" + child;
      if (io.zklock.internal.rules.QueueNode.parse(child) != null) {
        out.add(p);
        continue;
      }
      Stat stat = raw().exists(p, false);
      if (stat != null && stat.getEphemeralOwner() != 0) {
        out.add(p);
      } else {
        collect(p, out);
      }
    }
  }

  /** Asserts that no ephemeral lock node is left under the namespace. */
  protected void assertNoLockNodes() throws Exception {
    assertThat(lockNodes()).as("lock nodes left behind (orphans)").isEmpty();
  }

  /** Waits until no lock node is left (deletes in the background are guaranteed, not instant). */
  protected void awaitNoLockNodes() {
    org.awaitility.Awaitility.await("no lock nodes left")
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(this::assertNoLockNodes);
  }

  /**
   * Whether a session watches {@code path} for data changes: a holder's own-node watch, which the
   * library sets a little after a grant, shows here once the server has it.
   */
  protected boolean hasDataWatch(String path) {
    return server.server().getZKDatabase().getDataTree().getWatchesByPath().hasSessions(path);
  }

  /** Waits until the server has a data watch on {@code path} (see {@link #hasDataWatch}). */
  protected void awaitDataWatch(String path) {
    org.awaitility.Awaitility.await("a data watch on " + path)
        .atMost(Duration.ofSeconds(20))
        .until(() -> hasDataWatch(path));
  }

  protected String dir(String lockName) {
    return namespace + "/" + lockName;
  }

  /** Creates a lock directory as the library would, so a test can set its sequence counter. */
  protected void createDir(String lockName) throws Exception {
    raw()
        .create(
            dir(lockName),
            new byte[0],
            org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
            CreateMode.CONTAINER);
  }
}
