package io.zklock.interop;

import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * One embedded server for a test class; zklock clients in the namespace {@code /zklock}, so that a
 * lock named {@code polyglot} is the path {@code /zklock/polyglot} a kazoo client is given; kazoo
 * clients each in a process of their own ({@link Kazoo}). Every test is skipped, saying why, where
 * kazoo is not installed.
 */
abstract class KazooTestBase {
  static final Duration WAIT = Duration.ofSeconds(30);
  static final String NAMESPACE = "/zklock";
  private static final AtomicInteger COUNTER = new AtomicInteger();

  static EmbeddedZooKeeper server;

  private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();
  private ZooKeeper observer;

  @BeforeAll
  static void startServer() {
    Kazoo.assumeAvailable();
    server = EmbeddedZooKeeper.standalone().start();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @BeforeEach
  void kazooPresent() {
    Kazoo.assumeAvailable();
  }

  @AfterEach
  void closeClients() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    if (observer != null) {
      observer.close();
    }
  }

  /** A fresh lock name. */
  static String newName(String what) {
    return "interop/" + what + "-" + COUNTER.incrementAndGet();
  }

  /** The path a kazoo client is given for the zklock lock {@code name}. */
  static String pathOf(String name) {
    return NAMESPACE + "/" + name;
  }

  ZkLocks zklock(String clientName) {
    ZkLocks z =
        ZkLocks.builder(server.connectString())
            .namespace(NAMESPACE)
            .clientName(clientName)
            .sessionTimeout(Duration.ofSeconds(10))
            .build();
    closeables.add(z);
    return z;
  }

  /** A kazoo client in a process of its own, with a session timeout of 10 s. */
  Kazoo kazoo(String name) throws Exception {
    return kazoo(name, server.connectString(), Duration.ofSeconds(10));
  }

  /** A kazoo client connected to {@code connectString} (a fault proxy's, say). */
  Kazoo kazoo(String name, String connectString, Duration sessionTimeout) throws Exception {
    Kazoo k = Kazoo.start(name, connectString, sessionTimeout);
    closeables.add(k);
    return k;
  }

  /** A zklock client connected to {@code connectString} (a fault proxy's, say). */
  ZkLocks zklock(String clientName, String connectString, Duration sessionTimeout) {
    ZkLocks z =
        ZkLocks.builder(connectString)
            .namespace(NAMESPACE)
            .clientName(clientName)
            .sessionTimeout(sessionTimeout)
            .build();
    closeables.add(z);
    return z;
  }

  /** Closes {@code c} when the test ends (after the clients made before it). */
  <T extends AutoCloseable> T closeAtEnd(T c) {
    closeables.add(0, c);
    return c;
  }

  /** The children of the lock {@code name}'s directory, read by a session of the test's own. */
  List<String> children(String name) throws Exception {
    if (observer == null) {
      java.util.concurrent.CountDownLatch up = new java.util.concurrent.CountDownLatch(1);
      observer =
          new ZooKeeper(
              server.connectString(),
              10_000,
              e -> {
                if (e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                  up.countDown();
                }
              });
      up.await();
    }
    try {
      return observer.getChildren(pathOf(name), false);
    } catch (KeeperException.NoNodeException e) {
      return List.of();
    }
  }
}
