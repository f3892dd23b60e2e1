package io.zklock.internal.zk;

import io.zklock.TlsConfig;
import io.zklock.ZkLockException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.BiConsumer;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;
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
  public ZkClient open(SessionConfig config, BiConsumer<ZkClient, KeeperState> news) {
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
        client.zk =
            new Handle(
                config.connectString(),
                (int) config.sessionTimeout().toMillis(),
                watcher,
                false,
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
        ZKClientConfig clientConfig)
        throws IOException {
      super(connectString, sessionTimeout, watcher, canBeReadOnly, clientConfig);
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

  /** One ZooKeeper handle. */
  static final class Client implements ZkClient {
    private ZooKeeper zk; // set once, under the monitor, before any news is told

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
