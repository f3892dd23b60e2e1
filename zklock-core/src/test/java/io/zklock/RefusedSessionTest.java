package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.testkit.EmbeddedZooKeeper;
import io.zklock.testkit.ServerFreePhase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An ensemble that refuses the session: wiped and restarted empty at the same address, it has seen
 * fewer transactions than the client ("Refusing session request ... as it has seen zxid ..."), so
 * the old session can never reconnect and the ensemble never says {@code Expired}. zklock's session
 * deadline ends it: a declared loss, a new session that works, and no call that blocks past the
 * deadline.
 */
@Tag(ServerFreePhase.SERVER_TAG)
class RefusedSessionTest {
  private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);

  /** The deadline comes at most T after the wipe; the rest is slack for a loaded machine. */
  private static final Duration BOUND = SESSION_TIMEOUT.plusSeconds(2);

  private EmbeddedZooKeeper server;
  private ZkLocks locks;

  @BeforeEach
  void start() {
    server =
        EmbeddedZooKeeper.standalone()
            .tickTime(Duration.ofMillis(100))
            .containerCheckInterval(Duration.ofMillis(500))
            .start();
    locks =
        ZkLocks.builder(server.connectString())
            .namespace("/refused")
            .sessionTimeout(SESSION_TIMEOUT)
            .build();
  }

  @AfterEach
  void stop() {
    locks.close();
    server.close();
  }

  @Test
  void wipedEnsemble_holderIsToldLost_waiterQueuesAgain_andTheNewSessionLocks() throws Exception {
    // Given a holder, and a second request of the same session waiting behind it
    List<String> states = new CopyOnWriteArrayList<>();
    locks.addSessionListener((s, id) -> states.add(s + ":" + Long.toHexString(id)));
    long oldSession = locks.sessionId();
    LockHandle held = locks.mutex("wiped").acquire();
    CompletableFuture<LockHandle> waiting = locks.mutex("wiped").acquireAsync();
    await().during(Duration.ofMillis(200)).until(() -> !waiting.isDone());

    // When the ensemble is wiped and restarted empty on the same port
    long wipedAt = System.nanoTime();
    server.wipeAndRestart();

    // Then the holder is told, within the session deadline
    LockLostException lost = held.lost().get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(Duration.ofNanos(System.nanoTime() - wipedAt)).isLessThan(BOUND);
    assertThat(lost.reason()).isEqualTo(LockLostException.Reason.SESSION_EXPIRED);
    assertThat(held.isHeld()).isFalse();
    // and a new session is opened, on which the waiter queues again and is granted
    LockHandle granted = waiting.get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(locks.sessionId()).isNotEqualTo(oldSession).isNotZero();
    assertThat(locks.sessionState()).isEqualTo(SessionState.CONNECTED);
    assertThat(granted.isHeld()).isTrue();
    assertThat(states)
        .containsSubsequence(
            "LOST:" + Long.toHexString(oldSession),
            "CONNECTED:" + Long.toHexString(locks.sessionId()));
    // and the lock directory was made again: another client finds the lock taken, then free
    try (ZkLocks other = ZkLocks.builder(server.connectString()).namespace("/refused").build()) {
      assertThat(other.mutex("wiped").tryAcquire()).isEmpty();
      granted.release();
      try (LockHandle next = other.mutex("wiped").tryAcquire(Duration.ofSeconds(5)).orElseThrow()) {
        assertThat(next.isHeld()).isTrue();
      }
    }
  }

  @Test
  void wipedEnsemble_releaseReturnsWithinTheSessionDeadline() throws Exception {
    // Given a holder
    LockHandle held = locks.mutex("release").acquire();

    // When the ensemble is wiped and the holder releases at once
    server.wipeAndRestart();
    long start = System.nanoTime();
    CompletableFuture<Void> released = CompletableFuture.runAsync(held::release);

    // Then release() returns by the session deadline (the node is gone with the session)
    released.get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(BOUND);
    assertThat(held.isHeld()).isFalse();
  }

  @Test
  void wipedEnsemble_leaderElectionCloseReturnsWithinTheSessionDeadline() throws Exception {
    // Given an elected leader
    LeaderElection election = locks.leaderElection("election", "p1");
    election.start();
    await().atMost(Duration.ofSeconds(10)).until(election::isLeader);

    // When the ensemble is wiped and the leader closes its participation at once
    server.wipeAndRestart();
    long start = System.nanoTime();
    CompletableFuture<Void> closed = CompletableFuture.runAsync(election::close);

    // Then close() returns by the session deadline
    closed.get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(BOUND);
    assertThat(election.isLeader()).isFalse();
  }
}
