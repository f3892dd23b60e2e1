package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;

/**
 * Lock nodes of other libraries in a lock's directory, on a real server: each zklock lock refuses
 * to queue beside one, naming it and the library that likely made it, and leaves no node; {@code
 * inspect} and {@code inspectAll} show it rather than nothing. (kazoo's names are kinds zklock
 * shares a queue with in its kazoo-compatible mode: KazooCompatibleTest.) The nodes are made by a
 * plain ZooKeeper session as each library names them (Python's kazoo: {@code <uuid
 * hex>__lock__<seq>}; Go's zookeeper client: {@code _c_<32 hex>-lock-<seq>}); zklock-interop-tests
 * runs real kazoo clients.
 */
class ForeignNodeTest extends ZkTestSupport {
  private static final String KAZOO_ID = "3e2becd2a0f54b7e9d1c6b2a8f7e4d10";

  /** Another program's session, its nodes ephemeral as a lock's are. */
  private ZooKeeper other() throws Exception {
    return raw();
  }

  private String ensureDir(String name) throws Exception {
    String dir = dir(name);
    try {
      raw().create(namespace, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    } catch (org.apache.zookeeper.KeeperException.NodeExistsException fine) {
      // a client of the test made it
    }
    try {
      raw().create(dir, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.CONTAINER);
    } catch (org.apache.zookeeper.KeeperException.NodeExistsException fine) {
      // there already
    }
    return dir;
  }

  private String kazooHolds(String name, String marker, String identifier) throws Exception {
    String path =
        other()
            .create(
                ensureDir(name) + "/" + KAZOO_ID + marker,
                identifier.getBytes(StandardCharsets.UTF_8),
                Ids.OPEN_ACL_UNSAFE,
                CreateMode.EPHEMERAL_SEQUENTIAL);
    return path.substring(path.lastIndexOf('/') + 1);
  }

  @Test
  void aKazooHolder_everyLockKindRefuses_namingTheNodeAndKazoo_andLeavesNoNode() throws Exception {
    String node = kazooHolds("polyglot", "__lock__", "settlement-job");
    ZkLocks z = client("java-service");

    List<ThrowingCall> attempts =
        List.of(
            () -> z.mutex("polyglot").tryAcquire(),
            () -> z.mutex("polyglot").tryAcquire(Duration.ofSeconds(5)),
            () -> z.readWriteLock("polyglot").readLock().tryAcquire(Duration.ofSeconds(5)),
            () -> z.readWriteLock("polyglot").writeLock().tryAcquire(Duration.ofSeconds(5)),
            () -> z.mutex("polyglot", LockOptions.curatorCompatible()).tryAcquire());
    for (ThrowingCall attempt : attempts) {
      assertThatThrownBy(attempt::call)
          .isInstanceOf(ZkLockException.class)
          .hasMessageContaining(dir("polyglot"))
          .hasMessageContaining(node)
          .hasMessageContaining("kazoo");
    }
    assertThat(children(dir("polyglot"))).as("only kazoo's node is left").containsExactly(node);
  }

  @FunctionalInterface
  interface ThrowingCall {
    Object call() throws Exception;
  }

  @Test
  void anElection_besideAKazooElection_doesNotLead_andNamesNoLeader() throws Exception {
    String node = kazooHolds("leader", "__lock__", "py-scheduler");
    LeaderElection e = track(client("java").leaderElection("leader", "java-1"));
    e.start();

    assertThatThrownBy(() -> e.awaitLeadership(Duration.ofSeconds(5)))
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining(node);
    assertThat(e.isLeader()).isFalse();
    assertThatThrownBy(e::leader).isInstanceOf(ZkLockException.class).hasMessageContaining(node);
  }

  @Test
  void inspect_showsAKazooHolder_asKazoos_withItsIdentifier() throws Exception {
    String node = kazooHolds("polyglot", "__lock__", "settlement-job");
    ZkLocks viewer = client("viewer");

    LockInfo info = viewer.inspect("polyglot").orElseThrow();

    assertThat(info.kind()).isEqualTo(LockInfo.Kind.MUTEX);
    assertThat(info.state()).as("one library's queue: no mix").isEmpty();
    assertThat(info.holders()).hasSize(1);
    LockNode h = info.holders().get(0);
    assertThat(h.name()).isEqualTo(node);
    assertThat(h.kind()).isEqualTo(LockNode.Kind.KAZOO_LOCK);
    assertThat(h.clientName()).isEqualTo("(kazoo)");
    assertThat(h.ownerData()).isEqualTo("settlement-job");
    assertThat(h.data()).containsEntry("kazoo", "settlement-job");
    assertThat(h.sessionId()).isEqualTo(raw().getSessionId());
    assertThat(viewer.inspectAll("")).extracting(LockInfo::name).containsExactly("polyglot");
  }

  @Test
  void forceRelease_ofAKazooHolderOrAGoHolder_leavesItsNodeAlone_byNameAndByNode()
      throws Exception {
    // their clients do not watch their own node: deleting it would let the next in line hold
    // while they still work (zklock release and zklock ui release holder by holder)
    String kazoo = kazooHolds("polyglot", "__lock__", "settlement-job");
    String goPath =
        other()
            .create(
                ensureDir("go-force") + "/_c_0a1b2c3d4e5f60718293a4b5c6d7e8f9-lock-",
                new byte[0],
                Ids.OPEN_ACL_UNSAFE,
                CreateMode.EPHEMERAL_SEQUENTIAL);
    String go = goPath.substring(goPath.lastIndexOf('/') + 1);
    ZkLocks operator = client("operator");

    for (String name : List.of("polyglot", "go-force")) {
      LockNode holder = operator.inspect(name).orElseThrow().holders().get(0);
      assertThat(operator.forceRelease(holder)).as("%s by node", name).isFalse();
      assertThat(operator.forceRelease(name)).as("%s by name", name).isEmpty();
      assertThat(operator.requestRelease(name)).as("%s asked", name).isEmpty();
    }
    assertThat(children(dir("polyglot"))).containsExactly(kazoo);
    assertThat(children(dir("go-force"))).containsExactly(go);
  }

  @Test
  void inspect_aZklockHolderAndAKazooHolderAfterIt_bothShowHolding() throws Exception {
    ZkLocks z = client("java-service");
    try (LockHandle held = z.mutex("polyglot").acquire()) {
      // a kazoo client that joins now holds at once: it does not see zklock's nodes
      String node = kazooHolds("polyglot", "__lock__", "py-worker");

      LockInfo info = client("viewer").inspect("polyglot").orElseThrow();

      assertThat(info.holders())
          .extracting(LockNode::clientName)
          .containsExactly("java-service", "(kazoo)");
      assertThat(info.holders().get(1).name()).isEqualTo(node);
      assertThat(info.state()).containsEntry("mix", "kazoo-lock,mutex");
    }
  }

  @Test
  void inspect_kazooReadersAndAWriter_byKazoosOwnRule() throws Exception {
    // kazoo's rule (2.9 on) is zklock's kazoo-compatible rule: readers share until a writer
    String r1 = kazooHolds("inventory", "__rlock__", "reader-1");
    String w = kazooHolds("inventory", "__lock__", "writer");
    String r2 = kazooHolds("inventory", "__rlock__", "reader-2");

    LockInfo info = client("viewer").inspect("inventory").orElseThrow();

    assertThat(info.kind()).isEqualTo(LockInfo.Kind.READ_WRITE);
    assertThat(info.holders()).extracting(LockNode::name).containsExactly(r1);
    assertThat(info.waiters()).extracting(LockNode::name).containsExactly(w, r2);
  }

  @Test
  void aGoHolder_isRefused_andShown() throws Exception {
    String path =
        other()
            .create(
                ensureDir("go") + "/_c_0a1b2c3d4e5f60718293a4b5c6d7e8f9-lock-",
                new byte[0],
                Ids.OPEN_ACL_UNSAFE,
                CreateMode.EPHEMERAL_SEQUENTIAL);
    String node = path.substring(path.lastIndexOf('/') + 1);
    ZkLocks z = client("java-service");

    assertThatThrownBy(() -> z.mutex("go").tryAcquire())
        .hasMessageContaining(node)
        .hasMessageContaining("Go's zookeeper client");
    Optional<LockInfo> info = z.inspect("go");
    assertThat(info.orElseThrow().holders())
        .extracting(LockNode::clientName)
        .containsExactly("(go-zookeeper)");
  }

  @Test
  void aLongerLockNamesDirectoryEndingInTenDigits_isNeitherRefusedNorShownAsALockNode()
      throws Exception {
    ZkLocks z = client("java-service");
    try (LockHandle inner = z.mutex("orders/0000000042").acquire()) {
      try (LockHandle outer = z.mutex("orders").tryAcquire().orElseThrow()) {
        assertThat(outer.isHeld()).isTrue();
      }
      LockHandle outer = z.mutex("orders").acquire();
      List<LockInfo> all = client("viewer").inspectAll("");
      assertThat(all).extracting(LockInfo::name).containsExactly("orders", "orders/0000000042");
      assertThat(all.get(0).holders()).hasSize(1);
      assertThat(all.get(0).state()).doesNotContainKey("foreign");
      outer.release();
    }
  }
}
