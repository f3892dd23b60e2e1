package io.zklock.internal.engine;

import static io.zklock.internal.engine.EngineFixture.DIR;
import static io.zklock.internal.engine.EngineFixture.FIRST_SESSION;
import static io.zklock.internal.engine.EngineFixture.SIMPLE_NODE;
import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.ZkLockException;
import io.zklock.internal.engine.EngineFixture.Started;
import io.zklock.internal.engine.LockRequest.State;
import io.zklock.internal.protocol.QueueProtocol;
import io.zklock.internal.protocol.SingleNodeProtocol;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.Ordering;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The request engine ({@link LockRequest} with {@link QueueProtocol} and {@link
 * SingleNodeProtocol}) driven through a fake ZooKeeper, a fake session and a fake clock: every
 * reply, loss, expiry and timeout happens when the test says, so each case of a request's life is
 * reached exactly and checked on the states, the tree and the caller's future.
 */
class LockRequestTest {
  private final EngineFixture f = new EngineFixture();
  private final FakeZooKeeper zk = f.zk;

  private List<String> sentOps() {
    return zk.sent().stream().map(s -> s.op() + " " + s.path()).toList();
  }

  private static String name(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  private static LockLostException.Reason lostReason(LockHandle h) {
    assertThat(h.lost()).as("lost() completes").isDone();
    return h.lost().join().reason();
  }

  // ---------------------------------------------------------------- grant

  @Test
  void acquire_emptyQueue_grantedInOneRoundTrip_createAndPipelinedListingOnly() {
    Started r = f.acquire();

    assertThat(sentOps())
        .as("both requests go out before any reply: one round trip")
        .satisfiesExactly(
            op -> assertThat(op).startsWith("create " + DIR + "/m-"),
            op -> assertThat(op).isEqualTo("getChildren " + DIR));
    assertThat(r.state()).isEqualTo(State.CREATING);

    f.settle();

    assertThat(r.state()).isEqualTo(State.HELD);
    LockHandle h = r.handle();
    assertThat(h.isHeld()).isTrue();
    assertThat(f.nodes()).hasSize(1);
    assertThat(h.path()).isEqualTo(DIR + "/" + f.nodes().get(0));
    assertThat(h.fencingToken())
        .as("the token is the node's czxid")
        .isEqualTo(zk.stat(h.path()).getCzxid());
    assertThat(zk.sent()).as("nothing else was sent").hasSize(2);
  }

  @Test
  void acquire_behindAnotherSessionsNode_grantedOnItsDeletion_withoutAnotherRead() {
    String other = f.otherQueues();
    Started r = f.acquire();
    f.settle();
    assertThat(r.state()).isEqualTo(State.WAITING);
    assertThat(sentOps())
        .satisfiesExactly(
            op -> assertThat(op).startsWith("create " + DIR + "/m-"),
            op -> assertThat(op).isEqualTo("getChildren " + DIR),
            op -> assertThat(op).as("a watch on the node ahead").isEqualTo("getData " + other));
    assertThat(r.future()).isNotDone();

    zk.clearSent();
    zk.delete(other);
    f.settle();

    assertThat(r.state()).isEqualTo(State.HELD);
    assertThat(r.handle().isHeld()).isTrue();
    assertThat(zk.sent()).as("granted by the notification alone").isEmpty();
    assertThat(zk.watchCount()).as("no watch left behind").isZero();
  }

  @Test
  void tryAcquire_busy_leavesNoNode_andCompletesNull() {
    String other = f.otherQueues();
    Started r = f.tryAcquire();
    f.settle();

    assertThat(r.state()).isEqualTo(State.WITHDRAWN);
    assertThat(r.future()).isCompletedWithValue(null);
    assertThat(f.nodes()).containsExactly(name(other));
    assertThat(zk.watchCount()).isZero();
    assertThat(f.requests.size()).isZero();
  }

  @Test
  void tryAcquire_busy_answersOnlyOnceItsNodeIsGone() {
    f.otherQueues();
    Started r = f.tryAcquire();
    zk.deliverNext(); // create
    zk.deliverNext(); // listing: busy, the delete is sent
    assertThat(r.state()).isEqualTo(State.WITHDRAWN);
    assertThat(r.future()).as("our node is still there").isNotDone();
    f.settle();
    assertThat(r.future()).isCompletedWithValue(null);
    assertThat(f.nodes()).hasSize(1);
  }

  // ---------------------------------------------------------------- timeout, cancel

  @Test
  void timeout_whileWaiting_leavesNoNode_noWatch_andCompletesNull() {
    String other = f.otherQueues();
    Started r = f.acquire(Duration.ofSeconds(2));
    f.settle();
    assertThat(r.state()).isEqualTo(State.WAITING);

    f.scheduler.advance(Duration.ofMillis(1999));
    assertThat(r.state()).as("not yet").isEqualTo(State.WAITING);
    f.scheduler.advance(Duration.ofMillis(1));
    f.settle();

    assertThat(r.state()).isEqualTo(State.WITHDRAWN);
    assertThat(r.future()).isCompletedWithValue(null);
    assertThat(f.nodes()).containsExactly(name(other));
    assertThat(zk.watchCount()).as("the watch on the node ahead was removed").isZero();
    assertThat(f.requests.size()).isZero();
  }

  @Test
  void cancel_whileCreating_deletesTheNodeTheCreateMade() {
    Started r = f.acquire();
    assertThat(r.state()).isEqualTo(State.CREATING);

    r.future().cancel(true);
    assertThat(r.state()).isEqualTo(State.WITHDRAWN);
    f.settle();

    assertThat(f.nodes()).as("the create was applied, and its node deleted").isEmpty();
    assertThat(r.future()).isCancelled();
    assertThat(zk.watchCount()).isZero();
  }

  @Test
  void staleReplies_afterWithdrawal_areDropped() {
    String other = f.otherQueues();
    Started r = f.acquire();
    r.future().cancel(true); // before any reply: create and listing are in flight
    f.settle();

    assertThat(r.state()).isEqualTo(State.WITHDRAWN);
    assertThat(sentOps())
        .as("the late listing did not start a wait")
        .noneMatch(op -> op.startsWith("getData") || op.startsWith("exists"));
    assertThat(zk.watchCount()).isZero();
    assertThat(f.nodes()).containsExactly(name(other));
  }

  // ---------------------------------------------------------------- lost replies

  @Test
  void createReplyLost_createHappened_recoversByAttemptId_andAdoptsTheNode() {
    zk.loseNextReply();
    Started r = f.acquire();
    zk.deliverNext(); // the create is applied, its reply lost
    assertThat(r.state()).isEqualTo(State.RECOVERING);
    assertThat(f.nodes()).hasSize(1);
    String made = DIR + "/" + f.nodes().get(0);

    f.settle();

    assertThat(r.state()).isEqualTo(State.HELD);
    assertThat(f.nodes()).as("exactly one node: adopted, not made again").hasSize(1);
    assertThat(r.handle().path()).isEqualTo(made);
    assertThat(r.handle().fencingToken()).isEqualTo(zk.stat(made).getCzxid());
    assertThat(sentOps()).filteredOn(op -> op.startsWith("create")).hasSize(1);
  }

  @Test
  void createReplyLost_createNeverHappened_createsAgain() {
    zk.dropNextRequest();
    Started r = f.acquire();
    zk.deliverNext(); // the create is never applied
    assertThat(r.state()).isIn(State.RECOVERING, State.PENDING, State.CREATING);
    assertThat(f.nodes()).isEmpty();

    f.settle();

    assertThat(r.state()).isEqualTo(State.HELD);
    assertThat(f.nodes()).hasSize(1);
    assertThat(sentOps()).filteredOn(op -> op.startsWith("create")).hasSize(2);
    assertThat(r.handle().fencingToken()).isEqualTo(zk.stat(r.handle().path()).getCzxid());
  }

  @Test
  void createReplyLost_connectionDown_recoversOnceReconnected() {
    zk.loseNextReply();
    Started r = f.acquire();
    zk.deliverNext(); // applied, reply lost; the recovery's requests go out at once ...
    f.session.disconnect(); // ... and meet the dropped connection
    f.settle();
    assertThat(r.state()).isEqualTo(State.RECOVERING);

    f.session.reconnect();
    f.settle();

    assertThat(r.state()).isEqualTo(State.HELD);
    assertThat(f.nodes()).hasSize(1);
  }

  // ---------------------------------------------------------------- session expiry

  @Test
  void expiry_whileWaiting_queuesAgainOnTheNewSession_withTheSameDeadline() {
    String other = f.otherQueues();
    Started r = f.acquire(Duration.ofSeconds(10));
    f.settle();
    assertThat(r.state()).isEqualTo(State.WAITING);

    f.scheduler.advance(Duration.ofSeconds(4));
    f.session.expire();
    assertThat(r.state()).isEqualTo(State.PENDING);
    assertThat(f.nodes()).containsExactly(name(other));
    long second = f.nextSessionId();
    f.session.newSession(second);
    f.settle();

    assertThat(r.state()).isEqualTo(State.WAITING);
    assertThat(f.nodes()).hasSize(2);
    String mine =
        DIR + "/" + f.nodes().stream().filter(n -> !n.equals(name(other))).findFirst().get();
    assertThat(zk.stat(mine).getEphemeralOwner()).as("queued on the new session").isEqualTo(second);

    f.scheduler.advance(Duration.ofMillis(5999));
    assertThat(r.state()).isEqualTo(State.WAITING);
    f.scheduler.advance(Duration.ofMillis(1));
    f.settle();
    assertThat(r.state()).as("the first deadline still applies").isEqualTo(State.WITHDRAWN);
    assertThat(r.future()).isCompletedWithValue(null);
    assertThat(f.nodes()).containsExactly(name(other));
  }

  @Test
  void expiry_whileHeld_losesWithSessionExpired() {
    Started r = f.acquire();
    f.settle();
    LockHandle h = r.handle();

    f.session.expire();

    assertThat(r.state()).isEqualTo(State.LOST);
    assertThat(h.isHeld()).isFalse();
    assertThat(lostReason(h)).isEqualTo(LockLostException.Reason.SESSION_EXPIRED);
    assertThat(h.lost().join().sessionId()).isEqualTo(FIRST_SESSION);
    f.session.newSession(f.nextSessionId());
    f.settle();
    assertThat(f.nodes()).isEmpty();
    assertThat(h.releaseAsync()).as("releasing a lost handle is a no-op").isDone();
    assertThat(f.nodes()).isEmpty();
  }

  @Test
  void ownSessionPredecessor_deletedByExpiry_isNotAGrant() {
    Started first = f.acquire();
    f.settle();
    Started second = f.acquire();
    f.settle();
    assertThat(first.state()).isEqualTo(State.HELD);
    assertThat(second.state()).isEqualTo(State.WAITING);

    // the ensemble expires the session; the client has not heard yet, but the deletion of the node
    // ahead reaches the waiter's watch
    zk.expire(FIRST_SESSION);
    f.settle();

    assertThat(second.state())
        .as("a deletion by our own session's expiry is no handoff: our node went too")
        .isNotEqualTo(State.HELD);
    assertThat(second.future()).isNotDone();

    f.session.expire(); // the client hears
    assertThat(first.state()).isEqualTo(State.LOST);
    f.session.newSession(f.nextSessionId());
    f.settle();
    assertThat(second.state()).as("queued again on the new session").isEqualTo(State.HELD);
    assertThat(f.nodes()).hasSize(1);
  }

  @Test
  void ownSessionPredecessor_releasedByUs_isAGrant_withoutAnotherRead() {
    Started first = f.acquire();
    f.settle();
    Started second = f.acquire();
    f.settle();
    zk.clearSent();

    first.handle().releaseAsync();
    f.settle();

    assertThat(first.state()).isEqualTo(State.RELEASED);
    assertThat(second.state()).as("our own applied delete is a handoff").isEqualTo(State.HELD);
    assertThat(sentOps()).containsExactly("delete " + first.handle().path());
  }

  // ---------------------------------------------------------------- held: loss and release

  @Test
  void nodeDeletedByAnotherClient_whileHeld_vanishes_thenLosesWithNodeDeleted() {
    Started r = f.acquire();
    f.settle();
    LockHandle h = r.handle();
    f.scheduler.advance(Duration.ofMillis(LockRequest.OWN_WATCH_DELAY_MILLIS));
    f.settle();
    assertThat(zk.watchCount(h.path())).as("the holder watches its own node").isEqualTo(1);

    f.session.disconnect(); // so the verdict waits and VANISHED can be seen
    zk.delete(h.path());
    f.settle();
    assertThat(r.state()).isEqualTo(State.VANISHED);
    assertThat(h.isHeld()).isFalse();
    assertThat(h.lost()).isNotDone();

    f.session.reconnect();
    assertThat(r.state()).isEqualTo(State.LOST);
    assertThat(lostReason(h)).isEqualTo(LockLostException.Reason.NODE_DELETED);
  }

  @Test
  void guardedCommit_ofAGrantWhoseNodeVanished_isRefused_evenIfReleasedBeforeTheReasonIsKnown() {
    // a leased grant's lease ran out while its node's disappearance was being classified: the
    // release came first, so lost() never completes; a commit made before must still end
    Started r = f.acquire();
    f.settle();
    LockHandle h = r.handle();
    f.scheduler.advance(Duration.ofMillis(LockRequest.OWN_WATCH_DELAY_MILLIS));
    f.settle();
    f.session.disconnect(); // so the verdict waits
    zk.delete(h.path());
    f.settle();
    assertThat(r.state()).isEqualTo(State.VANISHED);

    java.util.concurrent.CompletableFuture<?> commit =
        h.transaction().setData("/store", new byte[] {1}).commitAsync();
    h.releaseAsync();
    f.settle();
    assertThat(h.lost()).as("released before the reason was known").isNotDone();

    f.session.reconnect();
    f.settle();

    assertThat(commit).as("the commit ends").isCompletedExceptionally();
    assertThat(commit.handle((v, e) -> e).join())
        .isInstanceOfSatisfying(
            LockLostException.class,
            e -> assertThat(e.reason()).isEqualTo(LockLostException.Reason.NODE_DELETED));
    assertThat(sentOps()).as("nothing was sent for it").noneMatch(op -> op.startsWith("multi"));
  }

  @Test
  void ownNodeWatch_lostToAConnectionLoss_isSetAgain_soADeletionIsStillNoticed() {
    Started r = f.acquire();
    f.settle();
    LockHandle h = r.handle();
    f.scheduler.advance(Duration.ofMillis(LockRequest.OWN_WATCH_DELAY_MILLIS)); // exists is sent
    f.session.disconnect(); // ... and fails: no watch was set
    f.settle();
    f.session.reconnect();
    f.settle();

    zk.delete(h.path()); // an operator's forced release
    f.settle();

    assertThat(r.state()).as("the holder must hear of it").isEqualTo(State.LOST);
    assertThat(lostReason(h)).isEqualTo(LockLostException.Reason.NODE_DELETED);
  }

  @Test
  void simple_ownNodeWatch_lostToAConnectionLoss_isSetAgain() {
    Started r = f.simpleAcquire();
    f.settle();
    f.scheduler.advance(Duration.ofMillis(LockRequest.OWN_WATCH_DELAY_MILLIS));
    f.session.disconnect();
    f.settle();
    f.session.reconnect();
    f.settle();

    zk.delete(SIMPLE_NODE);
    f.settle();

    assertThat(r.state()).isEqualTo(State.LOST);
  }

  @Test
  void release_whileHeld_deletesTheNode_andTwiceReturnsTheSameFuture() {
    Started r = f.acquire();
    f.settle();
    LockHandle h = r.handle();
    f.scheduler.advance(Duration.ofMillis(LockRequest.OWN_WATCH_DELAY_MILLIS));
    f.settle();

    CompletableFuture<Void> one = h.releaseAsync();
    CompletableFuture<Void> two = h.releaseAsync();

    assertThat(two).isSameAs(one);
    assertThat(r.state()).isEqualTo(State.RELEASED);
    assertThat(h.isHeld()).isFalse();
    assertThat(one).as("not before the server answers").isNotDone();
    f.settle();
    assertThat(one).isDone();
    assertThat(f.nodes()).isEmpty();
    assertThat(zk.watchCount()).as("the own-node watch was removed, not fired").isZero();
    assertThat(h.lost()).as("a release is not a loss").isNotDone();
    assertThat(f.requests.size()).isZero();
  }

  @Test
  void release_deleteMeetsConnectionLoss_isRetriedOnReconnect() {
    Started r = f.acquire();
    f.settle();
    CompletableFuture<Void> released = r.handle().releaseAsync();
    f.session.disconnect();
    f.settle();
    assertThat(released).isNotDone();
    assertThat(f.nodes()).hasSize(1);

    f.session.reconnect();
    f.settle();

    assertThat(released).isDone();
    assertThat(f.nodes()).isEmpty();
  }

  // ---------------------------------------------------------------- close

  @Test
  void close_whileWaiting_failsTheFuture() {
    f.otherQueues();
    Started r = f.acquire();
    f.settle();

    f.session.close();
    f.settle();

    assertThat(r.state()).isEqualTo(State.WITHDRAWN);
    assertThat(r.future()).isCompletedExceptionally();
    assertThat(r.future().handle((h, e) -> e).join())
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("closed");
    assertThat(f.nodes()).as("the closed session takes our node with it").hasSize(1);
  }

  @Test
  void close_whileHeld_losesWithClosed() {
    Started r = f.acquire();
    f.settle();
    LockHandle h = r.handle();

    f.session.close();

    assertThat(r.state()).isEqualTo(State.LOST);
    assertThat(lostReason(h)).isEqualTo(LockLostException.Reason.CLOSED);
  }

  @Test
  void start_afterClose_failsTheFuture() {
    f.session.close();
    Started r = f.acquire();
    assertThat(r.state()).isEqualTo(State.WITHDRAWN);
    assertThat(r.future()).isCompletedExceptionally();
  }

  // ---------------------------------------------------------------- simple lock

  @Test
  void simple_nodeExists_waits_andGetsItWhenTheHoldersNodeGoes() {
    String holder = f.otherHoldsSimple();
    Started r = f.simpleAcquire();
    f.settle();
    assertThat(r.state()).isEqualTo(State.WAITING);
    assertThat(r.future()).isNotDone();

    zk.delete(holder);
    f.settle();

    assertThat(r.state()).isEqualTo(State.HELD);
    assertThat(zk.stat(SIMPLE_NODE).getEphemeralOwner()).isEqualTo(FIRST_SESSION);
    assertThat(r.handle().fencingToken()).isEqualTo(zk.stat(SIMPLE_NODE).getCzxid());
    assertThat(zk.watchCount()).isZero();
  }

  @Test
  void simple_createReplyLost_nodeOfAnotherAttempt_waits() {
    String holder = f.otherHoldsSimple();
    long holderCzxid = zk.stat(holder).getCzxid();
    zk.loseNextReply();
    Started r = f.simpleAcquire();
    f.settle();

    assertThat(r.state()).as("the node is someone else's: wait").isEqualTo(State.WAITING);
    assertThat(zk.stat(SIMPLE_NODE).getCzxid()).isEqualTo(holderCzxid);

    zk.delete(holder);
    f.settle();
    assertThat(r.state()).isEqualTo(State.HELD);
  }

  @Test
  void simple_createReplyLost_nodeOfThisAttempt_isAdopted() {
    zk.loseNextReply();
    Started r = f.simpleAcquire();
    f.settle();

    assertThat(r.state()).isEqualTo(State.HELD);
    assertThat(r.handle().fencingToken()).isEqualTo(zk.stat(SIMPLE_NODE).getCzxid());
    assertThat(sentOps()).filteredOn(op -> op.startsWith("create")).hasSize(1);
  }

  @Test
  void simple_tryAcquire_busy_completesNull_leavingTheHoldersNode() {
    String holder = f.otherHoldsSimple();
    long czxid = zk.stat(holder).getCzxid();
    Started r = f.simple(true, 0, false);
    f.settle();
    assertThat(r.state()).isEqualTo(State.WITHDRAWN);
    assertThat(r.future()).isCompletedWithValue(null);
    assertThat(zk.stat(SIMPLE_NODE).getCzxid()).isEqualTo(czxid);
  }

  @Test
  void simple_cancelWhileCreating_cleansUpOnce_andNeverDeletesTheNextHoldersNode() {
    Started r = f.simpleAcquire();
    r.future().cancel(true); // withdrawn with the create in flight
    while (zk.exists(SIMPLE_NODE) || !zk.sent().stream().anyMatch(x -> x.op().equals("delete"))) {
      assertThat(zk.deliverNext()).as("the create's node is deleted").isTrue();
    }
    String next = f.otherHoldsSimple(); // another client takes the lock at once
    long czxid = zk.stat(next).getCzxid();

    f.settle();

    assertThat(zk.stat(SIMPLE_NODE))
        .as("a second, late cleanup of the withdrawn create must not delete the next holder's node")
        .isNotNull()
        .extracting(org.apache.zookeeper.data.Stat::getCzxid)
        .isEqualTo(czxid);
  }

  @Test
  void cancelWhileCreating_createReplyLost_theNodeIsFoundAndDeleted() {
    zk.loseNextReply();
    Started r = f.acquire();
    r.future().cancel(true);
    f.settle();
    assertThat(f.nodes()).isEmpty();

    zk.loseNextReply();
    Started s = f.simpleAcquire();
    s.future().cancel(true);
    f.settle();
    assertThat(zk.exists(SIMPLE_NODE)).isFalse();
  }

  @Test
  void tryAcquire_cancelledWhileCreating_answersOnceTheNodeIsGone() {
    Started r = f.tryAcquire();
    r.future().cancel(true);
    assertThat(r.state()).isEqualTo(State.WITHDRAWN);
    f.settle();
    assertThat(f.nodes()).isEmpty();
  }

  @Test
  @org.junit.jupiter.api.Disabled(
      "known limit, documented in docs/guarantees.md (the simple lock): a holder that has not yet"
          + " heard of an operator's deletion of its node releases with a delete of x-lock, which"
          + " deletes the node the next holder created meanwhile. Reading the node back first"
          + " (NodeProtocol#reusesNodeNames) closes it at one round trip per release, but breaks"
          + " ConnectionFaultsTest.simpleLock_deleteReplyLost_... as written; left for a decision")
  void simple_releaseAfterAForcedDeletion_leavesTheNextHoldersNode() {
    Started r = f.simpleAcquire();
    f.settle();
    LockHandle h = r.handle();
    zk.delete(SIMPLE_NODE); // an operator's forced release, not heard yet (own watch not set)
    String next = f.otherHoldsSimple(); // another client takes the lock
    long nextCzxid = zk.stat(next).getCzxid();

    h.releaseAsync();
    f.settle();

    assertThat(zk.stat(SIMPLE_NODE))
        .as("the next holder's node must survive the old holder's release")
        .isNotNull()
        .extracting(org.apache.zookeeper.data.Stat::getCzxid)
        .isEqualTo(nextCzxid);
  }

  @Test
  void simple_cancelWhileCreating_deletesOnlyItsOwnNode() {
    Started r = f.simpleAcquire();
    r.future().cancel(true);
    f.settle();
    assertThat(f.nodes()).isEmpty();

    String holder = f.otherHoldsSimple();
    Started late = f.simpleAcquire();
    late.future().cancel(true);
    f.settle();
    assertThat(zk.exists(holder)).as("another's node is never deleted").isTrue();
    assertThat(late.state()).isEqualTo(State.WITHDRAWN);
  }

  // ---------------------------------------------------------------- more corners

  @Test
  void lockDirectoryMissing_isCreated_andTheRequestGoesOn() {
    zk.delete(DIR); // the server reaped the empty container
    Started r = f.acquire();
    f.settle();

    assertThat(r.state()).isEqualTo(State.HELD);
    assertThat(zk.exists(DIR)).isTrue();
    assertThat(f.nodes()).hasSize(1);
  }

  @Test
  void lockDirectoryMissing_directoryAndNodeCreatedInOneRoundTrip() {
    zk.delete(DIR); // first use of a per-entity lock, or its empty container was reaped
    Started r = f.acquire();
    zk.deliverNext(); // the create: NONODE
    zk.deliverNext(); // the listing sent behind it: NONODE

    List<String> sent = zk.sent().stream().map(s -> s.op() + " " + s.path()).toList();
    assertThat(sent.subList(2, sent.size()))
        .as(
            "before any reply, the directory's create and, right behind it, the lock node's"
                + " create and listing: %s",
            sent)
        .hasSize(3)
        .startsWith("create " + DIR)
        .contains("getChildren " + DIR);
    assertThat(sent.get(3)).startsWith("create " + DIR + "/");
    f.settle();
    assertThat(r.state()).isEqualTo(State.HELD);
    assertThat(f.nodes()).hasSize(1);
  }

  @Test
  void lockDirectoryAndItsParentMissing_walksThePath_andTheRequestGoesOn() {
    String parent = DIR.substring(0, DIR.lastIndexOf('/'));
    zk.delete(DIR);
    if (!parent.isEmpty() && zk.children(parent).isEmpty()) {
      zk.delete(parent);
    }
    Started r = f.acquire();
    f.settle();

    assertThat(r.state()).isEqualTo(State.HELD);
    assertThat(zk.exists(DIR)).isTrue();
    assertThat(f.nodes()).hasSize(1);
  }

  @Test
  void timeout_whileDisconnectedBeforeTheCreate_endsWithoutANode() {
    f.session.disconnect();
    Started r = f.acquire(Duration.ofSeconds(1));
    assertThat(r.state()).isEqualTo(State.PENDING);

    f.scheduler.advance(Duration.ofSeconds(1));
    assertThat(r.state()).isEqualTo(State.WITHDRAWN);
    assertThat(r.future()).isCompletedWithValue(null);

    f.session.reconnect();
    f.settle();
    assertThat(zk.sent()).as("nothing sent for a withdrawn request").isEmpty();
    assertThat(f.nodes()).isEmpty();
  }

  @Test
  void timeout_whileRecovering_deletesTheNodeTheLostCreateMade() {
    zk.loseNextReply();
    Started r = f.acquire(Duration.ofSeconds(1));
    zk.deliverNext(); // create applied, reply lost
    f.session.disconnect(); // the recovery waits for the connection
    f.settle();
    assertThat(r.state()).isEqualTo(State.RECOVERING);
    assertThat(f.nodes()).hasSize(1);

    f.scheduler.advance(Duration.ofSeconds(1));
    assertThat(r.state()).isEqualTo(State.WITHDRAWN);
    f.session.reconnect();
    f.settle();

    assertThat(r.future()).isCompletedWithValue(null);
    assertThat(f.nodes()).as("found by its attempt id and deleted").isEmpty();
  }

  @Test
  void simple_timeout_whileRecovering_deletesOnlyItsOwnNode() {
    zk.loseNextReply();
    Started r = f.simple(false, Duration.ofSeconds(1).toNanos(), true);
    zk.deliverNext();
    f.session.disconnect();
    f.settle();
    assertThat(r.state()).isEqualTo(State.RECOVERING);
    assertThat(zk.exists(SIMPLE_NODE)).isTrue();

    f.scheduler.advance(Duration.ofSeconds(1));
    f.session.reconnect();
    f.settle();

    assertThat(r.state()).isEqualTo(State.WITHDRAWN);
    assertThat(zk.exists(SIMPLE_NODE)).as("ours, read back and deleted").isFalse();
  }

  @Test
  void suspension_treatedAsLost_losesTheHold_andGivesTheNodeBackOnReconnect() {
    EngineFixture g = new EngineFixture(io.zklock.SuspensionPolicy.TREAT_AS_LOST);
    Started held = g.acquire();
    g.settle();
    Started waiting = g.acquire();
    g.settle();
    LockHandle h = held.handle();

    g.session.disconnect();

    assertThat(held.state()).isEqualTo(State.LOST);
    assertThat(lostReason(h)).isEqualTo(LockLostException.Reason.SUSPENDED);
    assertThat(waiting.state()).as("a waiter waits on").isEqualTo(State.WAITING);
    g.session.reconnect();
    g.settle();
    assertThat(g.zk.exists(h.path())).as("the lost hold's node is deleted").isFalse();
    assertThat(waiting.state()).isEqualTo(State.HELD);
  }

  @Test
  void suspension_waitForExpiry_keepsTheHold() {
    Started held = f.acquire();
    f.settle();
    f.session.disconnect();
    assertThat(held.state()).isEqualTo(State.HELD);
    f.session.reconnect();
    f.settle();
    assertThat(held.state()).isEqualTo(State.HELD);
  }

  @Test
  void releaseRequested_byAnotherClient_isHeardByTheHolder() {
    Started r = f.acquire();
    f.settle();
    LockHandle h = r.handle();
    List<String> heard = new java.util.ArrayList<>();
    h.onReleaseRequested(() -> heard.add("asked"));
    f.scheduler.advance(Duration.ofMillis(LockRequest.OWN_WATCH_DELAY_MILLIS));
    f.settle();

    zk.setData(h.path(), new byte[] {1});
    f.settle();

    assertThat(heard).containsExactly("asked");
    assertThat(h.isReleaseRequested()).isTrue();
    assertThat(r.state()).as("a request is not a release").isEqualTo(State.HELD);
    assertThat(zk.watchCount(h.path())).as("the own-node watch is set again").isEqualTo(1);
  }

  @Test
  void releaseRequested_beforeTheOwnWatchIsSet_isHeardWhenItIs() {
    Started r = f.acquire();
    f.settle();
    LockHandle h = r.handle();
    zk.setData(h.path(), new byte[] {1});

    f.scheduler.advance(Duration.ofMillis(LockRequest.OWN_WATCH_DELAY_MILLIS));
    f.settle();

    assertThat(h.isReleaseRequested()).isTrue();
  }

  @Test
  void nodeDeleted_beforeTheOwnWatchIsSet_isNoticedWhenItIs() {
    Started r = f.acquire();
    f.settle();
    LockHandle h = r.handle();
    zk.delete(h.path());

    f.scheduler.advance(Duration.ofMillis(LockRequest.OWN_WATCH_DELAY_MILLIS));
    f.settle();

    assertThat(r.state()).isEqualTo(State.LOST);
    assertThat(lostReason(h)).isEqualTo(LockLostException.Reason.NODE_DELETED);
    assertThat(zk.watchCount()).as("no watch left on the vanished path").isZero();
  }

  @Test
  void waitersNodeDeletedByAnotherClient_noticedAtTheNextListing_queuesAgain() {
    String head = f.otherQueues();
    String ahead = f.otherQueues();
    Started r = f.acquire();
    f.settle();
    String mine = r.request().path();
    zk.delete(mine);

    zk.delete(ahead); // not the head: the waiter lists, finds its node gone, and queues again
    f.settle();
    assertThat(r.state()).isEqualTo(State.WAITING);
    assertThat(f.nodes()).hasSize(2).doesNotContain(name(mine)).contains(name(head));

    zk.delete(head);
    f.settle();
    assertThat(r.state()).isEqualTo(State.HELD);
    assertThat(zk.exists(r.handle().path())).isTrue();
  }

  @Test
  void waitersNodeDeletedByAnotherClient_thenGrantedByAHandoff_isLostWithinTheOwnWatchDelay() {
    // No watch on a waiter's own node (docs/guarantees.md): a grant by the head's deletion comes
    // without a read, and the holder's delayed own-node watch finds the node gone.
    String head = f.otherQueues();
    Started r = f.acquire();
    f.settle();
    zk.delete(r.request().path());
    zk.delete(head);
    f.settle();
    LockHandle h = r.handle();

    f.scheduler.advance(Duration.ofMillis(LockRequest.OWN_WATCH_DELAY_MILLIS));
    f.settle();

    assertThat(r.state()).isEqualTo(State.LOST);
    assertThat(lostReason(h)).isEqualTo(LockLostException.Reason.NODE_DELETED);
  }

  @Test
  void cancel_afterGrant_isTooLate_theHandleStaysValid() {
    Started r = f.acquire();
    f.settle();
    assertThat(r.future().cancel(true)).isFalse();
    assertThat(r.state()).isEqualTo(State.HELD);
  }

  @Test
  void semaphoreLeases_waitOnTheQueue_andAreGrantedWhenAPermitFrees() {
    Ordering.Rule two = Ordering.lease(2);
    Started a = f.queue(NodeKind.SEMAPHORE, two, false, 0, false);
    Started b = f.queue(NodeKind.SEMAPHORE, two, false, 0, false);
    Started c = f.queue(NodeKind.SEMAPHORE, two, false, 0, false);
    f.settle();
    assertThat(List.of(a.state(), b.state(), c.state()))
        .containsExactly(State.HELD, State.HELD, State.WAITING);
    assertThat(zk.watchCount(DIR)).as("the third watches the queue").isEqualTo(1);

    b.handle().releaseAsync();
    f.settle();

    assertThat(c.state()).isEqualTo(State.HELD);
    assertThat(a.state()).isEqualTo(State.HELD);
  }

  @Test
  void readers_shareTheLock_andAWriterWaitsForThem() {
    Ordering.Rule read = Ordering.forKind(NodeKind.READ);
    Ordering.Rule write = Ordering.forKind(NodeKind.WRITE);
    Started r1 = f.queue(NodeKind.READ, read, false, 0, false);
    Started r2 = f.queue(NodeKind.READ, read, false, 0, false);
    Started w = f.queue(NodeKind.WRITE, write, false, 0, false);
    Started r3 = f.queue(NodeKind.READ, read, false, 0, false);
    f.settle();
    assertThat(List.of(r1.state(), r2.state(), w.state(), r3.state()))
        .containsExactly(State.HELD, State.HELD, State.WAITING, State.WAITING);

    r1.handle().releaseAsync();
    f.settle();
    assertThat(w.state()).isEqualTo(State.WAITING);
    r2.handle().releaseAsync();
    f.settle();
    assertThat(w.state()).isEqualTo(State.HELD);
    assertThat(r3.state()).isEqualTo(State.WAITING);
    w.handle().releaseAsync();
    f.settle();
    assertThat(r3.state()).isEqualTo(State.HELD);
  }

  @Test
  void queue_ofThree_handsOffInOrder() {
    Started a = f.acquire();
    f.settle();
    Started b = f.acquire();
    Started c = f.acquire();
    f.settle();
    assertThat(List.of(a.state(), b.state(), c.state()))
        .containsExactly(State.HELD, State.WAITING, State.WAITING);

    a.handle().releaseAsync();
    f.settle();
    assertThat(List.of(b.state(), c.state())).containsExactly(State.HELD, State.WAITING);
    b.handle().releaseAsync();
    f.settle();
    assertThat(c.state()).isEqualTo(State.HELD);
    assertThat(a.handle().fencingToken())
        .isLessThan(b.handle().fencingToken())
        .isLessThan(c.handle().fencingToken());
  }
}
