package io.zklock;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zklock.GuardedTransaction.Kind;
import io.zklock.GuardedTransaction.Mode;
import io.zklock.GuardedTransaction.Result;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link LockHandle#transaction()}: ZooKeeper writes that commit, as one {@code multi} behind a
 * check of the grant's own node, only while the grant holds; for every kind of grant.
 */
class GuardedTransactionTest extends ZkTestSupport {

  private String data;

  @BeforeEach
  void dataPath() {
    data = "/data" + namespace;
  }

  private void mkData() throws Exception {
    try {
      raw().create("/data", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    } catch (org.apache.zookeeper.KeeperException.NodeExistsException e) {
      // made by an earlier test
    }
    raw().create(data, "0".getBytes(UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
  }

  /** One way to get a grant of each kind, from a fresh client. */
  interface Grant {
    LockHandle take(ZkLocks locks) throws Exception;
  }

  static Stream<Arguments> grants() {
    return Stream.of(
        Arguments.of("mutex", (Grant) l -> l.mutex("g").acquire()),
        Arguments.of("read side", (Grant) l -> l.readWriteLock("g").readLock().acquire()),
        Arguments.of("write side", (Grant) l -> l.readWriteLock("g").writeLock().acquire()),
        Arguments.of(
            "downgraded read hold",
            (Grant)
                l -> {
                  ReadWriteLock rw = l.readWriteLock("g");
                  LockHandle w = rw.writeLock().acquire();
                  LockHandle r = rw.downgrade(w);
                  w.release();
                  return r;
                }),
        Arguments.of("semaphore lease", (Grant) l -> l.semaphore("g", 2).acquire()),
        Arguments.of("two semaphore leases", (Grant) l -> l.semaphore("g", 3).acquire(2)),
        Arguments.of("simple lock", (Grant) l -> l.simpleLock("g").acquire()),
        Arguments.of("cohort mutex", (Grant) l -> l.mutex("g", LockOptions.cohort()).acquire()),
        Arguments.of(
            "leased mutex", (Grant) l -> l.mutex("g").withLease(Duration.ofSeconds(30)).acquire()),
        Arguments.of("multi-lock", (Grant) l -> l.multiLock(l.mutex("a"), l.mutex("b")).acquire()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("grants")
  void held_commitsEveryOp_returnsResults(String kind, Grant grant) throws Exception {
    mkData();
    ZkLocks locks = client();
    LockHandle h = grant.take(locks);

    List<Result> done =
        h.transaction()
            .setData(data, "1".getBytes(UTF_8))
            .create(data + "/e-", "x".getBytes(UTF_8), Mode.PERSISTENT_SEQUENTIAL)
            .create(data + "/gone", null)
            .delete(data + "/gone")
            .check(data, 1)
            .commit();

    assertThat(done)
        .extracting(Result::kind)
        .containsExactly(Kind.SET_DATA, Kind.CREATE, Kind.CREATE, Kind.DELETE, Kind.CHECK);
    assertThat(done.get(0).stat().version()).isEqualTo(1);
    assertThat(done.get(1).path()).startsWith(data + "/e-").hasSize((data + "/e-").length() + 10);
    assertThat(new String(raw().getData(data, false, null), UTF_8)).isEqualTo("1");
    assertThat(raw().getChildren(data, false))
        .containsExactly(done.get(1).path().substring(data.length() + 1));
    h.release();
    awaitNoLockNodes();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("grants")
  void nodeDeletedBeforeTheHolderHears_serverRefuses_nothingCommitted(String kind, Grant grant)
      throws Exception {
    mkData();
    ZkLocks locks = client();
    LockHandle h = grant.take(locks);
    // an operator deletes the grant's node(s); the commit goes out at once, before the holder's
    // own-node watch can tell it: only the server's check can refuse it
    for (String node : lockNodes()) {
      try {
        raw().delete(node, -1);
      } catch (KeeperException.NoNodeException released) {
        // a semaphore's admission node: released by the library as the leases were granted, and
        // acquire() returns without waiting for that delete (listed, then gone before ours)
      }
    }

    assertThatThrownBy(() -> h.transaction().setData(data, "stale".getBytes(UTF_8)).commit())
        .isInstanceOf(LockLostException.class)
        .satisfies(
            e ->
                assertThat(((LockLostException) e).reason())
                    .isEqualTo(LockLostException.Reason.NODE_DELETED));
    assertThat(new String(raw().getData(data, false, null), UTF_8)).isEqualTo("0");
    h.release();
  }

  @Test
  void error_namesTheFailingOp_nothingCommitted() throws Exception {
    mkData();
    LockHandle h = client().mutex("g").acquire();

    assertThatThrownBy(
            () ->
                h.transaction()
                    .setData(data, "1".getBytes(UTF_8))
                    .delete(data + "/missing")
                    .commit())
        .isExactlyInstanceOf(ZkLockException.class)
        .hasMessageContaining("delete of " + data + "/missing (operation 1)")
        .hasMessageContaining("NONODE");
    assertThat(new String(raw().getData(data, false, null), UTF_8)).isEqualTo("0");
    assertThat(h.isHeld()).isTrue();
    h.release();
  }

  @Test
  void released_refusedWithoutARequest() throws Exception {
    mkData();
    LockHandle h = client().mutex("g").acquire();
    h.release();

    assertThatThrownBy(() -> h.transaction().setData(data, "1".getBytes(UTF_8)).commit())
        .isInstanceOf(IllegalMonitorStateException.class)
        .isNotInstanceOf(LockLostException.class)
        .hasMessageContaining("released");
    assertThat(new String(raw().getData(data, false, null), UTF_8)).isEqualTo("0");
  }

  @Test
  void commitAsync_completesWithResults_andCommitsOnce() throws Exception {
    mkData();
    LockHandle h = client().mutex("g").acquire();
    GuardedTransaction tx = h.transaction().setData(data, "a".getBytes(UTF_8));

    List<Result> done = tx.commitAsync().get(10, TimeUnit.SECONDS);

    assertThat(done).hasSize(1);
    assertThatThrownBy(tx::commitAsync).isInstanceOf(IllegalStateException.class);
    assertThat(h.transaction().commitAsync().get(10, TimeUnit.SECONDS))
        .as("an empty transaction checks the grant only")
        .isEmpty();
    h.release();
  }

  @Test
  void badPath_isRejectedAtOnce() throws Exception {
    LockHandle h = client().mutex("g").acquire();
    assertThatThrownBy(() -> h.transaction().create("no-slash", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no-slash");
    h.release();
  }

  @Test
  void election_leaderWrites_followerCannot() throws Exception {
    mkData();
    LeaderElection a = track(client().leaderElection("e", "a"));
    a.start();
    assertThat(a.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    LeaderElection b = track(client().leaderElection("e", "b"));
    b.start();

    a.transaction().setData(data, "a".getBytes(UTF_8)).commit();
    assertThatThrownBy(b::transaction).isInstanceOf(IllegalStateException.class);
    GuardedTransaction ofTerm = a.transaction().setData(data, "late".getBytes(UTF_8));
    a.requeue(); // the term ends; b leads

    assertThat(b.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    assertThatThrownBy(ofTerm::commit).isInstanceOf(IllegalMonitorStateException.class);
    assertThat(new String(raw().getData(data, false, null), UTF_8)).isEqualTo("a");
  }

  @Test
  void guardedWrite_isOneRequestToTheServer() throws Exception {
    mkData();
    LockHandle h = client().mutex("g").acquire();
    awaitDataWatch(h.path()); // the holder's own-node watch is set: no request of the grant left
    long fewest = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) { // the fewest of three: a client's ping may fall in one
      long before = server.server().serverStats().getPacketsReceived();
      h.transaction()
          .setData(data, ("v" + i).getBytes(UTF_8))
          .create(data + "/c" + i, null)
          .commit();
      fewest = Math.min(fewest, server.server().serverStats().getPacketsReceived() - before);
    }

    assertThat(fewest)
        .as("requests of one guarded write of two ops (check + ops: one multi)")
        .isEqualTo(1);
    h.release();
  }
}
