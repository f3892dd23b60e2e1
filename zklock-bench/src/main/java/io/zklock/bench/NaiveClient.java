package io.zklock.bench;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.Semaphore;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;

/**
 * The naive algorithm, the textbook first attempt: create an EPHEMERAL_SEQUENTIAL node, list the
 * parent with a watch, hold if lowest, else wait for any change of the parent's children and list
 * again. Every waiter wakes on every change: the herd effect.
 */
final class NaiveClient extends RawZk implements BenchLock.Client {
  static final String ROOT = "/bench-naive";

  NaiveClient(String connectString) throws IOException, InterruptedException {
    super(connectString);
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
      String mine = me.substring(dir.length() + 1);
      try {
        while (true) {
          Semaphore changed = new Semaphore(0);
          List<String> children = zk.getChildren(dir, e -> changed.release());
          String lowest = null;
          for (String c : children) {
            if (lowest == null || c.compareTo(lowest) < 0) {
              lowest = c;
            }
          }
          if (mine.equals(lowest)) {
            return rawHeld(me);
          }
          changed.acquire();
        }
      } catch (InterruptedException e) {
        zk.delete(me, -1, (rc, p, c) -> {}, null);
        throw e;
      }
    };
  }

  @Override
  public BenchLock readLock(String name) {
    throw new UnsupportedOperationException("the naive seed algorithm has no read-write lock");
  }

  @Override
  public BenchLock writeLock(String name) {
    throw new UnsupportedOperationException("the naive seed algorithm has no read-write lock");
  }

  @Override
  public BenchLock semaphore(String name, int permits) {
    throw new UnsupportedOperationException("the naive seed algorithm has no semaphore");
  }

  @Override
  public String queueDir(String name) {
    return ROOT + "/" + name;
  }
}
