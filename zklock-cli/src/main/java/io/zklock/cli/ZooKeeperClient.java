package io.zklock.cli;

import io.zklock.internal.Args;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/** A plain ZooKeeper client for read-only commands ({@code ls}), connected or a one-line error. */
final class ZooKeeperClient {
  private ZooKeeperClient() {}

  static ZooKeeper connect(ConnectionOptions options) throws InterruptedException {
    String cs;
    try {
      cs = Args.connectString(options.connect);
    } catch (IllegalArgumentException e) {
      throw new CliException(ExitCodes.USAGE, e.getMessage(), e);
    }
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk;
    try {
      zk =
          new ZooKeeper(
              cs,
              (int) options.sessionTimeout.toMillis(),
              event -> {
                if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                  connected.countDown();
                }
              });
    } catch (IOException | IllegalArgumentException e) {
      throw new CliException(
          ExitCodes.CANNOT_CONNECT,
          "cannot connect to ZooKeeper at '" + cs + "': " + e.getMessage());
    }
    Duration timeout = options.connectTimeout;
    if (!connected.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      zk.close();
      throw new CliException(
          ExitCodes.CANNOT_CONNECT,
          "cannot connect to ZooKeeper at '"
              + cs
              + "' within "
              + Durations.format(timeout)
              + ": no server answered; is it running? (zklock server starts one)");
    }
    return zk;
  }
}
