package io.zklock.internal.recipe;

import static io.zklock.internal.engine.EngineFixture.DIR;
import static io.zklock.internal.engine.EngineFixture.NS;
import static io.zklock.internal.engine.EngineFixture.OTHER_SESSION;
import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.ZkLockException;
import io.zklock.internal.engine.EngineFixture;
import io.zklock.internal.engine.ErrorLog;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.QueueNode;
import io.zklock.internal.zk.Lifecycle;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The election's read of who leads ({@code LeaderElection.leader()}), without a server: through the
 * session's seam on the engine's {@code FakeZooKeeper}.
 */
class ElectionFakeTest {
  private final EngineFixture f = new EngineFixture();
  @RegisterExtension final ErrorLog log = new ErrorLog();
  private final Election election =
      new Election(
          new RecipeContext(f.ctx, null, new Lifecycle(null, null), NS, null), "orders", "me");

  /** Another participant joins the queue; returns its node's path. */
  private String joins(String participant) {
    return f.zk.create(
        OTHER_SESSION,
        DIR + "/" + QueueNode.prefix(NodeKind.ELECTION, QueueNode.newAttemptId()),
        ("{\"kind\":\"election\",\"participant\":\"" + participant + "\"}")
            .getBytes(StandardCharsets.UTF_8),
        CreateMode.EPHEMERAL_SEQUENTIAL);
  }

  @Test
  void nobodyJoined_nobodyLeads() {
    CompletableFuture<Optional<String>> read = election.readLeader();
    f.settle();
    assertThat(read).isCompletedWithValue(Optional.empty());
  }

  @Test
  void theHeadOfTheQueueLeads() {
    joins("first");
    joins("second");
    f.otherQueues(NodeKind.MUTEX); // not a participant: not counted

    CompletableFuture<Optional<String>> read = election.readLeader();
    f.settle();

    assertThat(read).isCompletedWithValue(Optional.of("first"));
  }

  @Test
  void codeThrows_readingTheHead_theReadFails_insteadOfNeverAnswering() {
    // Given a leader, and zklock's code dying on the listing's reply as it reads the head (a call
    // made on ZooKeeper's event thread, which would drop the throwable)
    joins("first");
    CompletableFuture<Optional<String>> read = election.readLeader();
    StackOverflowError error = new StackOverflowError("deep");
    f.zk.throwOnNextCall("getData", error);

    List<Throwable> escaped = f.zk.deliverAllCatching();

    // Then leader() hears it, logged once at ERROR
    assertThat(escaped).as("nothing escapes to ZooKeeper's event thread").isEmpty();
    assertThat(read).isCompletedExceptionally();
    assertThat(read.handle((v, e) -> e).join()).isInstanceOf(ZkLockException.class).hasCause(error);
    log.assertLoggedOnceEach(error);
  }

  @Test
  void headGoneBetweenTheTwoReads_readAgain() {
    String first = joins("first");
    joins("second");
    CompletableFuture<Optional<String>> read = election.readLeader();
    f.zk.deliverNext(); // the listing: the head's data is asked for next

    f.zk.delete(first);
    f.settle();

    assertThat(read).isCompletedWithValue(Optional.of("second"));
  }

  @Test
  void notConnected_failsAtOnce() {
    f.session.disconnect();

    CompletableFuture<Optional<String>> read = election.readLeader();

    assertThat(read).isCompletedExceptionally();
    assertThat(read.handle((v, e) -> e).join())
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("not connected");
  }

  @Test
  void refusedByZooKeeper_failsWithTheCode() {
    joins("first");
    f.zk.failNextRequest(Code.NOAUTH);

    CompletableFuture<Optional<String>> read = election.readLeader();
    f.settle();

    assertThat(read.handle((v, e) -> e).join())
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("NOAUTH");
  }

  @Test
  void compatibleElection_aSelectorsNodeBesideTheLatch_namesNoLeader_reportsTheMix() {
    // Given a LeaderLatch-layout participant at the head, and a LeaderSelector's mutex node
    Election compatible =
        new Election(
            new RecipeContext(f.ctx, null, new Lifecycle(null, null), NS, null),
            "orders",
            "me",
            NodeKind.CURATOR_LATCH);
    f.zk.create(
        OTHER_SESSION,
        DIR
            + "/"
            + QueueNode.prefix(NodeKind.CURATOR_LATCH, java.util.UUID.randomUUID().toString()),
        "first".getBytes(StandardCharsets.UTF_8),
        CreateMode.EPHEMERAL_SEQUENTIAL);
    String selector =
        f.zk.create(
            OTHER_SESSION,
            DIR
                + "/"
                + QueueNode.prefix(NodeKind.CURATOR_MUTEX, java.util.UUID.randomUUID().toString()),
            "selector".getBytes(StandardCharsets.UTF_8),
            CreateMode.EPHEMERAL_SEQUENTIAL);

    // When the leader is read
    CompletableFuture<Optional<String>> read = compatible.readLeader();
    f.settle();

    // Then no leader is named: the selector may lead as well
    assertThat(read.handle((v, e) -> e).join())
        .as("fails, rather than name \"first\" while the selector may lead too")
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining(selector.substring(DIR.length() + 1))
        .hasMessageContaining("LeaderSelector");
  }
}
