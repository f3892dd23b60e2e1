package io.zklock.cli;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * A plain ZooKeeper client with the command's TLS and authentication, connected or a one-line
 * error. Only {@link NegotiatedTimeout} uses it, until the library tells its negotiated session
 * timeout.
 */
final class ZooKeeperClient {
  private ZooKeeperClient() {}

  static ZooKeeper connect(ConnectionOptions options) throws InterruptedException {
    String cs = options.connect;
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk;
    ClientSecurity security = options.security();
    try {
      zk =
          new ZooKeeper(
              cs,
              (int) options.sessionTimeout.toMillis(),
              event -> {
                if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                  connected.countDown();
                }
              },
              security.clientConfig());
      security.authenticate(zk);
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
              + ": no server answered"
              + (security.tls()
                  ? " (with TLS: is this the secure client port? does the server trust us?)"
                  : "; is it running? (zklock server starts one)"));
    }
    checkChroot(zk, cs);
    return zk;
  }

  /** An absent chroot is an error, as it is for the library (and so for {@code exec}). */
  private static void checkChroot(ZooKeeper zk, String cs) throws InterruptedException {
    int slash = cs.indexOf('/');
    if (slash < 0 || cs.length() == slash + 1) {
      return;
    }
    try {
      if (zk.exists("/", false) == null) {
        zk.close();
        throw new CliException(
            ExitCodes.CANNOT_CONNECT,
            "cannot use ZooKeeper at '"
                + cs
                + "': the chroot "
                + cs.substring(slash)
                + " does not exist; create it first");
      }
    } catch (KeeperException e) {
      zk.close();
      throw new CliException(
          ExitCodes.CANNOT_CONNECT, "cannot use ZooKeeper at '" + cs + "': " + e.getMessage(), e);
    }
  }
}
