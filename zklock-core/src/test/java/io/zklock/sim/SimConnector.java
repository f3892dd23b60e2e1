package io.zklock.sim;

import io.zklock.internal.rules.Clock;
import io.zklock.internal.zk.SessionConfig;
import io.zklock.internal.zk.ZkClient;
import io.zklock.internal.zk.ZkConnector;
import io.zklock.internal.zk.ZkOps;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.Watcher.WatcherType;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.ClientInfo;

/**
 * The {@link ZkConnector} of a simulated process: each client it opens is a {@link SimZkClient} of
 * the simulated ensemble; its connection news are the None events of that client's default watcher,
 * as for ZooKeeper's own client.
 */
final class SimConnector implements ZkConnector {
  private final SimProcess process;
  private final SimEnsemble ens;
  private final Net net;
  private final Consumer<SimZkClient> opened;

  SimConnector(SimProcess process, SimEnsemble ens, Net net, Consumer<SimZkClient> opened) {
    this.process = process;
    this.ens = ens;
    this.net = net;
    this.opened = opened;
  }

  @Override
  public ZkClient open(SessionConfig config, Clock clock, BiConsumer<ZkClient, KeeperState> news) {
    // the simulated client tells its attempts' start on its process's clock: the session's
    assert clock == process.clock;
    Client[] holder = new Client[1];
    SimZkClient zk =
        new SimZkClient(
            process,
            ens,
            net,
            (int) config.sessionTimeout().toMillis(),
            e -> {
              if (e.getType() == Watcher.Event.EventType.None) {
                news.accept(holder[0], e.getState());
              }
            });
    holder[0] = new Client(zk);
    opened.accept(zk);
    return holder[0];
  }

  /** One simulated client, as the session sees it. */
  static final class Client implements ZkClient {
    final SimZkClient zk;

    Client(SimZkClient zk) {
      this.zk = zk;
    }

    @Override
    public ZkOps ops() {
      return new View(zk);
    }

    @Override
    public long sessionId() {
      return zk.getSessionId();
    }

    @Override
    public int sessionTimeoutMillis() {
      return zk.getSessionTimeout();
    }

    @Override
    public long connectBeganNanos() {
      return zk.connectBeganNanos();
    }

    @Override
    public List<ClientInfo> whoAmI() {
      return List.of();
    }

    @Override
    public boolean saslLogin() {
      return false;
    }

    @Override
    public void close() {
      zk.close();
      zk.process.maybeDeschedule("closing " + zk.label());
    }

    @Override
    public String toString() {
      return zk.toString();
    }
  }

  /**
   * A new view of the client's calls each time, as ZooKeeper's connector gives one per connection.
   */
  private static final class View implements ZkOps {
    private final SimZkClient zk;

    View(SimZkClient zk) {
      this.zk = zk;
    }

    /**
     * After a call made on a user thread or a library task: now and then the thread loses the
     * processor.
     */
    private void maybePreempt() {
      SimActor a = SimActor.current();
      SimProcess p = zk.process;
      if (a == null) {
        p.maybeDeschedule("a call on " + zk.label());
      } else if (p.preemptPercent > 0 && p.preempts.nextInt(100) < p.preemptPercent) {
        a.preempt(Sim.between(p.preempts, 2_000, 3 * Sim.MS) * (1 + p.preempts.nextInt(10)));
      }
    }

    @Override
    public void create(
        String path,
        byte[] data,
        List<ACL> acl,
        CreateMode mode,
        AsyncCallback.Create2Callback cb) {
      zk.create(path, data, acl, mode, cb);
      maybePreempt();
    }

    @Override
    public void getChildren(String path, Watcher watcher, AsyncCallback.Children2Callback cb) {
      zk.getChildren(path, watcher, cb);
      maybePreempt();
    }

    @Override
    public void getData(String path, Watcher watcher, AsyncCallback.DataCallback cb) {
      zk.getData(path, watcher, cb);
      maybePreempt();
    }

    @Override
    public void exists(String path, Watcher watcher, AsyncCallback.StatCallback cb) {
      zk.exists(path, watcher, cb);
      maybePreempt();
    }

    @Override
    public void delete(String path, int version, AsyncCallback.VoidCallback cb) {
      zk.delete(path, version, cb);
      maybePreempt();
    }

    @Override
    public void getACL(String path, AsyncCallback.ACLCallback cb) {
      zk.getACL(path, cb);
      maybePreempt();
    }

    @Override
    public void setData(String path, byte[] data, int version, AsyncCallback.StatCallback cb) {
      zk.setData(path, data, version, cb);
      maybePreempt();
    }

    @Override
    public void removeWatches(
        String path, Watcher watcher, WatcherType type, AsyncCallback.VoidCallback cb) {
      zk.removeWatches(path, watcher, type, cb);
      maybePreempt();
    }

    @Override
    public void removeAllWatches(String path, WatcherType type, AsyncCallback.VoidCallback cb) {
      zk.removeAllWatches(path, type, cb);
      maybePreempt();
    }

    @Override
    public void sync(String path, AsyncCallback.VoidCallback cb) {
      zk.sync(path, cb);
      maybePreempt();
    }

    @Override
    public void multi(List<Op> ops, AsyncCallback.MultiCallback cb) {
      zk.multi(ops, cb);
      maybePreempt();
    }

    @Override
    public void addWatch(
        String path, Watcher watcher, AddWatchMode mode, AsyncCallback.VoidCallback cb) {
      zk.addWatch(path, watcher, mode, cb);
      maybePreempt();
    }

    @Override
    public boolean connected() {
      return zk.connected();
    }
  }
}
