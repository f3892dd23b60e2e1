package io.zklock.cli;

import io.zklock.ZkLocks;
import java.time.Duration;
import org.apache.zookeeper.ZooKeeper;

/**
 * The session timeout the ensemble negotiated, for {@code ls --verbose}.
 *
 * <p>Until {@code ZkLocks#negotiatedSessionTimeout()} (being added to the library) is available,
 * this asks the ensemble the same way on a short second session with the same settings (servers,
 * asked timeout, TLS, authentication) and reports what it granted: the ensemble clamps every asked
 * timeout to the same limits, so both sessions get the same value. Replace the body by {@code
 * locks.negotiatedSessionTimeout()} once it exists.
 */
final class NegotiatedTimeout {
  private NegotiatedTimeout() {}

  static Duration of(ZkLocks locks, ConnectionOptions options) throws InterruptedException {
    ZooKeeper zk = ZooKeeperClient.connect(options);
    try {
      return Duration.ofMillis(zk.getSessionTimeout());
    } finally {
      zk.close();
    }
  }
}
