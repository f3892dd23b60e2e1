package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.zklock.testkit.FaultProxy;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.Test;

/**
 * The failure modes the public javadoc promises, one case each: what {@code acquireAsync()} throws
 * at once and what it delivers through its future, where the future completes, what cancelling
 * does; when {@code release()} returns and what it throws; the semaphore's {@code tryAcquire} while
 * disconnected or closed; the ACL zklock really uses when none is set.
 */
class FailureModesTest extends ZkTestSupport {

  /** {@code acquireAsync()} of every kind of lock, the locks made by {@code locks} now. */
  private static Map<String, Supplier<CompletableFuture<LockHandle>>> everyKind(ZkLocks locks) {
    DistributedLock mutex = locks.mutex("k");
    DistributedLock simple = locks.simpleLock("k");
    ReadWriteLock rw = locks.readWriteLock("k");
    DistributedSemaphore sem = locks.semaphore("k", 2);
    DistributedLock multi = locks.multiLock(locks.mutex("a"), locks.mutex("b"));
    DistributedLock leased = mutex.withLease(Duration.ofSeconds(5));
    Map<String, Supplier<CompletableFuture<LockHandle>>> kinds = new LinkedHashMap<>();
    kinds.put("mutex", mutex::acquireAsync);
    kinds.put("simple", simple::acquireAsync);
    kinds.put("read", rw.readLock()::acquireAsync);
    kinds.put("write", rw.writeLock()::acquireAsync);
    kinds.put("semaphore", sem::acquireAsync);
    kinds.put("semaphore(2)", () -> sem.acquireAsync(2));
    kinds.put("multi", multi::acquireAsync);
    kinds.put("leased", leased::acquireAsync);
    return kinds;
  }

  // ------------------------------------------------------------------ acquireAsync()

  @Test
  void acquireAsync_onAClosedInstance_throwsAtOnce_ratherThanReturningAFailedFuture() {
    ZkLocks locks = client();
    Map<String, Supplier<CompletableFuture<LockHandle>>> kinds = everyKind(locks);
    locks.close();

    kinds.forEach(
        (kind, acquireAsync) ->
            assertThatThrownBy(acquireAsync::get)
                .as("%s: acquireAsync() on a closed ZkLocks", kind)
                .isInstanceOf(ZkLockException.class)
                .hasMessageContaining("closed"));
  }

  @Test
  void acquireAsync_whileDisconnected_doesNotFail_butWaitsForTheConnection() throws Exception {
    try (FaultProxy proxy = FaultProxy.start(server.connectString())) {
      ZkLocks locks = suspended(proxy);

      CompletableFuture<LockHandle> f = locks.mutex("offline").acquireAsync();

      await("the request waits for the connection, neither failing nor granted")
          .during(Duration.ofMillis(300))
          .atMost(Duration.ofSeconds(5))
          .until(() -> !f.isDone());
      proxy.pass();
      LockHandle h = f.get(20, TimeUnit.SECONDS);
      assertThat(h.isHeld()).isTrue();
      h.release();
    }
    assertNoLockNodes();
  }

  @Test
  void tryAcquireWithTimeout_whileDisconnected_waitsForTheConnection_thenReturnsEmptyAtTheTimeout()
      throws Exception {
    try (FaultProxy proxy = FaultProxy.start(server.connectString())) {
      ZkLocks locks = suspended(proxy);

      long t0 = System.nanoTime();
      assertThat(locks.mutex("offline").tryAcquire(Duration.ofMillis(500)))
          .as("no connection within the timeout: empty, not an exception")
          .isEmpty();
      long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      assertThat(waited)
          .as("it waited its timeout, not longer than the timer's slack")
          .isBetween(450L, 10_000L);
      proxy.pass();
    }
    assertNoLockNodes();
  }

  @Test
  void acquireAsync_refusedByTheServer_isAFailedFuture_notAThrow() throws Exception {
    ZkLocks alice = track(builder().digest("alice", "secret").build());
    LockHandle h = alice.mutex("acl").acquire();
    ZkLocks mallory = track(builder().digest("alice", "guess").build());

    CompletableFuture<LockHandle> f = mallory.mutex("acl").acquireAsync();

    assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS))
        .as("another identity may not queue: the future fails")
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(ZkLockException.class);
    assertThat(h.isHeld()).isTrue();
    h.release();
    assertNoLockNodes();
  }

  @Test
  void acquireAsync_completesOnTheLibrarysThreads_notTheCallersOrZooKeepers() throws Exception {
    LockHandle held = client().mutex("thread").acquire();
    ZkLocks locks = client();
    CompletableFuture<LockHandle> f = locks.mutex("thread").acquireAsync();
    CompletableFuture<String> completedOn = f.thenApply(h -> Thread.currentThread().getName());
    awaitNodes(2);

    held.release();

    assertThat(completedOn.get(10, TimeUnit.SECONDS))
        .as("the grant is delivered on one of the ZkLocks' own threads")
        .startsWith("zklock-")
        .isNotEqualTo(Thread.currentThread().getName())
        .doesNotContain("EventThread");
    f.get().release();
  }

  @Test
  void acquireAsync_cancelAfterTheGrant_changesNothing_theCallerHoldsAndMustRelease()
      throws Exception {
    CompletableFuture<LockHandle> f = client().mutex("late").acquireAsync();
    LockHandle h = f.get(10, TimeUnit.SECONDS);

    assertThat(f.cancel(true)).as("too late to cancel").isFalse();

    assertThat(h.isHeld()).isTrue();
    assertThat(client().mutex("late").tryAcquire()).isEmpty();
    h.release();
    assertNoLockNodes();
  }

  // ------------------------------------------------------------------ release()

  @Test
  void release_fromAnotherThread_releases() throws Exception {
    LockHandle h = client().mutex("other").acquire();

    CompletableFuture.runAsync(h::release).get(10, TimeUnit.SECONDS);

    assertThat(h.isHeld()).isFalse();
    assertNoLockNodes();
    h.release(); // and again, from this thread: harmless
  }

  @Test
  void release_whileCutOff_returnsAtTheSessionDeadline_withoutTheConnectionComingBack()
      throws Exception {
    Duration timeout = Duration.ofSeconds(4);
    try (FaultProxy proxy = FaultProxy.start(server.connectString())) {
      ZkLocks locks = proxied(proxy, timeout);
      Duration negotiated = locks.negotiatedSessionTimeout();
      LockHandle h = locks.mutex("cut-off").acquire();
      proxy.blackhole();

      long t0 = System.nanoTime();
      CompletableFuture<Void> released = CompletableFuture.runAsync(h::release);
      await().atMost(Duration.ofSeconds(5)).until(() -> !h.isHeld());
      CompletableFuture<Void> again = h.releaseAsync();
      assertThat(again).as("a second release waits for the same deletion").isNotDone();
      released.get(negotiated.toMillis() * 3, TimeUnit.MILLISECONDS);
      long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      again.get(5, TimeUnit.SECONDS);

      assertThat(proxy.mode()).as("still cut off").isEqualTo(FaultProxy.Mode.BLACKHOLE);
      assertThat(waited)
          .as("it waited for the session to be declared lost (at T - margin from last heard)")
          .isGreaterThanOrEqualTo(negotiated.toMillis() / 4);
      assertThat(locks.sessionState()).isEqualTo(SessionState.LOST);
      proxy.pass();
      await("the node goes with its session")
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(this::assertNoLockNodes);
    }
  }

  @Test
  void release_refusedByTheServer_throwsZkLockException_namingTheNode() throws Exception {
    ZkLocks locks = client();
    LockHandle h = locks.mutex("no-delete").acquire();
    String node = h.path();
    // an operator takes away the DELETE right on the lock directory
    raw()
        .setACL(
            dir("no-delete"),
            // not List.of: ZooKeeper asks the list contains(null), which immutable lists refuse
            java.util.Arrays.asList(
                new ACL(ZooDefs.Perms.ALL & ~ZooDefs.Perms.DELETE, ZooDefs.Ids.ANYONE_ID_UNSAFE)),
            -1);

    assertThatThrownBy(h::release)
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining(node)
        .hasMessageContaining("NOAUTH");
    assertThat(h.isHeld()).as("released as far as the holder is concerned").isFalse();
    assertThat(lockNodes()).as("the node stays until the session ends").containsExactly(node);
    locks.close();
    awaitNoLockNodes();
  }

  // ------------------------------------------------------------------ semaphore tryAcquire

  @Test
  void semaphoreTryAcquire_whileDisconnected_failsAtOnce_checkingTheCountFirst() throws Exception {
    try (FaultProxy proxy = FaultProxy.start(server.connectString())) {
      ZkLocks locks = suspended(proxy);
      DistributedSemaphore sem = locks.semaphore("offline", 2);

      long t0 = System.nanoTime();
      assertThatThrownBy(sem::tryAcquire)
          .isInstanceOf(ZkLockException.class)
          .hasMessageContaining("not connected");
      assertThatThrownBy(() -> sem.tryAcquire(2))
          .isInstanceOf(ZkLockException.class)
          .hasMessageContaining("not connected");
      assertThatThrownBy(() -> sem.tryAcquire(3))
          .as("a count out of range is refused before anything else")
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - t0))
          .as("none of them waited for the connection (which returns only when the proxy passes)")
          .isLessThan(Duration.ofSeconds(5));
      proxy.pass();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> locks.sessionState() == SessionState.CONNECTED);
      assertThat(sem.tryAcquire())
          .as("connected again: it answers")
          .hasValueSatisfying(LockHandle::release);
    }
    assertNoLockNodes();
  }

  @Test
  void semaphoreTryAcquire_onAClosedInstance_throws() {
    ZkLocks locks = client();
    DistributedSemaphore sem = locks.semaphore("closed", 2);
    locks.close();

    assertThatThrownBy(sem::tryAcquire)
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(() -> sem.tryAcquire(2)).isInstanceOf(ZkLockException.class);
    assertThatThrownBy(sem::acquireAsync)
        .as("acquireAsync() too throws at once")
        .isInstanceOf(ZkLockException.class);
  }

  // ------------------------------------------------------------------ NodeAcl

  @Test
  void noAuthorization_noAcl_createsOpenNodes_andDirectories() throws Exception {
    ZkLocks locks = client();
    try (LockHandle h = locks.mutex("orders/1").acquire()) {
      for (String p : List.of(h.path(), dir("orders/1"), namespace)) {
        assertThat(raw().getACL(p, null))
            .as("%s: open, since a client without an identity cannot use creator ACLs", p)
            .containsExactlyElementsOf(ZooDefs.Ids.OPEN_ACL_UNSAFE);
      }
    }
  }

  @Test
  void creatorAcl_withoutAuthorization_isRefusedAtBuild_notFallenBackFrom() {
    for (NodeAcl acl :
        List.of(
            NodeAcl.creatorAllWorldRead(),
            NodeAcl.creatorOnly(),
            NodeAcl.of(NodeAcl.Entry.creator(NodeAcl.Permission.values())))) {
      assertThatThrownBy(() -> builder().acl(acl).build())
          .as("%s without authorization", acl)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(acl.toString())
          .hasMessageContaining("authorization");
    }
  }

  // ------------------------------------------------------------------ helpers

  private ZkLocks proxied(FaultProxy proxy, Duration sessionTimeout) {
    return track(
        ZkLocks.builder(proxy.connectString())
            .namespace(namespace)
            .sessionTimeout(sessionTimeout)
            .build());
  }

  /** A client through {@code proxy} whose connection is then refused: suspended, not expired. */
  private ZkLocks suspended(FaultProxy proxy) {
    ZkLocks locks = proxied(proxy, Duration.ofSeconds(20));
    proxy.refuse();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> locks.sessionState() == SessionState.SUSPENDED);
    return locks;
  }

  private void awaitNodes(int n) {
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == n);
  }
}
