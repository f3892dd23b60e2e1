package io.zklock.internal.engine;

import static io.zklock.internal.engine.EngineFixture.DIR;
import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.internal.engine.EngineFixture.Started;
import io.zklock.internal.engine.LockRequest.State;
import io.zklock.internal.rules.ErrorKind;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException.Code;
import org.junit.jupiter.api.Test;

/**
 * The engine's sites that read {@link ErrorKind}, each met with the codes whose handling the one
 * classifier changed. Before it, SESSIONMOVED was a retry in some places and a failure or nothing
 * in others (a request stuck in CREATING, a release failed, a listing never sent again), and a lock
 * directory whose create met the session's expiry failed the request. A moved session is alive:
 * what was ignored is sent again once connected; an ended one is the session's news.
 */
class ErrorKindEngineTest {
  private final EngineFixture f = new EngineFixture();
  private final FakeZooKeeper zk = f.zk;

  @Test
  void createAnsweredSessionMoved_recoversAsAfterAConnectionLoss_andIsGranted() {
    zk.failNextRequest(Code.SESSIONMOVED); // the create: ignored by a server that lost the session
    Started r = f.acquire();
    f.settle();

    assertThat(r.state())
        .as("not stuck waiting for session news that never comes")
        .isEqualTo(State.HELD);
    assertThat(f.nodes())
        .as("one node: the create never happened, so it was sent again")
        .hasSize(1);
  }

  @Test
  void createAnsweredSessionExpired_withNoNewsToCome_createsAgain_andIsGranted() {
    // a create sent on the handle of a session whose end was already told (it took the connection
    // just before the session was declared lost): the handle refuses it, SESSIONEXPIRED, and the
    // session's news, which would queue the request again, has passed
    zk.failNextRequest(Code.SESSIONEXPIRED);
    Started r = f.acquire();
    f.settle();

    assertThat(r.state())
        .as("not stuck waiting for the session's news, which has passed")
        .isEqualTo(State.HELD);
    assertThat(f.nodes()).as("one node: the refused create made none").hasSize(1);
  }

  @Test
  void releaseAnsweredSessionMoved_isSentAgain_andTheNodeGoes() {
    Started r = f.acquire();
    f.settle();
    LockHandle h = r.handle();

    zk.failNextRequest(Code.SESSIONMOVED); // the delete
    CompletableFuture<Void> released = h.releaseAsync();
    f.settle();

    assertThat(released).as("a moved session's release is retried, not failed").isCompleted();
    assertThat(released.isCompletedExceptionally()).isFalse();
    assertThat(f.nodes()).as("the node is gone").isEmpty();
  }

  @Test
  void listingAnsweredSessionMoved_isSentAgain_soTheWaiterHearsTheHandoff() {
    String other = f.otherQueues();
    Started r = f.acquire();
    zk.deliverNext(); // the create is applied and answered
    zk.failNextRequest(Code.SESSIONMOVED); // the listing pipelined behind it
    f.settle();
    assertThat(r.state()).isEqualTo(State.WAITING);

    zk.delete(other); // the holder releases
    f.settle();

    assertThat(r.state())
        .as("the listing was sent again, and the waiter watched")
        .isEqualTo(State.HELD);
  }

  @Test
  void ownNodeWatchAnsweredSessionMoved_isSetAgain_soADeletionIsStillNoticed() {
    Started r = f.acquire();
    f.settle();
    LockHandle h = r.handle();
    zk.failNextRequest(Code.SESSIONMOVED); // the exists that sets the own-node watch
    f.scheduler.advance(Duration.ofMillis(LockRequest.OWN_WATCH_DELAY_MILLIS));
    f.settle();

    zk.delete(h.path()); // an operator's forced release
    f.settle();

    assertThat(r.state()).as("the holder must hear of it").isEqualTo(State.LOST);
    assertThat(h.lost().join().reason()).isEqualTo(LockLostException.Reason.NODE_DELETED);
  }

  @Test
  void lockDirectoryCreate_meetsTheSessionsExpiry_theRequestGoesOnOnTheNextSession() {
    zk.delete(DIR); // the server reaped the empty container
    Started r = f.acquire();
    zk.deliverNext(); // the create: NONODE
    zk.deliverNext(); // its listing: NONODE; the directory's create is now sent
    f.expireAndRenew(); // ... and meets the session's end
    f.settle();

    assertThat(r.state())
        .as("not failed: the session's end is not the request's")
        .isEqualTo(State.HELD);
    assertThat(r.handle().isHeld()).isTrue();
    assertThat(zk.exists(DIR)).isTrue();
    assertThat(f.nodes()).hasSize(1);
  }
}
