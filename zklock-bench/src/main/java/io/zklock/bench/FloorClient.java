package io.zklock.bench;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * The fair-queue floor: a raw replay of the fewest requests a fair sequential-node lock needs, and
 * of the fewest round trips on its critical path.
 *
 * <ul>
 *   <li>Acquire: {@code create(EPHEMERAL_SEQUENTIAL)} and {@code getChildren} sent back to back
 *       (one round trip; the session applies them in order, so the listing holds the new node).
 *       Lowest: held. Otherwise one {@code exists} watch on the predecessor; its deletion is the
 *       grant, with no read after the notification, at any depth.
 *   <li>Release: {@code delete} (acknowledged for {@code release()}, sent and forgotten for {@code
 *       releaseAsync()}).
 * </ul>
 *
 * <p>Uncontended: 3 requests, 2 round trips per acquire+release (1 with {@code releaseAsync()}).
 * Contended: 4 requests per acquisition, and a handoff costs one delete plus one notification. It
 * is correct only because nothing in a benchmark abandons a waiting node: a node is deleted by its
 * holder only, so a predecessor that goes was the holder. A real lock must also survive timeouts,
 * cancellation, connection loss and expiry, which zklock does; this replay is the limit to measure
 * it against, not a lock to use.
 */
final class FloorClient extends RawZk implements BenchLock.Client {
  static final String ROOT = "/bench-floor";

  FloorClient(String connectString) throws IOException, InterruptedException {
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
      String me = queue(dir);
      return rawHeld(me);
    };
  }

  /** Creates our node and lists the directory in one round trip; waits for the predecessor. */
  private String queue(String dir) throws Exception {
    CompletableFuture<String> created = new CompletableFuture<>();
    CompletableFuture<List<String>> listed = new CompletableFuture<>();
    zk.create(
        dir + "/n-",
        new byte[0],
        ZooDefs.Ids.OPEN_ACL_UNSAFE,
        CreateMode.EPHEMERAL_SEQUENTIAL,
        (AsyncCallback.StringCallback)
            (rc, p, c, path) -> {
              if (rc == 0) {
                created.complete(path);
              } else {
                created.completeExceptionally(
                    KeeperException.create(KeeperException.Code.get(rc), p));
              }
            },
        null);
    zk.getChildren(
        dir,
        false,
        (AsyncCallback.ChildrenCallback)
            (rc, p, c, children) -> {
              if (rc == 0) {
                listed.complete(children);
              } else {
                listed.completeExceptionally(
                    KeeperException.create(KeeperException.Code.get(rc), p));
              }
            },
        null);
    String me = created.join();
    return awaitTurn(zk, dir, me, listed.join());
  }

  /**
   * The fair-queue wait after a listing that follows our create: our node {@code me} holds if no
   * child of {@code dir} sorts before it; else one {@code exists} watch on the immediate
   * predecessor, whose deletion is the grant. Returns {@code me} once it holds; on an interrupt,
   * deletes it (in the background) and rethrows.
   */
  static String awaitTurn(ZooKeeper zk, String dir, String me, List<String> children)
      throws KeeperException, InterruptedException {
    String mine = me.substring(dir.length() + 1);
    String predecessor = null;
    for (String child : children) {
      // one sequence counter per directory, fixed-width: plain order is sequence order in a run
      if (child.compareTo(mine) < 0 && (predecessor == null || child.compareTo(predecessor) > 0)) {
        predecessor = child;
      }
    }
    if (predecessor == null) {
      return me;
    }
    CountDownLatch gone = new CountDownLatch(1);
    Stat stat =
        zk.exists(
            dir + "/" + predecessor,
            e -> {
              if (e.getType() == Watcher.Event.EventType.NodeDeleted) {
                gone.countDown();
              }
            });
    if (stat != null) {
      try {
        gone.await();
      } catch (InterruptedException e) {
        zk.delete(me, -1, (rc, p, c) -> {}, null);
        throw e;
      }
    }
    return me;
  }

  @Override
  public BenchLock readLock(String name) {
    throw new UnsupportedOperationException("the fair-queue floor is a mutex");
  }

  @Override
  public BenchLock writeLock(String name) {
    throw new UnsupportedOperationException("the fair-queue floor is a mutex");
  }

  @Override
  public BenchLock semaphore(String name, int permits) {
    throw new UnsupportedOperationException("the fair-queue floor is a mutex");
  }

  @Override
  public String queueDir(String name) {
    return ROOT + "/" + name;
  }
}
