package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.Test;

/**
 * A client with an identity does not queue where other identities may write: directories that
 * existed before, made by someone else with a wider ACL, are refused (naming the path and its ACL)
 * unless the user opts in; what it creates itself carries its ACL. Probed with raw ZooKeeper
 * clients of other identities.
 */
class AclTest extends ZkTestSupport {

  private static final List<ACL> ALICE_ALL_WORLD_READ =
      java.util.Arrays.asList(
          new ACL(ZooDefs.Perms.ALL, digest("alice", "secret")),
          new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE));

  private static Id digest(String user, String password) {
    try {
      return new Id("digest", DigestAuthenticationProvider.generateDigest(user + ":" + password));
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private ZkLocks alice() {
    return track(builder().digest("alice", "secret").build());
  }

  /** A raw client, anonymous or with the given digest credentials, closed after the test. */
  private ZooKeeper rawAs(String userColonPassword) throws Exception {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk =
        new ZooKeeper(
            server.connectString(),
            10_000,
            e -> {
              if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
              }
            });
    track(zk::close);
    connected.await();
    if (userColonPassword != null) {
      zk.addAuthInfo("digest", userColonPassword.getBytes(StandardCharsets.UTF_8));
    }
    return zk;
  }

  @Test
  void ownNamespaceAndDirs_anonymousCannotDeleteTheHoldersNode() throws Exception {
    // Given a client with an identity that creates the namespace and directory itself
    ZkLocks alice = alice();
    LockHandle h = alice.mutex("orders/42").acquire();

    // When an anonymous client tries to delete the holder's node
    ZooKeeper anonymous = rawAs(null);

    // Then it is refused, and every directory on the way carries the client's ACL
    assertThatThrownBy(() -> anonymous.delete(h.path(), -1))
        .isInstanceOf(KeeperException.NoAuthException.class);
    ZooKeeper aliceRaw = rawAs("alice:secret"); // digests are shown only to ADMIN holders
    for (String p : List.of(namespace, dir("orders"), dir("orders/42"))) {
      assertThat(aliceRaw.getACL(p, null))
          .as(p)
          .containsExactlyInAnyOrderElementsOf(ALICE_ALL_WORLD_READ);
    }
    assertThat(h.isHeld()).isTrue();
    h.release();
  }

  @Test
  void namespaceMadeOpenByAnonymous_isRefused_namingPathAndAcl() throws Exception {
    // Given an anonymous client made the namespace earlier, open to all
    rawAs(null).create(namespace, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    ZkLocks alice = alice();

    // When the client with an identity asks for a lock, Then it refuses to queue there
    assertThatThrownBy(() -> alice.mutex("x").tryAcquire())
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("namespace " + namespace)
        .hasMessageContaining("world:anyone:cdrwa")
        .hasMessageContaining("trustExistingAcl")
        .satisfies(e -> assertThat(((ZkLockException) e).path()).isEqualTo(namespace));
    assertThatThrownBy(() -> alice.mutex("x").acquire())
        .as("a blocking acquire is refused alike, rather than waiting")
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining(namespace);
    assertNoLockNodes();
  }

  @Test
  void lockDirMadeOpenByAnonymous_isRefused_forEveryKindOfLock() throws Exception {
    // Given an anonymous client made the namespace and a lock directory open, and an operator
    // restricted only the namespace since
    ZooKeeper anonymous = rawAs(null);
    anonymous.create(namespace, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    anonymous.create(dir("jobs"), new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.CONTAINER);
    anonymous.setACL(namespace, ALICE_ALL_WORLD_READ, -1);
    ZkLocks alice = alice();

    // When any lock there is asked for, Then the directory is refused, named with its ACL
    List<DistributedLock> locks =
        List.of(
            alice.mutex("jobs"),
            alice.simpleLock("jobs"),
            alice.readWriteLock("jobs").writeLock(),
            alice.readWriteLock("jobs").readLock());
    for (DistributedLock lock : locks) {
      assertThatThrownBy(lock::tryAcquire)
          .as("%s", lock)
          .isInstanceOf(ZkLockException.class)
          .hasMessageContaining("lock directory " + dir("jobs"))
          .hasMessageContaining("world:anyone:cdrwa");
    }
    assertThatThrownBy(() -> alice.semaphore("jobs", 2).tryAcquire())
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining(dir("jobs"));
    LeaderElection e = track(alice.leaderElection("jobs", "a"));
    e.start();
    assertThat(e.awaitLeadership(Duration.ofMillis(300)))
        .as("the election does not queue")
        .isFalse();
    assertNoLockNodes();
  }

  @Test
  void parentWithinTheNamespaceMadeOpen_isRefused() throws Exception {
    // Given "orders" was made open by someone else, below a namespace restricted since;
    // "orders/42" does not exist yet
    ZooKeeper anonymous = rawAs(null);
    anonymous.create(namespace, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    anonymous.create(dir("orders"), new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.CONTAINER);
    anonymous.setACL(namespace, ALICE_ALL_WORLD_READ, -1);
    ZkLocks alice = alice();

    // Then a lock below it is refused: whoever may write "orders" may replace "orders/42"
    assertThatThrownBy(() -> alice.mutex("orders/42").tryAcquire())
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining(dir("orders") + " exists")
        .hasMessageContaining("world:anyone:cdrwa");
    assertThat(raw().exists(dir("orders/42"), false)).as("nothing made below it").isNull();
  }

  @Test
  void dirWritableByAnotherDigestIdentity_isRefused_butWorldReadIsFine() throws Exception {
    // Given two directories made by alice herself: one shared with bob, one world-readable only
    ZkLocks alice = alice();
    ZooKeeper aliceRaw = rawAs("alice:secret");
    aliceRaw.create(
        dir("shared"),
        new byte[0],
        java.util.Arrays.asList(
            new ACL(ZooDefs.Perms.ALL, digest("alice", "secret")),
            new ACL(ZooDefs.Perms.CREATE | ZooDefs.Perms.DELETE, digest("bob", "pw"))),
        CreateMode.CONTAINER);
    aliceRaw.create(dir("mine"), new byte[0], ALICE_ALL_WORLD_READ, CreateMode.CONTAINER);

    // Then the one bob may write is refused, naming bob's entry
    assertThatThrownBy(() -> alice.mutex("shared").tryAcquire())
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining(dir("shared"))
        .hasMessageContaining(digest("bob", "pw").getId() + ":cd");
    // And the world-readable one is used, and bob cannot delete the holder's node there
    Optional<LockHandle> h = alice.mutex("mine").tryAcquire();
    assertThat(h).isPresent();
    ZooKeeper bob = rawAs("bob:pw");
    assertThatThrownBy(() -> bob.delete(h.get().path(), -1))
        .isInstanceOf(KeeperException.NoAuthException.class);
    h.get().release();
  }

  @Test
  void trustExistingAcl_optsIn_andQueuesInTheOpenDirectory() throws Exception {
    // Given an open namespace made by an anonymous client
    rawAs(null).create(namespace, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);

    // When the client opts in
    ZkLocks alice = track(builder().digest("alice", "secret").trustExistingAcl().build());

    // Then it queues there (the lock directory it creates still carries its own ACL)
    try (LockHandle h = alice.mutex("x").acquire()) {
      assertThat(h.isHeld()).isTrue();
      assertThat(rawAs("alice:secret").getACL(dir("x"), null))
          .containsExactlyInAnyOrderElementsOf(ALICE_ALL_WORLD_READ);
    }
  }

  @Test
  void configuredAclThatIsOpenItself_acceptsOpenDirectories() throws Exception {
    // Given an open lock directory, and a client that chose an open ACL for what it creates
    rawAs(null).create(namespace, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    ZkLocks c = track(builder().digest("alice", "secret").acl(NodeAcl.open()).build());

    // Then sharing with everyone is what it asked for: no refusal
    assertThat(c.mutex("x").tryAcquire()).hasValueSatisfying(LockHandle::release);
  }

  @Test
  void lockedDownWithSetAcl_asDocsOpsSays_isAccepted_andAnonymousDeleteRefused() throws Exception {
    // Given an open namespace and lock directory made earlier by anonymous clients
    ZooKeeper anonymous = rawAs(null);
    anonymous.create(namespace, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    anonymous.create(dir("x"), new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.CONTAINER);
    ZkLocks alice = alice();
    assertThatThrownBy(() -> alice.mutex("x").tryAcquire()).isInstanceOf(ZkLockException.class);

    // When an operator restricts both (docs/ops.md: setAcl -R with alice's digest, world read)
    for (String p : List.of(namespace, dir("x"))) {
      anonymous.setACL(p, ALICE_ALL_WORLD_READ, -1);
    }

    // Then the same client queues there, and the anonymous client can no longer delete its node
    LockHandle h = alice.mutex("x").tryAcquire().orElseThrow();
    assertThatThrownBy(() -> anonymous.delete(h.path(), -1))
        .isInstanceOf(KeeperException.NoAuthException.class);
    h.release();
  }

  @Test
  void clientWithoutIdentity_neverChecks() throws Exception {
    // Given an open namespace made by someone else
    rawAs(null).create(namespace, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);

    // Then an anonymous client queues there as before: everything is open to it anyway
    assertThat(client().mutex("x").tryAcquire()).hasValueSatisfying(LockHandle::release);
  }
}
