package io.zklock.internal.engine;

import static io.zklock.internal.engine.EngineFixture.DIR;
import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.internal.engine.EngineFixture.Started;
import io.zklock.internal.engine.LockRequest.State;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The exclusive rule's look-ahead, on the fake: a waiter at depth three watches its predecessor and
 * the node before it; when that one goes, one listing tells it that its predecessor is now the
 * head, and the predecessor's deletion is then its grant, with no request after the notification.
 * The listing is read where the protocol lives, apart from the listing's own package: a lookup that
 * silently fell back to {@code List.indexOf(Object)} would miss our node and read again.
 */
class LookAheadTest {
  private final EngineFixture f = new EngineFixture();
  private final FakeZooKeeper zk = f.zk;

  private List<String> sentOps() {
    return zk.sent().stream().map(s -> s.op() + " " + s.path()).toList();
  }

  @Test
  void depthThree_oneListingWhenTheHeadGoes_thenTheGrantNeedsNoRequest() {
    String head = f.otherQueues();
    String predecessor = f.otherQueues();
    Started r = f.acquire();
    f.settle();
    assertThat(r.state()).isEqualTo(State.WAITING);

    zk.clearSent();
    zk.delete(head); // the head releases: the look-ahead fires
    f.settle();

    assertThat(sentOps())
        .as("one listing, which finds our node and learns the predecessor is the head")
        .containsExactly("getChildren " + DIR);

    zk.clearSent();
    zk.delete(predecessor);
    f.settle();

    assertThat(r.state()).isEqualTo(State.HELD);
    assertThat(zk.sent()).as("granted by the notification alone").isEmpty();
  }
}
