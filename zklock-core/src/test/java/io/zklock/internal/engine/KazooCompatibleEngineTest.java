package io.zklock.internal.engine;

import static io.zklock.internal.engine.EngineFixture.DIR;
import static io.zklock.internal.engine.EngineFixture.OTHER_SESSION;
import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.ZkLockException;
import io.zklock.internal.engine.EngineFixture.Started;
import io.zklock.internal.engine.LockRequest.State;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.Ordering;
import java.util.HexFormat;
import java.util.Random;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;

/**
 * The kazoo-compatible kinds on the fake ZooKeeper: a request names its node as kazoo's recipes do,
 * queues behind kazoo's nodes and is granted when they go; it refuses nodes of another naming
 * (which kazoo's clients skip) and a counter kazoo would order otherwise; a plain request refuses
 * kazoo's nodes, naming the option that shares their queue.
 */
class KazooCompatibleEngineTest {
  private final EngineFixture f = new EngineFixture();
  private final FakeZooKeeper zk = f.zk;
  private final Random random = new Random(50);

  private String hex32() {
    byte[] b = new byte[16];
    random.nextBytes(b);
    return HexFormat.of().formatHex(b);
  }

  /** A kazoo client queues, as its Lock (or, {@code reader}, its ReadLock) names its node. */
  private String kazooQueues(boolean reader) {
    return name(
        zk.create(
            OTHER_SESSION,
            DIR + "/" + hex32() + (reader ? "__rlock__" : "__lock__"),
            CreateMode.EPHEMERAL_SEQUENTIAL));
  }

  private static String name(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  private Started kazooCompatible(NodeKind kind) {
    return f.queue(kind, Ordering.forKind(kind), false, 0, false);
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

  @Test
  void theLockDirectory_isMadePersistent_asKazooMakesIt_whereAPlainLockMakesAContainer() {
    // kazoo's Lock makes its path once per lock object, then creates in it without making it
    // again: a container the server reaped while empty would fail its next acquire (NoNodeError)
    zk.delete(DIR);
    Started kazoo = kazooCompatible(NodeKind.KAZOO_LOCK);
    f.settle();
    assertThat(kazoo.future()).as("granted in the directory it made").isCompleted();
    assertThat(zk.exists(DIR)).isTrue();
    assertThat(zk.isContainer(DIR)).as("kazoo-compatible: persistent").isFalse();

    kazoo.request().releaseAsync();
    f.settle();
    zk.delete(DIR);
    Started plain = f.queue(NodeKind.MUTEX, Ordering.forKind(NodeKind.MUTEX), false, 0, false);
    f.settle();
    assertThat(plain.future()).isCompleted();
    assertThat(zk.isContainer(DIR)).as("plain: a container").isTrue();
  }

  @Test
  void behindAKazooHolder_theRequestWaits_namedAsKazooNamesItsNodes_andHoldsWhenItGoes() {
    String kazoo = kazooQueues(false);
    Started r = kazooCompatible(NodeKind.KAZOO_LOCK);

    f.settle();

    assertThat(r.future()).as("waits behind kazoo's holder").isNotDone();
    assertThat(r.request().state()).isEqualTo(State.WAITING);
    String ours = f.nodes().stream().filter(n -> !n.equals(kazoo)).findFirst().orElseThrow();
    assertThat(ours).matches("[0-9a-f]{32}__lock__[0-9]{10}");

    zk.delete(DIR + "/" + kazoo);
    f.settle();

    assertThat(r.future()).as("granted when kazoo's node goes").isCompleted();
    assertThat(r.request().state()).isEqualTo(State.HELD);
  }

  @Test
  void aReader_sharesWithKazoosReaders_andWaitsForKazoosWriter() {
    kazooQueues(true);
    Started reader = kazooCompatible(NodeKind.KAZOO_READ);
    f.settle();
    assertThat(reader.future()).as("shares with kazoo's reader").isCompleted();

    String writer = kazooQueues(false);
    Started late = kazooCompatible(NodeKind.KAZOO_READ);
    f.settle();
    assertThat(late.future()).as("behind kazoo's writer").isNotDone();
    assertThat(f.nodes()).anyMatch(n -> n.contains("__rlock__") && !n.equals(writer));
  }

  @Test
  void besideAPlainNode_aKazooCompatibleRequestIsRefused_namingIt_andLeavesNoNode() {
    String plain = name(f.otherQueues());
    Started r = kazooCompatible(NodeKind.KAZOO_LOCK);

    f.settle();

    assertThat(failure(r))
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining(DIR)
        .hasMessageContaining(plain)
        .hasMessageContaining("kazoo-compatible kazoo-lock")
        .hasMessageContaining("plain");
    assertThat(f.nodes()).containsExactly(plain);
  }

  @Test
  void besideAKazooNode_aPlainRequestIsRefused_namingTheOptionThatSharesItsQueue() {
    String kazoo = kazooQueues(false);
    Started r = f.queue(NodeKind.MUTEX, Ordering.forKind(NodeKind.MUTEX), false, 0, false);

    f.settle();

    assertThat(failure(r))
        .hasMessageContaining(kazoo)
        .hasMessageContaining("kazoo")
        .hasMessageContaining("LockOptions.kazooCompatible()");
    assertThat(f.nodes()).containsExactly(kazoo);
  }

  @Test
  void aCounterKazooOrdersOtherwise_isRefused_andLeavesNoNode() {
    // a kazoo node whose sequence went negative: kazoo sorts it ahead of every positive one
    String wrapped = hex32() + "__lock__-2147483648";
    zk.create(OTHER_SESSION, DIR + "/" + wrapped, CreateMode.EPHEMERAL);
    Started r = kazooCompatible(NodeKind.KAZOO_LOCK);

    f.settle();

    assertThat(failure(r)).hasMessageContaining(wrapped).hasMessageContaining("new path");
    assertThat(f.nodes()).containsExactly(wrapped);
  }
}
