package io.zklock;

import io.zklock.testkit.EmbeddedZooKeeper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * Run in a fresh JVM by {@link SameSessionExpiryTest}: one {@link ZkLocks} holds a lock, a second
 * request of the same lock waits on the same session, and the session expires. The waiter must
 * never be handed a lock whose node died with the old session: whatever it is granted must be held,
 * on a node of the new session.
 *
 * <p>Arguments: {@code kind trials}, kind one of {@code mutex simple read write semaphore}. Prints
 * one line per bad trial and a summary line {@code RESULT kind trials bad}; exits 0 when no trial
 * was bad, 1 otherwise.
 */
public final class SameSessionExpiryTrials {
  private SameSessionExpiryTrials() {}

  /** Sessions running trials side by side (each trial waits about a second for a new session). */
  static final int WORKERS = 5;

  public static void main(String[] args) throws Exception {
    String kind = args[0];
    int trials = Integer.parseInt(args[1]);
    AtomicInteger bad = new AtomicInteger();
    AtomicInteger next = new AtomicInteger();
    try (EmbeddedZooKeeper server =
            EmbeddedZooKeeper.standalone().tickTime(Duration.ofMillis(100)).start();
        ZooKeeper raw = connect(server.connectString())) {
      ExecutorService pool = Executors.newFixedThreadPool(WORKERS);
      List<Future<?>> workers = new ArrayList<>();
      for (int w = 0; w < WORKERS; w++) {
        workers.add(
            pool.submit(
                () -> {
                  try (ZkLocks locks =
                      ZkLocks.builder(server.connectString())
                          .namespace("/trials")
                          .sessionTimeout(Duration.ofSeconds(10))
                          .build()) {
                    for (int t; (t = next.getAndIncrement()) < trials; ) {
                      String problem = trial(server, raw, locks, kind, t);
                      if (problem != null) {
                        bad.incrementAndGet();
                        System.out.println("BAD trial " + t + ": " + problem);
                      }
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : workers) {
        f.get();
      }
      pool.shutdown();
    }
    System.out.println("RESULT " + kind + " " + trials + " " + bad.get());
    System.out.flush();
    System.exit(bad.get() == 0 ? 0 : 1);
  }

  /** One trial; returns what went wrong, or null. */
  private static String trial(
      EmbeddedZooKeeper server, ZooKeeper raw, ZkLocks locks, String kind, int t) throws Exception {
    String name = kind + "-" + t;
    Function<ZkLocks, Side> holderSide = lockOf(kind, name, true);
    Function<ZkLocks, Side> waiterSide = lockOf(kind, name, false);
    LockHandle held = holderSide.apply(locks).acquire();
    CompletableFuture<LockHandle> waiting = waiterSide.apply(locks).acquireAsync();
    String dir = held.path().substring(0, held.path().lastIndexOf('/'));
    try {
      if (kind.equals("simple")) {
        // the waiter's create fails and it watches the holder's node: the server shows the node
        // watched (by this one session: the waiter, or the holder's own-node watch, set 50 ms
        // after the grant, long after the waiter's watch on a live connection)
        org.awaitility.Awaitility.await()
            .atMost(java.time.Duration.ofSeconds(10))
            .pollInterval(java.time.Duration.ofMillis(2))
            .until(
                () ->
                    server
                        .server()
                        .getZKDatabase()
                        .getDataTree()
                        .getWatchesByPath()
                        .hasSessions(held.path()));
      } else {
        org.awaitility.Awaitility.await()
            .atMost(java.time.Duration.ofSeconds(10))
            .pollInterval(java.time.Duration.ofMillis(2))
            .until(() -> raw.getChildren(dir, false).size() >= 2);
      }
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      return "the waiter never queued";
    }
    long oldSession = locks.sessionId();

    server.expireSession(oldSession);

    LockHandle h;
    try {
      h = waiting.get(20, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      return "the waiter was not granted within 20 s after the expiry";
    }
    try {
      if (!h.isHeld()) {
        return "granted a handle that is not held (lost: "
            + (h.lost().isDone() ? h.lost().getNow(null).reason() : "not yet")
            + "), node "
            + h.path();
      }
      Stat stat;
      try {
        stat = raw.exists(h.path(), false);
      } catch (KeeperException e) {
        stat = null;
      }
      if (stat == null) {
        return "granted on node " + h.path() + ", which does not exist";
      }
      if (stat.getEphemeralOwner() == oldSession) {
        return "granted on node " + h.path() + " of the expired session";
      }
      if (stat.getEphemeralOwner() != locks.sessionId()) {
        return "granted on node "
            + h.path()
            + " of session 0x"
            + Long.toHexString(stat.getEphemeralOwner())
            + ", not of the new session 0x"
            + Long.toHexString(locks.sessionId());
      }
      if (h.fencingToken() != stat.getCzxid()) {
        return "token " + h.fencingToken() + " is not the node's czxid " + stat.getCzxid();
      }
      if (h.lost().isDone()) {
        return "granted, but lost() is already complete";
      }
      return null;
    } finally {
      h.release();
      held.release();
    }
  }

  /** The two calls a trial makes on a lock or a semaphore. */
  private interface Side {
    LockHandle acquire() throws InterruptedException;

    CompletableFuture<LockHandle> acquireAsync();
  }

  private static Side of(DistributedLock l) {
    return new Side() {
      @Override
      public LockHandle acquire() throws InterruptedException {
        return l.acquire();
      }

      @Override
      public CompletableFuture<LockHandle> acquireAsync() {
        return l.acquireAsync();
      }
    };
  }

  private static Side of(DistributedSemaphore s) {
    return new Side() {
      @Override
      public LockHandle acquire() throws InterruptedException {
        return s.acquire();
      }

      @Override
      public CompletableFuture<LockHandle> acquireAsync() {
        return s.acquireAsync();
      }
    };
  }

  private static Function<ZkLocks, Side> lockOf(String kind, String name, boolean holder) {
    return switch (kind) {
      case "mutex" -> l -> of(l.mutex(name));
      case "simple" -> l -> of(l.simpleLock(name));
      case "read" ->
          holder
              ? l -> of(l.readWriteLock(name).writeLock())
              : l -> of(l.readWriteLock(name).readLock());
      case "write" -> l -> of(l.readWriteLock(name).writeLock());
      case "semaphore" -> l -> of(l.semaphore(name, 1));
      default -> throw new IllegalArgumentException("unknown kind: " + kind);
    };
  }

  private static ZooKeeper connect(String connectString) throws Exception {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk =
        new ZooKeeper(
            connectString,
            10_000,
            e -> {
              if (e.getState() == KeeperState.SyncConnected) {
                connected.countDown();
              }
            });
    if (!connected.await(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("cannot connect to " + connectString);
    }
    return zk;
  }

  static List<String> command(String kind, int trials) {
    List<String> cmd = new ArrayList<>();
    cmd.add(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-cp");
    cmd.add(classPath());
    cmd.add(SameSessionExpiryTrials.class.getName());
    cmd.add(kind);
    cmd.add(Integer.toString(trials));
    return cmd;
  }

  /**
   * The child's class path: zklock-core's tests run on the module path, patched into the module
   * io.zklock, so the child gets this JVM's class path, its module path and these test classes.
   */
  private static String classPath() {
    List<String> parts = new ArrayList<>();
    for (String key : new String[] {"java.class.path", "jdk.module.path"}) {
      String p = System.getProperty(key, "");
      if (!p.isEmpty()) {
        parts.add(p);
      }
    }
    try {
      parts.add(
          java.nio.file.Path.of(
                  SameSessionExpiryTrials.class
                      .getProtectionDomain()
                      .getCodeSource()
                      .getLocation()
                      .toURI())
              .toString());
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
    return String.join(java.io.File.pathSeparator, parts);
  }
}
