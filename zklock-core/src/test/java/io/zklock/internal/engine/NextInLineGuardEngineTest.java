package io.zklock.internal.engine;

import static io.zklock.internal.engine.EngineFixture.DIR;
import static io.zklock.internal.engine.EngineFixture.OTHER_SESSION;
import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.ZkLockException;
import io.zklock.internal.engine.EngineFixture.Started;
import io.zklock.internal.engine.LockRequest.State;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.Ordering;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;

/**
 * The waiter next in line is granted when its predecessor goes. In the modes that share a queue
 * with other libraries' clients (the Curator- and kazoo-compatible kinds), it lists the directory
 * first, so that a client that joined after its last listing and skips zklock's names (kazoo's Lock
 * beside Curator's names, Curator's mutex beside kazoo's) is seen, and refused, rather than held
 * beside; plain mode grants on the notification alone, as before (a foreign client there holds
 * beside the head from the moment it joins: ClientOrder).
 */
class NextInLineGuardEngineTest {
  private final EngineFixture f = new EngineFixture();
  private final FakeZooKeeper zk = f.zk;

  private Started queue(EngineFixture client, NodeKind kind) {
    return client.queue(kind, Ordering.forKind(kind), false, 0, false);
  }

  private static String name(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  /** A kazoo client's Lock node: it skips Curator's names, so it holds at once. */
  private String kazooJoins() {
    return name(
        zk.create(
            OTHER_SESSION,
            DIR + "/3e2becd2a0f54b7e9d1c6b2a8f7e4d10__lock__",
            CreateMode.EPHEMERAL_SEQUENTIAL));
  }

  /**
   * A Curator InterProcessMutex node: it sorts kazoo's names after its own, so it holds at once.
   */
  private String curatorJoins() {
    return name(
        zk.create(
            OTHER_SESSION,
            DIR + "/_c_0b3c4d5e-6f70-4182-93a4-b5c6d7e8f901-lock-",
            CreateMode.EPHEMERAL_SEQUENTIAL));
  }

  private static Throwable failure(Started r) {
    assertThat(r.future()).as("failed").isCompletedExceptionally();
    try {
      r.future().getNow(null);
      throw new AssertionError("not failed");
    } catch (java.util.concurrent.CompletionException e) {
      return e.getCause();
    }
  }

  private long listings() {
    return zk.sent().stream().filter(s -> s.op().startsWith("getChildren")).count();
  }

  @Test
  void
      aCuratorCompatibleWaiterNextInLine_isRefused_notGrantedBesideAKazooNodeThatJoinedMeanwhile() {
    EngineFixture other = f.otherClient(0x2002);
    Started holder = queue(other, NodeKind.CURATOR_MUTEX);
    f.settle();
    Started next = queue(f, NodeKind.CURATOR_MUTEX);
    f.settle();
    assertThat(next.state()).isEqualTo(State.WAITING);

    String kazoo = kazooJoins(); // holds at once: it skips Curator's names
    f.settle();
    holder.handle().releaseAsync();
    f.settle();

    assertThat(failure(next)).isInstanceOf(ZkLockException.class).hasMessageContaining(kazoo);
    assertThat(f.nodes()).containsExactly(kazoo);
  }

  @Test
  void
      aKazooCompatibleWaiterNextInLine_isRefused_notGrantedBesideACuratorNodeThatJoinedMeanwhile() {
    EngineFixture other = f.otherClient(0x2002);
    Started holder = queue(other, NodeKind.KAZOO_LOCK);
    f.settle();
    Started next = queue(f, NodeKind.KAZOO_LOCK);
    f.settle();

    String curator = curatorJoins();
    f.settle();
    holder.handle().releaseAsync();
    f.settle();

    assertThat(failure(next)).hasMessageContaining(curator);
    assertThat(f.nodes()).containsExactly(curator);
  }

  @Test
  void aCompatibleWaiterBehindItsOwnSessionsHolder_isRefused_besideAKazooNodeThatJoinedMeanwhile() {
    Started holder = queue(f, NodeKind.CURATOR_MUTEX);
    f.settle();
    Started second = queue(f, NodeKind.CURATOR_MUTEX);
    Started third = queue(f, NodeKind.CURATOR_MUTEX);
    f.settle();

    String kazoo = kazooJoins();
    f.settle();
    holder.handle().releaseAsync();
    f.settle();

    assertThat(second.state()).as("not granted beside kazoo").isNotEqualTo(State.HELD);
    assertThat(third.state()).as("not granted beside kazoo").isNotEqualTo(State.HELD);
    assertThat(failure(second)).hasMessageContaining(kazoo);
    assertThat(failure(third)).hasMessageContaining(kazoo);
    assertThat(f.nodes()).containsExactly(kazoo);
  }

  @Test
  void aCompatibleWaiterNextInLine_withNothingJoined_isGrantedOnOneListing() {
    EngineFixture other = f.otherClient(0x2002);
    Started holder = queue(other, NodeKind.CURATOR_MUTEX);
    f.settle();
    Started next = queue(f, NodeKind.CURATOR_MUTEX);
    f.settle();
    zk.clearSent();

    holder.handle().releaseAsync();
    f.settle();

    assertThat(next.state()).isEqualTo(State.HELD);
    assertThat(listings()).as("one listing before the grant").isOne();
  }

  @Test
  void aPlainWaiterNextInLine_isGrantedOnTheNotificationAlone_noListing() {
    EngineFixture other = f.otherClient(0x2002);
    Started holder = queue(other, NodeKind.MUTEX);
    f.settle();
    Started next = queue(f, NodeKind.MUTEX);
    f.settle();
    zk.clearSent();

    holder.handle().releaseAsync();
    f.settle();

    assertThat(next.state()).isEqualTo(State.HELD);
    assertThat(listings()).as("plain mode: no listing after the notification").isZero();
  }
}
