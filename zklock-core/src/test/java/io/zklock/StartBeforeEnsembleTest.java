package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.zklock.testkit.EmbeddedZooKeeper;
import io.zklock.testkit.ServerFreePhase;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link ZkLocks.Builder#connectInBackground()}: {@code build()} returns before any server is up,
 * requests wait for the first connection, each at most the connect timeout.
 */
@Tag(ServerFreePhase.SERVER_TAG)
class StartBeforeEnsembleTest {
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void closeAll() {
    for (AutoCloseable c : closeables) { // clients before the servers they use
      try {
        c.close();
      } catch (Exception e) {
        // closing after a failed test must not hide the failure
      }
    }
  }

  private <T extends AutoCloseable> T track(T c) {
    closeables.add(c);
    return c;
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static EmbeddedZooKeeper serverOn(int port) {
    return EmbeddedZooKeeper.standalone()
        .clientPort(port)
        .tickTime(Duration.ofMillis(100))
        .containerCheckInterval(Duration.ofMillis(500))
        .start();
  }

  @Test
  void buildReturnsWithNoServer_requestsWait_andAreGrantedOnceTheEnsembleAppears()
      throws Exception {
    // Given a client built in the background while nothing listens on its port
    int port = freePort();
    String cs = "127.0.0.1:" + port;
    long t0 = System.nanoTime();
    ZkLocks locks =
        track(
            ZkLocks.builder(cs)
                .namespace("/before")
                .sessionTimeout(Duration.ofSeconds(10))
                .connectTimeout(Duration.ofSeconds(60))
                .connectInBackground()
                .build());
    long buildMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertThat(buildMillis)
        .as("build() did not wait for the connection (connect timeout 60 s)")
        .isLessThan(30_000);
    assertThat(locks.sessionState()).isEqualTo(SessionState.SUSPENDED);
    assertThat(locks.sessionId()).isZero();

    // When requests are made before any server is up
    CompletableFuture<LockHandle> mutex = locks.mutex("jobs").acquireAsync();
    CompletableFuture<LockHandle> lease = locks.semaphore("slots", 2).acquireAsync();
    CompletableFuture<LockHandle> withdrawn = locks.mutex("withdrawn").acquireAsync();
    LeaderElection election = track(locks.leaderElection("leader", "me"));
    election.start();
    CompletableFuture<Optional<LockHandle>> blocking = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              try {
                blocking.complete(locks.simpleLock("once").tryAcquire(Duration.ofSeconds(60)));
              } catch (Throwable e) {
                blocking.completeExceptionally(e);
              }
            });
    t.start();
    withdrawn.cancel(true);
    await("the blocking request waits")
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING);
    assertThat(mutex).as("no server: the request waits").isNotDone();
    assertThat(lease).isNotDone();
    assertThat(blocking).isNotDone();
    assertThat(election.isLeader()).isFalse();

    // And then the ensemble appears
    EmbeddedZooKeeper server = track(serverOn(port));

    // Then every request is granted
    LockHandle h = mutex.get(30, TimeUnit.SECONDS);
    assertThat(h.isHeld()).isTrue();
    assertThat(h.fencingToken()).isPositive();
    assertThat(lease.get(30, TimeUnit.SECONDS).isHeld()).isTrue();
    assertThat(blocking.get(30, TimeUnit.SECONDS)).isPresent();
    assertThat(election.awaitLeadership(Duration.ofSeconds(30))).isTrue();
    assertThat(locks.sessionState()).isEqualTo(SessionState.CONNECTED);
    assertThat(locks.inspect("jobs")).isPresent();
    assertThat(withdrawn).isCancelled();
    assertThat(locks.inspect("withdrawn"))
        .as("a request cancelled before the connection left nothing")
        .isEmpty();
    // and a second client, connected the usual way, sees the lock held
    try (ZkLocks other = ZkLocks.builder(server.connectString()).namespace("/before").build()) {
      assertThat(other.mutex("jobs").tryAcquire()).isEmpty();
      h.release();
      assertThat(other.mutex("jobs").tryAcquire(Duration.ofSeconds(10))).isPresent();
    }
  }

  @Test
  void requestWhoseConnectTimeoutPassesFirst_failsNamingTheConnectString_countedPerRequest()
      throws Exception {
    // Given a client built in the background with a 1 s connect timeout, and no server
    int port = freePort();
    String cs = "127.0.0.1:" + port;
    ZkLocks locks =
        track(
            ZkLocks.builder(cs)
                .connectTimeout(Duration.ofSeconds(1))
                .connectInBackground()
                .build());
    // and a first request that waited its connect timeout out: longer than the connect timeout
    // has passed since the build, which must not count (it counts from each request)
    assertThatThrownBy(() -> locks.mutex("first").acquire())
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("connect timeout");

    // When a request is made, Then it fails after its own connect timeout, naming the servers
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> locks.mutex("jobs").acquire())
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("'" + cs + "'")
        .hasMessageContaining("connect timeout");
    long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertThat(waited).as("waited the connect timeout, from the request").isBetween(900L, 20_000L);

    assertThatThrownBy(() -> locks.semaphore("slots", 2).acquireAsync().join())
        .hasCauseInstanceOf(ZkLockException.class)
        .hasMessageContaining(cs);
    assertThatThrownBy(() -> locks.inspect("jobs"))
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining(cs);
    // a timeout shorter than the connect timeout is the request's own: empty, not a failure
    assertThat(locks.mutex("jobs").tryAcquire(Duration.ofMillis(100))).isEmpty();
    // tryAcquire() never waits: not connected, so it cannot tell
    assertThatThrownBy(() -> locks.mutex("jobs").tryAcquire())
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("not connected");

    // And once the ensemble is up, requests are granted and the failed ones left no node
    track(serverOn(port));
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> locks.sessionState() == SessionState.CONNECTED);
    assertThat(locks.mutex("other").tryAcquire(Duration.ofSeconds(30))).isPresent();
    assertThat(locks.inspect("jobs")).isEmpty();
  }
}
