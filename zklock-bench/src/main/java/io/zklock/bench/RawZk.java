package io.zklock.bench;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/** A plain ZooKeeper session for the naive and raw implementations (and the harness). */
class RawZk implements AutoCloseable {
  final ZooKeeper zk;

  /** Paths known to exist on the run's one server (cleared when a run starts a new server). */
  static final Set<String> ENSURED = ConcurrentHashMap.newKeySet();

  RawZk(String connectString) throws IOException, InterruptedException {
    CountDownLatch connected = new CountDownLatch(1);
    zk =
        new ZooKeeper(
            connectString,
            (int) Endpoints.BENCH_SESSION.toMillis(),
            e -> {
              if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
              }
            });
    if (!connected.await(30, TimeUnit.SECONDS)) {
      zk.close();
      throw new IllegalStateException("cannot connect to " + connectString);
    }
  }

  /** Creates {@code path} and its parents as persistent nodes if missing. */
  void ensurePersistent(String path) throws KeeperException, InterruptedException {
    if (ENSURED.contains(path)) {
      return;
    }
    int i = 0;
    while ((i = path.indexOf('/', i + 1)) > 0) {
      createIfMissing(path.substring(0, i));
    }
    createIfMissing(path);
  }

  private void createIfMissing(String p) throws KeeperException, InterruptedException {
    if (ENSURED.contains(p)) {
      return;
    }
    try {
      zk.create(p, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    } catch (KeeperException.NodeExistsException e) {
      // fine
    }
    ENSURED.add(p);
  }

  @Override
  public void close() {
    try {
      zk.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
