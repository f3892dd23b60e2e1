package io.zklock.bench;

import java.io.IOException;
import java.util.Map;
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

  /** A hold of the node {@code path}: releasing deletes it. */
  BenchLock.Held rawHeld(String path) {
    return new BenchLock.Held() {
      @Override
      public void release() throws Exception {
        zk.delete(path, -1);
      }

      @Override
      public void releaseAsync() {
        zk.delete(path, -1, (rc, p, c) -> {}, null);
      }
    };
  }

  /** Makes a name's lock. */
  interface LockMaker {
    BenchLock make(String name) throws Exception;
  }

  private final Map<String, BenchLock> madeOnce = new ConcurrentHashMap<>();

  /** The lock of {@code name}, made by {@code make} the first time it is asked for. */
  BenchLock madeOnce(String name, LockMaker make) throws Exception {
    BenchLock l = madeOnce.get(name);
    if (l == null) {
      l = make.make(name);
      madeOnce.putIfAbsent(name, l);
    }
    return l;
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
