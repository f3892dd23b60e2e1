package io.zklock.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.internal.zk.ZkOps;
import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.WatcherType;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/** The engine tests' fake ZooKeeper behaves as the server does, in the parts the engine uses. */
class FakeZooKeeperTest {
  private static final long S1 = 0x11, S2 = 0x22;
  private final FakeZooKeeper zk = new FakeZooKeeper();
  private final ZkOps ops = zk.opsOf(S1);
  private final List<String> log = new ArrayList<>();

  FakeZooKeeperTest() {
    zk.mkdirs("/ns/dir");
  }

  private void create(String path, CreateMode mode) {
    ops.create(
        path,
        new byte[] {1},
        Ids.OPEN_ACL_UNSAFE,
        mode,
        (rc, p, c, name, stat) ->
            log.add("create " + Code.get(rc) + " " + name + (stat == null ? "" : " czxid")));
  }

  @Test
  void sequentialCreate_appendsTenDigitsOfTheParentsChildVersion() {
    create("/ns/dir/m-a-", CreateMode.EPHEMERAL_SEQUENTIAL);
    create("/ns/dir/m-b-", CreateMode.EPHEMERAL_SEQUENTIAL);
    assertThat(zk.children("/ns/dir")).as("nothing applied before delivery").isEmpty();
    zk.deliverAll();
    assertThat(log)
        .containsExactly(
            "create OK /ns/dir/m-a-0000000000 czxid", "create OK /ns/dir/m-b-0000000001 czxid");
    zk.delete("/ns/dir/m-a-0000000000");
    create("/ns/dir/m-c-", CreateMode.EPHEMERAL_SEQUENTIAL);
    zk.deliverAll();
    assertThat(zk.children("/ns/dir"))
        .as("a delete bumps the child version too")
        .containsExactly("m-b-0000000001", "m-c-0000000003");
  }

  @Test
  void setData_appliesAtTheGivenVersion_refusesAnother_andFiresTheDataWatch() {
    create("/ns/dir/a", CreateMode.PERSISTENT);
    zk.deliverAll();
    ops.getData("/ns/dir/a", e -> log.add("event " + e.getType()), (rc, p, c, d, st) -> {});
    zk.deliverAll();

    ops.setData("/ns/dir/a", new byte[] {2}, 1, (rc, p, c, st) -> log.add("set " + Code.get(rc)));
    ops.setData(
        "/ns/dir/a",
        new byte[] {3},
        0,
        (rc, p, c, st) -> log.add("set " + Code.get(rc) + " version " + st.getVersion()));
    ops.setData(
        "/ns/dir/gone", new byte[] {4}, -1, (rc, p, c, st) -> log.add("set " + Code.get(rc)));
    zk.deliverAll();

    assertThat(log)
        .containsExactly(
            "create OK /ns/dir/a czxid",
            "set BADVERSION",
            "event NodeDataChanged",
            "set OK version 1",
            "set NONODE");
    assertThat(zk.data("/ns/dir/a")).containsExactly(3);
  }

  @Test
  void stat_carriesCzxidVersionAndEphemeralOwner() {
    create("/ns/dir/a", CreateMode.EPHEMERAL);
    create("/ns/dir/b", CreateMode.PERSISTENT);
    zk.deliverAll();
    Stat a = zk.stat("/ns/dir/a");
    Stat b = zk.stat("/ns/dir/b");
    assertThat(a.getEphemeralOwner()).isEqualTo(S1);
    assertThat(b.getEphemeralOwner()).isZero();
    assertThat(b.getCzxid()).isGreaterThan(a.getCzxid());
    zk.setData("/ns/dir/a", new byte[] {2});
    assertThat(zk.stat("/ns/dir/a").getVersion()).isEqualTo(1);
  }

  @Test
  void create_errors() {
    create("/ns/dir/a", CreateMode.EPHEMERAL);
    create("/ns/dir/a", CreateMode.EPHEMERAL);
    create("/ns/dir/a/b", CreateMode.EPHEMERAL);
    create("/ns/none/b", CreateMode.EPHEMERAL);
    zk.deliverAll();
    assertThat(log)
        .containsExactly(
            "create OK /ns/dir/a czxid",
            "create NODEEXISTS null",
            "create NOCHILDRENFOREPHEMERALS null",
            "create NONODE null");
  }

  @Test
  void dataWatch_isOneShot_andFiresBeforeTheReplyOfTheChangingRequest() {
    create("/ns/dir/a", CreateMode.EPHEMERAL);
    zk.deliverAll();
    ops.getData(
        "/ns/dir/a",
        e -> log.add("event " + e.getType() + " " + e.getPath()),
        (rc, p, c, data, stat) -> log.add("getData " + Code.get(rc)));
    ops.delete("/ns/dir/a", (rc, p, c) -> log.add("delete " + Code.get(rc)));
    zk.deliverAll();
    assertThat(log)
        .containsExactly(
            "create OK /ns/dir/a czxid", "getData OK", "event NodeDeleted /ns/dir/a", "delete OK");
    assertThat(zk.watchCount()).isZero();
  }

  @Test
  void existsWatch_onAMissingNode_firesNodeCreated() {
    List<EventType> events = new ArrayList<>();
    ops.exists(
        "/ns/dir/x", e -> events.add(e.getType()), (rc, p, c, s) -> log.add("" + Code.get(rc)));
    zk.deliverAll();
    zk.create(S2, "/ns/dir/x", CreateMode.EPHEMERAL);
    zk.deliverAll();
    assertThat(log).containsExactly("NONODE");
    assertThat(events).containsExactly(EventType.NodeCreated);
  }

  @Test
  void childWatch_firesOnAChildCreatedOrDeleted() {
    List<EventType> events = new ArrayList<>();
    ops.getChildren("/ns/dir", e -> events.add(e.getType()), (rc, p, c, kids, s) -> {});
    zk.deliverAll();
    zk.create(S2, "/ns/dir/x", CreateMode.EPHEMERAL);
    zk.create(S2, "/ns/dir/y", CreateMode.EPHEMERAL);
    zk.deliverAll();
    assertThat(events).as("one-shot").containsExactly(EventType.NodeChildrenChanged);
  }

  @Test
  void watchEvent_precedesAnyReplyThatReflectsTheChange() {
    zk.create(S2, "/ns/dir/x", CreateMode.EPHEMERAL);
    ops.getData("/ns/dir/x", e -> log.add("event " + e.getType()), (rc, p, c, d, s) -> {});
    zk.deliverAll();
    ops.getChildren("/ns/dir", null, (rc, p, c, kids, s) -> log.add("children " + kids));
    zk.delete("/ns/dir/x"); // another client, before our listing is applied
    zk.deliverAll();
    assertThat(log).containsExactly("event NodeDeleted", "children []");
  }

  @Test
  void removeWatches_removesOnlyThatWatcher_andTellsIt() {
    zk.create(S2, "/ns/dir/x", CreateMode.EPHEMERAL);
    org.apache.zookeeper.Watcher w1 = e -> log.add("w1 " + e.getType());
    org.apache.zookeeper.Watcher w2 = e -> log.add("w2 " + e.getType());
    ops.getData("/ns/dir/x", w1, (rc, p, c, d, s) -> {});
    ops.exists("/ns/dir/x", w2, (rc, p, c, s) -> {});
    ops.removeWatches(
        "/ns/dir/x", w1, WatcherType.Data, (rc, p, c) -> log.add("rm " + Code.get(rc)));
    ops.removeWatches(
        "/ns/dir/x", w1, WatcherType.Data, (rc, p, c) -> log.add("rm " + Code.get(rc)));
    zk.deliverAll();
    assertThat(log).containsExactly("w1 DataWatchRemoved", "rm OK", "rm NOWATCHER");
    log.clear();
    zk.opsOf(S2).getData("/ns/dir/x", e -> log.add("other " + e.getType()), (rc, p, c, d, s) -> {});
    ops.removeAllWatches(
        "/ns/dir/x", WatcherType.Data, (rc, p, c) -> log.add("rmAll " + Code.get(rc)));
    zk.deliverAll();
    assertThat(log).containsExactly("w2 DataWatchRemoved", "rmAll OK");
    assertThat(zk.watchCount("/ns/dir/x")).as("the other session's watch stays").isEqualTo(1);
  }

  @Test
  void loseNextReply_appliesTheRequest_butAnswersConnectionLoss() {
    zk.loseNextReply();
    create("/ns/dir/a", CreateMode.EPHEMERAL);
    zk.deliverAll();
    assertThat(log).containsExactly("create CONNECTIONLOSS null");
    assertThat(zk.exists("/ns/dir/a")).isTrue();
  }

  @Test
  void loseNextReply_ofAWatchingRead_leavesNoWatch() {
    zk.create(S2, "/ns/dir/x", CreateMode.EPHEMERAL);
    zk.loseNextReply();
    ops.exists("/ns/dir/x", e -> log.add("event"), (rc, p, c, s) -> log.add("" + Code.get(rc)));
    zk.deliverAll();
    assertThat(log).containsExactly("CONNECTIONLOSS");
    assertThat(zk.watchCount()).isZero();
  }

  @Test
  void disconnect_afterARequestWasApplied_losesItsReply_notItsEffect() {
    zk.create(S2, "/ns/dir/y", CreateMode.EPHEMERAL);
    ops.getData("/ns/dir/y", e -> log.add("y " + e.getType()), (rc, p, c, d, s) -> {});
    zk.deliverAll();
    ops.delete("/ns/dir/y", (rc, p, c) -> log.add("delete " + Code.get(rc)));
    zk.deliverNext(); // applied: the watch event comes first, the reply waits behind it
    assertThat(log).containsExactly("y NodeDeleted");

    zk.disconnect(S1);
    zk.deliverAll();

    assertThat(log).containsExactly("y NodeDeleted", "delete CONNECTIONLOSS");
    assertThat(zk.exists("/ns/dir/y")).isFalse();
  }

  @Test
  void dropNextRequest_answersConnectionLoss_withoutApplying() {
    zk.dropNextRequest();
    create("/ns/dir/a", CreateMode.EPHEMERAL);
    zk.deliverAll();
    assertThat(log).containsExactly("create CONNECTIONLOSS null");
    assertThat(zk.exists("/ns/dir/a")).isFalse();
  }

  @Test
  void disconnect_failsWhatIsInFlight_andWhatIsSentUntilReconnected() {
    create("/ns/dir/a", CreateMode.EPHEMERAL);
    zk.disconnect(S1);
    create("/ns/dir/b", CreateMode.EPHEMERAL);
    zk.deliverAll();
    zk.reconnect(S1);
    create("/ns/dir/c", CreateMode.EPHEMERAL);
    zk.deliverAll();
    assertThat(log)
        .containsExactly(
            "create CONNECTIONLOSS null",
            "create CONNECTIONLOSS null",
            "create OK /ns/dir/c czxid");
    assertThat(zk.children("/ns/dir")).containsExactly("c");
  }

  @Test
  void expire_deletesTheSessionsEphemerals_firesWatches_andAnswersSessionExpired() {
    create("/ns/dir/a", CreateMode.EPHEMERAL);
    zk.create(S2, "/ns/dir/b", CreateMode.EPHEMERAL);
    zk.deliverAll();
    ops.getData("/ns/dir/a", e -> log.add("own " + e.getType()), (rc, p, c, d, s) -> {});
    zk.opsOf(S2).getData("/ns/dir/a", e -> log.add("other " + e.getType()), (rc, p, c, d, s) -> {});
    zk.deliverAll();
    log.clear();
    zk.expire(S1);
    create("/ns/dir/z", CreateMode.EPHEMERAL);
    zk.deliverAll();
    assertThat(zk.children("/ns/dir")).containsExactly("b");
    assertThat(log)
        .containsExactly("own NodeDeleted", "other NodeDeleted", "create SESSIONEXPIRED null");
  }

  @Test
  void sentRequests_areCounted() {
    create("/ns/dir/a", CreateMode.EPHEMERAL);
    ops.sync("/ns/dir", (rc, p, c) -> {});
    assertThat(zk.sent()).extracting(FakeZooKeeper.Sent::op).containsExactly("create", "sync");
  }

  @Test
  void multi_appliesAllWithOneZxid_firesInOpOrder_orNothingOnAFailure() {
    create("/ns/dir/m-a", CreateMode.EPHEMERAL);
    zk.deliverAll();
    ops.getData("/ns/dir", e -> log.add("dir " + e.getType()), (rc, p, c, d, st) -> {});
    ops.getData("/ns/dir/m-a", e -> log.add("node " + e.getType()), (rc, p, c, d, st) -> {});
    zk.deliverAll();
    log.clear();

    // a failing op: nothing applied, the failed op's code first
    ops.multi(
        List.of(Op.setData("/ns/dir", new byte[] {7}, -1), Op.delete("/ns/dir/missing", -1)),
        (rc, p, c, results) ->
            log.add(
                "multi " + Code.get(rc) + " " + ((OpResult.ErrorResult) results.get(1)).getErr()));
    zk.deliverAll();
    assertThat(log).containsExactly("multi NONODE " + Code.NONODE.intValue());
    assertThat(zk.data("/ns/dir")).as("all or none").isEmpty();
    log.clear();

    ops.multi(
        List.of(Op.setData("/ns/dir", new byte[] {7}, -1), Op.delete("/ns/dir/m-a", -1)),
        (rc, p, c, results) -> log.add("multi " + Code.get(rc)));
    zk.deliverAll();
    assertThat(log)
        .as("one transaction's events in op order, before its reply")
        .containsExactly("dir NodeDataChanged", "node NodeDeleted", "multi OK");
    Stat dir = zk.stat("/ns/dir");
    assertThat(dir.getMzxid())
        .as("one zxid: the data change is the last child change")
        .isEqualTo(dir.getPzxid());
    assertThat(dir.getNumChildren()).isZero();
  }
}
