package io.zklock.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.DistributedLock;
import io.zklock.DistributedSemaphore;
import io.zklock.LeaderElection;
import io.zklock.LockHandle;
import io.zklock.LockInfo;
import io.zklock.LockLostException;
import io.zklock.LockNode;
import io.zklock.LockOptions;
import io.zklock.ReadWriteLock;
import io.zklock.SessionState;
import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * zklock against real ZooKeeper servers of every line it supports, each a standalone server of that
 * release started by the testkit in a child JVM from its Maven Central artifacts. The client is
 * always the one zklock is built with (3.9); the server varies.
 *
 * <p>The versions come from the system property {@code compat.versions}: the oldest line (3.5.10)
 * in {@code ./mvnw -B verify}, every line with {@code -Pcompat}. One server per version serves
 * every scenario, each in a namespace of its own. After each scenario the server's log must not say
 * that it received a request it does not know: zklock never sends an older server a request it
 * lacks.
 */
class ServerLinesTest {
  private static final AtomicInteger COUNTER = new AtomicInteger();
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final Map<String, EmbeddedZooKeeper> SERVERS = new ConcurrentHashMap<>();

  private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();
  private EmbeddedZooKeeper server;
  private long logMark;
  private String namespace;

  static Stream<String> versions() {
    return Arrays.stream(System.getProperty("compat.versions", "3.5.10").split(","))
        .map(String::trim)
        .filter(v -> !v.isEmpty());
  }

  @AfterAll
  static void stopServers() {
    SERVERS.values().forEach(EmbeddedZooKeeper::close);
    SERVERS.clear();
  }

  /** Starts (once per version) the server of {@code version}, and a namespace for the scenario. */
  private void on(String version, String scenario) throws IOException {
    server =
        SERVERS.computeIfAbsent(
            version,
            v ->
                EmbeddedZooKeeper.standalone()
                    .serverVersion(v)
                    .tickTime(Duration.ofMillis(100))
                    .containerCheckInterval(Duration.ofMillis(200))
                    .start());
    logMark = Files.size(log());
    namespace = "/compat-" + COUNTER.incrementAndGet() + "-" + scenario;
  }

  private Path log() {
    return server.serverLog().orElseThrow();
  }

  @AfterEach
  void closeClients_andCheckTheServerKnewEveryRequest() throws Exception {
    for (AutoCloseable c : closeables) {
      try {
        c.close();
      } catch (Exception e) {
        // closing after a failed scenario must not hide the failure
      }
    }
    closeables.clear();
    if (server == null) {
      return;
    }
    byte[] all = Files.readAllBytes(log());
    String since =
        new String(all, (int) logMark, all.length - (int) logMark, StandardCharsets.UTF_8);
    assertThat(since.lines().filter(l -> l.toLowerCase().contains("unknown type")))
        .as(
            "ZooKeeper %s received no request it does not know (its log since the scenario began)",
            server.serverVersion())
        .isEmpty();
  }

  private <T extends AutoCloseable> T track(T closeable) {
    closeables.add(closeable);
    return closeable;
  }

  private ZkLocks.Builder builder(String clientName) {
    return ZkLocks.builder(server.connectString())
        .namespace(namespace)
        .clientName(clientName)
        .sessionTimeout(Duration.ofSeconds(10))
        .connectTimeout(Duration.ofSeconds(20));
  }

  private ZkLocks client(String clientName) {
    return track(builder(clientName).build());
  }

  /** A plain ZooKeeper client, to look at the tree. */
  private ZooKeeper raw() throws Exception {
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
    assertThat(connected.await(20, TimeUnit.SECONDS)).as("raw client connected").isTrue();
    return zk;
  }

  @ParameterizedTest(name = "ZooKeeper {0}")
  @MethodSource("versions")
  void mutex_fencingTokensIncreaseAcrossHolders(String version) throws Exception {
    on(version, "mutex");
    DistributedLock a = client("a").mutex("orders/42");
    DistributedLock b = client("b").mutex("orders/42");
    DistributedLock c = client("c").mutex("orders/42");

    LockHandle first = a.acquire();
    CompletableFuture<LockHandle> queued = b.acquireAsync();
    assertThat(c.tryAcquire()).as("held: tryAcquire gives nothing").isEmpty();
    assertThat(queued).as("the second waits behind the holder").isNotDone();
    long t1 = first.fencingToken();
    first.release();
    LockHandle second = queued.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    long t2 = second.fencingToken();
    second.release();
    LockHandle third = c.tryAcquire(WAIT).orElseThrow();
    long t3 = third.fencingToken();
    third.release();
    LockHandle fourth = a.acquire();
    long t4 = fourth.fencingToken();
    fourth.release();

    assertThat(List.of(t1, t2, t3, t4)).as("fencing tokens across holders").isSorted();
    assertThat(t1).isLessThan(t2);
    assertThat(t2).isLessThan(t3);
    assertThat(t3).isLessThan(t4);
  }

  @ParameterizedTest(name = "ZooKeeper {0}")
  @MethodSource("versions")
  void simpleLockAndMultiLock_excludeAcrossClients(String version) throws Exception {
    on(version, "simple");
    ZkLocks a = client("a");
    ZkLocks b = client("b");

    LockHandle simple = a.simpleLock("nightly").acquire();
    assertThat(b.simpleLock("nightly").tryAcquire()).isEmpty();
    simple.release();
    b.simpleLock("nightly").tryAcquire(WAIT).orElseThrow().release();

    LockHandle both = a.multiLock(a.mutex("x"), a.mutex("y")).acquire();
    assertThat(b.mutex("y").tryAcquire()).as("every part of a multi-lock is held").isEmpty();
    both.release();
    b.multiLock(b.mutex("y"), b.mutex("x")).tryAcquire(WAIT).orElseThrow().release();
  }

  @ParameterizedTest(name = "ZooKeeper {0}")
  @MethodSource("versions")
  void readWrite_readersShare_writersExclude(String version) throws Exception {
    on(version, "rw");
    ReadWriteLock a = client("a").readWriteLock("inventory");
    ReadWriteLock b = client("b").readWriteLock("inventory");
    ReadWriteLock c = client("c").readWriteLock("inventory");

    LockHandle r1 = a.readLock().acquire();
    LockHandle r2 = b.readLock().tryAcquire(WAIT).orElseThrow();
    assertThat(c.writeLock().tryAcquire()).as("readers hold: no writer").isEmpty();
    CompletableFuture<LockHandle> writer = c.writeLock().acquireAsync();
    r1.release();
    assertThat(writer).as("one reader still holds").isNotDone();
    r2.release();
    LockHandle w = writer.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(a.readLock().tryAcquire()).as("a writer holds: no reader").isEmpty();
    long writeToken = w.fencingToken();
    w.release();
    LockHandle r3 = a.readLock().tryAcquire(WAIT).orElseThrow();
    assertThat(r3.fencingToken()).isGreaterThan(writeToken);
    r3.release();
  }

  @ParameterizedTest(name = "ZooKeeper {0}")
  @MethodSource("versions")
  void semaphore_grantsUpToItsPermits(String version) throws Exception {
    on(version, "semaphore");
    DistributedSemaphore a = client("a").semaphore("api-quota", 2);
    DistributedSemaphore b = client("b").semaphore("api-quota", 2);
    DistributedSemaphore c = client("c").semaphore("api-quota", 2);

    LockHandle l1 = a.acquire();
    LockHandle l2 = b.tryAcquire(WAIT).orElseThrow();
    assertThat(c.tryAcquire()).as("both permits leased").isEmpty();
    CompletableFuture<LockHandle> third = c.acquireAsync();
    l1.release();
    LockHandle l3 = third.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(l3.isHeld()).isTrue();
    l2.release();
    l3.release();
  }

  @ParameterizedTest(name = "ZooKeeper {0}")
  @MethodSource("versions")
  void election_oneLeader_andTheNextWhenItLeaves(String version) throws Exception {
    on(version, "election");
    List<LeaderElection> es = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      LeaderElection e = track(client("p" + i).leaderElection("scheduler", "node-" + i));
      e.start();
      es.add(e);
    }
    await().atMost(WAIT).until(() -> es.stream().filter(LeaderElection::isLeader).count() == 1);
    LeaderElection first = es.stream().filter(LeaderElection::isLeader).findFirst().orElseThrow();
    long firstEpoch = first.epoch().orElseThrow();
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              for (LeaderElection e : es) {
                assertThat(e.leader()).contains(first.participantId());
              }
            });

    first.close();

    await()
        .atMost(WAIT)
        .until(() -> es.stream().filter(e -> e != first && e.isLeader()).count() == 1);
    LeaderElection next = es.stream().filter(LeaderElection::isLeader).findFirst().orElseThrow();
    assertThat(next.epoch().orElseThrow()).isGreaterThan(firstEpoch);
  }

  @ParameterizedTest(name = "ZooKeeper {0}")
  @MethodSource("versions")
  void cohort_handsOffInMemory_thenToAnotherClient_withIncreasingTokens(String version)
      throws Exception {
    on(version, "cohort");
    // bounds that a slow machine cannot reach: the handoff from a1 to a2 is always local
    LockOptions cohort = LockOptions.cohort().maxLocalHold(Duration.ofMinutes(1));
    DistributedLock a = client("a").mutex("hot", cohort);
    DistributedLock b = client("b").mutex("hot", cohort);

    LockHandle a1 = a.acquire();
    CompletableFuture<LockHandle> a2 = a.acquireAsync();
    CompletableFuture<LockHandle> b1 = b.acquireAsync();
    assertThat(b1).isNotDone();
    a1.release();
    LockHandle local = a2.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(local.fencingToken())
        .as("a local handoff on the same node: the next token of that node")
        .isEqualTo(a1.fencingToken() + 1);
    local.release();
    LockHandle remote = b1.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(remote.fencingToken()).isGreaterThan(local.fencingToken());
    remote.release();
  }

  @ParameterizedTest(name = "ZooKeeper {0}")
  @MethodSource("versions")
  void lease_runsOut_isTold_andTheLockPassesOn(String version) throws Exception {
    on(version, "lease");
    DistributedLock leased = client("a").mutex("job").withLease(Duration.ofMillis(300));
    DistributedLock other = client("b").mutex("job");

    LockHandle stuck = leased.acquire();
    CompletableFuture<LockHandle> next = other.acquireAsync();

    LockLostException lost = stuck.lost().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(lost.reason()).isEqualTo(LockLostException.Reason.LEASE_EXPIRED);
    LockHandle h = next.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(h.fencingToken()).isGreaterThan(stuck.fencingToken());
    h.release();
  }

  @ParameterizedTest(name = "ZooKeeper {0}")
  @MethodSource("versions")
  void inspect_andRequestRelease_andForceRelease(String version) throws Exception {
    on(version, "inspect");
    ZkLocks a = client("holder-a");
    ZkLocks b = client("waiter-b");
    ZkLocks operator = client("operator");
    LockHandle held = a.mutex("orders/7").acquire();
    CompletableFuture<LockHandle> waiting = b.mutex("orders/7").acquireAsync();
    await()
        .atMost(WAIT)
        .until(() -> operator.inspect("orders/7").orElseThrow().waiters().size() == 1);

    LockInfo info = operator.inspect("orders/7").orElseThrow();
    assertThat(info.kind()).isEqualTo(LockInfo.Kind.MUTEX);
    assertThat(info.holders()).extracting(LockNode::clientName).containsExactly("holder-a");
    assertThat(info.holders().get(0).fencingToken()).isEqualTo(held.fencingToken());
    assertThat(info.waiters()).extracting(LockNode::clientName).containsExactly("waiter-b");
    assertThat(operator.inspectAll("")).extracting(LockInfo::name).containsExactly("orders/7");

    CountDownLatch asked = new CountDownLatch(1);
    held.onReleaseRequested(asked::countDown);
    assertThat(operator.requestRelease("orders/7")).hasSize(1);
    assertThat(asked.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("holder asked").isTrue();

    List<LockNode> released = operator.forceRelease("orders/7");

    assertThat(released).extracting(LockNode::clientName).containsExactly("holder-a");
    assertThat(held.lost().get(WAIT.toSeconds(), TimeUnit.SECONDS).reason())
        .isEqualTo(LockLostException.Reason.NODE_DELETED);
    LockHandle next = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
    next.release();
  }

  @ParameterizedTest(name = "ZooKeeper {0}")
  @MethodSource("versions")
  void sessionExpiry_isTold_andTheLockPassesOn(String version) throws Exception {
    on(version, "expiry");
    ZkLocks a = client("a");
    DistributedLock other = client("b").mutex("leader-job");
    LockHandle held = a.mutex("leader-job").acquire();
    CompletableFuture<LockHandle> next = other.acquireAsync();

    server.expireSession(a.sessionId());

    LockLostException lost = held.lost().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(lost.reason()).isEqualTo(LockLostException.Reason.SESSION_EXPIRED);
    assertThat(held.isHeld()).isFalse();
    LockHandle h = next.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(h.fencingToken()).isGreaterThan(held.fencingToken());
    h.release();
    await("the expired client opens a new session")
        .atMost(WAIT)
        .until(() -> a.sessionState() == SessionState.CONNECTED);
    a.mutex("leader-job").tryAcquire(WAIT).orElseThrow().release();
  }

  @ParameterizedTest(name = "ZooKeeper {0}")
  @MethodSource("versions")
  void emptiedLockDirectory_isReclaimedByTheServer(String version) throws Exception {
    on(version, "reap");
    ZkLocks a = client("a");
    ZooKeeper raw = raw();
    LockHandle held = a.mutex("reap/one").acquire();
    assertThat(raw.exists(namespace + "/reap/one", false)).as("the lock directory").isNotNull();
    held.release();
    long released = System.nanoTime();

    await("the emptied lock directory and its emptied parent are containers the server reaps")
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(20))
        .until(() -> raw.exists(namespace + "/reap", false) == null);
    long millis = (System.nanoTime() - released) / 1_000_000;
    System.out.printf(
        "ZooKeeper %s reaped an emptied lock directory and its parent in %d ms"
            + " (container check interval 200 ms)%n",
        version, millis);

    a.mutex("reap/one").tryAcquire(WAIT).orElseThrow().release();
  }

  @ParameterizedTest(name = "ZooKeeper {0}")
  @MethodSource("versions")
  void authenticatedClient_staysConnected_andTryAcquireRightAfterBuildSucceeds(String version)
      throws Exception {
    on(version, "auth");
    List<SessionState> states = new CopyOnWriteArrayList<>();

    ZkLocks locks = track(builder("svc").digest("svc", "secret").build());
    states.add(locks.sessionState());
    locks.addSessionListener((state, sessionId) -> states.add(state));
    Optional<LockHandle> first = locks.mutex("orders/1").tryAcquire();

    assertThat(first).as("tryAcquire() right after build() (states: %s)", states).isPresent();
    first.get().release();
    for (int i = 0; i < 5; i++) {
      locks.mutex("orders/" + i).acquire().release();
    }
    LockHandle rw = locks.readWriteLock("rw").writeLock().acquire();
    rw.release();
    assertThat(locks.sessionState()).isEqualTo(SessionState.CONNECTED);
    assertThat(states)
        .as("every session state the authenticated client passed through")
        .containsOnly(SessionState.CONNECTED);
    assertThat(raw().getACL(namespace, null))
        .as("the namespace carries the client's identity")
        .anySatisfy(acl -> assertThat(acl.getId().getId()).startsWith("svc:"));

    // a second process of the same identity finds the tree its own and queues there
    ZkLocks again = track(builder("svc-2").digest("svc", "secret").build());
    assertThat(again.sessionState()).isEqualTo(SessionState.CONNECTED);
    again.mutex("orders/1").tryAcquire().orElseThrow().release();
  }

  @ParameterizedTest(name = "ZooKeeper {0}")
  @MethodSource("versions")
  void authenticatedClient_connectingInBackground_staysConnectedOnceConnected(String version)
      throws Exception {
    on(version, "auth-bg");
    List<SessionState> states = new CopyOnWriteArrayList<>();

    ZkLocks locks = track(builder("svc").digest("svc", "secret").connectInBackground().build());
    locks.addSessionListener((state, sessionId) -> states.add(state));
    LockHandle first = locks.mutex("orders/1").tryAcquire(WAIT).orElseThrow();

    first.release();
    for (int i = 0; i < 5; i++) {
      locks.mutex("orders/" + i).acquire().release();
    }
    assertThat(locks.sessionState()).isEqualTo(SessionState.CONNECTED);
    List<SessionState> seen = List.copyOf(states);
    int connected = seen.indexOf(SessionState.CONNECTED);
    assertThat(seen.subList(Math.max(connected, 0), seen.size()))
        .as("the states after the first connection (all: %s)", seen)
        .containsOnly(SessionState.CONNECTED);
  }
}
