package io.zklock.internal.recipe;

import static io.zklock.internal.engine.EngineFixture.DIR;
import static io.zklock.internal.engine.EngineFixture.NS;
import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.LockOptions;
import io.zklock.internal.engine.EngineFixture;
import io.zklock.internal.recipe.CohortLock.Phase;
import io.zklock.internal.rules.CohortToken;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.Waiting;
import io.zklock.internal.zk.Lifecycle;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The cohort lock without a server: on the engine's {@code FakeZooKeeper} and fake session, with a
 * manual clock, so that each step of its node's life ({@link Phase}) is seen as it happens: the
 * early listing, the grant, what a listing shows behind the node, the K and T bounds, a loss and a
 * withdrawal.
 */
class CohortLockFakeTest {
  private final EngineFixture f = new EngineFixture();

  private CohortLock cohort(LockOptions options) {
    return cohort(options, NodeKind.COHORT);
  }

  private CohortLock cohort(LockOptions options, NodeKind kind) {
    RecipeContext rc = new RecipeContext(f.ctx, null, new Lifecycle(null, null), NS, null);
    return new CohortLock(rc, "orders", options, kind, l -> null);
  }

  private static LockOptions bounds(int k, Duration t) {
    return LockOptions.cohort().maxLocalHandoffs(k).maxLocalHold(t);
  }

  private static LockHandle granted(CompletableFuture<LockHandle> f) {
    assertThat(f).as("granted").isCompleted();
    LockHandle h = f.join();
    assertThat(h).as("granted with a handle").isNotNull();
    return h;
  }

  private List<String> cohortNodes() {
    return f.nodes().stream().filter(n -> n.startsWith(NodeKind.COHORT.prefix() + "-")).toList();
  }

  @Test
  void alone_earlyListingAnswersWithTheGrant_nobodyBehind() {
    CohortLock lock = cohort(LockOptions.cohort());

    CompletableFuture<LockHandle> first = lock.start(Waiting.FOREVER);
    assertThat(lock.phase()).isEqualTo(Phase.QUEUED_LISTING);
    f.settle();

    LockHandle h = granted(first);
    assertThat(lock.phase())
        .as("the early listing showed nobody behind")
        .isEqualTo(Phase.HELD_CLEAR);
    assertThat(lock.remoteWaiting()).isFalse();
    assertThat(f.nodes()).hasSize(1);
    assertThat(f.zk.sent().stream().filter(s -> s.op().equals("getChildren")).count())
        .as("the request's own listing and the early one: none after the grant")
        .isEqualTo(2);

    h.releaseAsync();
    f.settle();
    assertThat(lock.phase()).isEqualTo(Phase.IDLE);
    assertThat(f.nodes()).as("the node is gone with the last release").isEmpty();
  }

  @Test
  void releasedInTheGrantsOwnCallback_nodeGivenBack_theNextRequestQueuesAgain() {
    String ahead = f.otherQueues(NodeKind.COHORT);
    CohortLock lock = cohort(LockOptions.cohort());
    CompletableFuture<LockHandle> first = lock.start(Waiting.FOREVER);
    first.thenAccept(LockHandle::releaseAsync); // on the direct executor: inside the grant
    f.settle();
    assertThat(lock.phase()).isEqualTo(Phase.QUEUED_LISTED);
    f.zk.delete(ahead); // the grant, with the early listing's answer at hand
    f.settle();
    assertThat(lock.phase()).isEqualTo(Phase.IDLE);
    assertThat(f.nodes()).isEmpty();

    CompletableFuture<LockHandle> second = lock.start(Waiting.FOREVER);
    f.settle();

    granted(second);
    assertThat(lock.phase()).isEqualTo(Phase.HELD_CLEAR);
  }

  @Test
  void localWaiters_handedOverInMemory_withConsecutiveTokens() {
    CohortLock lock = cohort(LockOptions.cohort());
    CompletableFuture<LockHandle> first = lock.start(Waiting.FOREVER);
    CompletableFuture<LockHandle> second = lock.start(Waiting.FOREVER);
    f.settle();
    LockHandle h1 = granted(first);
    assertThat(second).isNotDone();
    assertThat(lock.localWaiters()).isEqualTo(1);
    f.zk.clearSent();

    h1.releaseAsync();

    LockHandle h2 = granted(second);
    assertThat(f.zk.sent()).as("a handoff in memory sends nothing").isEmpty();
    assertThat(h2.path()).isEqualTo(h1.path());
    assertThat(h2.fencingToken()).isEqualTo(h1.fencingToken() + 1);
    assertThat(CohortToken.encode(f.zk.stat(h1.path()).getCzxid(), 0)).isEqualTo(h1.fencingToken());
    assertThat(h1.isHeld()).isFalse();
    assertThat(h2.isHeld()).isTrue();
  }

  @Test
  void tryAcquire_whileHeldHere_busyWithoutAskingZooKeeper() {
    CohortLock lock = cohort(LockOptions.cohort());
    CompletableFuture<LockHandle> first = lock.start(Waiting.FOREVER);
    f.settle();
    granted(first);
    f.zk.clearSent();

    CompletableFuture<LockHandle> tried = lock.start(Waiting.NOW);

    assertThat(tried).isCompletedWithValue(null);
    assertThat(f.zk.sent()).isEmpty();
  }

  @Test
  void tryAcquire_free_takesTheNodeWithoutAnEarlyListing_thenLists() {
    CohortLock lock = cohort(LockOptions.cohort());

    CompletableFuture<LockHandle> tried = lock.start(Waiting.NOW);
    assertThat(lock.phase()).isEqualTo(Phase.TRYING);
    f.settle();

    granted(tried);
    assertThat(lock.phase()).as("listed after the grant").isEqualTo(Phase.HELD_CLEAR);
  }

  @Test
  void tryAcquiresNodeRequest_failsOnAConnectionLoss_aWaiterThatJoinedItQueuesOnItsOwn() {
    // a blocking acquire() joined the node request of a tryAcquire(), which fails at once when the
    // connection drops ("cannot tell whether it is free"); the acquire must not fail with it
    CohortLock lock = cohort(LockOptions.cohort());
    CompletableFuture<LockHandle> tried = lock.start(Waiting.NOW);
    assertThat(lock.phase()).isEqualTo(Phase.TRYING);
    CompletableFuture<LockHandle> waiting = lock.start(Waiting.FOREVER);

    f.session.disconnect();
    f.settle();

    assertThat(tried).as("the try ends with the connection").isCompletedExceptionally();
    assertThat(waiting).as("the acquire waits on").isNotDone();
    f.session.reconnect();
    f.settle();

    LockHandle h = granted(waiting);
    assertThat(cohortNodes()).hasSize(1);
    h.releaseAsync();
    f.settle();
    assertThat(f.nodes()).isEmpty();
  }

  @Test
  void exclusive_directoryChanges_remoteAssumedAtOnce_thenSeenBehind() {
    CohortLock lock = cohort(LockOptions.cohort());
    CompletableFuture<LockHandle> first = lock.start(Waiting.FOREVER);
    f.settle();
    granted(first);
    assertThat(lock.phase()).isEqualTo(Phase.HELD_CLEAR);

    f.otherQueues(NodeKind.COHORT);
    f.zk.deliverNext(); // the child watch fires; the listing is sent, not answered

    assertThat(lock.phase()).isEqualTo(Phase.HELD_UNKNOWN);
    assertThat(lock.remoteWaiting()).as("assumed before the listing answers").isTrue();
    assertThat(lock.remoteSeen()).isFalse();

    f.settle();
    assertThat(lock.phase()).isEqualTo(Phase.HELD_BEHIND);
    assertThat(lock.remoteSeen()).isTrue();
  }

  @Test
  void kBound_remoteWaiterBehind_nodeGivenBackAfterKHandoffs() {
    int k = 2;
    CohortLock lock = cohort(bounds(k, Duration.ofHours(1)));
    CompletableFuture<LockHandle> first = lock.start(Waiting.FOREVER);
    f.settle();
    LockHandle holder = granted(first);
    String remote = f.otherQueues(NodeKind.COHORT);
    f.settle();
    assertThat(lock.phase()).isEqualTo(Phase.HELD_BEHIND);
    List<CompletableFuture<LockHandle>> local =
        List.of(
            lock.start(Waiting.FOREVER), lock.start(Waiting.FOREVER), lock.start(Waiting.FOREVER));

    for (int i = 0; i < k; i++) {
      holder.releaseAsync();
      holder = granted(local.get(i));
      assertThat(holder.fencingToken() & 0xffff).isEqualTo(i + 1);
    }
    String firstNode = holder.path();
    holder.releaseAsync();
    f.settle();

    assertThat(local.get(2)).as("queued again behind the remote request").isNotDone();
    assertThat(lock.phase()).isIn(Phase.QUEUED_LISTING, Phase.QUEUED_LISTED, Phase.QUEUED);
    assertThat(f.zk.exists(firstNode)).as("the node is given back").isFalse();
    assertThat(cohortNodes()).hasSize(2).contains(remote.substring(DIR.length() + 1));

    f.zk.delete(remote); // the remote request held, and releases
    f.settle();
    LockHandle again = granted(local.get(2));
    assertThat(again.path()).isNotEqualTo(firstNode);
    assertThat(again.fencingToken()).isGreaterThan(holder.fencingToken());
    assertThat(lock.phase()).isEqualTo(Phase.HELD_CLEAR);
  }

  @Test
  void tBound_remoteWaiterBehind_nodeGivenBackOnceTheHoldTimeIsUp() {
    CohortLock lock = cohort(bounds(1000, Duration.ofSeconds(5)));
    CompletableFuture<LockHandle> first = lock.start(Waiting.FOREVER);
    f.settle();
    LockHandle holder = granted(first);
    f.otherQueues(NodeKind.COHORT);
    f.settle();
    CompletableFuture<LockHandle> second = lock.start(Waiting.FOREVER);
    CompletableFuture<LockHandle> third = lock.start(Waiting.FOREVER);

    holder.releaseAsync();
    LockHandle h2 = granted(second); // within T: in memory
    f.scheduler.advance(Duration.ofSeconds(5));
    h2.releaseAsync();
    f.settle();

    assertThat(third).as("T is up: behind the remote request").isNotDone();
    assertThat(f.zk.exists(h2.path())).isFalse();
  }

  @Test
  void earlyListing_directoryChangesBeforeTheGrant_listedAgainAfterIt() {
    String ahead = f.otherQueues(NodeKind.COHORT);
    CohortLock lock = cohort(LockOptions.cohort());
    CompletableFuture<LockHandle> first = lock.start(Waiting.FOREVER);
    f.settle();
    assertThat(lock.phase()).isEqualTo(Phase.QUEUED_LISTED);

    f.otherQueues(NodeKind.COHORT); // behind us: the early listing's watch fires
    f.settle();
    assertThat(lock.phase()).as("its answer is stale").isEqualTo(Phase.QUEUED);

    f.zk.delete(ahead);
    f.settle();
    granted(first);
    assertThat(lock.phase())
        .as("a listing after the grant saw the waiter")
        .isEqualTo(Phase.HELD_BEHIND);
  }

  @Test
  void predecessorLeaves_earlyListingStale_listedAfterTheGrant() {
    String ahead = f.otherQueues(NodeKind.COHORT);
    CohortLock lock = cohort(LockOptions.cohort());
    CompletableFuture<LockHandle> first = lock.start(Waiting.FOREVER);
    f.settle();
    f.zk.delete(ahead);
    f.settle();
    granted(first);
    // the early listing was answered before the grant, with a node ahead and nobody behind; the
    // predecessor's deletion fired its watch, so the directory was listed again after the grant
    assertThat(lock.phase()).isEqualTo(Phase.HELD_CLEAR);
    assertThat(lock.remoteWaiting()).isFalse();
  }

  @Test
  void nodeDeleted_holdersLost_waitersQueueAgainWithANewNode() {
    CohortLock lock = cohort(LockOptions.cohort());
    CompletableFuture<LockHandle> first = lock.start(Waiting.FOREVER);
    CompletableFuture<LockHandle> second = lock.start(Waiting.FOREVER);
    f.settle();
    LockHandle h1 = granted(first);
    String node = h1.path();
    f.scheduler.advance(Duration.ofSeconds(1)); // the node's holder watches it by now
    f.settle();

    f.zk.delete(node); // an operator deletes it
    f.settle();

    assertThat(h1.lost()).isCompleted();
    assertThat(h1.lost().join().reason()).isEqualTo(LockLostException.Reason.NODE_DELETED);
    assertThat(h1.isHeld()).isFalse();
    LockHandle h2 = granted(second);
    assertThat(h2.path()).isNotEqualTo(node);
    assertThat(lock.phase()).isEqualTo(Phase.HELD_CLEAR);
  }

  @Test
  void sessionExpires_holderLost_waiterGrantedOnTheNewSession() {
    CohortLock lock = cohort(LockOptions.cohort());
    CompletableFuture<LockHandle> first = lock.start(Waiting.FOREVER);
    CompletableFuture<LockHandle> second = lock.start(Waiting.FOREVER);
    f.settle();
    LockHandle h1 = granted(first);

    f.expireAndRenew();
    f.settle();

    assertThat(h1.lost()).isCompleted();
    assertThat(h1.isHeld()).isFalse();
    LockHandle h2 = granted(second);
    assertThat(h2.path()).isNotEqualTo(h1.path());
    assertThat(cohortNodes()).hasSize(1);
  }

  @Test
  void lastWaiterGivesUp_nodeRequestWithdrawn_nothingLeft() {
    String other = f.otherQueues(NodeKind.COHORT);
    CohortLock lock = cohort(LockOptions.cohort());
    CompletableFuture<LockHandle> waiting =
        lock.start(Waiting.after(Duration.ofSeconds(1).toNanos(), f.clock));
    f.settle();
    assertThat(cohortNodes()).hasSize(2);

    f.scheduler.advance(Duration.ofSeconds(1));
    f.settle();

    assertThat(waiting).as("timed out").isCompletedWithValue(null);
    assertThat(lock.phase()).isEqualTo(Phase.IDLE);
    assertThat(cohortNodes()).containsExactly(other.substring(DIR.length() + 1));
  }

  @Test
  void shared_readersJoin_untilAWriterIsSeenBehind() {
    LockOptions options = bounds(1, Duration.ofHours(1));
    CohortLock read = cohort(options, NodeKind.COHORT_READ);
    CompletableFuture<LockHandle> r1 = read.start(Waiting.FOREVER);
    f.settle();
    LockHandle h1 = granted(r1);
    assertThat(read.phase()).isEqualTo(Phase.HELD_CLEAR);
    LockHandle h2 = granted(read.start(Waiting.FOREVER)); // joins the holders at once
    assertThat(h2.path()).isEqualTo(h1.path());

    f.otherQueues(NodeKind.COHORT_READ); // a reader behind holds nobody up
    f.settle();
    assertThat(read.phase()).isEqualTo(Phase.HELD_CLEAR);
    assertThat(read.remoteWaiting()).isFalse();

    f.otherQueues(NodeKind.COHORT_WRITE);
    f.settle();
    assertThat(read.phase()).isEqualTo(Phase.HELD_BEHIND);
    CompletableFuture<LockHandle> r3 = read.start(Waiting.FOREVER);
    assertThat(r3).as("K reached with a writer behind: waits here").isNotDone();

    h1.releaseAsync();
    h2.releaseAsync();
    f.settle();
    assertThat(f.zk.exists(h1.path())).as("the last reader gives the node back").isFalse();
    assertThat(r3).isNotDone();
  }
}
