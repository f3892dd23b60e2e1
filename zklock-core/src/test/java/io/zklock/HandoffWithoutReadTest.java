package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.testkit.EmbeddedZooKeeper;
import io.zklock.testkit.FaultProxy;
import io.zklock.testkit.ServerFreePhase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.server.ServerCnxn;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A handoff deeper in the queue than behind the head needs no read after the notification: the
 * waiter learns, while its predecessor waits or holds, that the predecessor has become the head (it
 * watches the predecessor's predecessor too, and lists again when that one goes), so the
 * predecessor's deletion is its grant. The waiter under test talks to the server through a proxy
 * that, at the handoff, holds every request the waiter sends: if the grant needed a read, it could
 * not happen until the proxy lets requests through again.
 *
 * <p>Within one session (many requests of one {@code ZkLocks}) the predecessor's release is our own
 * delete of a node that was held, so the head: its deletion is the grant without a listing (counted
 * by the server's getChildren replies).
 */
@Tag(ServerFreePhase.SERVER_TAG)
class HandoffWithoutReadTest {
  private static final AtomicInteger COUNTER = new AtomicInteger();

  /**
   * Long enough that no ping falls inside a test (pings go after a third of the timeout idle), and
   * that the muted waiter's connection does not time out while its requests are held.
   */
  private static final Duration SESSION = Duration.ofSeconds(30);

  /**
   * How long the muted waiter gets for a grant that needs nothing from it but the notification.
   * Shorter than the client's read timeout (two thirds of {@link #SESSION}), so a waiter that sent
   * a read could not be granted within it by reconnecting either (requests are still held then).
   */
  private static final Duration NOTIFICATION_ONLY = Duration.ofSeconds(10);

  private EmbeddedZooKeeper server;
  private FaultProxy proxy;
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private String namespace;

  @BeforeEach
  void start() {
    server =
        EmbeddedZooKeeper.standalone()
            .tickTime(Duration.ofMillis(100))
            .maxSessionTimeout(Duration.ofSeconds(60))
            .start();
    proxy = FaultProxy.start(server.connectString());
    namespace = "/handoff-" + COUNTER.incrementAndGet();
  }

  @AfterEach
  void stop() throws Exception {
    proxy.pass();
    for (AutoCloseable c : closeables) {
      try {
        c.close();
      } catch (Exception e) {
        // closing after a failed test must not hide the failure
      }
    }
    proxy.close();
    server.close();
  }

  private ZkLocks client(String connectString) {
    ZkLocks c =
        ZkLocks.builder(connectString)
            .namespace(namespace)
            .sessionTimeout(SESSION)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    closeables.add(c);
    return c;
  }

  private ZkLocks direct() {
    return client(server.connectString());
  }

  private ZkLocks proxied() {
    return client(proxy.connectString());
  }

  @Test
  void depthThree_predecessorsReleaseIsTheGrant_withoutAnyRequestAfterTheNotification()
      throws Exception {
    ZkLocks a = direct();
    ZkLocks b = direct();
    ZkLocks c = proxied();
    LockHandle ha = a.mutex("m").acquire();
    CompletableFuture<LockHandle> fb = b.mutex("m").acquireAsync();
    awaitNodes(2);
    CompletableFuture<LockHandle> fc = c.mutex("m").acquireAsync();
    awaitNodes(3);
    long sent = awaitWatching(c, 0, 1); // c watches b and looks ahead to a

    ha.release(); // b's grant; c lists again and learns that b is the head
    LockHandle hb = fb.get(10, TimeUnit.SECONDS);
    awaitListed(c, sent);

    proxy.muteRequests();
    hb.release();

    LockHandle hc = fc.get(NOTIFICATION_ONLY.toSeconds(), TimeUnit.SECONDS);
    assertThat(hc.isHeld()).as("c holds, granted by b's deletion alone").isTrue();
    proxy.pass();
    hc.release();
  }

  @Test
  void withdrawnWaitersAheadAndBehindTheLookAhead_stillAHandoffWithoutARead() throws Exception {
    ZkLocks a = direct();
    ZkLocks b = direct();
    ZkLocks x = direct();
    ZkLocks y = direct();
    ZkLocks c = proxied();
    LockHandle ha = a.mutex("m").acquire();
    CompletableFuture<LockHandle> fb = b.mutex("m").acquireAsync();
    awaitNodes(2);
    CompletableFuture<LockHandle> fx = x.mutex("m").acquireAsync();
    awaitNodes(3);
    CompletableFuture<LockHandle> fy = y.mutex("m").acquireAsync();
    awaitNodes(4);
    CompletableFuture<LockHandle> fc = c.mutex("m").acquireAsync();
    awaitNodes(5); // a b x y c: c watches y and looks ahead to x

    awaitWatching(c, 2, 3);

    fx.cancel(true); // the look-ahead withdraws: c lists, looks ahead to b
    awaitNodes(4);
    awaitWatching(c, 1, 2); // a b y c: x's watch fired; b's is set
    fy.cancel(true); // the predecessor withdraws: c lists, watches b, looks ahead to a
    awaitNodes(3);
    long sent = awaitWatching(c, 0, 1);

    ha.release();
    LockHandle hb = fb.get(10, TimeUnit.SECONDS);
    awaitListed(c, sent); // c's look-ahead listing: b is the head

    proxy.muteRequests();
    hb.release();

    LockHandle hc = fc.get(NOTIFICATION_ONLY.toSeconds(), TimeUnit.SECONDS);
    assertThat(hc.isHeld()).isTrue();
    proxy.pass();
    hc.release();
    assertThat(fx).isCancelled();
    assertThat(fy).isCancelled();
  }

  @Test
  void writerAtDepthThree_behindAReaderAndAWriter_handoffWithoutARead() throws Exception {
    ZkLocks a = direct();
    ZkLocks b = direct();
    ZkLocks c = proxied();
    LockHandle ha = a.readWriteLock("rw").writeLock().acquire();
    CompletableFuture<LockHandle> fb = b.readWriteLock("rw").readLock().acquireAsync();
    awaitNodes(2);
    CompletableFuture<LockHandle> fc = c.readWriteLock("rw").writeLock().acquireAsync();
    awaitNodes(3);
    long sent = awaitWatching(c, 0, 1);

    ha.release();
    LockHandle hb = fb.get(10, TimeUnit.SECONDS);
    awaitListed(c, sent);

    proxy.muteRequests();
    hb.release();

    LockHandle hc = fc.get(NOTIFICATION_ONLY.toSeconds(), TimeUnit.SECONDS);
    assertThat(hc.isHeld()).isTrue();
    proxy.pass();
    hc.release();
  }

  @Test
  void oneSession_handoffsOfHeldPredecessors_listNothing() throws Exception {
    int waiters = 8;
    ZkLocks one = direct();
    LockHandle first = one.mutex("m").acquire();
    List<CompletableFuture<LockHandle>> queue = new ArrayList<>();
    for (int i = 0; i < waiters; i++) {
      queue.add(one.mutex("m").acquireAsync());
      awaitNodes(i + 2); // each waiter's listing shows only the nodes ahead of it: stale later
    }
    int[] watched = new int[waiters];
    for (int i = 0; i < waiters; i++) {
      watched[i] = i; // each waiter watches its predecessor; none looks ahead in its own session
    }
    awaitWatching(one, watched);
    long listingsBefore = getChildrenReplies();

    for (CompletableFuture<LockHandle> f : queue) {
      f.thenAccept(LockHandle::releaseAsync);
    }
    first.release();
    for (CompletableFuture<LockHandle> f : queue) {
      f.get(20, TimeUnit.SECONDS);
    }
    long listings = getChildrenReplies() - listingsBefore; // before this test's own listings

    assertThat(listings).as("listings during %d handoffs within one session", waiters).isZero();
    awaitNodes(0);
  }

  // ---------------------------------------------------------------- helpers

  private void awaitNodes(int n) {
    await().atMost(Duration.ofSeconds(20)).until(() -> lockNodes() == n);
  }

  private int lockNodes() throws Exception {
    ZooKeeper zk = rawClient();
    int count = 0;
    for (String lock : new String[] {"m", "rw"}) {
      try {
        count += zk.getChildren(namespace + "/" + lock, false).size();
      } catch (org.apache.zookeeper.KeeperException.NoNodeException e) {
        // not created yet
      }
    }
    return count;
  }

  private ZooKeeper raw;

  private ZooKeeper rawClient() throws Exception {
    if (raw == null) {
      java.util.concurrent.CountDownLatch connected = new java.util.concurrent.CountDownLatch(1);
      raw =
          new ZooKeeper(
              server.connectString(),
              (int) SESSION.toMillis(),
              e -> {
                if (e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                  connected.countDown();
                }
              });
      closeables.add(raw::close);
      connected.await();
    }
    return raw;
  }

  /**
   * Waits until the server holds exactly the data watches of {@code locks}'s session on the lock
   * nodes {@code indexes} (positions in the queue) and has answered all it sent: from then on, that
   * session sends nothing unless a watch fires. Returns the packets it has sent so far.
   */
  private long awaitWatching(ZkLocks locks, int... indexes) throws Exception {
    List<String> queue = queue();
    java.util.Set<String> expected = new java.util.TreeSet<>();
    for (int i : indexes) {
      expected.add(queue.get(i));
    }
    long session = locks.sessionId();
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(10))
        .until(
            () -> {
              ServerCnxn cnxn = connectionOf(session);
              java.util.Set<String> watched = new java.util.TreeSet<>();
              for (String p :
                  server
                      .server()
                      .getZKDatabase()
                      .getDataTree()
                      .getWatches()
                      .toMap()
                      .getOrDefault(session, java.util.Set.of())) {
                if (p.startsWith(namespace + "/")) {
                  watched.add(p);
                }
              }
              return cnxn != null && cnxn.getOutstandingRequests() == 0 && watched.equals(expected);
            });
    return connectionOf(session).getPacketsReceived();
  }

  /**
   * Waits until {@code locks}'s session, which had sent {@code before} packets, has had a listing
   * answered and nothing else outstanding.
   */
  private void awaitListed(ZkLocks locks, long before) {
    long session = locks.sessionId();
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(10))
        .until(
            () -> {
              ServerCnxn cnxn = connectionOf(session);
              return cnxn != null
                  && cnxn.getPacketsReceived() > before
                  && cnxn.getOutstandingRequests() == 0
                  && "GETC".equals(cnxn.getLastOperation());
            });
  }

  /** The lock nodes' paths in queue order. */
  private List<String> queue() throws Exception {
    List<String> names = new ArrayList<>();
    for (String lock : new String[] {"m", "rw"}) {
      try {
        for (String child : rawClient().getChildren(namespace + "/" + lock, false)) {
          names.add(namespace + "/" + lock + "/" + child);
        }
      } catch (org.apache.zookeeper.KeeperException.NoNodeException e) {
        // not created yet
      }
    }
    names.sort(java.util.Comparator.comparing(p -> p.substring(p.lastIndexOf('-') + 1)));
    return names;
  }

  private ServerCnxn connectionOf(long session) {
    for (ServerCnxn c : server.server().getServerCnxnFactory().getConnections()) {
      if (c.getSessionId() == session) {
        return c;
      }
    }
    return null;
  }

  /** The server's count of getChildren replies (hits and misses of its response cache). */
  private long getChildrenReplies() {
    Map<String, String> m = server.mntr();
    return Long.parseLong(m.getOrDefault("zk_response_packet_get_children_cache_hits", "0"))
        + Long.parseLong(m.getOrDefault("zk_response_packet_get_children_cache_misses", "0"));
  }
}
