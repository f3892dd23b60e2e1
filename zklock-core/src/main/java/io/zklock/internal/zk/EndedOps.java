package io.zklock.internal.zk;

import java.util.List;
import java.util.concurrent.Executor;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.WatcherType;
import org.apache.zookeeper.data.ACL;

/**
 * The calls of one client, its creates refused once its session is over for zklock ({@link #end}):
 * declared lost at zklock's deadline, or expired. A handle declared lost stays open until the
 * ensemble could have expired its session, and may even connect again meanwhile; no node may then
 * be made on it, or a create would make a node of a session whose holders and waiters were already
 * told it ended (a grant nobody would tell lost, a failure nobody waits for). A create, or a {@code
 * multi} (which may hold creates), is then answered {@code SESSIONEXPIRED} without reaching the
 * server, on {@code answers} (never on the caller's thread, which may hold a monitor its callback
 * takes), in the order the calls were made. Reads, deletes and watches still go out on the open
 * handle: they make nothing, and some callers send a read again at once on {@code SESSIONEXPIRED}
 * (refused locally, that would spin without end). The one place every call of a client goes
 * through: the request engine, its protocols, the {@link Batcher} (whose queued calls are sent
 * later), the recipes. The close is not a call: it still goes.
 */
final class EndedOps implements ZkOps {
  /** Whether the session of one client is over; shared by the calls of all its connections. */
  static final class End {
    private volatile boolean ended;

    void end() {
      ended = true;
    }

    boolean ended() {
      return ended;
    }
  }

  private static final int EXPIRED = Code.SESSIONEXPIRED.intValue();

  private final ZkOps raw;
  private final End end;
  private final Executor answers;

  EndedOps(ZkOps raw, End end, Executor answers) {
    this.raw = raw;
    this.end = end;
    this.answers = answers;
  }

  /** Whether the call goes to the client; if not, {@code refusal} is run on {@link #answers}. */
  private boolean sends(Runnable refusal) {
    if (!end.ended()) {
      return true;
    }
    try {
      answers.execute(refusal);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      refusal.run(); // the instance is closed: nothing runs its news any more
    }
    return false;
  }

  @Override
  public void create(
      String path, byte[] data, List<ACL> acl, CreateMode mode, AsyncCallback.Create2Callback cb) {
    if (sends(() -> cb.processResult(EXPIRED, path, null, null, null))) {
      raw.create(path, data, acl, mode, cb);
    }
  }

  @Override
  public void getChildren(String path, Watcher watcher, AsyncCallback.Children2Callback cb) {
    raw.getChildren(path, watcher, cb);
  }

  @Override
  public void listChildren(String path, AsyncCallback.ChildrenCallback cb) {
    raw.listChildren(path, cb);
  }

  @Override
  public void getData(String path, Watcher watcher, AsyncCallback.DataCallback cb) {
    raw.getData(path, watcher, cb);
  }

  @Override
  public void exists(String path, Watcher watcher, AsyncCallback.StatCallback cb) {
    raw.exists(path, watcher, cb);
  }

  @Override
  public void delete(String path, int version, AsyncCallback.VoidCallback cb) {
    raw.delete(path, version, cb);
  }

  @Override
  public void getACL(String path, AsyncCallback.ACLCallback cb) {
    raw.getACL(path, cb);
  }

  @Override
  public void setData(String path, byte[] data, int version, AsyncCallback.StatCallback cb) {
    raw.setData(path, data, version, cb);
  }

  @Override
  public void removeWatches(
      String path, Watcher watcher, WatcherType type, AsyncCallback.VoidCallback cb) {
    raw.removeWatches(path, watcher, type, cb);
  }

  @Override
  public void removeAllWatches(String path, WatcherType type, AsyncCallback.VoidCallback cb) {
    raw.removeAllWatches(path, type, cb);
  }

  @Override
  public void sync(String path, AsyncCallback.VoidCallback cb) {
    raw.sync(path, cb);
  }

  @Override
  public void multi(List<Op> ops, AsyncCallback.MultiCallback cb) {
    if (sends(() -> cb.processResult(EXPIRED, null, null, null))) {
      raw.multi(ops, cb);
    }
  }

  @Override
  public void addWatch(
      String path, Watcher watcher, AddWatchMode mode, AsyncCallback.VoidCallback cb) {
    raw.addWatch(path, watcher, mode, cb);
  }

  @Override
  public boolean connected() {
    return raw.connected();
  }
}
