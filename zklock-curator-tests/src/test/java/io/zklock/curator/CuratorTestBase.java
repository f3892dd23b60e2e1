package io.zklock.curator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.LockHandle;
import io.zklock.LockNode;
import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * One embedded server for a test class; zklock clients in the root namespace, so that a lock's name
 * is the path Curator's recipe is given; Curator clients with a thread each.
 */
abstract class CuratorTestBase {
  static final Duration WAIT = Duration.ofSeconds(30);
  private static final AtomicInteger COUNTER = new AtomicInteger();

  static EmbeddedZooKeeper server;

  private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void startServer() {
    server = EmbeddedZooKeeper.standalone().start();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @AfterEach
  void closeClients() throws Exception {
    // the last made first: a recipe before the client it runs on
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  /** Closes {@code c} after the test, before the clients made ahead of it. */
  void addCloseable(AutoCloseable c) {
    closeables.add(c);
  }

  /** A fresh lock name, also Curator's path without the leading '/'. */
  static String newName(String what) {
    return "curator-compat/" + what + "-" + COUNTER.incrementAndGet();
  }

  ZkLocks zklock(String clientName) {
    ZkLocks z =
        ZkLocks.builder(server.connectString())
            .namespace("/")
            .clientName(clientName)
            .sessionTimeout(Duration.ofSeconds(10))
            .build();
    closeables.add(z);
    return z;
  }

  CuratorClient curator(String name) throws InterruptedException {
    CuratorClient c = new CuratorClient(name, server.connectString());
    closeables.add(c);
    return c;
  }

  /**
   * Runs a blocking call (a zklock {@code tryAcquire} with a time-out) on a thread of its own, so
   * that the test can queue others behind it meanwhile.
   */
  static <T> CompletableFuture<T> inBackground(Callable<T> call) {
    CompletableFuture<T> f = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              try {
                f.complete(call.call());
              } catch (Throwable e) {
                f.completeExceptionally(e);
              }
            },
            "background-" + COUNTER.incrementAndGet());
    t.setDaemon(true);
    t.start();
    return f;
  }

  /** A pool for zklock clients' loops, shut down after the test. */
  ExecutorService threads(int count) {
    ExecutorService pool = Executors.newFixedThreadPool(count);
    closeables.add(pool::shutdownNow);
    return pool;
  }

  /** Waits for every one of {@code work}, failing on the first that failed. */
  static void awaitAll(List<? extends Future<?>> work) throws Exception {
    for (Future<?> f : work) {
      f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
  }

  /** Waits for a zklock waiter's grant, checks that it holds with a token, and releases. */
  static void holdsWithTokenThenReleases(CompletableFuture<LockHandle> waiter) throws Exception {
    LockHandle h = waiter.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(h.isHeld()).isTrue();
    assertThat(h.fencingToken()).isPositive();
    h.release();
  }

  /** The nodes of zklock's client {@code clientName} in lock {@code name}, as zklock sees them. */
  static List<LockNode> nodesOf(ZkLocks z, String name, String clientName) {
    return z.inspect(name).stream()
        .flatMap(i -> java.util.stream.Stream.concat(i.holders().stream(), i.waiters().stream()))
        .filter(n -> n.clientName().equals(clientName))
        .toList();
  }

  /** The children of the lock directory {@code name}, read by a client of the test's own. */
  List<String> children(CuratorClient reader, String name) throws Exception {
    try {
      return reader.framework.getChildren().forPath("/" + name);
    } catch (KeeperException.NoNodeException e) {
      return List.of();
    }
  }

  void awaitChildren(CuratorClient reader, String name, int count) {
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(10))
        .until(() -> children(reader, name).size() == count);
  }
}
