package io.zklock.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.internal.engine.LockRequest.State;
import io.zklock.internal.protocol.QueueProtocol;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.Ordering;
import io.zklock.internal.rules.Waiting;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.zookeeper.KeeperException.Code;
import org.junit.jupiter.api.Test;

/**
 * What a waiting request tells of its place ({@link Ticket#onQueued}, the lock events' {@code
 * QUEUED}): a place once. A request that lists again without moving (its watch's request lost with
 * the connection, say) has no news to tell.
 */
class QueuedPositionTest {
  private final EngineFixture f = new EngineFixture();
  private final FakeZooKeeper zk = f.zk;
  private final List<Integer> told = new CopyOnWriteArrayList<>();

  private LockRequest waiter() {
    Ticket ticket = new Ticket(f.ctx, Waiting.FOREVER).onQueued(told::add);
    LockRequest r =
        new LockRequest(
            "orders",
            new QueueProtocol(
                EngineFixture.DIR, NodeKind.MUTEX, Ordering.forKind(NodeKind.MUTEX), Map.of()),
            f.ctx,
            ticket,
            x -> x);
    r.start();
    return r;
  }

  @Test
  void watchLostWithTheConnection_listsAgainAtTheSamePlace_toldOnce() {
    f.otherQueues();
    LockRequest r = waiter();
    zk.deliverNext(); // the create
    zk.deliverNext(); // the listing: queued behind one, the watch on it is sent next
    assertThat(told).containsExactly(1);

    zk.failNextRequest(Code.CONNECTIONLOSS); // the watch's request
    f.settle();

    assertThat(r.state()).isEqualTo(State.WAITING);
    assertThat(told).as("listed again, still behind the same one").containsExactly(1);
  }
}
