package io.zklock.internal.zk;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.function.BiConsumer;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.ClientInfo;

/**
 * A ZooKeeper client for manual-clock tests of {@link Session}: the test delivers its connection
 * news ({@link #tell}) and answers its heartbeats ({@link #answerHeartbeats}); every other call is
 * dropped unanswered, as if nothing came back.
 */
final class ScriptedClient implements ZkClient {
  final long sessionId;
  private final int timeoutMillis;
  private final BiConsumer<ZkClient, KeeperState> news;
  private final Queue<AsyncCallback.VoidCallback> syncs = new ArrayDeque<>();

  /** When the connect attempt that made its latest connection began. */
  long began;

  boolean closed;

  ScriptedClient(
      long sessionId, long began, int timeoutMillis, BiConsumer<ZkClient, KeeperState> news) {
    this.sessionId = sessionId;
    this.began = began;
    this.timeoutMillis = timeoutMillis;
    this.news = news;
  }

  /** Delivers connection news, as ZooKeeper's event thread would. */
  void tell(KeeperState s) {
    news.accept(this, s);
  }

  /** Answers the heartbeats sent so far, now; returns how many. */
  int answerHeartbeats() {
    int n = 0;
    while (!syncs.isEmpty()) {
      syncs.poll().processResult(Code.OK.intValue(), "/", null);
      n++;
    }
    return n;
  }

  @Override
  public ZkOps ops() {
    return new ZkOps() {
      @Override
      public void create(
          String path,
          byte[] data,
          List<ACL> acl,
          CreateMode mode,
          AsyncCallback.Create2Callback cb) {}

      @Override
      public void getChildren(String path, Watcher watcher, AsyncCallback.Children2Callback cb) {}

      @Override
      public void getData(String path, Watcher watcher, AsyncCallback.DataCallback cb) {}

      @Override
      public void exists(String path, Watcher watcher, AsyncCallback.StatCallback cb) {}

      @Override
      public void delete(String path, int version, AsyncCallback.VoidCallback cb) {}

      @Override
      public void getACL(String path, AsyncCallback.ACLCallback cb) {}

      @Override
      public void setData(String path, byte[] data, int version, AsyncCallback.StatCallback cb) {}

      @Override
      public void removeWatches(
          String path, Watcher watcher, Watcher.WatcherType type, AsyncCallback.VoidCallback cb) {}

      @Override
      public void removeAllWatches(
          String path, Watcher.WatcherType type, AsyncCallback.VoidCallback cb) {}

      @Override
      public void sync(String path, AsyncCallback.VoidCallback cb) {
        syncs.add(cb);
      }
    };
  }

  @Override
  public long sessionId() {
    return sessionId;
  }

  @Override
  public long connectBeganNanos() {
    return began;
  }

  @Override
  public int sessionTimeoutMillis() {
    return timeoutMillis;
  }

  @Override
  public List<ClientInfo> whoAmI() {
    return null;
  }

  @Override
  public boolean saslLogin() {
    return false;
  }

  @Override
  public void close() {
    closed = true;
  }
}
