package io.zklock.internal.engine;

import static io.zklock.internal.engine.EngineFixture.NS;
import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.LockHandle;
import io.zklock.internal.engine.EngineFixture.Started;
import io.zklock.internal.engine.FakeZooKeeper.Multi;
import io.zklock.internal.engine.LockRequest.State;
import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.junit.jupiter.api.Test;

/**
 * The request engine with its session's requests batched ({@link io.zklock.internal.zk.Batcher}),
 * on the fake server: requests of one client issued while another is in flight go out in one multi
 * (creates, deletes) and one read-only multi (listings), and each request keeps every property it
 * has alone: its listing shows its node, a batch lost to a connection loss is recovered node by
 * node, a batch one of whose ops fails is sent again without tying the others to it, and a batch
 * that meets a session's expiry queues its requests again on the new session. The threshold is 1
 * here: anything issued while a request is in flight waits for the next reply and goes with the
 * others.
 */
class BatchedEngineTest {
  private final EngineFixture f = EngineFixture.batched(1);
  private final FakeZooKeeper zk = f.zk;

  private static String dir(int i) {
    return NS + "/entity-" + i;
  }

  /** One full acquire and release on each lock: directories made, their listings' sizes known. */
  private void warm(int locks) {
    for (int i = 0; i < locks; i++) {
      Started s = f.acquireIn(dir(i));
      f.settle();
      s.handle().releaseAsync();
      f.settle();
    }
    zk.clearSent();
  }

  private List<Multi> multisSince(int from) {
    List<Multi> all = zk.multis();
    return all.subList(from, all.size());
  }

  /** Starts one acquire per lock, the first going out alone and the rest waiting for its reply. */
  private List<Started> acquireEach(int locks) {
    List<Started> out = new ArrayList<>();
    for (int i = 0; i < locks; i++) {
      out.add(f.acquireIn(dir(i)));
    }
    return out;
  }

  @Test
  void requestsIssuedWhileOneIsInFlight_goOutInOneMultiAndOneReadOnlyMulti_andAreAllGranted() {
    warm(4);
    int before = zk.multis().size();

    List<Started> rs = acquireEach(4);
    assertThat(zk.sent().stream().map(FakeZooKeeper.Sent::op))
        .as("only the first request went out at once, its listing right behind its create")
        .containsExactly("create", "getChildren");
    f.settle();

    for (Started r : rs) {
      assertThat(r.state()).isEqualTo(State.HELD);
      assertThat(r.handle().fencingToken())
          .as("the token is the node's czxid, read from the multi's create2 result")
          .isEqualTo(zk.stat(r.handle().path()).getCzxid());
    }
    assertThat(multisSince(before))
        .as("three creates in one multi, then their three listings in one read-only multi")
        .containsExactly(new Multi(false, 3, Code.OK), new Multi(true, 3, Code.OK));

    int beforeRelease = zk.multis().size();
    for (Started r : rs) {
      r.handle().releaseAsync();
    }
    f.settle();
    assertThat(multisSince(beforeRelease))
        .as("the first delete alone, the three others in one multi")
        .containsExactly(new Multi(false, 3, Code.OK));
    for (int i = 0; i < 4; i++) {
      assertThat(zk.children(dir(i))).isEmpty();
    }
  }

  @Test
  void aBatchWithOneFailingOp_isSentAgainWithoutIt_andEachRequestHearsOnlyItsOwnOutcome() {
    warm(4);
    // lock 2's directory was reaped meanwhile (an empty container): its create fails NONODE
    zk.delete(dir(2));
    int before = zk.multis().size();

    List<Started> rs = acquireEach(4);
    f.settle();

    assertThat(multisSince(before).get(0))
        .as("the batch of three creates failed on lock 2's")
        .isEqualTo(new Multi(false, 3, Code.NONODE));
    for (Started r : rs) {
      assertThat(r.state()).as("each request was granted").isEqualTo(State.HELD);
    }
    for (int i = 0; i < 4; i++) {
      assertThat(zk.children(dir(i))).as("one node per lock, none orphaned").hasSize(1);
    }
  }

  @Test
  void listingsSentWhileAFailedBatchWasUnanswered_areSentAgain_andShowTheNodesOfTheRetry() {
    warm(4);
    zk.delete(dir(3));
    int before = zk.multis().size();

    List<Started> rs = acquireEach(4);
    f.settle();

    // without the listings sent again, locks 1 and 2 would read a listing sent before their
    // creates were applied (the batch failed and was sent again after it) and never be granted
    List<Multi> seen = multisSince(before);
    assertThat(seen.get(0)).isEqualTo(new Multi(false, 3, Code.NONODE));
    assertThat(seen.stream().filter(Multi::read).count())
        .as("the read-only multi pipelined behind the failed batch, then sent again")
        .isGreaterThanOrEqualTo(2);
    for (Started r : rs) {
      assertThat(r.state()).isEqualTo(State.HELD);
    }
  }

  @Test
  void aBatchOfDeletes_oneOfANodeAlreadyGone_releasesEveryOther() {
    warm(4);
    List<Started> rs = acquireEach(4);
    f.settle();
    List<LockHandle> hs = new ArrayList<>();
    for (Started r : rs) {
      hs.add(r.handle());
    }
    // an operator deletes lock 2's node: its holder has not heard yet when it releases
    zk.delete(hs.get(2).path());
    int before = zk.multis().size();

    hs.get(0).releaseAsync(); // alone, at once
    for (int i = 1; i < 4; i++) {
      hs.get(i).releaseAsync(); // batched behind it; lock 2's delete fails the batch
    }
    f.settle();

    assertThat(multisSince(before).get(0)).isEqualTo(new Multi(false, 3, Code.NONODE));
    for (int i = 0; i < 4; i++) {
      assertThat(zk.children(dir(i))).as("lock %d released", i).isEmpty();
      assertThat(hs.get(i).isHeld()).isFalse();
    }
  }

  @Test
  void aBatchAppliedButItsReplyLost_eachRequestFindsItsNodeByItsAttemptId() {
    warm(4);
    List<Started> rs = acquireEach(4);
    zk.deliverNext(); // the first create alone: the batch of three goes out behind it
    zk.loseNextReply(); // the batch is applied; its reply turns into a connection loss
    f.settle();

    for (Started r : rs) {
      assertThat(r.state()).isEqualTo(State.HELD);
    }
    for (int i = 0; i < 4; i++) {
      assertThat(zk.children(dir(i)))
          .as("lock %d: the node of the lost reply adopted, no second node", i)
          .hasSize(1);
    }
  }

  @Test
  void aBatchNeverApplied_eachRequestCreatesItsNodeAgain() {
    warm(4);
    List<Started> rs = acquireEach(4);
    zk.deliverNext();
    zk.dropNextRequest(); // the batch is never applied: a connection loss
    f.settle();

    for (Started r : rs) {
      assertThat(r.state()).isEqualTo(State.HELD);
    }
    for (int i = 0; i < 4; i++) {
      assertThat(zk.children(dir(i))).hasSize(1);
    }
  }

  @Test
  void aBatchSplitByAConnectionLoss_isRecoveredOnceConnectedAgain() {
    warm(4);
    List<Started> rs = acquireEach(4);
    zk.deliverNext(); // the batch and the listings are on their way
    f.session.disconnect(); // both fail with a connection loss, unapplied
    f.settle();
    f.session.reconnect();
    f.settle();

    for (Started r : rs) {
      assertThat(r.state()).isEqualTo(State.HELD);
    }
    for (int i = 0; i < 4; i++) {
      assertThat(zk.children(dir(i))).hasSize(1);
    }
  }

  @Test
  void aBatchSpanningASessionExpiry_queuesItsRequestsAgainOnTheNewSession() {
    warm(4);
    List<Started> rs = acquireEach(4);
    zk.deliverNext(); // lock 0's create applied; the batch of three in flight
    long old = f.session.sessionId();
    f.session.expire(); // the batch answers SESSIONEXPIRED; lock 0's node went with the session
    f.settle();
    f.session.newSession(f.nextSessionId());
    f.settle();

    for (Started r : rs) {
      assertThat(r.state()).isEqualTo(State.HELD);
      assertThat(zk.stat(r.handle().path()).getEphemeralOwner()).isNotEqualTo(old);
    }
    for (int i = 0; i < 4; i++) {
      assertThat(zk.children(dir(i))).as("one node of the new session").hasSize(1);
    }
  }

  /** {@code locks} acquired and released one after the other on {@code g}: directories known. */
  @Test
  void aReleaseIssuedWhileAReplyIsAnswered_goesInTheFlushThatReplyEarned() {
    warm(3);
    Started first = f.acquireIn(dir(0));
    Started second = f.acquireIn(dir(1));
    Started third = f.acquireIn(dir(2));
    // the first caller releases the moment it is granted, inside its listing's reply: as a thread
    // woken by a reply releases while that reply's other callbacks still run
    first.future().thenAccept(LockHandle::releaseAsync);
    assertThat(zk.sent().stream().map(FakeZooKeeper.Sent::op))
        .containsExactly("create", "getChildren");
    zk.clearSent();
    int before = zk.multis().size();

    zk.deliverNext(); // the first create: its listing is still in flight, the others wait for it
    assertThat(zk.sent()).isEmpty();
    zk.deliverNext(); // the first listing: granted, and released within the reply
    assertThat(zk.sent().stream().map(FakeZooKeeper.Sent::op))
        .as("the held creates and the release's delete in one multi, then the held listings")
        .containsExactly("multi", "multi");
    f.settle();

    assertThat(multisSince(before))
        .as("the delete was not held for the reply after")
        .containsExactly(new Multi(false, 3, Code.OK), new Multi(true, 2, Code.OK));
    assertThat(zk.children(dir(0))).isEmpty();
    assertThat(second.state()).isEqualTo(State.HELD);
    assertThat(third.state()).isEqualTo(State.HELD);
  }

  private static void warm(EngineFixture g, int locks) {
    for (int i = 0; i < locks; i++) {
      Started s = g.acquireIn(dir(i));
      g.settle();
      s.handle().releaseAsync();
      g.settle();
    }
    g.zk.clearSent();
  }

  @Test
  void aClientWithFewCallsOutstanding_sendsEachAtOnce_asUnbatched() {
    // four threads' requests: at most eight calls outstanding, below the default threshold
    EngineFixture g = EngineFixture.batched(1, io.zklock.internal.zk.Batcher.HOLD_FROM);
    warm(g, 4);
    List<Started> rs = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      rs.add(g.acquireIn(dir(i)));
    }
    assertThat(g.zk.sent().stream().map(FakeZooKeeper.Sent::op))
        .as("every create and listing went before any reply, none held for one")
        .containsExactly(
            "create",
            "getChildren",
            "create",
            "getChildren",
            "create",
            "getChildren",
            "create",
            "getChildren");
    g.settle();
    for (Started r : rs) {
      assertThat(r.state()).isEqualTo(State.HELD);
    }
    g.zk.clearSent();
    for (Started r : rs) {
      r.handle().releaseAsync();
    }
    assertThat(g.zk.sent().stream().map(FakeZooKeeper.Sent::op))
        .as("the four deletes went at once too")
        .containsExactly("delete", "delete", "delete", "delete");
    g.settle();
    assertThat(g.zk.multis()).as("nothing was batched").isEmpty();
  }

  @Test
  void callsIssuedWithManyOutstanding_areHeld_andGoTogether() {
    EngineFixture g = EngineFixture.batched(1, 12);
    warm(g, 10);
    List<Started> rs = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      rs.add(g.acquireIn(dir(i)));
    }
    assertThat(g.zk.sent())
        .as("six requests' twelve calls went at once; the calls of the last four were held")
        .hasSize(12);
    g.settle();
    for (Started r : rs) {
      assertThat(r.state()).isEqualTo(State.HELD);
      assertThat(r.handle().fencingToken()).isEqualTo(g.zk.stat(r.handle().path()).getCzxid());
    }
    assertThat(g.zk.multis())
        .as("the four held creates in one multi, their listings in one read-only multi")
        .containsExactly(new Multi(false, 4, Code.OK), new Multi(true, 4, Code.OK));
  }

  @Test
  void aLoneRequest_goesOutAsUnbatched_itsCreateAndListingTogether() {
    EngineFixture g = EngineFixture.batched(3);
    Started r = g.acquire();
    assertThat(g.zk.sent().stream().map(FakeZooKeeper.Sent::op))
        .as("both requests before any reply: one round trip, as unbatched")
        .containsExactly("create", "getChildren");
    g.settle();
    assertThat(r.state()).isEqualTo(State.HELD);
    assertThat(g.zk.multis()).isEmpty();
  }

  @Test
  void aServerThatRefusesReadOnlyMulti_hasItsListingsSentAgainAlone() {
    warm(3);
    zk.withoutPersistentWatches(); // a 3.5 server now (a rolling change)
    List<Started> rs = acquireEach(3);
    f.settle();

    assertThat(zk.multis().stream().filter(m -> m.read() && m.code() == Code.UNIMPLEMENTED))
        .as("the read-only multi was refused once")
        .hasSize(1);
    for (Started r : rs) {
      assertThat(r.state()).isEqualTo(State.HELD);
    }
    int before = zk.multis().size();
    for (Started r : rs) {
      r.handle().releaseAsync();
    }
    List<Started> again = acquireEach(3);
    f.settle();
    assertThat(multisSince(before).stream().filter(Multi::read)).as("never sent again").isEmpty();
    for (Started r : again) {
      assertThat(r.state()).isEqualTo(State.HELD);
    }
  }

  @Test
  void contendedLockOfOneClient_batchedWaitersAreGrantedInQueueOrder() {
    List<Started> rs = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      rs.add(f.acquire());
    }
    f.otherQueues(); // another client's node among ours
    f.settle();
    List<String> order = new ArrayList<>();
    List<Long> tokens = new ArrayList<>();
    for (int round = 0; round < 5; round++) {
      Started holder = null;
      for (Started r : rs) {
        if (r.state() == State.HELD) {
          assertThat(holder).as("one holder at a time").isNull();
          holder = r;
        }
      }
      if (holder == null) {
        // the other client's node holds: it leaves
        for (String n : zk.children(EngineFixture.DIR)) {
          if (zk.stat(EngineFixture.DIR + "/" + n).getEphemeralOwner()
              == EngineFixture.OTHER_SESSION) {
            zk.delete(EngineFixture.DIR + "/" + n);
          }
        }
        f.settle();
        round--;
        continue;
      }
      String path = holder.handle().path();
      order.add(path.substring(path.lastIndexOf('-') + 1)); // its sequence number
      tokens.add(holder.handle().fencingToken());
      holder.handle().releaseAsync();
      f.settle();
    }
    assertThat(order).as("granted in the order of their nodes' sequence numbers").isSorted();
    for (int i = 1; i < tokens.size(); i++) {
      assertThat(tokens.get(i))
          .as("every later holder's token is greater: no two nodes of one lock in one multi")
          .isGreaterThan(tokens.get(i - 1));
    }
  }

  @Test
  void creates_inOneDirectory_neverShareAMulti_soTokensOfOneLockStrictlyIncrease() {
    warm(2);
    int before = zk.multis().size();
    // lock 0 alone goes out at once; then two requests on lock 1 and one on lock 0 wait
    List<Started> rs = new ArrayList<>();
    rs.add(f.acquireIn(dir(0)));
    rs.add(f.acquireIn(dir(1)));
    rs.add(f.acquireIn(dir(1)));
    rs.add(f.acquireIn(dir(0)));
    f.settle();

    assertThat(multisSince(before).stream().filter(m -> !m.read()))
        .as("lock 1's second create and lock 0's second create wait for the next multi")
        .containsExactly(new Multi(false, 2, Code.OK));
    for (int lock = 0; lock < 2; lock++) {
      List<String> nodes = new ArrayList<>(zk.children(dir(lock)));
      // in queue order: by the sequence number that ends each name
      nodes.sort(java.util.Comparator.comparing(n -> n.substring(n.lastIndexOf('-') + 1)));
      assertThat(nodes).hasSize(2);
      long first = zk.stat(dir(lock) + "/" + nodes.get(0)).getCzxid();
      long second = zk.stat(dir(lock) + "/" + nodes.get(1)).getCzxid();
      assertThat(first).as("lock %d: distinct czxids, in queue order", lock).isLessThan(second);
    }
  }

  @Test
  void createsInDirectoriesNotKnownToExist_goAlone_soNoBatchFailsOnALocksFirstUse() {
    // never used: each lock's directory is missing, and its first create fails NONODE
    List<Started> rs = acquireEach(4);
    f.settle();

    assertThat(zk.multis().stream().filter(m -> !m.read()).map(Multi::code))
        .as("no write multi carried a create into a missing directory")
        .doesNotContain(Code.NONODE);
    for (Started r : rs) {
      assertThat(r.state()).isEqualTo(State.HELD);
    }

    // now known: the next round's creates go together
    for (Started r : rs) {
      r.handle().releaseAsync();
    }
    f.settle();
    int before = zk.multis().size();
    List<Started> again = acquireEach(4);
    f.settle();
    assertThat(multisSince(before)).contains(new Multi(false, 3, Code.OK));
    for (Started r : again) {
      assertThat(r.state()).isEqualTo(State.HELD);
    }
  }

  @Test
  void aCreateInADirectoryNotKnownToExist_goesOutAtOnce_notHeldForTheNextReply() {
    warm(1);
    Started first = f.acquireIn(dir(0));
    int sent = zk.sent().size();
    // a lock's first use while a request is in flight: its create may well fail (no directory),
    // and would go alone anyway, so it does not wait for the first request's reply
    Started fresh = f.acquireIn(dir(1));
    assertThat(zk.sent().subList(sent, zk.sent().size()).stream().map(FakeZooKeeper.Sent::op))
        .as("the fresh lock's create went out at once (and its listing right behind it)")
        .containsExactly("create", "getChildren");
    assertThat(zk.sent().get(sent).path()).startsWith(dir(1) + "/");
    f.settle();
    assertThat(first.state()).isEqualTo(State.HELD);
    assertThat(fresh.state()).isEqualTo(State.HELD);
    assertThat(zk.children(dir(1))).hasSize(1);
  }

  @Test
  void aRequestsListing_goesRightBehindItsCreate_evenWithOthersInFlight() {
    warm(3);
    List<Started> rs = new ArrayList<>();
    rs.add(f.acquireIn(dir(0)));
    assertThat(zk.sent().stream().map(FakeZooKeeper.Sent::op))
        .as(
            "with a packet in flight (the threshold is 1), the listing still follows its create:"
                + " one round trip for both, as unbatched")
        .containsExactly("create", "getChildren");
    // a second request while those are in flight: queued, create and listing together
    rs.add(f.acquireIn(dir(1)));
    assertThat(zk.sent()).hasSize(2);
    f.settle();
    for (Started r : rs) {
      assertThat(r.state()).isEqualTo(State.HELD);
    }
  }

  @Test
  void createsInDirectoriesThatExistButAreNotKnown_joinMultis_onceSomeFoundTheirs() {
    // a service's entities, made before this client met them (or forgotten by its bounded cache)
    int locks = 24;
    for (int i = 0; i < locks; i++) {
      zk.create(0, dir(i), new byte[0], CreateMode.CONTAINER);
    }
    List<Started> rs = new ArrayList<>();
    for (int round = 0; round < 3; round++) {
      for (int i = round * 8; i < round * 8 + 8; i++) {
        rs.add(f.acquireIn(dir(i)));
      }
      f.settle();
    }
    for (Started r : rs) {
      assertThat(r.state()).isEqualTo(State.HELD);
    }
    assertThat(zk.multis().stream().filter(m -> !m.read() && m.code() == Code.OK))
        .as("after the first round found its directories, creates in unseen ones went together")
        .isNotEmpty();
    assertThat(zk.multis().stream().filter(m -> !m.read()).map(Multi::code))
        .as("none failed: every directory existed")
        .containsOnly(Code.OK);
  }

  @Test
  void aClientMeetingOnlyNewNames_neverPutsTheirCreatesInAMulti() {
    List<Started> rs = new ArrayList<>();
    for (int round = 0; round < 4; round++) {
      for (int i = round * 6; i < round * 6 + 6; i++) {
        rs.add(f.acquireIn(dir(i)));
      }
      f.settle();
    }
    for (Started r : rs) {
      assertThat(r.state()).isEqualTo(State.HELD);
    }
    assertThat(zk.multis().stream().filter(m -> !m.read()).map(Multi::code))
        .as("no write multi failed on a missing directory")
        .doesNotContain(Code.NONODE);
  }

  @Test
  void aBatchWhoseOpsAllFail_isSentAgainInOneRoundTrip_notOneRoundTripPerOp() {
    warm(4);
    for (int i = 1; i < 4; i++) {
      zk.delete(dir(i)); // reaped meanwhile: the batcher still believes they exist
    }
    int before = zk.multis().size();
    List<Started> rs = acquireEach(4);
    f.settle();

    assertThat(multisSince(before).stream().filter(m -> !m.read()))
        .as("the one failed multi; its ops went again each alone, none as a multi that fails again")
        .containsExactly(new Multi(false, 3, Code.NONODE));
    for (Started r : rs) {
      assertThat(r.state()).isEqualTo(State.HELD);
    }
  }

  @Test
  void queuedRequests_goOutAnyway_whenNoReplyComesForTheStallTime() {
    warm(4);
    List<Started> rs = acquireEach(4);
    int sentBefore = zk.sent().size();
    // no reply comes (a stalled server): the three queued creates wait...
    f.scheduler.advance(java.time.Duration.ofMillis(99));
    assertThat(zk.sent()).as("nothing more before the stall time").hasSize(sentBefore);
    // ...until a stall check finds no reply since the one before it (checks run every 100 ms, so
    // within 200 ms): then they go, batched, without any reply
    f.scheduler.advance(java.time.Duration.ofMillis(101));
    assertThat(zk.sent().size()).as("the queued calls went out").isGreaterThan(sentBefore);
    f.settle();
    for (Started r : rs) {
      assertThat(r.state()).isEqualTo(State.HELD);
    }
  }

  @Test
  void plainEphemeralCreates_areNotBatched() {
    zk.create(0, EngineFixture.DIR + "/held", new byte[0], CreateMode.PERSISTENT);
    Started a = f.simpleAcquire();
    Started b = f.simpleAcquire();
    f.settle();
    assertThat(zk.multis()).as("a simple lock's creates go alone").isEmpty();
    assertThat(a.state() == State.HELD ^ b.state() == State.HELD).isTrue();
  }
}
