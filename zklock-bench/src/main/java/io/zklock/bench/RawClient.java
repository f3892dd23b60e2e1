package io.zklock.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;

/**
 * The raw ZooKeeper floor. As a "mutex": create an EPHEMERAL_SEQUENTIAL node, delete it — no
 * listing, no exclusion, the two writes any lock needs. As a contended lock: {@link #tokenRing}.
 */
final class RawClient extends RawZk implements BenchLock.Client {
  static final String ROOT = "/bench-raw";

  RawClient(String connectString) throws IOException, InterruptedException {
    super(connectString);
  }

  /** Made once per name: {@link #mutex} makes its directory with a blocking round trip first. */
  @Override
  public BenchLock perEntity(String name) throws Exception {
    return madeOnce(name, this::mutex);
  }

  @Override
  public BenchLock mutex(String name) throws Exception {
    String dir = queueDir(name);
    ensurePersistent(dir);
    return () -> {
      String me =
          zk.create(
              dir + "/n-",
              new byte[0],
              ZooDefs.Ids.OPEN_ACL_UNSAFE,
              CreateMode.EPHEMERAL_SEQUENTIAL);
      return rawHeld(me);
    };
  }

  /**
   * The floor of a handoff: session i holds the token until it writes to session i+1's node, whose
   * persistent watch wakes session i+1 — one write and one notification per handoff, in the same
   * round-robin order a fair lock with everyone queued produces. Session 0 starts with the token.
   */
  static List<BenchLock> tokenRing(List<RawClient> clients, String name) throws Exception {
    int n = clients.size();
    String dir = ROOT + "/" + name;
    clients.get(0).ensurePersistent(dir);
    List<BenchLock> ring = new ArrayList<>();
    List<Semaphore> tokens = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String node = dir + "/t-" + i;
      clients.get(0).ensurePersistent(node);
      Semaphore token = new Semaphore(i == 0 ? 1 : 0);
      tokens.add(token);
      clients
          .get(i)
          .zk
          .addWatch(
              node,
              e -> {
                if (e.getType() == Watcher.Event.EventType.NodeDataChanged) {
                  token.release();
                }
              },
              AddWatchMode.PERSISTENT);
    }
    for (int i = 0; i < n; i++) {
      RawClient me = clients.get(i);
      Semaphore token = tokens.get(i);
      String next = dir + "/t-" + ((i + 1) % n);
      BenchLock.Held held =
          new BenchLock.Held() {
            @Override
            public void release() throws Exception {
              me.zk.setData(next, new byte[0], -1);
            }

            @Override
            public void releaseAsync() {
              me.zk.setData(next, new byte[0], -1, (rc, p, c, s) -> {}, null);
            }
          };
      ring.add(
          () -> {
            token.acquire();
            return held;
          });
    }
    return ring;
  }

  @Override
  public BenchLock readLock(String name) {
    throw new UnsupportedOperationException("raw ZooKeeper has no read-write floor here");
  }

  @Override
  public BenchLock writeLock(String name) {
    throw new UnsupportedOperationException("raw ZooKeeper has no read-write floor here");
  }

  @Override
  public BenchLock semaphore(String name, int permits) {
    throw new UnsupportedOperationException("raw ZooKeeper has no semaphore floor here");
  }

  @Override
  public String queueDir(String name) {
    return ROOT + "/" + name;
  }
}
