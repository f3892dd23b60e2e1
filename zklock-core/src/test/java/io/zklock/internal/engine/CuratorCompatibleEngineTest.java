package io.zklock.internal.engine;

import static io.zklock.internal.engine.EngineFixture.DIR;
import static io.zklock.internal.engine.EngineFixture.OTHER_SESSION;
import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.internal.engine.EngineFixture.Started;
import io.zklock.internal.engine.LockRequest.State;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.Ordering;
import java.util.List;
import java.util.UUID;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;

/**
 * The engine with Curator's node names ({@link NodeKind#CURATOR_MUTEX}, issue 28), on the fake
 * ZooKeeper: a create whose reply is lost is recovered by the uuid in the name, as with zklock's
 * own names; a waiter behind a Curator client's node is granted by that node's deletion alone.
 */
class CuratorCompatibleEngineTest {
  private static final String CURATOR_NAME =
      "_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-lock-\\d{10}";

  private final EngineFixture f = new EngineFixture();
  private final FakeZooKeeper zk = f.zk;

  private Started acquire(boolean tryOnly) {
    return f.queue(
        NodeKind.CURATOR_MUTEX, Ordering.forKind(NodeKind.CURATOR_MUTEX), tryOnly, 0, false);
  }

  /** A Curator client queues its protected node, as InterProcessMutex names it. */
  private String curatorQueues() {
    return zk.create(
        OTHER_SESSION,
        DIR + "/_c_" + UUID.randomUUID() + "-lock-",
        CreateMode.EPHEMERAL_SEQUENTIAL);
  }

  private List<String> creates() {
    return zk.sent().stream().filter(s -> s.op().startsWith("create")).map(s -> s.path()).toList();
  }

  @Test
  void createReplyLost_createHappened_recoversByTheUuid_andAdoptsTheNode() {
    zk.loseNextReply();
    Started r = acquire(false);
    zk.deliverNext(); // the create is applied, its reply lost
    assertThat(r.state()).isEqualTo(State.RECOVERING);

    f.settle();

    assertThat(r.state()).isEqualTo(State.HELD);
    assertThat(f.nodes()).as("exactly one node: adopted, not made again").hasSize(1);
    assertThat(f.nodes().get(0)).matches(CURATOR_NAME);
    assertThat(creates()).hasSize(1);
  }

  @Test
  void cancelWhileCreating_createReplyLost_theNodeIsFoundByItsUuidAndDeleted() {
    String curator = curatorQueues();
    zk.loseNextReply();
    Started r = acquire(false);
    r.future().cancel(true);

    f.settle();

    assertThat(f.nodes())
        .as("only the Curator client's node is left")
        .containsExactly(curator.substring(DIR.length() + 1));
  }

  @Test
  void behindACuratorNode_grantedOnItsDeletion_afterOneListing() {
    String curator = curatorQueues();
    Started r = acquire(false);
    f.settle();
    assertThat(r.state()).isEqualTo(State.WAITING);

    zk.clearSent();
    zk.delete(curator);
    f.settle();

    assertThat(r.state()).isEqualTo(State.HELD);
    assertThat(zk.sent())
        .as("one listing before the grant: another library's client may have joined meanwhile")
        .extracting(FakeZooKeeper.Sent::op)
        .containsExactly("getChildren");
    assertThat(zk.watchCount()).as("no watch left behind").isZero();
  }

  @Test
  void tryAcquire_behindACuratorNode_isBusy_andLeavesNoNode() {
    String curator = curatorQueues();
    Started r = acquire(true);

    f.settle();

    assertThat(r.future()).isCompletedWithValue(null);
    assertThat(f.nodes()).containsExactly(curator.substring(DIR.length() + 1));
  }

  /** Curator's LeaderLatch queues its node, {@code _c_<uuid>-latch-<sequence>}. */
  private String latchQueues() {
    return zk.create(
        OTHER_SESSION,
        DIR + "/_c_" + UUID.randomUUID() + "-latch-",
        CreateMode.EPHEMERAL_SEQUENTIAL);
  }

  @Test
  void aLeaderLatchsNodeInTheDirectory_theRequestIsRefused_namingIt_andLeavesNoNode() {
    String latch = latchQueues();
    Started r = acquire(false);
    zk.clearSent();

    f.settle();

    assertThat(r.future())
        .as("refused, not queued beside a recipe Curator orders apart")
        .isCompletedExceptionally();
    assertThat(failure(r))
        .isInstanceOf(io.zklock.ZkLockException.class)
        .hasMessageContaining(DIR)
        .hasMessageContaining(latch.substring(DIR.length() + 1))
        .hasMessageContaining("LeaderLatch")
        .hasMessageContaining("migrating-from-curator.md");
    assertThat(((io.zklock.ZkLockException) failure(r)).path()).isEqualTo(DIR);
    assertThat(f.nodes()).as("our node deleted").containsExactly(latch.substring(DIR.length() + 1));
    assertThat(zk.sent().stream().filter(s -> s.op().startsWith("get")).count())
        .as("no read beyond the listing the create already sent")
        .isZero();
    assertThat(zk.watchCount()).as("no watch left behind").isZero();
  }

  @Test
  void aLeaderSelectorsNodeInAnElectionsDirectory_theParticipantIsRefused_andLeavesNoNode() {
    String selector = curatorQueues(); // a LeaderSelector is an InterProcessMutex
    Started r =
        f.queue(NodeKind.CURATOR_LATCH, Ordering.forKind(NodeKind.CURATOR_LATCH), false, 0, false);

    f.settle();

    assertThat(failure(r))
        .isInstanceOf(io.zklock.ZkLockException.class)
        .hasMessageContaining(selector.substring(DIR.length() + 1))
        .hasMessageContaining("LeaderSelector");
    assertThat(f.nodes()).containsExactly(selector.substring(DIR.length() + 1));
  }

  /** What the request's future failed with (it must have failed). */
  private static Throwable failure(Started r) {
    assertThat(r.future()).as("failed").isCompletedExceptionally();
    try {
      r.future().getNow(null);
      throw new AssertionError("not failed");
    } catch (java.util.concurrent.CompletionException e) {
      return e.getCause();
    }
  }
}
