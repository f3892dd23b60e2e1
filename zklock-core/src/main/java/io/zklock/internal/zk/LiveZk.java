package io.zklock.internal.zk;

import io.zklock.TlsConfig;
import io.zklock.ZkLockException;
import io.zklock.internal.rules.Clock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.BiConsumer;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ConnectStringParser;
import org.apache.zookeeper.client.HostProvider;
import org.apache.zookeeper.client.StaticHostProvider;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.client.ZooKeeperSaslClient;
import org.apache.zookeeper.common.ClientX509Util;
import org.apache.zookeeper.data.ClientInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The live {@link ZkConnector}: ZooKeeper's client, the only place that makes one. */
final class LiveZk implements ZkConnector {
  private static final Logger log = LoggerFactory.getLogger(LiveZk.class);

  @Override
  public ZkClient open(SessionConfig config, Clock clock, BiConsumer<ZkClient, KeeperState> news) {
    Client client = new Client();
    Watcher watcher =
        event -> {
          if (event.getType() == Watcher.Event.EventType.None) {
            client.made(); // no news before the constructor below has returned
            news.accept(client, event.getState());
          }
        };
    try {
      synchronized (client) {
        // ZooKeeper's own host provider (as its constructor without one makes it), watched
        client.attempts =
            new AttemptTimes(
                new StaticHostProvider(
                    new ConnectStringParser(config.connectString()).getServerAddresses()),
                clock);
        client.zk =
            new Handle(
                config.connectString(),
                (int) config.sessionTimeout().toMillis(),
                watcher,
                false,
                client.attempts,
                clientConfig(config.tls()));
      }
      for (SessionConfig.Auth a : config.auth()) {
        client.zk.addAuthInfo(a.scheme(), a.credentials());
      }
      return client;
    } catch (IOException | RuntimeException e) {
      throw new ZkLockException(
          "cannot create a ZooKeeper client for '"
              + config.connectString()
              + "': "
              + e.getMessage(),
          e);
    }
  }

  @Override
  public CompletableFuture<ConnectProbe.Finding> probe(
      SessionConfig config, CountDownLatch connected, long deadlineNanos) {
    return ConnectProbe.beside(config, connected, deadlineNanos);
  }

  static ZKClientConfig clientConfig(TlsConfig tls) {
    ZKClientConfig c = new ZKClientConfig();
    if (tls != null) {
      c.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
      c.setProperty(
          ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET,
          "org.apache.zookeeper.ClientCnxnSocketNetty");
      try (ClientX509Util x509 = new ClientX509Util()) {
        c.setProperty(x509.getSslTruststoreLocationProperty(), tls.trustStore().toString());
        if (tls.trustStorePassword() != null) {
          c.setProperty(
              x509.getSslTruststorePasswdProperty(), new String(tls.trustStorePassword()));
        }
        if (tls.trustStoreType() != null) {
          c.setProperty(x509.getSslTruststoreTypeProperty(), tls.trustStoreType());
        }
        if (tls.keyStore() != null) {
          c.setProperty(x509.getSslKeystoreLocationProperty(), tls.keyStore().toString());
          if (tls.keyStorePassword() != null) {
            c.setProperty(x509.getSslKeystorePasswdProperty(), new String(tls.keyStorePassword()));
          }
          if (tls.keyStoreType() != null) {
            c.setProperty(x509.getSslKeystoreTypeProperty(), tls.keyStoreType());
          }
        }
        c.setProperty(
            x509.getSslHostnameVerificationEnabledProperty(),
            Boolean.toString(tls.hostnameVerification()));
      }
    }
    return c;
  }

  /** ZooKeeper's handle, which tells the address of the server it is connected to. */
  private static final class Handle extends ZooKeeper {
    Handle(
        String connectString,
        int sessionTimeout,
        Watcher watcher,
        boolean canBeReadOnly,
        HostProvider hostProvider,
        ZKClientConfig clientConfig)
        throws IOException {
      super(connectString, sessionTimeout, watcher, canBeReadOnly, hostProvider, clientConfig);
    }

    /** The server's address, or empty while not connected. */
    String server() {
      SocketAddress a;
      try {
        a = testableRemoteSocketAddress();
      } catch (RuntimeException notConnected) {
        return ""; // no socket at this moment
      }
      if (a instanceof InetSocketAddress i) {
        String host = i.getAddress() != null ? i.getAddress().getHostAddress() : i.getHostString();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + i.getPort();
      }
      return a == null ? "" : a.toString();
    }
  }

  /**
   * The servers of one ZooKeeper handle, telling when the connection attempt began that made its
   * latest connection. ZooKeeper's client asks {@link #next} for the server to try at the start of
   * every connection attempt (after the spin delay once every server was tried, before its random
   * back-off of up to 1 s on a reconnection and the connect request), and calls {@link
   * #onConnected} on the same thread when a server accepted the session, before it tells the {@code
   * SyncConnected} event: the time of the last {@code next} then is a moment before the connect
   * request of the connection just made, so no later than the leader's {@code createSession} of a
   * new session (a reconnection, by the same rule, no later than the leader's touch of the session
   * when it revalidated it). ZooKeeper's client calls them so (3.9, and 3.5 before it). A read-only
   * client's switch to a read-write server skips {@code next}; zklock asks for no read-only
   * connection, and the time kept would then be an earlier attempt's: still a lower bound.
   */
  static final class AttemptTimes implements HostProvider {
    private final HostProvider servers;
    private final Clock clock;
    private long chosenAt; // the send thread's: the last next() returned then
    private volatile long connectedAttempt; // chosenAt of the attempt that connected last

    AttemptTimes(HostProvider servers, Clock clock) {
      this.servers = servers;
      this.clock = clock;
      this.chosenAt = clock.nanoTime(); // the handle's opening, before any attempt
      this.connectedAttempt = chosenAt;
    }

    @Override
    public int size() {
      return servers.size();
    }

    @Override
    public InetSocketAddress next(long spinDelay) {
      InetSocketAddress server = servers.next(spinDelay); // may sleep: every server was tried
      chosenAt = clock.nanoTime();
      return server;
    }

    @Override
    public void onConnected() {
      connectedAttempt = chosenAt;
      servers.onConnected();
    }

    @Override
    public boolean updateServerList(
        Collection<InetSocketAddress> serverAddresses, InetSocketAddress currentHost) {
      return servers.updateServerList(serverAddresses, currentHost);
    }

    long connectedAttempt() {
      return connectedAttempt;
    }
  }

  /** One ZooKeeper handle. */
  static final class Client implements ZkClient {
    private ZooKeeper zk; // set once, under the monitor, before any news is told
    private AttemptTimes attempts; // likewise

    /** Waits until the handle is recorded (the monitor is held while it is being made). */
    synchronized void made() {}

    /** ZooKeeper's handle (tests of this package that look at its state). */
    synchronized ZooKeeper handle() {
      return zk;
    }

    /** A new view of the handle's calls each time: one per connection, as {@link Session} asks. */
    @Override
    public ZkOps ops() {
      return ZkOps.of(handle());
    }

    @Override
    public long sessionId() {
      return handle().getSessionId();
    }

    @Override
    public int sessionTimeoutMillis() {
      return handle().getSessionTimeout();
    }

    @Override
    public long connectBeganNanos() {
      AttemptTimes a;
      synchronized (this) {
        a = attempts;
      }
      return a.connectedAttempt();
    }

    @Override
    public String server() {
      return handle() instanceof Handle h ? h.server() : "";
    }

    @Override
    public List<ClientInfo> whoAmI() throws InterruptedException {
      return handle().whoAmI();
    }

    @Override
    public boolean saslLogin() {
      ZooKeeperSaslClient sasl = handle().getSaslClient();
      return sasl != null && !sasl.isFailed();
    }

    @Override
    public void close() {
      try {
        handle().close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (RuntimeException e) {
        log.debug("closing a ZooKeeper handle failed", e);
      }
    }

    @Override
    public String toString() {
      return "ZooKeeper client 0x" + Long.toHexString(sessionId());
    }
  }
}
