package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link ZkLocks#forceRelease}: the holder's node is deleted, the holder hears {@code
 * NODE_DELETED}, the next waiter is granted with a greater token.
 */
class ForceReleaseTest extends ZkTestSupport {

  private static LockLostException lostWithin10s(LockHandle h) throws Exception {
    return h.lost().get(10, TimeUnit.SECONDS);
  }

  @Test
  void mutex_holderHearsNodeDeleted_nextWaiterGranted() throws Exception {
    LockHandle held = client("stuck").mutex("job").acquire();
    awaitDataWatch(held.path()); // the holder's own-node watch is set: the watch path
    CompletableFuture<LockHandle> next = client("next").mutex("job").acquireAsync();
    ZkLocks operator = client("operator");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> operator.inspect("job").orElseThrow().waiters().size() == 1);

    List<LockNode> released = operator.forceRelease("job");

    assertThat(released).extracting(LockNode::path).containsExactly(held.path());
    assertThat(released.get(0).clientName()).isEqualTo("stuck");
    LockLostException lost = lostWithin10s(held);
    assertThat(lost.reason()).isEqualTo(LockLostException.Reason.NODE_DELETED);
    assertThat(lost.path()).isEqualTo(held.path());
    assertThat(held.isHeld()).isFalse();
    LockHandle got = next.get(10, TimeUnit.SECONDS);
    assertThat(got.fencingToken()).isGreaterThan(held.fencingToken());
    held.release(); // harmless after the loss
    got.release();
    awaitNoLockNodes();
  }

  @Test
  void mutex_forcedRightAfterGrant_beforeTheOwnNodeWatchIsSet_holderStillHears() throws Exception {
    ZkLocks operator = client("operator");
    ZkLocks holder = client("holder");
    // the grant's own callback deletes the node at once, well inside the 50 ms before the holder's
    // own-node watch is set: the holder must learn of it when it sets the watch
    CompletableFuture<List<LockNode>> forced = new CompletableFuture<>();
    CompletableFuture<LockHandle> granted =
        holder
            .mutex("job")
            .acquireAsync()
            .thenApply(
                h -> {
                  try {
                    raw().delete(h.path(), -1);
                    forced.complete(List.of());
                  } catch (Exception e) {
                    forced.completeExceptionally(e);
                  }
                  return h;
                });
    LockHandle h = granted.get(10, TimeUnit.SECONDS);
    forced.get(10, TimeUnit.SECONDS);

    LockLostException lost = lostWithin10s(h);
    assertThat(lost.reason()).isEqualTo(LockLostException.Reason.NODE_DELETED);
    assertThat(h.isHeld()).isFalse();
    assertThat(operator.mutex("job").tryAcquire())
        .as("free again")
        .isPresent()
        .get()
        .satisfies(LockHandle::release);
  }

  @Test
  void mutex_forceReleaseByTheApiRightAfterGrant_holderHearsIt() throws Exception {
    ZkLocks operator = client("operator");
    LockHandle h = client("holder").mutex("job").acquire();

    List<LockNode> released = operator.forceRelease("job");

    assertThat(released).extracting(LockNode::path).containsExactly(h.path());
    assertThat(lostWithin10s(h).reason()).isEqualTo(LockLostException.Reason.NODE_DELETED);
  }

  @Test
  void simpleLock_holderHearsNodeDeleted_andAReleasedHolderIsNotDeletedTwice() throws Exception {
    ZkLocks operator = client("operator");
    LockHandle held = client("stuck").simpleLock("nightly").acquire();
    LockNode snapshot = operator.inspect("nightly").orElseThrow().holders().get(0);

    assertThat(operator.forceRelease("nightly"))
        .extracting(LockNode::path)
        .containsExactly(held.path());
    assertThat(lostWithin10s(held).reason()).isEqualTo(LockLostException.Reason.NODE_DELETED);

    // a later holder reuses the node's name: the old snapshot must not release it
    LockHandle later = client("later").simpleLock("nightly").acquire();
    assertThat(operator.forceRelease(snapshot)).as("the old holder's node is gone").isFalse();
    assertThat(later.isHeld()).isTrue();
    assertThat(later.lost()).isNotDone();
    later.release();
  }

  @Test
  void readWrite_everyHoldingReaderIsReleased_theWaitingWriterIsGranted() throws Exception {
    LockHandle r1 = client().readWriteLock("rw").readLock().acquire();
    LockHandle r2 = client().readWriteLock("rw").readLock().acquire();
    CompletableFuture<LockHandle> w = client().readWriteLock("rw").writeLock().acquireAsync();
    ZkLocks operator = client("operator");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> operator.inspect("rw").orElseThrow().waiters().size() == 1);

    assertThat(operator.forceRelease("rw"))
        .extracting(LockNode::path)
        .containsExactly(r1.path(), r2.path());

    assertThat(lostWithin10s(r1).reason()).isEqualTo(LockLostException.Reason.NODE_DELETED);
    assertThat(lostWithin10s(r2).reason()).isEqualTo(LockLostException.Reason.NODE_DELETED);
    w.get(10, TimeUnit.SECONDS).release();
  }

  @Test
  void semaphore_everyHeldLeaseIsReleased_waitersGetThePermits() throws Exception {
    List<LockHandle> held = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      held.add(client().semaphore("quota", 2).acquire());
    }
    CompletableFuture<LockHandle> w1 = client().semaphore("quota", 2).acquireAsync();
    CompletableFuture<LockHandle> w2 = client().semaphore("quota", 2).acquireAsync();
    ZkLocks operator = client("operator");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> operator.inspect("quota").orElseThrow().waiters().size() == 2);

    assertThat(operator.forceRelease("quota"))
        .extracting(LockNode::path)
        .containsExactly(held.get(0).path(), held.get(1).path());

    for (LockHandle h : held) {
      assertThat(lostWithin10s(h).reason()).isEqualTo(LockLostException.Reason.NODE_DELETED);
    }
    LockHandle g1 = w1.get(10, TimeUnit.SECONDS);
    LockHandle g2 = w2.get(10, TimeUnit.SECONDS);
    assertThat(g1.isHeld() && g2.isHeld()).isTrue();
    g1.release();
    g2.release();
  }

  @Test
  void election_leaderIsRevoked_theNextParticipantLeads() throws Exception {
    LeaderElectionTest.Recorder first = new LeaderElectionTest.Recorder();
    LeaderElection e0 = track(client("p0").leaderElection("scheduler", "node-0"));
    e0.addListener(first);
    e0.start();
    assertThat(e0.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    long epoch = e0.epoch().orElseThrow();
    LeaderElection e1 = track(client("p1").leaderElection("scheduler", "node-1"));
    e1.start();
    ZkLocks operator = client("operator");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> operator.inspect("scheduler").orElseThrow().waiters().size() == 1);

    List<LockNode> released = operator.forceRelease("scheduler");

    assertThat(released).extracting(n -> n.participantId().orElseThrow()).containsExactly("node-0");
    assertThat(e1.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    assertThat(e1.epoch().orElseThrow()).isGreaterThan(epoch);
    await().atMost(Duration.ofSeconds(10)).until(() -> first.events.contains("revoked " + epoch));
  }

  @Test
  void freeOrMissingLock_releasesNothing_foreignNodeIsRefused() throws Exception {
    ZkLocks operator = client("operator");
    assertThat(operator.forceRelease("nobody/here")).isEmpty();
    assertThat(operator.requestRelease("nobody/here")).isEmpty();
    LockHandle h = client().mutex("x").acquire();
    LockNode node = operator.inspect("x").orElseThrow().holders().get(0);
    ZkLocks other = track(builder().namespace(namespace + "-other").build());
    assertThatThrownBy(() -> other.forceRelease(node))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(node.path());
    assertThat(h.isHeld()).isTrue();
    assertThat(operator.forceRelease(node)).isTrue();
    assertThat(operator.forceRelease(node)).as("already gone").isFalse();
  }
}
