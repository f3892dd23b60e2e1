package io.zklock.internal.zk;

import java.util.List;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.WatcherType;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;

/**
 * The asynchronous ZooKeeper calls zklock makes, and nothing else: the seam between the server and
 * everything above the session (the request engine, its node protocols, the {@link Deleter}, the
 * recipes), so that they can be driven without a server in tests. {@link #of} adapts a live handle.
 *
 * <p>A null watcher sets no watch. Every callback runs on the client's event thread, in the order
 * the requests were sent (one session's requests are applied in order).
 */
public interface ZkOps {
  void create(
      String path, byte[] data, List<ACL> acl, CreateMode mode, AsyncCallback.Create2Callback cb);

  void getChildren(String path, Watcher watcher, AsyncCallback.Children2Callback cb);

  /**
   * Lists the children of {@code path}, without a watch and without its stat: the listing that may
   * go out together with others in one read-only {@code multi} ({@link Batcher}). By default a
   * {@link #getChildren} without a watch.
   */
  default void listChildren(String path, AsyncCallback.ChildrenCallback cb) {
    getChildren(path, null, (rc, p, ctx, children, stat) -> cb.processResult(rc, p, ctx, children));
  }

  void getData(String path, Watcher watcher, AsyncCallback.DataCallback cb);

  void exists(String path, Watcher watcher, AsyncCallback.StatCallback cb);

  /** Deletes {@code path} if its version is {@code version} ({@code -1}: any). */
  void delete(String path, int version, AsyncCallback.VoidCallback cb);

  /** Deletes {@code path}, whatever its version. */
  default void delete(String path, AsyncCallback.VoidCallback cb) {
    delete(path, -1, cb);
  }

  /** Reads the ACL of {@code path}. */
  void getACL(String path, AsyncCallback.ACLCallback cb);

  /** Sets the data of {@code path} if its version is {@code version} ({@code -1}: any). */
  void setData(String path, byte[] data, int version, AsyncCallback.StatCallback cb);

  /** Removes this client's {@code watcher} of {@code type} on {@code path}, locally too. */
  void removeWatches(String path, Watcher watcher, WatcherType type, AsyncCallback.VoidCallback cb);

  /** Removes every watch of this client of {@code type} on {@code path}, locally too. */
  void removeAllWatches(String path, WatcherType type, AsyncCallback.VoidCallback cb);

  void sync(String path, AsyncCallback.VoidCallback cb);

  /**
   * Sends {@code ops} as one transaction, applied all or none ({@code multi}). The callback's code
   * is the first failure's, and each failed op's result an {@link
   * org.apache.zookeeper.OpResult.ErrorResult}. Test fakes that do not model transactions keep this
   * default, which refuses.
   */
  default void multi(List<Op> ops, AsyncCallback.MultiCallback cb) {
    throw new UnsupportedOperationException("multi is not supported by " + getClass().getName());
  }

  /**
   * Sets a persistent watch of {@code mode} on {@code path} (ZooKeeper 3.6+; a 3.5 server answers
   * {@code UNIMPLEMENTED} and closes the connection). Test fakes that do not model persistent
   * watches keep this default, which refuses.
   */
  default void addWatch(
      String path, Watcher watcher, AddWatchMode mode, AsyncCallback.VoidCallback cb) {
    throw new UnsupportedOperationException("addWatch is not supported by " + getClass().getName());
  }

  /**
   * Whether the connection is up at this moment: the client's own state, which can be ahead of the
   * session's news of it (a reply's connection loss is told before the disconnection is).
   */
  default boolean connected() {
    return true;
  }

  /** The calls on a live handle (the live {@link ZkConnector}'s clients). */
  static ZkOps of(ZooKeeper zk) {
    return new ZkOps() {
      @Override
      public void create(
          String path,
          byte[] data,
          List<ACL> acl,
          CreateMode mode,
          AsyncCallback.Create2Callback cb) {
        zk.create(path, data, acl, mode, cb, null, -1);
      }

      @Override
      public void getChildren(String path, Watcher watcher, AsyncCallback.Children2Callback cb) {
        if (watcher == null) {
          zk.getChildren(path, false, cb, null);
        } else {
          zk.getChildren(path, watcher, cb, null);
        }
      }

      @Override
      public void getData(String path, Watcher watcher, AsyncCallback.DataCallback cb) {
        if (watcher == null) {
          zk.getData(path, false, cb, null);
        } else {
          zk.getData(path, watcher, cb, null);
        }
      }

      @Override
      public void exists(String path, Watcher watcher, AsyncCallback.StatCallback cb) {
        if (watcher == null) {
          zk.exists(path, false, cb, null);
        } else {
          zk.exists(path, watcher, cb, null);
        }
      }

      @Override
      public void delete(String path, int version, AsyncCallback.VoidCallback cb) {
        zk.delete(path, version, cb, null);
      }

      @Override
      public void getACL(String path, AsyncCallback.ACLCallback cb) {
        zk.getACL(path, new org.apache.zookeeper.data.Stat(), cb, null);
      }

      @Override
      public void setData(String path, byte[] data, int version, AsyncCallback.StatCallback cb) {
        zk.setData(path, data, version, cb, null);
      }

      @Override
      public void removeWatches(
          String path, Watcher watcher, WatcherType type, AsyncCallback.VoidCallback cb) {
        zk.removeWatches(path, watcher, type, true, cb, null);
      }

      @Override
      public void removeAllWatches(String path, WatcherType type, AsyncCallback.VoidCallback cb) {
        zk.removeAllWatches(path, type, true, cb, null);
      }

      @Override
      public void sync(String path, AsyncCallback.VoidCallback cb) {
        zk.sync(path, cb, null);
      }

      @Override
      public void multi(List<Op> ops, AsyncCallback.MultiCallback cb) {
        zk.multi(ops, cb, null);
      }

      @Override
      public void addWatch(
          String path, Watcher watcher, AddWatchMode mode, AsyncCallback.VoidCallback cb) {
        zk.addWatch(path, watcher, mode, cb, null);
      }

      @Override
      public boolean connected() {
        return zk.getState().isConnected();
      }
    };
  }
}
