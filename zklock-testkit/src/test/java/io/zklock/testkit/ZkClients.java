package io.zklock.testkit;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.awaitility.Awaitility;

/** Test helper: a ZooKeeper client that records every connection state it sees. */
final class ZkClients {
  private ZkClients() {}

  static final class Recorded implements AutoCloseable {
    final ZooKeeper zk;
    final List<KeeperState> states;

    Recorded(ZooKeeper zk, List<KeeperState> states) {
      this.zk = zk;
      this.states = states;
    }

    void awaitState(KeeperState state, long seconds) {
      Awaitility.await("client reaches " + state + " (seen: " + states + ")")
          .atMost(seconds, TimeUnit.SECONDS)
          .pollInterval(10, TimeUnit.MILLISECONDS)
          .until(() -> states.contains(state));
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

  static Recorded connect(String connectString, int sessionTimeoutMs) throws IOException {
    return connect(connectString, sessionTimeoutMs, null);
  }

  static Recorded connect(String connectString, int sessionTimeoutMs, ZKClientConfig config)
      throws IOException {
    return connect(connectString, sessionTimeoutMs, config, 10);
  }

  /** Waits up to {@code awaitSeconds} for the client to connect. */
  static Recorded connect(
      String connectString, int sessionTimeoutMs, ZKClientConfig config, long awaitSeconds)
      throws IOException {
    List<KeeperState> states = new CopyOnWriteArrayList<>();
    ZooKeeper zk =
        config == null
            ? new ZooKeeper(connectString, sessionTimeoutMs, e -> states.add(e.getState()))
            : new ZooKeeper(connectString, sessionTimeoutMs, e -> states.add(e.getState()), config);
    Recorded r = new Recorded(zk, states);
    try {
      r.awaitState(KeeperState.SyncConnected, awaitSeconds);
    } catch (RuntimeException e) {
      try {
        zk.close();
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
      }
      throw e;
    }
    return r;
  }
}
