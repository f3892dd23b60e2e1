package io.zklock.internal.inspect;

import io.zklock.LockWatch;
import io.zklock.internal.zk.Session;
import io.zklock.internal.zk.SessionPort;
import io.zklock.internal.zk.ZkOps;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.WatcherType;

/**
 * {@link io.zklock.ZkLocks#watchLocks}: one persistent recursive watch on a root (3.6+), or a child
 * watch per directory on a 3.5 server, set again on each new session. Events are turned into the
 * name of the lock they concern and told on the library's executor. Nothing here blocks: every
 * request is asynchronous, and ZooKeeper's event thread only sends requests and hands off names.
 * Every request goes through the {@link ZkOps} seam of the connection it is sent on.
 */
public final class LockWatcher implements LockWatch {
  private final SessionPort session;
  private final String namespace; // "" for the root
  private final String root; // absolute, "/" for the root of the tree
  private final Consumer<String> onChange;
  private final Executor executor;
  private final Watcher watcher = this::process;
  private final AtomicLong requests = new AtomicLong();
  private final Set<String> watchedDirs = ConcurrentHashMap.newKeySet(); // PER_DIRECTORY only
  private final Session.Observer observer;

  private volatile boolean closed;
  private volatile Mode mode = Mode.PENDING;
  // guarded by this: the session the watch was set on (0: none), and its calls
  private long armedSession;
  private ZkOps armedOps;

  /**
   * {@code addWatch} was refused, or the connection was lost in reply to it: a 3.5 server answers a
   * request it does not know as unimplemented and closes the connection (and its answer, sent ahead
   * of any reply still due, can make the client drop the connection first). From then on the
   * fallback is used and {@code addWatch} never asked again: asked at each reconnection, it would
   * have the server close each new connection in turn. Also on a 3.6+ server whose connection
   * happened to drop then (the fallback works there too, with more watches).
   */
  private volatile boolean addWatchLost;

  /**
   * @param namespace the instance's namespace ("" for the root)
   * @param under a lock name prefix, or "" for the whole namespace
   */
  public LockWatcher(
      SessionPort session,
      String namespace,
      String under,
      Consumer<String> onChange,
      Executor executor) {
    this.session = session;
    this.namespace = namespace;
    String r = under.isEmpty() ? namespace : namespace + "/" + under;
    this.root = r.isEmpty() ? "/" : r;
    this.onChange = onChange;
    this.executor = executor;
    this.observer =
        new Session.Observer() {
          @Override
          public void connected(Session.Conn conn) {
            arm(conn);
          }

          @Override
          public void suspended(Session.Conn conn) {}

          @Override
          public void expired(Session.Conn expired) {}

          @Override
          public void closed() {
            close();
          }
        };
  }

  /** Sets the watch now if connected, and again on every new session. */
  public LockWatcher start() {
    session.addObserver(observer);
    Session.Conn c = session.current();
    if (c != null) {
      arm(c);
    }
    return this;
  }

  @Override
  public Mode mode() {
    return mode;
  }

  @Override
  public long requests() {
    return requests.get();
  }

  private void arm(Session.Conn conn) {
    ZkOps zk = conn.ops();
    synchronized (this) {
      if (closed) {
        return;
      }
      boolean set = mode == Mode.RECURSIVE || watchedDirs.contains(root);
      if (conn.sessionId() == armedSession && set) {
        // the same session: ZooKeeper's client sets its watches again by itself, but changes made
        // while disconnected may not all be told
        tell(null);
        return;
      }
      armedSession = conn.sessionId();
      armedOps = zk;
      watchedDirs.clear();
    }
    if (addWatchLost) {
      mode = Mode.PER_DIRECTORY;
      listAndWatch(zk, root, false);
      tell(null);
      return;
    }
    requests.incrementAndGet();
    zk.addWatch(
        root,
        watcher,
        AddWatchMode.PERSISTENT_RECURSIVE,
        (rc, path, ctx) -> {
          Code code = Code.get(rc);
          if (code == Code.OK) {
            mode = Mode.RECURSIVE;
            tell(null);
          } else if (code == Code.UNIMPLEMENTED) {
            addWatchLost = true;
            mode = Mode.PER_DIRECTORY; // a 3.5 server, which closes this connection now
            listAndWatch(zk, root, false);
            tell(null);
          } else {
            if (code == Code.CONNECTIONLOSS) {
              addWatchLost = true; // most likely a 3.5 server, which closes the connection
            }
            forget(conn.sessionId()); // set it again at the next connection
            Session.Conn now = session.current();
            if (now != null && now.sessionId() == conn.sessionId() && now.ops().connected()) {
              arm(now); // the connection is back already
            }
          }
        });
  }

  private synchronized void forget(long sessionId) {
    if (armedSession == sessionId) {
      armedSession = 0L;
      armedOps = null;
    }
  }

  /**
   * 3.5: lists {@code dir} with a child watch, then its subdirectories the same way; {@code found}:
   * the directory is new to the watch, and is told once listed (its first lock nodes came before
   * its watch).
   */
  private void listAndWatch(ZkOps zk, String dir, boolean found) {
    if (closed) {
      return;
    }
    watchedDirs.add(dir);
    requests.incrementAndGet();
    zk.getChildren(
        dir,
        watcher,
        (rc, path, ctx, children, dirStat) -> {
          Code code = Code.get(rc);
          if (code == Code.NONODE) {
            watchedDirs.remove(dir);
            if (dir.equals(root)) { // the root is not there yet: watch for its creation
              requests.incrementAndGet();
              zk.exists(
                  root,
                  watcher,
                  (rc2, p2, c2, stat) -> {
                    if (Code.get(rc2) == Code.OK) {
                      // made between the listing and this read: no creation event will come
                      listAndWatch(zk, root, false);
                    }
                  });
            }
            return;
          }
          if (code != Code.OK) {
            watchedDirs.remove(dir); // listed again at the next connection (see arm)
            return;
          }
          if (found) {
            tell(nameOfDir(dir));
          }
          for (String child : children) {
            if (Inspector.isLockNode(child)
                || Inspector.isCertainlyForeign(child)
                || child.equals(Inspector.HOLD_OFF)
                || (dir.equals("/") && child.equals("zookeeper"))) {
              continue;
            }
            String c = dir.equals("/") ? "/" + child : dir + "/" + child;
            if (!watchedDirs.contains(c)) {
              listAndWatch(zk, c, true);
            }
          }
        });
  }

  private void process(WatchedEvent event) {
    if (closed || event.getType() == EventType.None || event.getPath() == null) {
      return;
    }
    String path = event.getPath();
    if (mode == Mode.PER_DIRECTORY) {
      ZkOps zk;
      synchronized (this) {
        zk = armedOps;
      }
      if (zk != null
          && (event.getType() == EventType.NodeChildrenChanged
              || event.getType() == EventType.NodeCreated)) {
        listAndWatch(zk, path, false); // sets the one-shot watch again, finds new directories
      } else if (event.getType() == EventType.NodeDeleted) {
        watchedDirs.remove(path);
      }
      tell(nameOfDir(path));
      return;
    }
    tell(nameOf(path));
    String last = path.substring(path.lastIndexOf('/') + 1);
    io.zklock.internal.rules.ForeignNode f = io.zklock.internal.rules.ForeignNode.classify(last);
    if (f != null && !f.certain() && path.lastIndexOf('/') > 0) {
      // another library's lock node, or a longer lock's directory: its name does not say which
      tell(nameOfDir(path.substring(0, path.lastIndexOf('/'))));
    }
  }

  /** The lock a changed znode belongs to, or null for the namespace itself (or outside it). */
  String nameOf(String path) {
    String last = path.substring(path.lastIndexOf('/') + 1);
    if (Inspector.isLockNode(last)
        || Inspector.isCertainlyForeign(last)
        || last.equals(Inspector.HOLD_OFF)) {
      return nameOfDir(path.substring(0, path.lastIndexOf('/')));
    }
    return nameOfDir(path);
  }

  /** The lock whose directory (or semaphore's leases or queue directory) is {@code dir}. */
  String nameOfDir(String dir) {
    if (dir.length() <= namespace.length() + 1 || !dir.startsWith(namespace + "/")) {
      return null;
    }
    String name = dir.substring(namespace.length() + 1);
    int slash = name.lastIndexOf('/');
    if (slash > 0) {
      String last = name.substring(slash + 1);
      if (last.equals(Inspector.LEASES) || last.equals(Inspector.QUEUE)) {
        return name.substring(0, slash);
      }
    }
    return name;
  }

  private void tell(String name) {
    if (!closed) {
      executor.execute(
          () -> {
            if (!closed) {
              onChange.accept(name);
            }
          });
    }
  }

  @Override
  public void close() {
    ZkOps zk;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      zk = armedOps;
      armedSession = 0L;
      armedOps = null;
    }
    session.removeObserver(observer);
    if (zk == null) {
      return;
    }
    if (mode == Mode.RECURSIVE) {
      zk.removeWatches(root, watcher, WatcherType.Any, (rc, p, c) -> {});
    } else {
      for (String dir : watchedDirs) {
        zk.removeWatches(dir, watcher, WatcherType.Any, (rc, p, c) -> {});
      }
    }
  }

  @Override
  public String toString() {
    return "LockWatch[" + root + ", " + mode + "]";
  }
}
