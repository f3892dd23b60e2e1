package io.zklock.internal.engine;

import static io.zklock.internal.engine.EngineFixture.DIR;
import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.internal.engine.EngineFixture.Started;
import io.zklock.internal.engine.LockRequest.State;
import io.zklock.internal.protocol.QueueProtocol;
import io.zklock.internal.rules.LockDelay;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.QueueNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/**
 * The mutex's lock-delay ({@link QueueProtocol} with a delay, rule {@link LockDelay}) on the fake
 * server, with the fake clock: no server, no sleeps. Two clients run the real code against one tree
 * ({@link EngineFixture#otherClient}): the holder's release writes its record in the same {@code
 * multi} as its node's deletion, and the waiter decides on what the tree records.
 *
 * <p>Each case: a clean release hands over at once with no request after it; an end by failure
 * (session expired, node deleted by another) holds the next grant back by at least the delay; a
 * waiter that times out or is cancelled during the delay leaves no node, and the next one still
 * waits; a release record that is not the directory's last child change does not count as clean.
 */
class LockDelayEngineTest {
  private static final Duration DELAY = Duration.ofSeconds(5);
  private static final Duration MS = Duration.ofMillis(1);
  private static final long HOLDER_SESSION = 0x2002;
  private static final long THIRD_SESSION = 0x3003;

  /** The waiter's client (the fixture's own session). */
  private final EngineFixture f = new EngineFixture();

  private final FakeZooKeeper zk = f.zk;

  /** Another client, on the same server and clock: the holder. */
  private final EngineFixture holder = f.otherClient(HOLDER_SESSION);

  private Started waitForever(EngineFixture client) {
    return client.delayedMutex(DELAY, false, 0, false);
  }

  private Started tryOnce(EngineFixture client) {
    return client.delayedMutex(DELAY, true, 0, false);
  }

  private Started waitFor(EngineFixture client, Duration timeout) {
    return client.delayedMutex(DELAY, false, timeout.toNanos(), true);
  }

  /** The requests session {@code session} sent since the last {@link FakeZooKeeper#clearSent}. */
  private List<String> sentBy(long session) {
    return zk.sent().stream()
        .filter(s -> s.session() == session)
        .map(s -> s.op() + " " + s.path())
        .toList();
  }

  private String dirRecord() {
    return new String(zk.data(DIR), StandardCharsets.UTF_8);
  }

  /** The holder's client holds the lock (granted at once: nothing ever stood in the directory). */
  private Started holderHolds() {
    Started h = waitForever(holder);
    f.settle();
    assertThat(h.state())
        .as("the first request of a fresh directory holds at once")
        .isEqualTo(State.HELD);
    return h;
  }

  /** Our client queues behind the holder and waits on it. */
  private Started waiterBehind() {
    Started w = waitForever(f);
    f.settle();
    assertThat(w.state()).isEqualTo(State.WAITING);
    assertThat(f.nodes()).hasSize(2);
    return w;
  }

  /** Runs the clock on by {@code d}, then delivers whatever that led to. */
  private void advance(Duration d) {
    f.scheduler.advance(d);
    f.settle();
  }

  // ---------------------------------------------------------------- clean release

  @Test
  void cleanRelease_ofAnotherClient_handsOverAtOnce_withNoRequestOfTheWaiterAfterIt() {
    Started h = holderHolds();
    Started w = waiterBehind();

    zk.clearSent();
    h.handle().releaseAsync();
    f.settle();

    assertThat(w.state()).as("a clean release hands over with no delay").isEqualTo(State.HELD);
    assertThat(sentBy(EngineFixture.FIRST_SESSION))
        .as("granted by the release's notifications alone: no read, no mark")
        .isEmpty();
    assertThat(sentBy(HOLDER_SESSION))
        .as("the release writes in one multi (record + delete), besides an own-watch removal")
        .filteredOn(op -> !op.startsWith("removeAllWatches "))
        .containsExactly("multi " + h.handle().path());
    assertThat(dirRecord())
        .as("the release record names the released node")
        .contains(h.handle().path().substring(DIR.length() + 1));
    Stat dir = zk.stat(DIR);
    assertThat(dir.getMzxid())
        .as("record and deletion in one transaction: the record is the last child change")
        .isEqualTo(dir.getPzxid());
    assertThat(zk.data(w.handle().path()))
        .as("no delay mark on the new holder's node")
        .asString(StandardCharsets.UTF_8)
        .doesNotContain(QueueProtocol.LOCK_DELAY_UNTIL);
  }

  @Test
  void cleanRelease_thenANewcomer_holdsAtOnce_onTheReadBeforeItsCreate() {
    Started h = holderHolds();
    h.handle().releaseAsync();
    f.settle();

    zk.clearSent();
    Started n = tryOnce(f);
    f.settle();

    assertThat(n.state()).as("the record proves the last grant clean").isEqualTo(State.HELD);
    assertThat(sentBy(EngineFixture.FIRST_SESSION))
        .as("one read of the record, pipelined with the create and the listing: one round trip")
        .satisfiesExactly(
            op -> assertThat(op).isEqualTo("getData " + DIR),
            op -> assertThat(op).startsWith("create " + DIR + "/m-"),
            op -> assertThat(op).isEqualTo("getChildren " + DIR));
  }

  // ---------------------------------------------------------------- failure

  @Test
  void holderSessionExpired_nextGrantWaitsOutTheDelay_onTheFakeClock() {
    Started h = holderHolds();
    Started w = waiterBehind();

    zk.clearSent();
    holder.session.expire();
    f.settle();

    assertThat(w.state())
        .as("an expiry is not a clean release: the delay starts")
        .isEqualTo(State.WAITING);
    assertThat(h.state()).isEqualTo(State.LOST);
    assertThat(sentBy(EngineFixture.FIRST_SESSION))
        .as("no read after the deletion's event: the watched record decided (only the mark)")
        .allSatisfy(op -> assertThat(op).doesNotStartWith("get"));
    String mine = DIR + "/" + f.nodes().get(0);
    assertThat(new String(zk.data(mine), StandardCharsets.UTF_8))
        .as("inspect's mark: the node says it waits out a delay")
        .contains(QueueProtocol.LOCK_DELAY_UNTIL);

    advance(DELAY.minus(MS));
    assertThat(w.state()).as("1 ms before the delay is over").isEqualTo(State.WAITING);
    advance(MS);
    assertThat(w.state()).as("the delay is over").isEqualTo(State.HELD);
    assertThat(w.handle().path()).isEqualTo(mine);
  }

  @Test
  void holderNodeDeletedByAnother_nextGrantWaitsOutTheDelay() {
    Started h = holderHolds();
    Started w = waiterBehind();

    zk.delete(h.handle().path()); // an operator's forced release
    f.settle();

    assertThat(w.state()).isEqualTo(State.WAITING);
    advance(DELAY.minus(MS));
    assertThat(w.state()).isEqualTo(State.WAITING);
    advance(MS);
    assertThat(w.state()).isEqualTo(State.HELD);
  }

  @Test
  void newcomerAfterAnExpiry_tryAcquireIsBusy_untilTheDelayHasPassed_leavingNoNode() {
    holderHolds();
    holder.session.expire();
    f.settle();
    assertThat(f.nodes()).isEmpty();

    Started busy = tryOnce(f);
    f.settle();
    assertThat(busy.state())
        .as("the expiry left pzxid > mzxid: not proven clean")
        .isEqualTo(State.WITHDRAWN);
    assertThat(busy.future()).isCompletedWithValue(null);
    assertThat(f.nodes()).as("a busy tryAcquire leaves no node").isEmpty();

    // a waiter that came right after the expiry holds once the delay has passed
    Started w = waitForever(f);
    f.settle();
    assertThat(w.state()).isEqualTo(State.WAITING);
    advance(DELAY.minus(MS));
    assertThat(w.state()).isEqualTo(State.WAITING);
    advance(MS);
    assertThat(w.state()).isEqualTo(State.HELD);
  }

  // ---------------------------------------------------------------- giving up during the delay

  @Test
  void timeoutDuringTheDelay_leavesNoNode_andTheNextWaiterStillWaitsOutTheDelay() {
    EngineFixture third = f.otherClient(THIRD_SESSION);
    holderHolds();
    Started first = waitFor(f, Duration.ofSeconds(2));
    f.settle();
    Started second = waitForever(third);
    f.settle();
    assertThat(f.nodes()).hasSize(3);

    holder.session.expire(); // at t0: the first waiter starts the delay
    f.settle();
    assertThat(first.state()).isEqualTo(State.WAITING);

    advance(Duration.ofSeconds(2)); // the first times out during the delay
    assertThat(first.state()).isEqualTo(State.WITHDRAWN);
    assertThat(f.nodes()).as("the withdrawn waiter's node is gone").hasSize(1);
    assertThat(dirRecord()).as("its withdrawal wrote the failure record").contains("failed");
    assertThat(second.state())
        .as("the next does not take the withdrawal for a release")
        .isEqualTo(State.WAITING);

    advance(DELAY.minus(Duration.ofSeconds(2)).minus(MS));
    assertThat(second.state()).as("before t0 + delay").isEqualTo(State.WAITING);
    advance(Duration.ofSeconds(2).plus(MS));
    assertThat(second.state())
        .as("the delay is counted again from the withdrawal (conservative): over by then")
        .isEqualTo(State.HELD);
    second.handle().releaseAsync();
    f.settle();
    assertThat(f.nodes()).isEmpty();
  }

  @Test
  void cancelDuringTheDelay_leavesNoNode_andANewcomerStillWaitsOutTheDelay() {
    holderHolds();
    Started w = waiterBehind();
    holder.session.expire();
    f.settle();
    advance(Duration.ofSeconds(1));
    assertThat(w.state()).isEqualTo(State.WAITING);

    w.future().cancel(true);
    f.settle();
    assertThat(w.state()).isEqualTo(State.WITHDRAWN);
    assertThat(f.nodes()).as("the cancelled waiter's node is gone").isEmpty();
    assertThat(dirRecord()).contains("failed");
    Stat dir = zk.stat(DIR);
    assertThat(dir.getMzxid())
        .as("the failure record is the last child change")
        .isEqualTo(dir.getPzxid());

    Started busy = tryOnce(f);
    f.settle();
    assertThat(busy.future())
        .as("the failure record holds a newcomer back (it kept no earlier time: the record's own)")
        .isCompletedWithValue(null);
    assertThat(f.nodes()).isEmpty();

    advance(DELAY.minus(MS));
    Started stillBusy = tryOnce(f);
    f.settle();
    assertThat(stillBusy.future())
        .as("1 ms before the record's time + delay")
        .isCompletedWithValue(null);
    advance(MS);
    Started free = tryOnce(f);
    f.settle();
    assertThat(free.state()).isEqualTo(State.HELD);
  }

  // ---------------------------------------------------------------- records that do not count

  @Test
  void releaseRecord_notTheLastChildChange_isNotClean_forANewcomer() {
    Started h = holderHolds();
    String next =
        zk.create(
            THIRD_SESSION,
            DIR + "/" + QueueNode.prefix(NodeKind.MUTEX, QueueNode.newAttemptId()),
            CreateMode.EPHEMERAL_SEQUENTIAL);
    h.handle().releaseAsync();
    f.settle();
    assertThat(dirRecord()).as("a clean release record").contains("released");

    zk.delete(next); // the next holder, granted by that release, is force-released
    Stat dir = zk.stat(DIR);
    assertThat(dir.getPzxid()).isGreaterThan(dir.getMzxid());

    Started busy = tryOnce(f);
    f.settle();
    assertThat(busy.future())
        .as("the record is older than the last child change: the next grant's end is unproven")
        .isCompletedWithValue(null);
    Started w = waitForever(f);
    f.settle();
    advance(DELAY.minus(MS));
    assertThat(w.state()).isEqualTo(State.WAITING);
    advance(MS);
    assertThat(w.state()).isEqualTo(State.HELD);
  }

  @Test
  void releaseRecord_ofTheNodeBeforeTheHead_isNotClean_forTheWaiterOnTheHead() {
    Started h = holderHolds();
    EngineFixture third = f.otherClient(THIRD_SESSION);
    Started middle = waitForever(third);
    f.settle();
    Started w = waitForever(f);
    f.settle();
    assertThat(f.nodes()).hasSize(3);

    h.handle().releaseAsync(); // clean: the record names the holder's node
    f.settle();
    assertThat(middle.state()).isEqualTo(State.HELD);
    assertThat(w.state()).isEqualTo(State.WAITING);

    third.session.expire(); // the middle one's grant ends by failure
    f.settle();
    assertThat(w.state())
        .as("a release record naming another node than the one we waited on does not count")
        .isEqualTo(State.WAITING);
    advance(DELAY.minus(MS));
    assertThat(w.state()).isEqualTo(State.WAITING);
    advance(MS);
    assertThat(w.state()).isEqualTo(State.HELD);
  }

  @Test
  void cleanRelease_behindAnEarlierWaiter_handsOverAtOnce_twice() {
    Started h = holderHolds();
    EngineFixture third = f.otherClient(THIRD_SESSION);
    Started middle = waitForever(third);
    f.settle();
    Started w = waitForever(f);
    f.settle();

    h.handle().releaseAsync();
    f.settle();
    assertThat(middle.state()).isEqualTo(State.HELD);

    zk.clearSent();
    middle.handle().releaseAsync();
    f.settle();
    assertThat(w.state())
        .as("the look-ahead set the record's watch when the middle one became the head")
        .isEqualTo(State.HELD);
    assertThat(sentBy(EngineFixture.FIRST_SESSION)).as("no request after the release").isEmpty();
  }

  // ---------------------------------------------------------------- the grant after the delay

  @Test
  void waitersSessionExpiredUnheardDuringTheDelay_noGrantWhenTheTimerFires() {
    holderHolds();
    Started w = waiterBehind();
    holder.session.expire();
    f.settle();
    assertThat(w.state()).isEqualTo(State.WAITING);

    // the ensemble expires the waiter's session too; the client has not heard (a paused process)
    zk.expire(f.session.sessionId());
    f.scheduler.advance(DELAY);
    assertThat(w.state())
        .as("the timer alone does not grant: one read of our node must answer first")
        .isEqualTo(State.WAITING);
    assertThat(sentBy(EngineFixture.FIRST_SESSION))
        .last()
        .isEqualTo("exists " + w.request().path());
    f.settle();
    assertThat(w.state())
        .as("the read answered SESSIONEXPIRED: no grant on a session without a node")
        .isNotEqualTo(State.HELD);
    assertThat(w.future()).isNotDone();
  }

  @Test
  void waitersSessionExpiresDuringTheDelay_queuesAgainBehindTheNewcomer_withoutItsMark() {
    // Given a waiter waiting out the delay after the holder's session expired (its node marked)
    holderHolds();
    Started w = waiterBehind();
    holder.session.expire();
    f.settle();
    String first = w.request().path();
    assertThat(new String(zk.data(first), StandardCharsets.UTF_8))
        .contains(QueueProtocol.LOCK_DELAY_UNTIL);
    advance(DELAY.dividedBy(2));

    // When its own session expires, and another client queues before it is back
    f.session.expire();
    EngineFixture third = f.otherClient(THIRD_SESSION);
    Started n = waitForever(third);
    f.settle();
    f.session.newSession(f.nextSessionId());
    f.settle();

    // Then it has one node again, on its new session, behind the newcomer, and no mark: the node
    // with the mark went with the session; what the request re-creates is its queue node only
    assertThat(f.nodes()).hasSize(2).doesNotContain(first.substring(DIR.length() + 1));
    String again = w.request().path();
    assertThat(again).isNotNull().isNotEqualTo(first);
    assertThat(new String(zk.data(again), StandardCharsets.UTF_8))
        .doesNotContain(QueueProtocol.LOCK_DELAY_UNTIL);
    assertThat(w.state()).isEqualTo(State.WAITING);

    // and the newcomer, first now, waits out a delay of its own (the expired waiter's node went
    // without a release record), then holds; the re-queued request after its clean release
    assertThat(n.state()).as("first after an unclean end: the delay").isEqualTo(State.WAITING);
    advance(DELAY);
    assertThat(n.state()).isEqualTo(State.HELD);
    assertThat(w.state()).isEqualTo(State.WAITING);
    n.handle().releaseAsync();
    f.settle();
    assertThat(w.state()).as("after a clean release: at once").isEqualTo(State.HELD);
  }

  @Test
  void waitersNodeDeletedDuringTheDelay_queuesAgain_insteadOfAGrantWithoutANode() {
    holderHolds();
    Started w = waiterBehind();
    holder.session.expire();
    f.settle();
    String first = w.request().path();

    zk.delete(first); // an operator deletes the waiter's node during its delay
    advance(DELAY);
    assertThat(w.state())
        .as("the read after the delay found our node gone: queued again, not granted")
        .isNotEqualTo(State.HELD);
    assertThat(f.nodes()).as("queued again with a new node").hasSize(1).doesNotContain(first);
    advance(DELAY); // our own node's deletion was not proven clean either: a delay again
    assertThat(w.state()).isEqualTo(State.HELD);
    assertThat(w.handle().path()).isNotEqualTo(first);
  }
}
