package io.zklock.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.LockHandle;
import io.zklock.NodeAcl;
import io.zklock.SessionState;
import io.zklock.SuspensionPolicy;
import io.zklock.internal.protocol.QueueProtocol;
import io.zklock.internal.protocol.SharedListings;
import io.zklock.internal.rules.Clock;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.Ordering;
import io.zklock.internal.rules.RandomIds;
import io.zklock.internal.rules.Waiting;
import io.zklock.internal.rules.WallClock;
import io.zklock.internal.zk.Deleter;
import io.zklock.internal.zk.Dirs;
import io.zklock.internal.zk.Session;
import io.zklock.internal.zk.SessionConfig;
import io.zklock.internal.zk.ZkClient;
import io.zklock.internal.zk.ZkConnector;
import io.zklock.internal.zk.ZkOps;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.data.ClientInfo;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The deadline of a <em>new</em> session, on the real {@link Session} over fake clients: the leader
 * makes a session when its connect request arrives, and a connect may be answered long after that
 * (a follower that lags behind the leader answers once it has applied the session's creation). So
 * the session's deadline counts from the start of the connect attempt that made it, not from the
 * first answer after {@code SyncConnected}, until a heartbeat of it is proven reported to the
 * leader (a later one on the same connection, sent T/4 + T/40 after its answer, answered), or a
 * reconnection's attempt start, whichever is later. A session connected so late that no heartbeat
 * of it can be proven before that deadline (the first sent at the connection, the one that can
 * prove it three heartbeats later) is not used (no request goes out on it, nothing is granted on
 * it) and another is opened; one connected in time is used as before.
 *
 * <p>All on a manual clock and scheduler (no sleeping, no real timing): T = 4 s, so the margin is
 * 500 ms, a new session is due 3.5 s after its attempt began, heartbeats go every 400 ms, and a new
 * session is used only if it connected less than 3.5 s - 1.2 s = 2.3 s after its attempt began.
 */
class NewSessionDeadlineTest {
  private static final String NS = EngineFixture.NS;
  private static final String DIR = EngineFixture.DIR;
  private static final int T_MS = 4000;
  private static final long DUE_NANOS = TimeUnit.MILLISECONDS.toNanos(3500); // T - margin
  // the earliest a heartbeat of a new session can be proven after its connection: the first one
  // sent the report period (T/4 + T/40 = 1.1 s) after the connection, the third (every T/10)
  private static final long FIRST_PROOF_NANOS = TimeUnit.MILLISECONDS.toNanos(1200);

  private final FakeZooKeeper zk = new FakeZooKeeper();
  private final ManualScheduler.FakeClock clock = new ManualScheduler.FakeClock();
  private final ManualScheduler scheduler = new ManualScheduler(clock);
  private final FakeConnector connector = new FakeConnector();
  private final List<String> told = new CopyOnWriteArrayList<>();
  // the session's serial news: run at once, or queued until the test runs them (a busy executor)
  private final ArrayDeque<Runnable> deferred = new ArrayDeque<>();
  private boolean deferEvents;
  private final Executor events =
      task -> {
        if (deferEvents) {
          deferred.add(task);
        } else {
          task.run();
        }
      };
  private final Session session =
      new Session(
          new SessionConfig(
              "s1:2181,s2:2181,s3:2181",
              NS,
              Duration.ofMillis(T_MS),
              Duration.ofSeconds(30),
              "new-session-deadline-test",
              List.of(),
              NodeAcl.open(),
              null,
              SuspensionPolicy.WAIT_FOR_EXPIRY,
              false,
              true),
          connector,
          events,
          scheduler,
          clock,
          (name, work) -> work.run());
  private final Requests requests = new Requests(scheduler, clock);
  private final RequestContext ctx =
      new RequestContext(
          session,
          new Deleter(session),
          new Dirs(NS, Ids.OPEN_ACL_UNSAFE, false, session),
          requests,
          new SharedListings(),
          EngineFixture::nodeData,
          Ids.OPEN_ACL_UNSAFE,
          SuspensionPolicy.WAIT_FOR_EXPIRY,
          clock,
          Runnable::run,
          scheduler,
          Events.NONE,
          RandomIds.SECURE,
          WallClock.SYSTEM);

  NewSessionDeadlineTest() {
    zk.mkdirs(DIR);
    zk.serverClock(() -> clock.nanoTime() / 1_000_000L);
    session.addListener((state, id) -> told.add(state + ":0x" + Long.toHexString(id)));
    session.addObserver(requests.sessionObserver());
  }

  @Test
  void
      aNewSessionConnectedLaterThanTMinusMarginAfterItsAttemptBegan_isNotUsed_andAnotherIsOpened() {
    // Given a session opening in the background and a mutex request waiting for its connection
    session.startInBackground();
    CompletableFuture<LockHandle> acquired = acquire();
    FakeClient first = connector.opened(0);
    long began = clock.nanoTime(); // its connect attempt begins

    // When the connect is answered 3.6 s after the attempt began (a lagging follower): the leader
    // made the session at the attempt's start at the latest, and may expire it 4 s after that
    clock(3600);
    first.connect(0x1001, began);

    // Then nothing is sent on that session (no heartbeat, no create: nothing can be granted on it),
    // no one hears of it, its handle is closed and a second session is being opened; when the
    // second connects in time, the request is granted on it
    assertTurnedAway_thenGrantedOnASecondSession(first, acquired);
  }

  @Test
  void aNewSessionConnectedInTime_isUsedAsBefore() {
    // Given a session opening in the background and a mutex request waiting for its connection
    session.startInBackground();
    CompletableFuture<LockHandle> acquired = acquire();
    FakeClient first = connector.opened(0);
    long began = clock.nanoTime();

    // When the connect is answered 2 s after the attempt began, in time
    clock(2000);
    first.connect(0x1001, began);
    zk.deliverAll();

    // Then the session is used: connected, the request granted on it
    assertThat(told).containsExactly("CONNECTED:0x1001");
    assertThat(session.state()).isEqualTo(SessionState.CONNECTED);
    assertThat(acquired).isCompleted();
    assertThat(zk.stat(acquired.join().path()).getEphemeralOwner()).isEqualTo(0x1001);
    assertThat(connector.clients).hasSize(1);
    assertThat(first.closed).isFalse();
    // and the heartbeat sent at the connection, answered, moves its deadline on past the attempt's
    // once a heartbeat sent the report period (T/4 + T/40 = 1.1 s) after its answer is answered
    // too (heartbeats every 400 ms: the one of 3.2 s)
    for (int i = 0; i < 4; i++) {
      clock(400);
      zk.deliverAll();
    }
    assertThat(clock.nanoTime() - began).isGreaterThan(DUE_NANOS);
    assertThat(told).containsExactly("CONNECTED:0x1001");
  }

  @Test
  void
      aNewSessionConnectedWhenItsDeadlineIsThreeHeartbeatsAway_isNotUsed_noHeartbeatCouldBeProvenInTime() {
    // Given a session opening in the background and a mutex request waiting for its connection
    session.startInBackground();
    CompletableFuture<LockHandle> acquired = acquire();
    FakeClient first = connector.opened(0);
    long began = clock.nanoTime();

    // When the connect is answered 2.3 s after the attempt began, 1.2 s before the deadline counted
    // from it: its first heartbeat would go out at 2.3 s, and the first one sent the report period
    // (1.1 s) after its answer, the third after it (heartbeats every 400 ms), at 3.5 s, the
    // deadline
    clock(2300);
    assertThat(DUE_NANOS - (clock.nanoTime() - began)).isEqualTo(FIRST_PROOF_NANOS);
    first.connect(0x1001, began);
    zk.deliverAll();

    // Then it is turned away as one connected past its deadline is: nothing sent on it, no one
    // told, its handle closed, a second session opening; the request is granted on the second
    assertTurnedAway_thenGrantedOnASecondSession(first, acquired);
  }

  /**
   * Session 0x1001 ({@code first}) was turned away: nothing sent on it, no one told, its handle
   * closed, a second session opening and the request still waiting; the second, connected in time,
   * is used and the request granted on it.
   */
  private void assertTurnedAway_thenGrantedOnASecondSession(
      FakeClient first, CompletableFuture<LockHandle> acquired) {
    assertThat(sentBy(0x1001)).as("requests sent on the session connected too late").isEmpty();
    assertThat(told).doesNotContain("CONNECTED:0x1001", "LOST:0x1001");
    assertThat(session.state()).isEqualTo(SessionState.SUSPENDED);
    assertThat(first.closed).isTrue();
    assertThat(connector.clients).hasSize(2);
    assertThat(acquired).isNotDone();

    FakeClient second = connector.opened(1);
    long began2 = clock.nanoTime();
    clock(40);
    second.connect(0x1002, began2);
    zk.deliverAll();
    assertThat(told).containsExactly("CONNECTED:0x1002");
    assertThat(acquired).isCompleted();
    assertThat(zk.stat(acquired.join().path()).getEphemeralOwner()).isEqualTo(0x1002);
  }

  @Test
  void
      aNewSessionConnectedANanosecondEarlier_isUsed_andItsThirdHeartbeatProvesItBeforeTheDeadline() {
    // Given a session opening in the background and a mutex request waiting for its connection
    session.startInBackground();
    CompletableFuture<LockHandle> acquired = acquire();
    FakeClient first = connector.opened(0);
    long began = clock.nanoTime();

    // When the connect is answered 1 ns less than 2.3 s after the attempt began, and every
    // heartbeat at once
    scheduler.advanceNanos(DUE_NANOS - FIRST_PROOF_NANOS - 1);
    long connectedAt = clock.nanoTime();
    first.connect(0x1001, began);
    zk.deliverAll();

    // Then the session is used: connected, the request granted on it
    assertThat(told).containsExactly("CONNECTED:0x1001");
    assertThat(acquired).isCompleted();
    assertThat(zk.stat(acquired.join().path()).getEphemeralOwner()).isEqualTo(0x1001);
    assertThat(connector.clients).hasSize(1);
    // and the heartbeat sent at 1.2 s after the connection, 1 ns before the deadline, answered at
    // once, proves the one sent at the connection: the deadline moves on to 3.5 s after that
    for (int i = 0; i < 3; i++) {
      clock(400);
      zk.deliverAll();
    }
    assertThat(clock.nanoTime() - began).isEqualTo(DUE_NANOS - 1);
    scheduler.advanceNanos(1);
    assertThat(told)
        .as("at the deadline counted from the attempt")
        .containsExactly("CONNECTED:0x1001");
    // (heartbeats keep being answered at once until the deadline counted from the connection)
    for (int i = 0; i < 5; i++) {
      clock(400);
      zk.deliverAll();
    }
    assertThat(clock.nanoTime() - connectedAt).isLessThan(DUE_NANOS);
    assertThat(told).containsExactly("CONNECTED:0x1001");
    assertThat(first.closed).isFalse();
  }

  @Test
  void aNewSessionConnectedInTime_isDueTMinusMarginAfterItsAttemptBegan_whileNothingIsAnswered() {
    // Given a session opening in the background
    session.startInBackground();
    FakeClient first = connector.opened(0);
    long began = clock.nanoTime();

    // When its connect is answered 2 s after the attempt began, in time, and then nothing more
    // (its heartbeats wait unanswered)
    clock(2000);
    first.connect(0x1001, began);
    clock(1499);
    assertThat(told).containsExactly("CONNECTED:0x1001");

    // Then it is declared lost 3.5 s after the attempt began (not 3.5 s after it connected, nor
    // never: no answer ever armed the deadline before)
    clock(1);
    assertThat(clock.nanoTime() - began).isEqualTo(DUE_NANOS);
    assertThat(told).containsExactly("CONNECTED:0x1001", "LOST:0x1001");
  }

  @Test
  void aReconnectionOfTheSameSession_keepsItsDeadline_whateverItsAttemptTook() {
    // Given a session that connected in time, its heartbeat answered at the connection
    session.startInBackground();
    FakeClient first = connector.opened(0);
    long began = clock.nanoTime();
    clock(100);
    long connectedAt = clock.nanoTime();
    first.connect(0x1001, began);
    zk.deliverAll();

    // When its connection drops and a reconnection, whose attempt began long ago (an attempt
    // start is not what a reconnection is judged by), connects 3 s later, and its heartbeat waits
    first.event(KeeperState.Disconnected);
    clock(3000);
    first.connect(0x1001, began - TimeUnit.SECONDS.toNanos(10));

    // Then the session is connected again (not turned away at its connection)
    assertThat(told).containsExactly("CONNECTED:0x1001", "SUSPENDED:0x1001", "CONNECTED:0x1001");
    assertThat(connector.clients).hasSize(1);
    assertThat(first.closed).isFalse();
    // and its deadline still counts from the latest instant proven: the start of the attempt that
    // made the session (the heartbeat answered at the first connection was never proven reported:
    // the connection dropped before a later one could prove it; the reconnection's attempt began
    // before that)
    clock(399);
    assertThat(told).hasSize(3);
    clock(1);
    assertThat(clock.nanoTime() - began).isEqualTo(DUE_NANOS);
    assertThat(clock.nanoTime() - connectedAt).isLessThan(DUE_NANOS);
    assertThat(told).endsWith("LOST:0x1001");
  }

  @Test
  void aSessionDeclaredLostBeforeTheNewsOfItsConnectionRan_leavesNoWaiterOnIt() {
    // Given a request waiting for the first connection, and the session's news running late (a
    // busy executor)
    session.startInBackground();
    CompletableFuture<LockHandle> acquired = acquire();
    FakeClient first = connector.opened(0);
    long began = clock.nanoTime();
    deferEvents = true;

    // When the session connects in time, 2.2 s after its attempt began, and its deadline passes
    // 1.3 s later, nothing answered, before the news of its connection has run
    clock(2200);
    first.connect(0x1001, began);
    clock(1300);
    assertThat(told).isEmpty();

    // Then, the news run, the request waits for the next session (it does not go round and round
    // on the ended one, told it is connected by a connection announced after its end)
    int ran = runEvents(10_000);
    assertThat(ran)
        .as("news run (a request going round on the ended session never stops)")
        .isLessThan(10_000);
    assertThat(told).containsExactly("CONNECTED:0x1001", "LOST:0x1001");
    assertThat(acquired).isNotDone();
    // and is granted on it once it connects
    deferEvents = false;
    assertThat(connector.clients).hasSize(2);
    FakeClient second = connector.opened(1);
    long began2 = clock.nanoTime();
    clock(40);
    second.connect(0x1002, began2);
    zk.deliverAll();
    assertThat(acquired).isCompleted();
    assertThat(zk.stat(acquired.join().path()).getEphemeralOwner()).isEqualTo(0x1002);
  }

  @Test
  void start_waitsPastAFirstSessionConnectedTooLate_forTheNextOne() throws Exception {
    // Given start() waiting for the first session (a blocking build)
    CompletableFuture<Void> started = CompletableFuture.runAsync(session::start);
    Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> connector.clients.size() == 1);
    FakeClient first = connector.opened(0);
    long began = clock.nanoTime();

    // When its first session connects too late to be used
    clock(3600);
    first.connect(0x1001, began);

    // Then start() still waits, for the session opened next; once that one connects, it returns
    assertThat(started).isNotDone();
    assertThat(connector.clients).hasSize(2);
    FakeClient second = connector.opened(1);
    long began2 = clock.nanoTime();
    clock(40);
    second.connect(0x1002, began2);
    started.get(20, TimeUnit.SECONDS);
    assertThat(session.sessionId()).isEqualTo(0x1002);
    assertThat(session.state()).isEqualTo(SessionState.CONNECTED);
  }

  // ---------------------------------------------------------------- helpers

  private CompletableFuture<LockHandle> acquire() {
    NodeKind kind = NodeKind.MUTEX;
    LockRequest r =
        new LockRequest(
            "orders",
            new QueueProtocol(DIR, kind, Ordering.forKind(kind), Map.of()),
            ctx,
            new Ticket(ctx, Waiting.FOREVER),
            x -> x);
    return r.start();
  }

  /** Runs the queued news, and those they queue, at most {@code limit}; returns how many ran. */
  private int runEvents(int limit) {
    int ran = 0;
    Runnable t;
    while (ran < limit && (t = deferred.poll()) != null) {
      t.run();
      ran++;
    }
    return ran;
  }

  private void clock(long millis) {
    scheduler.advance(Duration.ofMillis(millis));
  }

  private List<FakeZooKeeper.Sent> sentBy(long sessionId) {
    return zk.sent().stream().filter(s -> s.session() == sessionId).toList();
  }

  /** Opens fake clients; the test connects them. */
  private final class FakeConnector implements ZkConnector {
    final List<FakeClient> clients = new CopyOnWriteArrayList<>();

    @Override
    public ZkClient open(
        SessionConfig config, Clock clock, BiConsumer<ZkClient, KeeperState> news) {
      FakeClient c = new FakeClient(news);
      clients.add(c);
      return c;
    }

    FakeClient opened(int i) {
      return clients.get(i);
    }
  }

  /** A client whose connection news the test gives. */
  private final class FakeClient implements ZkClient {
    private final BiConsumer<ZkClient, KeeperState> news;
    private volatile long sessionId;
    private volatile long began;
    volatile boolean closed;

    FakeClient(BiConsumer<ZkClient, KeeperState> news) {
      this.news = news;
    }

    /** Connected to session {@code id} by an attempt that began at {@code beganNanos}. */
    void connect(long id, long beganNanos) {
      sessionId = id;
      began = beganNanos;
      news.accept(this, KeeperState.SyncConnected);
    }

    void event(KeeperState s) {
      news.accept(this, s);
    }

    @Override
    public ZkOps ops() {
      return zk.opsOf(sessionId);
    }

    @Override
    public long sessionId() {
      return sessionId;
    }

    @Override
    public int sessionTimeoutMillis() {
      return T_MS;
    }

    @Override
    public long connectBeganNanos() {
      return began;
    }

    @Override
    public List<ClientInfo> whoAmI() {
      return List.of();
    }

    @Override
    public boolean saslLogin() {
      return false;
    }

    @Override
    public void close() {
      closed = true;
    }
  }
}
