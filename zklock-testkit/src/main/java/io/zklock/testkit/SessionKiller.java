package io.zklock.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;

/**
 * Expires a ZooKeeper session on any server or ensemble, the way ZooKeeper's own FAQ suggests: a
 * second client connects with the same session id and password and closes the session. The original
 * client receives {@code Expired} on its next interaction with the ensemble (it is disconnected
 * first, then told the session has expired when it reconnects).
 */
public final class SessionKiller {
  private SessionKiller() {}

  /**
   * Expires the session {@code sessionId}.
   *
   * @param connectString the ensemble the session lives on
   * @param sessionId {@link ZooKeeper#getSessionId()} of the victim
   * @param password {@link ZooKeeper#getSessionPasswd()} of the victim
   * @throws IllegalStateException if the killer cannot join the session within 10 seconds (for
   *     example because it has already expired)
   * @throws InterruptedException if interrupted while waiting
   */
  public static void expire(String connectString, long sessionId, byte[] password)
      throws InterruptedException {
    expire(connectString, sessionId, password, Duration.ofSeconds(10));
  }

  /** {@link #expire(String, long, byte[])} with a custom wait for the killer's connection. */
  public static void expire(String connectString, long sessionId, byte[] password, Duration timeout)
      throws InterruptedException {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper killer;
    try {
      killer =
          new ZooKeeper(
              connectString,
              (int) Math.max(timeout.toMillis(), 1000),
              event -> {
                if (event.getState() == KeeperState.SyncConnected) {
                  connected.countDown();
                }
              },
              sessionId,
              password);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot connect to " + connectString, e);
    }
    try {
      if (!connected.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(
            "could not join session 0x"
                + Long.toHexString(sessionId)
                + " on "
                + connectString
                + " within "
                + timeout);
      }
    } finally {
      killer.close(); // closes the shared session: the original owner sees it expired
    }
  }
}
