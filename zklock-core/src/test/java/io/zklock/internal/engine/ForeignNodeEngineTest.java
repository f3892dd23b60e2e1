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
import java.util.List;
import java.util.Random;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;

/**
 * Lock nodes of other libraries in a lock's directory ({@link
 * io.zklock.internal.rules.ForeignNode}), on the fake ZooKeeper: a request that finds one refuses,
 * naming it and the library that likely made it, and leaves no node; a waiter that sees one appear
 * is not granted beside it. The nodes are created as each library names them: Python's kazoo
 * ({@code uuid4().hex + "__lock__"}, {@code "__rlock__"}), Go's zookeeper client ({@code
 * CreateProtectedEphemeralSequential(path + "/lock-")}: {@code _c_<32 hex>-lock-}), and names no
 * known library makes.
 */
class ForeignNodeEngineTest {
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

  /** A Go client queues, as go-zookeeper's Lock names its node. */
  private String goQueues() {
    return name(
        zk.create(
            OTHER_SESSION, DIR + "/_c_" + hex32() + "-lock-", CreateMode.EPHEMERAL_SEQUENTIAL));
  }

  private static String name(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  private Started mutex() {
    return f.queue(NodeKind.MUTEX, Ordering.forKind(NodeKind.MUTEX), false, 0, false);
  }

  private long reads() {
    return zk.sent().stream()
        .filter(s -> s.op().startsWith("get") || s.op().equals("exists"))
        .count();
  }

  /** What the request's future failed with (it must have failed). */
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
  void aKazooHolder_theRequestIsRefused_namingItsNodeAndKazoo_andLeavesNoNode() {
    String kazoo = kazooQueues(false);
    Started r = mutex();
    zk.clearSent();

    f.settle();

    assertThat(failure(r))
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining(DIR)
        .hasMessageContaining(kazoo)
        .hasMessageContaining("kazoo")
        .hasMessageContaining("docs/interop.md");
    assertThat(((ZkLockException) failure(r)).path()).isEqualTo(DIR);
    assertThat(f.nodes()).as("our node deleted").containsExactly(kazoo);
    assertThat(reads()).as("no read beyond the listing the create already sent").isZero();
    assertThat(zk.watchCount()).as("no watch left behind").isZero();
  }

  @Test
  void aKazooReader_refusesAReaderAndAWriter() {
    String kazoo = kazooQueues(true);
    Started reader = f.queue(NodeKind.READ, Ordering.forKind(NodeKind.READ), false, 0, false);
    Started writer = f.queue(NodeKind.WRITE, Ordering.forKind(NodeKind.WRITE), false, 0, false);

    f.settle();

    assertThat(failure(reader)).hasMessageContaining(kazoo);
    assertThat(failure(writer)).hasMessageContaining(kazoo);
    assertThat(f.nodes()).containsExactly(kazoo);
  }

  @Test
  void aGoHolder_refusesAPlainMutex_namingGoAndTheCuratorCompatibleMutex() {
    String go = goQueues();
    Started plain = mutex();

    f.settle();

    assertThat(failure(plain))
        .hasMessageContaining(go)
        .hasMessageContaining("Go's zookeeper")
        .hasMessageContaining("LockOptions.curatorCompatible()");
    assertThat(f.nodes()).containsExactly(go);
  }

  @Test
  void aCuratorCompatibleMutex_queuesBehindAGoHolder_andIsGrantedWhenItGoes() {
    // Go's client reads the sequence after "lock-" in every name, Curator's too: one queue
    String go = goQueues();
    Started compatible =
        f.queue(NodeKind.CURATOR_MUTEX, Ordering.forKind(NodeKind.CURATOR_MUTEX), false, 0, false);
    f.settle();
    assertThat(compatible.state()).isEqualTo(State.WAITING);

    zk.delete(DIR + "/" + go);
    f.settle();

    assertThat(compatible.state()).isEqualTo(State.HELD);
  }

  @Test
  void aKazooCompatibleMutex_refusesAGoNode_namingGo() {
    // kazoo's clients skip Go's names: they would hold beside Go's holder
    String go = goQueues();
    Started compatible =
        f.queue(NodeKind.KAZOO_LOCK, Ordering.forKind(NodeKind.KAZOO_LOCK), false, 0, false);

    f.settle();

    assertThat(failure(compatible))
        .hasMessageContaining(go)
        .hasMessageContaining("Go's zookeeper client")
        .hasMessageContaining("LockOptions.curatorCompatible()");
    assertThat(f.nodes()).containsExactly(go);
  }

  @Test
  void tryAcquire_besideAForeignNode_isRefused_notBusy() {
    String kazoo = kazooQueues(false);
    Started r = f.queue(NodeKind.MUTEX, Ordering.forKind(NodeKind.MUTEX), true, 0, false);

    f.settle();

    assertThat(failure(r)).hasMessageContaining(kazoo);
    assertThat(f.nodes()).containsExactly(kazoo);
  }

  @Test
  void anEphemeralSequentialNodeOfAnUnknownName_isRefused_afterOneReadOfItsStat() {
    String other = name(zk.create(OTHER_SESSION, DIR + "/n_", CreateMode.EPHEMERAL_SEQUENTIAL));
    Started r = mutex();
    zk.clearSent();

    f.settle();

    assertThat(failure(r)).hasMessageContaining(other).hasMessageContaining("does not know");
    assertThat(zk.sent().stream().filter(s -> s.op().equals("exists")).map(s -> s.path()))
        .containsExactly(DIR + "/" + other);
    assertThat(f.nodes()).containsExactly(other);
  }

  @Test
  void aLongerLocksDirectoryWhoseNameEndsInTenDigits_isNoLockNode_andReadOnce() {
    // the lock "orders/0000000042" lives in a container under the lock "orders"
    zk.create(OTHER_SESSION, DIR + "/0000000042", new byte[0], CreateMode.CONTAINER);
    Started first = mutex();
    f.settle();
    assertThat(first.state()).isEqualTo(State.HELD);
    first.handle().releaseAsync();
    f.settle();

    zk.clearSent();
    Started second = mutex();
    f.settle();

    assertThat(second.state()).isEqualTo(State.HELD);
    assertThat(zk.sent().stream().filter(s -> s.op().equals("exists")))
        .as("known not to be a lock node: not read again")
        .isEmpty();
  }

  @Test
  void aWaiterWhoseLookAheadListingShowsAForeignNode_isRefused_notGrantedLater() {
    // Given three clients of zklock: a holder and two waiters; the last looks ahead, past the
    // first waiter, to the holder
    EngineFixture a = f.otherClient(0x2002);
    EngineFixture b = f.otherClient(0x3003);
    Started holder = a.queue(NodeKind.MUTEX, Ordering.forKind(NodeKind.MUTEX), false, 0, false);
    f.settle();
    Started second = b.queue(NodeKind.MUTEX, Ordering.forKind(NodeKind.MUTEX), false, 0, false);
    f.settle();
    Started third = mutex();
    f.settle();
    assertThat(third.state()).isEqualTo(State.WAITING);
    String thirdNode = name(third.request().path());

    // When a kazoo client holds beside the holder (it does not see zklock's nodes), then the holder
    // goes: the third lists again (its look-ahead) and sees the kazoo node
    String kazoo = kazooQueues(false);
    holder.handle().releaseAsync();
    f.settle();

    // Then the third refuses, rather than wait to be granted beside it
    assertThat(failure(third)).hasMessageContaining(kazoo);
    assertThat(f.nodes()).doesNotContain(thirdNode).contains(kazoo);
    second.future().cancel(true);
    f.settle();
  }

  @Test
  void aSemaphoreLeaseBesideAKazooNode_isRefused() {
    String kazoo = kazooQueues(false);
    Started lease = f.queue(NodeKind.SEMAPHORE, Ordering.lease(3), false, 0, false);

    f.settle();

    assertThat(failure(lease)).hasMessageContaining(kazoo);
  }

  @Test
  void theSimpleLock_besideAKazooNode_isRefused_andLeavesNoNode() {
    String kazoo = kazooQueues(false);
    Started r = f.simpleAcquire();

    f.settle();

    assertThat(failure(r)).hasMessageContaining(kazoo).hasMessageContaining("kazoo");
    assertThat(f.nodes()).containsExactly(kazoo);
  }

  @Test
  void theSimpleLock_isGrantedOnTheListingSentWithItsCreate_noOtherRead() {
    Started r = f.simpleAcquire();
    assertThat(zk.sent().stream().map(s -> s.op()).toList())
        .as("the create and, pipelined behind it, the listing")
        .containsExactly("create", "getChildren");

    f.settle();

    assertThat(r.state()).isEqualTo(State.HELD);
    assertThat(reads()).isEqualTo(1);
  }

  @Test
  void zklocksOwnKindsTogether_areNotRefused() {
    Started m = mutex();
    f.settle();
    f.otherQueues(NodeKind.ELECTION);
    zk.create(OTHER_SESSION, DIR + "/hold-off", new byte[0], CreateMode.PERSISTENT);
    f.settle();
    assertThat(m.state()).isEqualTo(State.HELD);
    assertThat(List.copyOf(f.nodes())).hasSize(3);
  }
}
