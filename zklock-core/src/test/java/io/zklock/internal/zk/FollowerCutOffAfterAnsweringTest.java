package io.zklock.internal.zk;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.NodeAcl;
import io.zklock.SessionState;
import io.zklock.SuspensionPolicy;
import io.zklock.internal.rules.Clock;
import io.zklock.internal.rules.SessionDeadline;
import io.zklock.testkit.EmbeddedZooKeeper;
import io.zklock.testkit.ServerFreePhase;
import io.zklock.testkit.ZooKeeperEnsemble;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.ClientInfo;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * On a real three-server ensemble: a session connected to a follower, whose follower is cut off
 * from the other servers right after it answered one of the session's heartbeats (it keeps serving
 * its clients until it notices its leader is silent). A forwarded {@code sync} touches nothing at
 * the leader, and the follower's next answer to the leader's ping, which would have named the
 * session, never arrives: the leader expires the session T after the traffic it last heard of,
 * earlier than T after that heartbeat was sent. zklock must have declared the session lost before
 * then. The session's node (what a holder's lock node is) is watched from a client on the leader:
 * its deletion is the ensemble's expiry, the moment the next waiter could be granted.
 */
@Tag(ServerFreePhase.SERVER_TAG)
class FollowerCutOffAfterAnsweringTest {
  private static final int T_MS = 4000; // 16 ticks of 250 ms
  private static ZooKeeperEnsemble ensemble;

  @BeforeAll
  static void start() throws Exception {
    ensemble = EmbeddedZooKeeper.ensemble(3).inProcess().peerLinks().start();
  }

  @AfterAll
  static void stop() {
    if (ensemble != null) {
      ensemble.close();
    }
  }

  /** ZooKeeper's calls, with each answered heartbeat reported to the test before its callback. */
  private static final class Heartbeats implements ZkOps {
    final ZkOps raw;
    final Answered answered;

    interface Answered {
      void heartbeat(long sentNanos);
    }

    Heartbeats(ZkOps raw, Answered answered) {
      this.raw = raw;
      this.answered = answered;
    }

    @Override
    public void sync(String path, AsyncCallback.VoidCallback cb) {
      long sent = System.nanoTime();
      raw.sync(
          path,
          (rc, p, ctx) -> {
            if (Code.get(rc) == Code.OK) {
              answered.heartbeat(sent);
            }
            cb.processResult(rc, p, ctx);
          });
    }

    @Override
    public void create(
        String path,
        byte[] data,
        List<ACL> acl,
        CreateMode mode,
        AsyncCallback.Create2Callback cb) {
      raw.create(path, data, acl, mode, cb);
    }

    @Override
    public void getChildren(String path, Watcher watcher, AsyncCallback.Children2Callback cb) {
      raw.getChildren(path, watcher, cb);
    }

    @Override
    public void getData(String path, Watcher watcher, AsyncCallback.DataCallback cb) {
      raw.getData(path, watcher, cb);
    }

    @Override
    public void exists(String path, Watcher watcher, AsyncCallback.StatCallback cb) {
      raw.exists(path, watcher, cb);
    }

    @Override
    public void delete(String path, int version, AsyncCallback.VoidCallback cb) {
      raw.delete(path, version, cb);
    }

    @Override
    public void getACL(String path, AsyncCallback.ACLCallback cb) {
      raw.getACL(path, cb);
    }

    @Override
    public void setData(String path, byte[] data, int version, AsyncCallback.StatCallback cb) {
      raw.setData(path, data, version, cb);
    }

    @Override
    public void removeWatches(
        String path, Watcher watcher, Watcher.WatcherType type, AsyncCallback.VoidCallback cb) {
      raw.removeWatches(path, watcher, type, cb);
    }

    @Override
    public void removeAllWatches(
        String path, Watcher.WatcherType type, AsyncCallback.VoidCallback cb) {
      raw.removeAllWatches(path, type, cb);
    }

    @Override
    public void multi(List<Op> ops, AsyncCallback.MultiCallback cb) {
      raw.multi(ops, cb);
    }

    @Override
    public boolean connected() {
      return raw.connected();
    }
  }

  /** ZooKeeper's client, its calls seen through {@link Heartbeats}. */
  private static final class Client implements ZkClient {
    final ZkClient live;
    final Heartbeats.Answered answered;

    Client(ZkClient live, Heartbeats.Answered answered) {
      this.live = live;
      this.answered = answered;
    }

    @Override
    public ZkOps ops() {
      return new Heartbeats(live.ops(), answered);
    }

    @Override
    public long sessionId() {
      return live.sessionId();
    }

    @Override
    public int sessionTimeoutMillis() {
      return live.sessionTimeoutMillis();
    }

    @Override
    public long connectBeganNanos() {
      return live.connectBeganNanos();
    }

    @Override
    public String server() {
      return live.server();
    }

    @Override
    public List<ClientInfo> whoAmI() throws InterruptedException {
      return live.whoAmI();
    }

    @Override
    public boolean saslLogin() {
      return live.saslLogin();
    }

    @Override
    public void close() {
      live.close();
    }
  }

  @Test
  void aSessionWhoseFollowerIsCutOffRightAfterAnsweringAHeartbeat_isDeclaredLostBeforeItExpires()
      throws Exception {
    int leader = ensemble.awaitQuorum(Duration.ofSeconds(60));
    int follower = (leader + 1) % 3;
    AtomicBoolean armed = new AtomicBoolean();
    AtomicLong lastSent = new AtomicLong(); // the heartbeat answered right before the cut
    Heartbeats.Answered cutAfter =
        sent -> {
          if (armed.compareAndSet(true, false)) {
            ensemble.isolate(follower); // on ZooKeeper's event thread, as the answer arrives
            lastSent.set(sent);
          }
        };
    ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(2);
    ExecutorService events = Executors.newSingleThreadExecutor();
    ZooKeeper watcher = null;
    boolean rejoined = false;
    Session session =
        new Session(
            new SessionConfig(
                ensemble.connectString(follower), // this follower only: it cannot go elsewhere
                "/zklock",
                Duration.ofMillis(T_MS),
                Duration.ofSeconds(20),
                "follower-cut-off-test",
                List.of(),
                NodeAcl.open(),
                null,
                SuspensionPolicy.WAIT_FOR_EXPIRY,
                false,
                false),
            (config, clock, news) -> {
              // the session knows the client by the one this returns: its news must name it
              CompletableFuture<ZkClient> self = new CompletableFuture<>();
              Client c =
                  new Client(
                      ZkConnector.LIVE.open(config, clock, (z, s) -> news.accept(self.join(), s)),
                      cutAfter);
              self.complete(c);
              return c;
            },
            events,
            scheduler,
            Clock.SYSTEM);
    try {
      session.start();
      Session.Conn conn = session.current();
      assertThat(session.negotiatedTimeout()).isEqualTo(Duration.ofMillis(T_MS));
      // Given a node of the session, watched from a client of the leader
      String node = "/cut-off-" + Long.toHexString(conn.sessionId());
      new BlockingOps(conn.ops())
          .create(node, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
      CountDownLatch up = new CountDownLatch(1);
      watcher =
          new ZooKeeper(
              ensemble.connectString(leader),
              30_000,
              e -> {
                if (e.getState() == KeeperState.SyncConnected) {
                  up.countDown();
                }
              });
      assertThat(up.await(20, TimeUnit.SECONDS)).isTrue();
      AtomicLong deletedAt = new AtomicLong();
      assertThat(
              watcher.exists(
                  node,
                  e -> {
                    if (e.getType() == EventType.NodeDeleted) {
                      deletedAt.set(System.nanoTime());
                    }
                  }))
          .isNotNull();
      AtomicLong lostAt = new AtomicLong();
      session.addListener(
          (state, id) -> {
            if (state == SessionState.LOST && id == conn.sessionId()) {
              lostAt.compareAndSet(0, System.nanoTime());
            }
          });

      // When, after a few heartbeats, the follower is cut off right after it answers the next one
      Thread.sleep(2 * T_MS / 3);
      armed.set(true);

      // Then the ensemble expires the session, and zklock declared it lost before that
      Awaitility.await()
          .atMost(Duration.ofMillis(4 * T_MS))
          .until(() -> deletedAt.get() != 0 && lostAt.get() != 0);
      long t = TimeUnit.MILLISECONDS.toNanos(T_MS);
      long sent = lastSent.get();
      String figures =
          String.format(
              "after the last answered heartbeat was sent: declared lost %d ms, expired %d ms;"
                  + " deadline counted from that heartbeat %d ms",
              (lostAt.get() - sent) / 1_000_000,
              (deletedAt.get() - sent) / 1_000_000,
              (SessionDeadline.dueNanos(sent, t) - sent) / 1_000_000);
      System.out.println("FollowerCutOffAfterAnsweringTest: " + figures);
      assertThat(lostAt.get())
          .as("declared lost before the ensemble expired the session (%s)", figures)
          .isLessThan(deletedAt.get());

      // And once the follower rejoins, it follows again
      ensemble.rejoin(follower);
      rejoined = true;
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .until(() -> "follower".equals(ensemble.mntr(follower).get("zk_server_state")));
    } finally {
      if (!rejoined) {
        ensemble.rejoin(follower);
      }
      session.close();
      if (watcher != null) {
        watcher.close();
      }
      scheduler.shutdownNow();
      events.shutdownNow();
    }
  }
}
