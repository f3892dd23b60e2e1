package io.zklock.internal.zk;

import io.zklock.internal.rules.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.BiConsumer;
import org.apache.zookeeper.Watcher.Event.KeeperState;

/**
 * How the {@link Session} opens its clients: the one place that makes a connection to the ensemble.
 * {@link #LIVE} makes ZooKeeper handles; a simulation of the ensemble plugs in its own, and the
 * session, its deadline, the engine and the recipes run unchanged on it.
 */
public interface ZkConnector {
  /**
   * Opens a client of a new session for {@code config}. Its connection news goes to {@code news},
   * with the client it concerns, in order: {@code SyncConnected} or {@code ConnectedReadOnly} (with
   * {@link ZkClient#sessionId()} and {@link ZkClient#sessionTimeoutMillis()} known), {@code
   * Disconnected}, {@code Expired}, {@code AuthFailed}. No news reaches {@code news} before this
   * method has returned the client it concerns.
   *
   * @param clock the session's clock, on which the client tells when the connection attempt began
   *     that made its latest connection ({@link ZkClient#connectBeganNanos()})
   * @throws io.zklock.ZkLockException if no client can be made (a malformed connect string)
   */
  ZkClient open(SessionConfig config, Clock clock, BiConsumer<ZkClient, KeeperState> news);

  /**
   * Looks for the reason why no server answers, beside a first connection attempt that may fail:
   * completes with a finding, or with null once {@code connected} counts down; may never complete.
   * The live connector probes the servers ({@code ConnectProbe}); this default finds nothing.
   */
  default CompletableFuture<ConnectProbe.Finding> probe(
      SessionConfig config, CountDownLatch connected, long deadlineNanos) {
    return new CompletableFuture<>();
  }

  /** ZooKeeper's own client. */
  ZkConnector LIVE = new LiveZk();
}
