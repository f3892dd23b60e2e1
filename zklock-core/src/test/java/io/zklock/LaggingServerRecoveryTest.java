package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.testkit.EmbeddedZooKeeper;
import io.zklock.testkit.FaultProxy;
import io.zklock.testkit.ServerFreePhase;
import io.zklock.testkit.ZooKeeperEnsemble;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 13: after a create's reply is lost, the request reconnects, maybe to another server, and
 * decides from a listing whether its create happened. A server that has not applied the create yet
 * would answer "no node of yours": the request would create a second node and leave the first one
 * ahead of it, alive, for the session's life. The recovery syncs before it lists.
 *
 * <p>The lagging server is made on a three-server ensemble of child processes: the client sends its
 * create to the leader while both followers are paused (SIGSTOP), so the create is proposed but
 * cannot commit; the reply is lost and the only server the client can reach is a paused follower,
 * which, resumed, accepts the session before it has applied the create.
 *
 * <p>The trial tests the recovery only if the session survives it: a leader that gave up its paused
 * followers (syncLimit), or a client that declared its session lost (zklock's deadline), would
 * start a new session, whose request then waits, correctly, behind the old session's node until
 * that session ends. So the leader keeps paused followers for 30 s, the sessions last 60 s (zklock
 * declares one lost at the earliest about 30 s after its last answer), and each trial checks that
 * its session is the one it started with.
 */
@Tag(ServerFreePhase.SERVER_TAG)
class LaggingServerRecoveryTest {
  private static ZooKeeperEnsemble ensemble;

  @BeforeAll
  static void start() throws Exception {
    // a 1 s tick: the leader keeps its followers for syncLimit (30 ticks) while both are paused
    ensemble =
        EmbeddedZooKeeper.ensemble(3)
            .childProcesses()
            .tickTime(Duration.ofSeconds(1))
            .syncLimit(Duration.ofSeconds(30))
            .maxSessionTimeout(SESSION)
            .forceSync(true) // a follower acks a proposal only once it is on disk
            .start();
  }

  @AfterAll
  static void stop() {
    if (ensemble != null) {
      ensemble.close();
    }
  }

  @Test
  void createReplyLost_reconnectedToAServerThatHasNotAppliedTheCreate_adoptsItsNode()
      throws Exception {
    // The follower accepts the session before or after it applied the create, a race (without the
    // sync, one trial in three or so created a second node): several trials.
    for (int trial = 0; trial < TRIALS; trial++) {
      trial("job-" + trial);
    }
  }

  static final int TRIALS = 3;

  static final Duration SESSION = Duration.ofSeconds(60);

  private void trial(String name) throws Exception {
    int leader = ensemble.awaitQuorum(Duration.ofSeconds(60));
    int lagging = (leader + 1) % 3;
    int other = (leader + 2) % 3;
    String dir = "/lagging/" + name;
    List<FaultProxy> proxies = FaultProxy.forEnsemble(ensemble);
    FaultProxy toLeader = proxies.get(leader);
    FaultProxy toLagging = proxies.get(lagging);
    toLagging.refuse(); // the client starts on the leader
    try (ZkLocks holder =
            ZkLocks.builder(ensemble.connectString(leader))
                .namespace("/lagging")
                .sessionTimeout(SESSION)
                .build();
        ZkLocks locks =
            ZkLocks.builder(FaultProxy.connectString(List.of(toLeader, toLagging)))
                .namespace("/lagging")
                .sessionTimeout(SESSION)
                .build();
        ZooKeeper raw = connect(ensemble.connectString(leader))) {
      LockHandle held = holder.mutex(name).acquire(); // keeps the lock's directory
      locks.mutex("warm").acquire().release();
      await("every server has applied what the client saw")
          .atMost(Duration.ofSeconds(20))
          .ignoreExceptions()
          .until(
              () ->
                  ensemble
                          .mntr(lagging)
                          .get("zk_znode_count")
                          .equals(ensemble.mntr(leader).get("zk_znode_count"))
                      && ensemble
                          .mntr(other)
                          .get("zk_znode_count")
                          .equals(ensemble.mntr(leader).get("zk_znode_count")));

      ensemble.pause(lagging);
      ensemble.pause(other);
      try {
        toLeader.muteReplies();
        CompletableFuture<LockHandle> f = locks.mutex(name).acquireAsync();
        long session = locks.sessionId();
        await("the create reaches the leader, which proposes it; no quorum acks")
            .atMost(Duration.ofSeconds(10))
            .ignoreExceptions()
            .until(() -> queuedAt(leader, session) >= 1);
        toLeader.refuse(); // the reply is lost; the leader is out of the client's reach
        toLagging.pass(); // only the paused follower can be reached
        await("the client connects to the paused follower")
            .atMost(Duration.ofSeconds(3))
            .until(() -> toLagging.activeConnections() > 0);
        ensemble.resume(lagging); // it acks, the create commits; it also accepts the session

        await("the create committed")
            .atMost(Duration.ofSeconds(20))
            .ignoreExceptions()
            .until(() -> raw.getChildren(dir, false).size() >= 2);
        ensemble.resume(other);
        held.release();
        LockHandle h;
        try {
          h = f.get(20, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
          assertThat(locks.sessionId())
              .as(
                  "the trial's premise: its session survived (nodes %s, the request's session"
                      + " 0x%s)",
                  owners(raw, dir), Long.toHexString(session))
              .isEqualTo(session);
          throw new AssertionError(
              "not granted within 20 s after the holder released; the lock's nodes: "
                  + owners(raw, dir)
                  + " (a second node of one session waits behind its first: the recovery read"
                  + " a server that had not applied the create)");
        }
        assertThat(locks.sessionId())
            .as("the trial's premise: its session survived")
            .isEqualTo(session);
        assertThat(raw.getChildren(dir, false))
            .as("the one node the lost create made, adopted; no second node")
            .containsExactly(h.path().substring(h.path().lastIndexOf('/') + 1));
        h.release();
      } finally {
        ensemble.resume(lagging);
        ensemble.resume(other);
      }
    } finally {
      proxies.forEach(FaultProxy::close);
    }
  }

  /** Each node of {@code dir} with the session that owns it. */
  private static List<String> owners(ZooKeeper raw, String dir) throws Exception {
    List<String> out = new java.util.ArrayList<>();
    for (String child : raw.getChildren(dir, false)) {
      org.apache.zookeeper.data.Stat st = raw.exists(dir + "/" + child, false);
      out.add(
          child + (st == null ? " (gone)" : " of 0x" + Long.toHexString(st.getEphemeralOwner())));
    }
    return out;
  }

  private static ZooKeeper connect(String connectString) throws Exception {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk =
        new ZooKeeper(
            connectString,
            (int) SESSION.toMillis(),
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

  /** Requests of {@code session} the server {@code i} has received and not answered yet. */
  private static int queuedAt(int i, long session) {
    String cons =
        io.zklock.testkit.FourLetterWords.send(
            "127.0.0.1", ensemble.clientPort(i), "cons", Duration.ofSeconds(2));
    String sid = "sid=0x" + Long.toHexString(session);
    for (String line : cons.split("\n")) {
      if (line.contains(sid + ",") || line.contains(sid + ")")) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("queued=(\\d+)").matcher(line);
        if (m.find()) {
          return Integer.parseInt(m.group(1));
        }
      }
    }
    return 0;
  }
}
