package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.testkit.FaultProxy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A request's life through faults that land between its steps (issue 13): an adopted node that is
 * lost and queued again, a withdrawal while a create's outcome is being recovered, an expiry while
 * the client is disconnected, and what a holder sees the moment its node goes.
 */
class RequestLifecycleTest extends ZkTestSupport {
  private FaultProxy proxy;

  @BeforeEach
  void startProxy() {
    proxy = FaultProxy.start(server.connectString());
  }

  @AfterEach
  void stopProxy() {
    proxy.close();
  }

  /** A client whose connection runs through the fault proxy (session timeout 20 s). */
  private ZkLocks proxied() {
    return track(
        ZkLocks.builder(proxy.connectString())
            .namespace(namespace)
            .sessionTimeout(Duration.ofSeconds(20))
            .build());
  }

  private void awaitState(ZkLocks locks, SessionState state) {
    await("session " + state)
        .atMost(Duration.ofSeconds(20))
        .until(() -> locks.sessionState() == state);
  }

  /**
   * Makes {@code request} lose its create's reply: the server applies the create, the connection
   * drops before the reply arrives, and the client reconnects to the same session and adopts the
   * node it finds by its attempt id. Returns once {@code nodes} lock nodes exist and the client is
   * connected again.
   */
  private <T> T withCreateReplyLost(ZkLocks locks, int nodes, Function<ZkLocks, T> request)
      throws Exception {
    proxy.muteReplies();
    T r = request.apply(locks);
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == nodes);
    proxy.cut();
    proxy.pass();
    awaitState(locks, SessionState.CONNECTED);
    return r;
  }

  /**
   * Waits until the request adopted {@code node} after the lost reply: adoption sets a data watch
   * on the node (nothing else watches a waiter's own node), which the server shows.
   */
  private void awaitAdopted(String node) {
    await("the node " + node + " is adopted")
        .atMost(Duration.ofSeconds(20))
        .until(() -> hasDataWatch(node));
  }

  /** The lock nodes of {@code locks}'s current session. */
  private List<String> nodesOf(ZkLocks locks) throws Exception {
    return lockNodes().stream()
        .filter(
            p -> {
              try {
                Stat s = raw().exists(p, false);
                return s != null && s.getEphemeralOwner() == locks.sessionId();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            })
        .toList();
  }

  // ------------------------------------------------ an adopted node, lost, then queued again

  @Test
  void adoptedWaitingNode_deletedByHand_requeues_thenAForcedReleaseOfTheGrantIsReported()
      throws Exception {
    LockHandle holder = client("holder").mutex("adopt").acquire();
    ZkLocks locks = proxied();
    CompletableFuture<LockHandle> waiting =
        withCreateReplyLost(locks, 2, l -> l.mutex("adopt").acquireAsync());
    await("the adopted node")
        .atMost(Duration.ofSeconds(10))
        .until(() -> nodesOf(locks).size() == 1);
    String adopted = nodesOf(locks).get(0);
    awaitAdopted(adopted);

    raw().delete(adopted, -1); // an operator removes the waiting request's node
    await("queued again with a new node")
        .atMost(Duration.ofSeconds(10))
        .until(() -> nodesOf(locks).size() == 1 && !nodesOf(locks).contains(adopted));
    holder.release();
    LockHandle h = waiting.get(10, TimeUnit.SECONDS);
    assertThat(h.path()).isNotEqualTo(adopted);

    raw().delete(h.path(), -1); // and now the holder's node: a forced release

    assertThat(h.lost().get(10, TimeUnit.SECONDS).reason())
        .as("the forced release of the node granted after queueing again is reported")
        .isEqualTo(LockLostException.Reason.NODE_DELETED);
    assertThat(h.isHeld()).isFalse();
  }

  @Test
  void adoptedWaitingNode_sessionExpires_requeues_thenAForcedReleaseOfTheGrantIsReported()
      throws Exception {
    LockHandle holder = client("holder").mutex("adoptx").acquire();
    ZkLocks locks = proxied();
    CompletableFuture<LockHandle> waiting =
        withCreateReplyLost(locks, 2, l -> l.mutex("adoptx").acquireAsync());
    await("the adopted node")
        .atMost(Duration.ofSeconds(10))
        .until(() -> nodesOf(locks).size() == 1);
    awaitAdopted(nodesOf(locks).get(0));
    long oldSession = locks.sessionId();

    server.expireSession(oldSession);
    await("queued again on a new session")
        .atMost(Duration.ofSeconds(20))
        .until(() -> locks.sessionId() != oldSession && nodesOf(locks).size() == 1);
    holder.release();
    LockHandle h = waiting.get(10, TimeUnit.SECONDS);

    raw().delete(h.path(), -1);

    assertThat(h.lost().get(10, TimeUnit.SECONDS).reason())
        .as("the forced release of the node granted after queueing again is reported")
        .isEqualTo(LockLostException.Reason.NODE_DELETED);
    assertThat(h.isHeld()).isFalse();
  }

  // ------------------------------------------------ the token after an expiry

  @Test
  void waiterSessionExpires_requeues_tokenIsTheNewNodesCzxid() throws Exception {
    LockHandle holder = client("holder").mutex("token").acquire();
    ZkLocks locks = client("waiter");
    CompletableFuture<LockHandle> waiting = locks.mutex("token").acquireAsync();
    await().atMost(Duration.ofSeconds(10)).until(() -> nodesOf(locks).size() == 1);
    long firstCzxid = raw().exists(nodesOf(locks).get(0), false).getCzxid();
    long oldSession = locks.sessionId();

    server.expireSession(oldSession);
    await("queued again on a new session")
        .atMost(Duration.ofSeconds(20))
        .until(() -> locks.sessionId() != oldSession && nodesOf(locks).size() == 1);
    holder.release();
    LockHandle h = waiting.get(10, TimeUnit.SECONDS);

    Stat stat = raw().exists(h.path(), false);
    assertThat(stat.getEphemeralOwner()).isEqualTo(locks.sessionId());
    assertThat(h.fencingToken())
        .as("the token is the czxid of the node that holds, created on the new session")
        .isEqualTo(stat.getCzxid())
        .isGreaterThan(firstCzxid);
    h.release();
  }

  @Test
  void waiterSessionExpires_afterAnAdoption_tokenIsTheNewNodesCzxid() throws Exception {
    LockHandle holder = client("holder").mutex("tokena").acquire();
    ZkLocks locks = proxied();
    CompletableFuture<LockHandle> waiting =
        withCreateReplyLost(locks, 2, l -> l.mutex("tokena").acquireAsync());
    await().atMost(Duration.ofSeconds(10)).until(() -> nodesOf(locks).size() == 1);
    awaitAdopted(nodesOf(locks).get(0));
    long oldSession = locks.sessionId();

    server.expireSession(oldSession);
    await("queued again on a new session")
        .atMost(Duration.ofSeconds(20))
        .until(() -> locks.sessionId() != oldSession && nodesOf(locks).size() == 1);
    holder.release();
    LockHandle h = waiting.get(10, TimeUnit.SECONDS);

    assertThat(h.fencingToken()).isEqualTo(raw().exists(h.path(), false).getCzxid());
    h.release();
  }

  // ------------------------------------------------ withdrawn while recovering

  /** How a caller gives up. */
  enum GiveUp {
    TIMEOUT,
    CANCEL,
    INTERRUPT
  }

  @ParameterizedTest
  @ValueSource(strings = {"TIMEOUT", "CANCEL", "INTERRUPT"})
  void giveUpWhileTheCreatesOutcomeIsRecovered_leavesNoNode(GiveUp how) throws Exception {
    LockHandle holder = client("holder").mutex("rec").acquire();
    ZkLocks locks = proxied();
    DistributedLock lock = locks.mutex("rec");
    CompletableFuture<Object> outcome = new CompletableFuture<>();
    CompletableFuture<LockHandle> async = null;
    Thread waiter = null;
    proxy.muteReplies();
    switch (how) {
      case CANCEL -> async = lock.acquireAsync();
      case TIMEOUT, INTERRUPT -> {
        waiter =
            new Thread(
                () -> {
                  try {
                    outcome.complete(
                        how == GiveUp.TIMEOUT
                            ? lock.tryAcquire(Duration.ofSeconds(2))
                            : lock.acquire());
                  } catch (Throwable t) {
                    outcome.complete(t);
                  }
                });
        waiter.start();
      }
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 2);
    // The create was applied; its reply is lost with the connection, and no new connection is
    // let through: the request is recovering (the create's connection loss reaches the request
    // before the session is reported suspended) and cannot finish.
    proxy.refuse();
    awaitState(locks, SessionState.SUSPENDED);

    switch (how) {
      case CANCEL -> assertThat(async.cancel(true)).isTrue();
      case TIMEOUT ->
          assertThat(outcome.get(10, TimeUnit.SECONDS)).as("timed out").isEqualTo(Optional.empty());
      case INTERRUPT -> {
        waiter.interrupt();
        assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
      }
    }
    assertThat(locks.sessionState()).as("still disconnected").isEqualTo(SessionState.SUSPENDED);
    proxy.pass();

    awaitState(locks, SessionState.CONNECTED);
    await("the node of the withdrawn request is deleted once reconnected")
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(() -> assertThat(lockNodes()).containsExactly(holder.path()));
    holder.release();
  }

  // ------------------------------------------------ an expiry the client does not see happen

  @ParameterizedTest
  @ValueSource(strings = {"mutex", "simple", "read", "semaphore"})
  void sessionExpiresWhileDisconnected_theHolderIsToldOnReconnecting(String kind) throws Exception {
    ZkLocks locks = proxied();
    LockHandle held =
        switch (kind) {
          case "mutex" -> locks.mutex("gone").acquire();
          case "simple" -> locks.simpleLock("gone").acquire();
          case "read" -> locks.readWriteLock("gone").readLock().acquire();
          default -> locks.semaphore("gone", 1).acquire();
        };
    awaitDataWatch(held.path()); // the delayed watch on the holder's own node is set
    long session = locks.sessionId();
    proxy.refuse();
    awaitState(locks, SessionState.SUSPENDED);

    server.expireSession(session); // the node goes while the client hears nothing
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().isEmpty());
    proxy.pass();

    LockLostException lost = held.lost().get(20, TimeUnit.SECONDS);
    assertThat(lost.reason()).isEqualTo(LockLostException.Reason.SESSION_EXPIRED);
    assertThat(held.isHeld()).isFalse();
  }

  @Test
  void sessionExpiresWhileDisconnected_aWaiterQueuesAgainOnTheNewSession() throws Exception {
    LockHandle holder = client("holder").mutex("dq").acquire();
    ZkLocks locks = proxied();
    CompletableFuture<LockHandle> waiting = locks.mutex("dq").acquireAsync();
    await().atMost(Duration.ofSeconds(10)).until(() -> nodesOf(locks).size() == 1);
    long session = locks.sessionId();
    proxy.refuse();
    awaitState(locks, SessionState.SUSPENDED);

    server.expireSession(session);
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 1);
    proxy.pass();
    await("queued again on a new session")
        .atMost(Duration.ofSeconds(20))
        .until(() -> locks.sessionId() != session && nodesOf(locks).size() == 1);
    holder.release();

    LockHandle h = waiting.get(10, TimeUnit.SECONDS);
    assertThat(h.isHeld()).isTrue();
    assertThat(raw().exists(h.path(), false).getEphemeralOwner()).isEqualTo(locks.sessionId());
    h.release();
  }

  // ------------------------------------------------ isHeld() turns false first

  @ParameterizedTest
  @ValueSource(strings = {"mutex", "simple"})
  void forcedRelease_isHeldTurnsFalseWhenTheDeletionIsSeen_beforeLostCompletes(String kind)
      throws Exception {
    // Every chunk through the proxy waits DELAY: the deletion's event reaches the holder DELAY
    // after it happened, and finding out why the node went takes one more round trip (2 x DELAY)
    // before lost() can complete. isHeld() must be false during that round trip.
    long delayMillis = 400;
    ZkLocks locks = proxied();
    LockHandle held =
        kind.equals("mutex") ? locks.mutex("seen").acquire() : locks.simpleLock("seen").acquire();
    proxy.delay(Duration.ofMillis(delayMillis));
    awaitDataWatch(held.path()); // the holder's own-node watch is set

    raw().delete(held.path(), -1);
    await("isHeld() turns false")
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(5))
        .until(() -> !held.isHeld());
    long notHeldAt = System.nanoTime();
    assertThat(held.isHeld()).as("isHeld() turned false").isFalse();
    LockLostException lost = held.lost().get(20, TimeUnit.SECONDS);
    long lostAfterMillis = (System.nanoTime() - notHeldAt) / 1_000_000;

    assertThat(lost.reason()).isEqualTo(LockLostException.Reason.NODE_DELETED);
    assertThat(lostAfterMillis)
        .as("lost() completed this long after isHeld() turned false (one delayed round trip)")
        .isGreaterThanOrEqualTo(delayMillis);
  }
}
