package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.testkit.FaultProxy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Connections dropped at the worst moments: right after a create, during a wait, during a release.
 */
class ConnectionFaultsTest extends ZkTestSupport {
  private FaultProxy proxy;

  @BeforeEach
  void startProxy() {
    proxy = FaultProxy.start(server.connectString());
  }

  @AfterEach
  void stopProxy() {
    proxy.close();
  }

  /** A client whose connection runs through the fault proxy. */
  private ZkLocks proxied(ZkLocks.Builder b) {
    return track(
        ZkLocks.builder(proxy.connectString())
            .namespace(namespace)
            .sessionTimeout(Duration.ofSeconds(20))
            .build());
  }

  private ZkLocks proxied() {
    return proxied(null);
  }

  /** Drops the connection after the server applied the request but before the reply arrived. */
  private void loseRepliesOnceTheServerHas(int lockNodes) {
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == lockNodes);
    proxy.cut();
    proxy.pass();
  }

  @Test
  void createReplyLost_nodeIsAdopted_notOrphanedNorDuplicated() throws Exception {
    ZkLocks locks = proxied();
    createDir("adopt"); // so that the create itself succeeds: it is its reply that gets lost
    proxy.muteReplies();

    CompletableFuture<LockHandle> f = locks.mutex("adopt").acquireAsync();
    loseRepliesOnceTheServerHas(1);

    LockHandle h = f.get(20, TimeUnit.SECONDS);
    assertThat(lockNodes())
        .as("the one node the lost create made, adopted")
        .containsExactly(h.path());
    assertThat(h.fencingToken()).isEqualTo(raw().exists(h.path(), false).getCzxid());
    h.release();
    assertNoLockNodes();
  }

  @Test
  void createReplyLost_whileContended_waiterAdoptsItsNode_andGetsTheLockLater() throws Exception {
    LockHandle holder = client().mutex("c").acquire();
    ZkLocks locks = proxied();
    proxy.muteReplies();

    CompletableFuture<LockHandle> f = locks.mutex("c").acquireAsync();
    loseRepliesOnceTheServerHas(2);
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(5))
        .until(() -> lockNodes().size() == 2);
    assertThat(f).isNotDone();

    holder.release();

    LockHandle h = f.get(20, TimeUnit.SECONDS);
    assertThat(lockNodes()).containsExactly(h.path());
    h.release();
    assertNoLockNodes();
  }

  @Test
  void timeoutDuringConnectionLoss_withdrawsTheNodeOnceReconnected() throws Exception {
    LockHandle holder = client().mutex("t").acquire();
    ZkLocks locks = proxied();
    proxy.muteReplies();

    CompletableFuture<Optional<LockHandle>> t =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return locks.mutex("t").tryAcquire(Duration.ofMillis(500));
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 2);

    assertThat(t.get(10, TimeUnit.SECONDS)).as("timed out").isEmpty();
    proxy.cut();
    proxy.pass();

    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(() -> assertThat(lockNodes()).containsExactly(holder.path()));
    holder.release();
  }

  @Test
  void cancelDuringConnectionLoss_withdrawsTheNodeOnceReconnected() throws Exception {
    LockHandle holder = client().mutex("x").acquire();
    ZkLocks locks = proxied();
    proxy.muteReplies();
    CompletableFuture<LockHandle> f = locks.mutex("x").acquireAsync();
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 2);

    f.cancel(true);
    proxy.cut();
    proxy.pass();

    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(() -> assertThat(lockNodes()).containsExactly(holder.path()));
    holder.release();
  }

  @Test
  void releaseDuringConnectionLoss_isCompletedOnceReconnected() throws Exception {
    ZkLocks locks = proxied();
    LockHandle h = locks.mutex("r").acquire();
    proxy.blackhole();

    CompletableFuture<Void> released = h.releaseAsync();

    assertThat(h.isHeld()).isFalse();
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(5))
        .until(() -> !released.isDone());
    assertThat(lockNodes())
        .as("not deleted while the connection is held")
        .containsExactly(h.path());
    proxy.cut();
    proxy.pass();
    released.get(20, TimeUnit.SECONDS);
    assertNoLockNodes();
  }

  @Test
  void deleteReplyLost_releaseStillCompletes() throws Exception {
    ZkLocks locks = proxied();
    LockHandle h = locks.mutex("d").acquire();
    proxy.muteReplies();

    CompletableFuture<Void> released = h.releaseAsync();
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().isEmpty());
    proxy.cut();
    proxy.pass();

    released.get(20, TimeUnit.SECONDS);
    assertNoLockNodes();
  }

  @Test
  void cutConnection_suspendedThenConnected_sameSession_lockStillHeld() throws Exception {
    ZkLocks locks = proxied();
    List<SessionState> states = new CopyOnWriteArrayList<>();
    locks.addSessionListener((s, id) -> states.add(s));
    long session = locks.sessionId();
    LockHandle h = locks.mutex("cut").acquire();

    proxy.cut();

    await().atMost(Duration.ofSeconds(20)).until(() -> states.contains(SessionState.CONNECTED));
    assertThat(states).containsExactly(SessionState.SUSPENDED, SessionState.CONNECTED);
    assertThat(locks.sessionId()).isEqualTo(session);
    assertThat(h.isHeld()).isTrue();
    assertThat(h.lost()).isNotDone();
    h.release();
    assertNoLockNodes();
  }

  @Test
  void treatSuspensionAsLoss_cutConnection_holderIsToldAndNodeIsDeleted() throws Exception {
    ZkLocks locks =
        track(
            ZkLocks.builder(proxy.connectString())
                .namespace(namespace)
                .sessionTimeout(Duration.ofSeconds(20))
                .suspensionPolicy(SuspensionPolicy.TREAT_AS_LOST)
                .build());
    LockHandle h = locks.mutex("strict").acquire();

    proxy.cut();

    assertThat(h.lost().get(10, TimeUnit.SECONDS).reason())
        .isEqualTo(LockLostException.Reason.SUSPENDED);
    assertThat(h.isHeld()).isFalse();
    await().atMost(Duration.ofSeconds(20)).untilAsserted(this::assertNoLockNodes);
    assertThat(client().mutex("strict").tryAcquire())
        .as("free for others")
        .hasValueSatisfying(LockHandle::release);
  }

  @Test
  void tryAcquire_whileDisconnected_failsAtOnceRatherThanGuess() {
    ZkLocks locks = proxied();
    proxy.refuse();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> locks.sessionState() == SessionState.SUSPENDED);

    long start = System.nanoTime();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> locks.mutex("offline").tryAcquire())
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("not connected");
    // waiting for the connection would wait until the proxy passes again: any bound far below that
    // tells the two apart, and a loaded machine can stall a thread for a second
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    proxy.pass();
  }

  @Test
  void simpleLock_createReplyLost_nodeIsReadBackAndAdopted() throws Exception {
    ZkLocks locks = proxied();
    createDir("simple");
    proxy.muteReplies();

    CompletableFuture<LockHandle> f = locks.simpleLock("simple").acquireAsync();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> raw().exists(dir("simple") + "/x-lock", false) != null);
    proxy.cut();
    proxy.pass();

    LockHandle h = f.get(20, TimeUnit.SECONDS);
    assertThat(h.path()).isEqualTo(dir("simple") + "/x-lock");
    assertThat(h.fencingToken()).isEqualTo(raw().exists(h.path(), false).getCzxid());
    assertThat(client().simpleLock("simple").tryAcquire()).as("held: by us").isEmpty();
    h.release();
    assertThat(raw().exists(dir("simple") + "/x-lock", false)).isNull();
  }

  @Test
  void simpleLock_deleteReplyLost_releaseCompletes_andDoesNotDeleteTheNextHolders()
      throws Exception {
    ZkLocks locks = proxied();
    LockHandle h = locks.simpleLock("s2").acquire();
    proxy.muteReplies();

    CompletableFuture<Void> released = h.releaseAsync();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> raw().exists(dir("s2") + "/x-lock", false) == null);
    LockHandle next = client().simpleLock("s2").acquire(); // someone else takes it meanwhile
    proxy.cut();
    proxy.pass();

    released.get(20, TimeUnit.SECONDS);
    assertThat(raw().exists(next.path(), false))
        .as("the retried delete spared the new holder's node")
        .isNotNull();
    assertThat(next.isHeld()).isTrue();
    next.release();
  }

  @Test
  void semaphore_cancelDuringConnectionLoss_leavesNoNodes() throws Exception {
    // the admission queue's directory made PERSISTENT beforehand: as the library makes it, a
    // CONTAINER, the server reclaims it (within a second here) once the first client's admission
    // node is gone; the proxied client's create then meets NONODE, and the directory's creation
    // waits for that reply, which the proxy holds: its admission node would never reach the server
    ZkLocks first = client(); // makes the namespace
    createDir("sem");
    String queue = dir("sem") + "/queue";
    raw().create(queue, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    LockHandle lease = first.semaphore("sem", 1).acquire();
    // the first client's admission is released after its lease is granted, in the background
    await().atMost(Duration.ofSeconds(10)).until(() -> raw().getChildren(queue, false).isEmpty());
    ZkLocks locks = proxied();
    proxy.muteReplies();
    CompletableFuture<LockHandle> f = locks.semaphore("sem", 1).acquireAsync();
    // its admission node: applied by the server, unanswered (no lease can follow unanswered)
    await().atMost(Duration.ofSeconds(10)).until(() -> raw().getChildren(queue, false).size() == 1);
    assertThat(lockNodes()).hasSize(2);

    f.cancel(true);
    proxy.cut();
    proxy.pass();

    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(() -> assertThat(lockNodes()).containsExactly(lease.path()));
    lease.release();
  }
}
