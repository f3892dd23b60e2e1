package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.Test;

class SessionTest extends ZkTestSupport {

  @Test
  void build_connects_andReportsTheSession() {
    ZkLocks locks = client("orders-worker-1");

    assertThat(locks.sessionState()).isEqualTo(SessionState.CONNECTED);
    assertThat(locks.sessionId()).isNotZero();
    assertThat(locks.clientName()).isEqualTo("orders-worker-1");
    assertThat(locks.namespace()).isEqualTo(namespace);
  }

  @Test
  void build_createsTheNamespace() throws Exception {
    client();
    assertThat(raw().exists(namespace, false)).isNotNull();
  }

  @Test
  void defaultClientName_isHostAndPid() {
    ZkLocks locks = client();
    assertThat(locks.clientName()).endsWith(":" + ProcessHandle.current().pid());
  }

  @Test
  void build_unreachable_failsWithinTheConnectTimeout_namingTheConnectString() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    String cs = "127.0.0.1:" + port;
    long start = System.nanoTime();

    assertThatThrownBy(() -> ZkLocks.builder(cs).connectTimeout(Duration.ofMillis(800)).build())
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining(cs)
        .hasMessageContaining("800 ms");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void build_missingChroot_failsWithAClearMessage() {
    assertThatThrownBy(() -> ZkLocks.builder(server.connectString() + "/no/such/chroot").build())
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("chroot /no/such/chroot does not exist");
  }

  @Test
  void build_withExistingChroot_locksLiveUnderIt() throws Exception {
    raw()
        .create(
            "/chroot-" + namespace.substring(1),
            new byte[0],
            org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
            org.apache.zookeeper.CreateMode.PERSISTENT);
    ZkLocks locks =
        track(
            ZkLocks.builder(server.connectString() + "/chroot-" + namespace.substring(1)).build());
    try (LockHandle h = locks.mutex("x").acquire()) {
      assertThat(
              raw()
                  .exists(
                      "/chroot-"
                          + namespace.substring(1)
                          + "/zklock/x/"
                          + h.path().substring(h.path().lastIndexOf('/') + 1),
                      false))
          .isNotNull();
    }
  }

  @Test
  void builder_badArguments_failFast_namingTheValue() {
    assertThatThrownBy(() -> ZkLocks.builder(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> ZkLocks.builder(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty");
    assertThatThrownBy(() -> ZkLocks.builder("host:notaport"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("notaport");
    assertThatThrownBy(() -> ZkLocks.builder("host:70000"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("70000");
    assertThatThrownBy(() -> ZkLocks.builder("a:1,,b:2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty host");
    assertThatThrownBy(() -> ZkLocks.builder("a:1/bad//chroot"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("chroot");
    ZkLocks.Builder b = ZkLocks.builder("127.0.0.1:2181");
    assertThatThrownBy(() -> b.namespace("relative"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'relative'");
    assertThatThrownBy(() -> b.namespace("/zookeeper/x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("reserved");
    assertThatThrownBy(() -> b.namespace("/a/../b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("/a/../b");
    assertThatThrownBy(() -> b.sessionTimeout(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sessionTimeout")
        .hasMessageContaining("PT-1S");
    assertThatThrownBy(() -> b.connectTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("connectTimeout");
    assertThatThrownBy(() -> b.sessionTimeout(Duration.ofDays(3650)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("too large");
    assertThatThrownBy(() -> b.clientName("  "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("blank");
    assertThatThrownBy(() -> b.digest("us:er", "pw"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("us:er");
    assertThatThrownBy(() -> b.sessionTimeout(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> ZkLocks.builder("127.0.0.1:2181").acl(NodeAcl.creatorOnly()).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("authorization");
  }

  @Test
  void close_isIdempotent_endsTheSession_andListenersHearIt() throws Exception {
    ZkLocks locks = client();
    List<SessionState> states = new CopyOnWriteArrayList<>();
    locks.addSessionListener((s, id) -> states.add(s));
    long session = locks.sessionId();

    locks.close();
    locks.close();

    assertThat(locks.sessionState()).isEqualTo(SessionState.CLOSED);
    await().atMost(Duration.ofSeconds(5)).until(() -> states.contains(SessionState.CLOSED));
    assertThat(states).containsExactly(SessionState.CLOSED);
    assertThat(server.mntr().get("zk_num_alive_connections")).isNotNull();
    assertThat(session).isNotZero();
  }

  @Test
  void forcedExpiry_listenersHearLostThenConnected_withANewSession() {
    ZkLocks locks = client();
    List<String> heard = new CopyOnWriteArrayList<>();
    locks.addSessionListener((s, id) -> heard.add(s + ":" + Long.toHexString(id)));
    long old = locks.sessionId();

    server.expireSession(old);

    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> heard.stream().anyMatch(x -> x.startsWith("CONNECTED")));
    assertThat(locks.sessionId()).isNotEqualTo(old).isNotZero();
    assertThat(heard)
        .containsSubsequence(
            "LOST:" + Long.toHexString(old), "CONNECTED:" + Long.toHexString(locks.sessionId()));
    assertThat(locks.sessionState()).isEqualTo(SessionState.CONNECTED);
  }

  @Test
  void listener_thatThrows_doesNotStopOthers() {
    ZkLocks locks = client();
    List<SessionState> heard = new CopyOnWriteArrayList<>();
    locks.addSessionListener(
        (s, id) -> {
          throw new IllegalStateException("listener bug");
        });
    locks.addSessionListener((s, id) -> heard.add(s));

    server.expireSession(locks.sessionId());

    await().atMost(Duration.ofSeconds(15)).until(() -> heard.contains(SessionState.CONNECTED));
    assertThat(heard).containsSubsequence(SessionState.LOST, SessionState.CONNECTED);
  }

  @Test
  void defaultAcl_withAuthentication_othersMayReadButNotDelete() throws Exception {
    ZkLocks alice = track(builder().digest("alice", "secret").build());
    LockHandle h = alice.mutex("guarded").acquire();
    List<ACL> acl = raw().getACL(h.path(), null);
    assertThat(acl)
        .extracting(a -> a.getId().getScheme())
        .containsExactlyInAnyOrder("digest", "world");

    ZooKeeper mallory = raw();
    mallory.addAuthInfo("digest", "mallory:wrong".getBytes(StandardCharsets.UTF_8));

    assertThat(new String(mallory.getData(h.path(), false, null), StandardCharsets.UTF_8))
        .as("anyone may read who holds the lock")
        .contains("\"kind\":\"mutex\"");
    assertThatThrownBy(() -> mallory.delete(h.path(), -1))
        .isInstanceOf(KeeperException.NoAuthException.class);
    ZkLocks malloryLocks = track(builder().digest("alice", "guess").build());
    assertThatThrownBy(() -> malloryLocks.mutex("guarded").tryAcquire())
        .as("another identity may look but not queue")
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("not authorized");
    h.release();
    assertNoLockNodes();
  }

  @Test
  void customAcl_isAppliedToLockNodes() throws Exception {
    ZkLocks locks = track(builder().acl(NodeAcl.open()).build());
    try (LockHandle h = locks.mutex("open").acquire()) {
      assertThat(raw().getACL(h.path(), null))
          .containsExactlyElementsOf(org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE);
    }
  }
}
