package io.zklock.internal.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.LockWatch;
import io.zklock.internal.engine.EngineFixture;
import io.zklock.internal.engine.FakeZooKeeper;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.QueueNode;
import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;

/**
 * The lock watch ({@code ZkLocks#watchLocks}) without a server: a {@link FakeZooKeeper} that models
 * persistent recursive watches (3.6+) or answers {@code addWatch} as a 3.5 server does, and a
 * session the test connects, drops and renews. Every case runs on the test's thread, so the order
 * of replies, events and reconnections is the test's to choose.
 */
class LockWatcherFakeTest {
  private final EngineFixture f = new EngineFixture();
  private final FakeZooKeeper zk = f.zk;
  private final List<String> told = new ArrayList<>(); // null: re-read everything

  private LockWatcher watch(String namespace) {
    return new LockWatcher(f.session, namespace, "", told::add, Runnable::run).start();
  }

  private long sent(String op) {
    return zk.sent().stream().filter(s -> s.op().equals(op)).count();
  }

  private void otherLocks(String dir) {
    zk.mkdirs(dir);
    zk.create(
        EngineFixture.OTHER_SESSION,
        dir + "/" + QueueNode.prefix(NodeKind.MUTEX, QueueNode.newAttemptId()),
        new byte[0],
        CreateMode.EPHEMERAL_SEQUENTIAL);
  }

  @Test
  void onA36Server_oneRecursiveWatch_perSession_tellsEachLock() {
    LockWatcher w = watch(EngineFixture.NS);
    f.settle();
    assertThat(w.mode()).isEqualTo(LockWatch.Mode.RECURSIVE);

    otherLocks(EngineFixture.DIR);
    f.settle();
    assertThat(told).contains("orders");

    // the same session again: the client sets its watches again by itself
    f.session.disconnect();
    f.session.reconnect();
    f.settle();
    assertThat(sent("addWatch")).isEqualTo(1);

    // a new session has no watches: set it again
    f.expireAndRenew();
    f.settle();
    assertThat(sent("addWatch")).isEqualTo(2);
    told.clear();
    otherLocks(EngineFixture.NS + "/accounts");
    f.settle();
    assertThat(told).contains("accounts");
    assertThat(w.requests()).isEqualTo(2);
  }

  @Test
  void onA35Server_addWatchIsAskedOnce_thoughTheServerClosesEachConnectionItCameOn() {
    zk.withoutPersistentWatches();
    LockWatcher w = watch(EngineFixture.NS);
    zk.deliverNext(); // addWatch: UNIMPLEMENTED; the fallback's listing is sent
    assertThat(w.mode()).isEqualTo(LockWatch.Mode.PER_DIRECTORY);
    // the server closes the connection: the listing dies with it, and the root is listed again at
    // the reconnection, without addWatch (asked again, it would close that connection too)
    f.session.disconnect();
    f.session.reconnect();
    f.settle();
    f.expireAndRenew();
    f.settle();
    assertThat(sent("addWatch")).isEqualTo(1);

    otherLocks(EngineFixture.NS + "/accounts");
    f.settle();
    assertThat(told).contains("accounts");
    assertThat(w.mode()).isEqualTo(LockWatch.Mode.PER_DIRECTORY);
  }

  @Test
  void aConnectionLostInReplyToAddWatch_fallsBackAtOnce_andIsNotAskedAgain() {
    zk.dropNextRequest(); // a 3.5 server's close can overtake its answer
    LockWatcher w = watch(EngineFixture.NS);
    f.settle();
    assertThat(w.mode()).isEqualTo(LockWatch.Mode.PER_DIRECTORY);
    f.expireAndRenew();
    f.settle();
    assertThat(sent("addWatch")).isEqualTo(1);

    otherLocks(EngineFixture.DIR);
    f.settle();
    assertThat(told).contains("orders");
  }

  @Test
  void onA35Server_aNamespaceMadeBetweenItsListingAndItsExistsWatch_isListed() {
    zk.withoutPersistentWatches();
    watch("/elsewhere");
    zk.deliverNext(); // addWatch: UNIMPLEMENTED; the root's listing is sent
    zk.deliverNext(); // the listing: NONODE; a watched exists of the root is sent
    assertThat(zk.exists("/elsewhere")).isFalse();
    zk.mkdirs("/elsewhere"); // made before that read: no creation event will come
    f.settle();

    otherLocks("/elsewhere/orders");
    f.settle();
    assertThat(told).contains("orders");
  }

  @Test
  void onA35Server_aNamespaceMadeLater_isWatchedFromItsCreation() {
    zk.withoutPersistentWatches();
    watch("/elsewhere");
    f.settle();
    assertThat(told).doesNotContain("orders");

    otherLocks("/elsewhere/orders");
    f.settle();
    assertThat(told).contains("orders");
  }

  @Test
  void close_removesEveryWatchItSet() {
    LockWatcher recursive = watch(EngineFixture.NS);
    f.settle();
    assertThat(zk.watchCount(EngineFixture.NS)).isEqualTo(1);
    recursive.close();
    f.settle();
    assertThat(zk.watchCount(EngineFixture.NS)).isZero();

    zk.withoutPersistentWatches();
    LockWatcher perDirectory = watch(EngineFixture.NS);
    f.settle();
    assertThat(zk.watchCount(EngineFixture.NS)).isEqualTo(1);
    assertThat(zk.watchCount(EngineFixture.DIR)).isEqualTo(1);
    perDirectory.close();
    f.settle();
    assertThat(zk.watchCount(EngineFixture.NS)).isZero();
    assertThat(zk.watchCount(EngineFixture.DIR)).isZero();

    told.clear();
    otherLocks(EngineFixture.DIR);
    f.settle();
    assertThat(told).isEmpty();
  }
}
