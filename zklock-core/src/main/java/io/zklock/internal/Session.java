package io.zklock.internal;

import io.zklock.LockLostException;
import io.zklock.SessionListener;
import io.zklock.SessionState;
import io.zklock.TlsConfig;
import io.zklock.ZkLockException;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one ZooKeeper session of a {@link io.zklock.ZkLocks}: connects, tracks the {@link
 * SessionState}, replaces an expired session with a new one, and tells listeners.
 *
 * <p>ZooKeeper delivers connection events on its single event thread; this class never blocks it.
 * It records the transition and hands listener calls to a serial executor.
 */
final class Session {
  private static final Logger log = LoggerFactory.getLogger(Session.class);

  /** One live ZooKeeper handle and its session id. Immutable; a new one per session. */
  record Conn(ZooKeeper zk, long sessionId) {}

  /** Internal listener of the recipes: unlike {@link SessionListener} it is told which handle. */
  interface Observer {
    /** The session is connected (first time, again after suspension, or a new session). */
    void connected(Conn conn);

    /** The connection dropped; the session may be alive. */
    void suspended(Conn conn);

    /** The session {@code expired} is gone; every ephemeral node of it is gone. */
    void expired(Conn expired);

    /** The {@link io.zklock.ZkLocks} was closed. */
    void closed();
  }

  private final SessionConfig config;
  private final Executor events; // serial: observers and listeners hear transitions in order
  private final List<SessionListener> listeners = new CopyOnWriteArrayList<>();
  private final List<Observer> observers = new CopyOnWriteArrayList<>();
  private final Object lock = new Object();

  // guarded by lock
  private SessionState state = SessionState.SUSPENDED;
  private ZooKeeper currentZk; // the handle in use; events of any other are late and ignored
  private Conn conn; // the session of currentZk once it has connected; null after an expiry
  private CompletableFuture<Conn> ready = new CompletableFuture<>();
  private boolean closed;

  Session(SessionConfig config, Executor serialEvents) {
    this.config = config;
    this.events = serialEvents;
  }

  SessionConfig config() {
    return config;
  }

  /**
   * Opens the first session and waits until it is connected.
   *
   * @throws ZkLockException naming the connect string if no session is established in time
   */
  void start() {
    AtomicReference<Watcher.Event.KeeperState> failure = new AtomicReference<>();
    CountDownLatch first = new CountDownLatch(1);
    ZooKeeper zk = newZooKeeper(failure, first);
    try {
      boolean connected = first.await(config.connectTimeout().toMillis(), TimeUnit.MILLISECONDS);
      Watcher.Event.KeeperState bad = failure.get();
      if (bad != null) {
        closeQuietly(zk);
        throw new ZkLockException(
            "cannot connect to ZooKeeper at '"
                + config.connectString()
                + "': "
                + (bad == Watcher.Event.KeeperState.AuthFailed
                    ? "authentication failed"
                    : "the session was refused (" + bad + ")"));
      }
      if (!connected || zk.getState() != ZooKeeper.States.CONNECTED) {
        closeQuietly(zk);
        throw new ZkLockException(
            "cannot connect to ZooKeeper at '"
                + config.connectString()
                + "' within "
                + config.connectTimeout().toMillis()
                + " ms: no server answered"
                + (config.tls() != null ? " (TLS handshake may have failed)" : "")
                + "; is the ensemble running and reachable?");
      }
      checkChroot(zk);
    } catch (InterruptedException e) {
      closeQuietly(zk);
      Thread.currentThread().interrupt();
      throw new ZkLockException(
          "interrupted while connecting to '" + config.connectString() + "'", e);
    }
  }

  private void checkChroot(ZooKeeper zk) throws InterruptedException {
    int slash = config.connectString().indexOf('/');
    if (slash < 0 || config.connectString().length() == slash + 1) {
      return;
    }
    String chroot = config.connectString().substring(slash);
    try {
      if (zk.exists("/", false) == null) {
        closeQuietly(zk);
        throw new ZkLockException(
            "cannot use ZooKeeper at '"
                + config.connectString()
                + "': the chroot "
                + chroot
                + " does not exist; create it first");
      }
    } catch (KeeperException e) {
      closeQuietly(zk);
      throw new ZkLockException(
          "cannot use ZooKeeper at '" + config.connectString() + "': " + e.getMessage(), e);
    }
  }

  private ZooKeeper newZooKeeper(
      AtomicReference<Watcher.Event.KeeperState> failure, CountDownLatch first) {
    ZKClientConfig clientConfig = clientConfig(config.tls());
    ZooKeeper[] holder = new ZooKeeper[1];
    Watcher watcher =
        event -> {
          if (event.getType() == Watcher.Event.EventType.None) {
            Watcher.Event.KeeperState s = event.getState();
            if (first != null
                && (s == Watcher.Event.KeeperState.AuthFailed
                    || s == Watcher.Event.KeeperState.Expired)) {
              failure.compareAndSet(null, s);
              first.countDown();
            }
            ZooKeeper zk;
            synchronized (holder) { // until the constructor below has returned and been recorded
              zk = holder[0];
            }
            onConnectionEvent(zk, s);
            if (first != null && s == Watcher.Event.KeeperState.SyncConnected) {
              first.countDown();
            }
          }
        };
    try {
      ZooKeeper zk;
      synchronized (holder) {
        zk =
            new ZooKeeper(
                config.connectString(),
                (int) config.sessionTimeout().toMillis(),
                watcher,
                false,
                clientConfig);
        holder[0] = zk;
        synchronized (lock) {
          currentZk = zk;
        }
      }
      for (SessionConfig.Auth a : config.auth()) {
        zk.addAuthInfo(a.scheme(), a.credentials());
      }
      return zk;
    } catch (IOException | RuntimeException e) {
      throw new ZkLockException(
          "cannot create a ZooKeeper client for '"
              + config.connectString()
              + "': "
              + e.getMessage(),
          e);
    }
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

  /** Runs on ZooKeeper's event thread: record, then hand the news to the serial executor. */
  private void onConnectionEvent(ZooKeeper zk, Watcher.Event.KeeperState s) {
    Runnable news = null;
    synchronized (lock) {
      if (closed) {
        return;
      }
      if (zk != currentZk) {
        return; // an old handle's late event
      }
      switch (s) {
        case SyncConnected:
        case ConnectedReadOnly:
          {
            Conn c = new Conn(zk, zk.getSessionId());
            conn = c;
            if (state != SessionState.CONNECTED) {
              state = SessionState.CONNECTED;
              CompletableFuture<Conn> r = ready;
              news =
                  () -> {
                    observers.forEach(o -> o.connected(c));
                    tell(SessionState.CONNECTED, c.sessionId());
                    r.complete(c);
                  };
            }
            break;
          }
        case Disconnected:
          if (state == SessionState.CONNECTED && conn != null) {
            Conn c = conn;
            state = SessionState.SUSPENDED;
            ready = new CompletableFuture<>();
            news =
                () -> {
                  observers.forEach(o -> o.suspended(c));
                  tell(SessionState.SUSPENDED, c.sessionId());
                };
          }
          break;
        case Expired:
          if (conn != null && state != SessionState.LOST) {
            Conn old = conn;
            state = SessionState.LOST;
            if (ready.isDone()) {
              ready = new CompletableFuture<>();
            }
            conn = null;
            news =
                () -> {
                  closeQuietly(old.zk());
                  observers.forEach(o -> o.expired(old));
                  tell(SessionState.LOST, old.sessionId());
                  reopen();
                };
          }
          break;
        case AuthFailed:
          log.error(
              "authentication failed for ZooKeeper at '{}'; check the credentials",
              config.connectString());
          break;
        default:
          break;
      }
    }
    if (news != null) {
      events.execute(news);
    }
  }

  /** After an expiry: a new handle; its SyncConnected event makes the state CONNECTED again. */
  private void reopen() {
    synchronized (lock) {
      if (closed) {
        return;
      }
    }
    try {
      ZooKeeper zk = newZooKeeper(new AtomicReference<>(), null);
      synchronized (lock) {
        if (closed) {
          closeQuietly(zk);
        }
      }
    } catch (ZkLockException e) {
      log.error("cannot open a new ZooKeeper session after expiry; retrying", e);
      events.execute(this::reopen);
    }
  }

  private void tell(SessionState s, long sessionId) {
    for (SessionListener l : listeners) {
      try {
        l.stateChanged(s, sessionId);
      } catch (RuntimeException e) {
        log.warn("session listener {} threw; ignored", l, e);
      }
    }
  }

  SessionState state() {
    synchronized (lock) {
      return closed ? SessionState.CLOSED : state;
    }
  }

  /** The live handle, or null if not connected. */
  Conn current() {
    synchronized (lock) {
      return state == SessionState.CONNECTED ? conn : null;
    }
  }

  /** The handle of the session now being used (connected or suspended), or null after expiry. */
  Conn session() {
    synchronized (lock) {
      return conn;
    }
  }

  long sessionId() {
    synchronized (lock) {
      return closed || conn == null ? 0L : conn.sessionId();
    }
  }

  /**
   * Runs {@code action} with the live handle as soon as the session is connected: at once (on the
   * caller's thread) if it is. Runs nothing once closed; {@code onClosed} then runs instead.
   */
  void whenConnected(Consumer<Conn> action, Runnable onClosed) {
    CompletableFuture<Conn> r;
    synchronized (lock) {
      if (closed) {
        r = null;
      } else if (state == SessionState.CONNECTED && conn != null) {
        Conn c = conn;
        r = CompletableFuture.completedFuture(c);
      } else {
        r = ready;
      }
    }
    if (r == null) {
      onClosed.run();
      return;
    }
    r.whenComplete(
        (c, err) -> {
          if (c != null) {
            action.accept(c);
          } else {
            onClosed.run();
          }
        });
  }

  /**
   * Finds out why a held node of session {@code nodeSession} vanished, and tells {@code verdict}. A
   * session expiry deletes the node too, and the server may report the deletion before it closes
   * the connection, so this asks the server once: a live session means someone deleted the node
   * ({@link LockLostException.Reason#NODE_DELETED}); an ended one, that the session expired. A
   * connection loss on the way asks again when the connection is back.
   *
   * @param path any path; only the answer's code matters
   */
  void classifyLoss(
      long nodeSession,
      String path,
      Consumer<LockLostException.Reason> verdict,
      Runnable onClosed) {
    whenConnected(
        c -> {
          if (c.sessionId() != nodeSession) {
            verdict.accept(LockLostException.Reason.SESSION_EXPIRED);
            return;
          }
          c.zk()
              .exists(
                  path,
                  false,
                  (rc, p, x, stat) -> {
                    Code code = Code.get(rc);
                    if (code == Code.CONNECTIONLOSS || code == Code.OPERATIONTIMEOUT) {
                      classifyLoss(nodeSession, path, verdict, onClosed);
                    } else if (code == Code.SESSIONEXPIRED) {
                      verdict.accept(LockLostException.Reason.SESSION_EXPIRED);
                    } else {
                      verdict.accept(LockLostException.Reason.NODE_DELETED);
                    }
                  },
                  null);
        },
        onClosed);
  }

  void addListener(SessionListener l) {
    listeners.add(l);
  }

  void removeListener(SessionListener l) {
    listeners.remove(l);
  }

  void addObserver(Observer o) {
    observers.add(o);
  }

  void removeObserver(Observer o) {
    observers.remove(o);
  }

  /** Ends the session. Idempotent. */
  void close() {
    Conn c;
    CompletableFuture<Conn> r;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      c = currentZk == null ? null : new Conn(currentZk, conn == null ? 0L : conn.sessionId());
      r = ready;
    }
    observers.forEach(Observer::closed);
    if (c != null) {
      closeQuietly(c.zk());
    }
    r.completeExceptionally(new ZkLockException("closed"));
    long id = c != null ? c.sessionId() : 0L;
    events.execute(() -> tell(SessionState.CLOSED, id));
  }

  private static void closeQuietly(ZooKeeper zk) {
    try {
      zk.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      log.debug("closing a ZooKeeper handle failed", e);
    }
  }
}
