package io.zklock.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.LockHandle;
import io.zklock.ZkLockException;
import io.zklock.internal.engine.EngineFixture.Started;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * When the engine answers (issue 33): each property of docs/guarantees.md about the moment a
 * request or a release returns, on the fake ZooKeeper with every reply held back until the test
 * delivers it. Each test looks at the tree <em>at the moment</em> the caller's future completes (a
 * callback on it records what the server holds then) and at what has not been delivered yet, so
 * that an answer given too early fails every time, whatever the timing. Listed, with the bug each
 * was seen failing on, in docs/reliability.md ("Return-order properties").
 */
class ReturnOrderEngineTest {
  private final EngineFixture f = new EngineFixture();
  private final FakeZooKeeper zk = f.zk;

  /** The lock directory's children at the moment {@code future} completes (null until then). */
  private AtomicReference<List<String>> nodesWhenDone(CompletableFuture<?> future) {
    AtomicReference<List<String>> seen = new AtomicReference<>();
    future.whenComplete((v, t) -> seen.set(f.nodes()));
    return seen;
  }

  private static String name(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  // ---------------------------------------------------------------- tryAcquire()

  @Test
  void tryAcquire_busy_answersOnlyOnceTheServerAcknowledgedItsNodesDelete() {
    // Given another client's node ahead
    String other = f.otherQueues();
    Started r = f.tryAcquire();
    AtomicReference<List<String>> atAnswer = nodesWhenDone(r.future());

    // When the create and the listing are answered (busy: the delete is sent)
    zk.deliverNext();
    String mine = name(r.request().path());
    zk.deliverNext();

    // Then no answer while the delete is unanswered, and at the answer the node is gone
    assertThat(r.future()).as("answered before its delete was acknowledged").isNotDone();
    f.settle();
    assertThat(r.future()).isCompletedWithValue(null);
    assertThat(atAnswer.get())
        .as("the lock directory when tryAcquire() answered")
        .doesNotContain(mine)
        .containsExactly(name(other));
  }

  @Test
  void tryAcquire_connectionLostWhileInFlight_throwsAtOnce_andItsNodeGoesInTheBackground() {
    String other = f.otherQueues();
    Started r = f.tryAcquire();

    // When the connection drops with the create and the listing in flight
    f.session.disconnect();

    // Then it answers at once, before any reconnection: whether the lock is free is unknown
    assertThat(r.future()).as("answered without waiting for the connection").isDone();
    assertThat(r.future())
        .failsWithin(Duration.ZERO)
        .withThrowableOfType(java.util.concurrent.ExecutionException.class)
        .withCauseInstanceOf(ZkLockException.class);
    f.session.reconnect();
    f.settle();
    assertThat(f.nodes()).containsExactly(name(other));
  }

  // ---------------------------------------------------------------- a waiter that gives up

  @Test
  void waiterTimesOut_answersOnlyOnceTheServerAcknowledgedItsNodesDelete() {
    String other = f.otherQueues();
    Started r = f.acquire(Duration.ofSeconds(2));
    f.settle();
    String mine = name(r.request().path());
    AtomicReference<List<String>> atAnswer = nodesWhenDone(r.future());

    // When the deadline passes (the delete is sent)
    f.scheduler.advance(Duration.ofSeconds(2));

    // Then no answer until the delete is acknowledged; at the answer the node is gone
    assertThat(r.future()).as("answered before its delete was acknowledged").isNotDone();
    f.settle();
    assertThat(r.future()).isCompletedWithValue(null);
    assertThat(atAnswer.get())
        .as("the lock directory when the timed-out acquire answered")
        .doesNotContain(mine)
        .containsExactly(name(other));
  }

  @Test
  void waiterTimesOut_deleteUnanswered_answersAfterTheOneSecondGrace_notBefore() {
    String other = f.otherQueues();
    Started r = f.acquire(Duration.ofSeconds(2));
    f.settle();
    String mine = name(r.request().path());

    // When the deadline passes and the connection goes silent (the delete is never delivered)
    f.scheduler.advance(Duration.ofSeconds(2));
    f.scheduler.advance(Duration.ofMillis(LockRequest.CLEANUP_GRACE_MILLIS - 1));
    assertThat(r.future()).as("answered before the grace ran out").isNotDone();
    f.scheduler.advance(Duration.ofMillis(1));

    // Then it answers at the end of the grace, its node still there, deleted once delivered
    assertThat(r.future())
        .as("a silent connection holds the answer no longer than the grace")
        .isCompletedWithValue(null);
    assertThat(f.nodes()).contains(mine);
    f.settle();
    assertThat(f.nodes()).containsExactly(name(other));
  }

  @Test
  void waiterTimesOut_onASlowConnection_waitsForItsDeleteLongerThanTheOneSecondGrace() {
    // Given a waiter whose create took 600 ms to be answered (a slow connection, not a silent one)
    String other = f.otherQueues();
    Started r = f.acquire(Duration.ofSeconds(10));
    f.scheduler.advance(Duration.ofMillis(600));
    f.settle();
    String mine = name(r.request().path());
    long grace =
        TimeUnit.NANOSECONDS.toMillis(
            LockRequest.cleanupGraceNanos(TimeUnit.MILLISECONDS.toNanos(600)));
    assertThat(grace).as("four of its round trips").isEqualTo(2_400);

    // When the deadline passes and the delete takes longer than one second to be answered
    f.scheduler.advance(Duration.ofMillis(10_000 - 600));
    f.scheduler.advance(Duration.ofMillis(LockRequest.CLEANUP_GRACE_MILLIS));
    assertThat(r.future()).as("answered after one second on a slow connection").isNotDone();
    f.settle();

    // Then it answers once its delete is acknowledged, its node gone
    assertThat(r.future()).isCompletedWithValue(null);
    assertThat(f.nodes()).containsExactly(name(other)).doesNotContain(mine);
  }

  @Test
  void waiterTimesOut_onASlowConnectionGoneSilent_answersAfterFourOfItsRoundTrips_notBefore() {
    f.otherQueues();
    Started r = f.acquire(Duration.ofSeconds(10));
    f.scheduler.advance(Duration.ofMillis(600));
    f.settle();

    f.scheduler.advance(Duration.ofMillis(10_000 - 600));
    f.scheduler.advance(Duration.ofMillis(2_400 - 1));
    assertThat(r.future()).as("answered before the grace ran out").isNotDone();
    f.scheduler.advance(Duration.ofMillis(1));

    assertThat(r.future()).isCompletedWithValue(null);
  }

  @Test
  void cleanupGrace_atLeastOneSecond_fourRoundTripsOfTheCreate_atMostTenSeconds() {
    assertThat(LockRequest.cleanupGraceNanos(0)).isEqualTo(TimeUnit.SECONDS.toNanos(1));
    assertThat(LockRequest.cleanupGraceNanos(TimeUnit.MILLISECONDS.toNanos(250)))
        .isEqualTo(TimeUnit.SECONDS.toNanos(1));
    assertThat(LockRequest.cleanupGraceNanos(TimeUnit.MILLISECONDS.toNanos(251)))
        .isEqualTo(TimeUnit.MILLISECONDS.toNanos(1004));
    assertThat(LockRequest.cleanupGraceNanos(TimeUnit.SECONDS.toNanos(3)))
        .isEqualTo(TimeUnit.SECONDS.toNanos(10));
    assertThat(LockRequest.cleanupGraceNanos(Long.MAX_VALUE))
        .isEqualTo(TimeUnit.SECONDS.toNanos(10));
  }

  @Test
  void waiterTimesOut_whileDisconnected_answersAtOnce_andItsNodeGoesOnReconnect() {
    String other = f.otherQueues();
    Started r = f.acquire(Duration.ofSeconds(2));
    f.settle();
    f.session.disconnect();
    f.settle();

    // When the deadline passes with the connection down
    f.scheduler.advance(Duration.ofSeconds(2));

    // Then it answers at once (no grace, no connection needed)
    assertThat(r.future())
        .as("answered without waiting for the connection")
        .isCompletedWithValue(null);
    assertThat(f.nodes()).hasSize(2);
    f.session.reconnect();
    f.settle();
    assertThat(f.nodes()).containsExactly(name(other));
  }

  @Test
  void waiterTimesOut_connectionDropsWhileItsDeleteIsOnItsWay_answersAtOnce() {
    String other = f.otherQueues();
    Started r = f.acquire(Duration.ofSeconds(2));
    f.settle();
    f.scheduler.advance(Duration.ofSeconds(2)); // the delete is sent
    assertThat(r.future()).isNotDone();

    // When the connection drops before the delete's reply
    f.session.disconnect();

    // Then the answer comes at once; the delete is retried once the connection is back
    assertThat(r.future()).as("answered when the connection went").isCompletedWithValue(null);
    f.session.reconnect();
    f.settle();
    assertThat(f.nodes()).containsExactly(name(other));
  }

  @Test
  void waiterTimesOut_whileItsCreateIsInFlight_answersAtOnce_andTheNodeIsDeletedAfter() {
    f.otherQueues();
    Started r = f.acquire(Duration.ofSeconds(1)); // create and listing in flight

    // When the deadline passes before the create is answered
    f.scheduler.advance(Duration.ofSeconds(1));

    // Then it answers at once (its node's fate is not known yet)
    assertThat(r.future()).as("answered without waiting for its create").isCompletedWithValue(null);
    f.settle();
    assertThat(f.nodes()).as("the node its create made is deleted after").hasSize(1);
  }

  // ---------------------------------------------------------------- release

  @Test
  void release_answersOnlyOnceTheServerAcknowledgedTheDelete_notHeldFromTheStart() {
    Started r = f.acquire();
    f.settle();
    LockHandle h = r.handle();
    String mine = name(h.path());

    // When the holder releases
    CompletableFuture<Void> released = h.releaseAsync();
    AtomicReference<List<String>> atAnswer = nodesWhenDone(released);

    // Then it is not held from the start, and the release answers only with the node gone
    assertThat(h.isHeld()).as("isHeld() from the start of the release").isFalse();
    assertThat(released).as("answered before the delete was acknowledged").isNotDone();
    f.settle();
    assertThat(released).isDone();
    assertThat(atAnswer.get())
        .as("the lock directory when release() answered")
        .doesNotContain(mine);
  }

  @Test
  void release_withoutAConnection_answersWhenTheSessionEnds_withoutReconnecting() {
    Started r = f.acquire();
    f.settle();
    LockHandle h = r.handle();
    f.session.disconnect();
    CompletableFuture<Void> released = h.releaseAsync();
    assertThat(released).as("waits for the connection or the session's end").isNotDone();

    // When the session ends (expired, or declared lost at zklock's deadline) with no connection
    f.session.expire();

    // Then the release answers: the node went with the session
    assertThat(released).as("a release never waits past its session's end").isDone();
    assertThat(released.isCompletedExceptionally()).isFalse();
  }
}
