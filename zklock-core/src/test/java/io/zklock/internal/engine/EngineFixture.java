package io.zklock.internal.engine;

import io.zklock.LockHandle;
import io.zklock.SuspensionPolicy;
import io.zklock.internal.protocol.NodeProtocol;
import io.zklock.internal.protocol.QueueProtocol;
import io.zklock.internal.protocol.SharedListings;
import io.zklock.internal.protocol.SingleNodeProtocol;
import io.zklock.internal.rules.Json;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.Ordering;
import io.zklock.internal.rules.QueueNode;
import io.zklock.internal.rules.RandomIds;
import io.zklock.internal.rules.Waiting;
import io.zklock.internal.rules.WallClock;
import io.zklock.internal.zk.Deleter;
import io.zklock.internal.zk.Dirs;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs.Ids;

/**
 * A {@link RequestContext} around fakes — {@link FakeZooKeeper}, {@link FakeSession}, a {@link
 * ManualScheduler} on a fake clock, a direct executor — and helpers that start requests the way
 * {@code NodeLock} does. No server, no threads, no sleeping.
 */
public final class EngineFixture {
  public static final String NS = "/zklock";
  public static final String DIR = NS + "/orders";
  static final String SIMPLE_NODE = DIR + "/" + NodeKind.SIMPLE.prefix() + "-lock";
  static final long FIRST_SESSION = 0x1001;
  public static final long OTHER_SESSION = 0x9009;

  public final FakeZooKeeper zk;
  public final ManualScheduler.FakeClock clock;
  public final ManualScheduler scheduler;
  public final FakeSession session;
  final Requests requests;
  public final RequestContext ctx;
  private long nextSession = FIRST_SESSION + 1;

  /**
   * The library's executor's tasks, when it is deferred ({@link #deferred()}): run by {@link
   * #runTasks()}. Empty (and unused) for the usual direct executor.
   */
  private final java.util.ArrayDeque<Runnable> tasks = new java.util.ArrayDeque<>();

  /**
   * The batcher's threshold of every fixture not made {@link #batched}: 0 (requests go out alone)
   * unless {@code -Dzklock.test.batchAtOnceBelow=N}, which runs the engine's tests batched.
   */
  static final int BATCHED_BY_DEFAULT = Integer.getInteger("zklock.test.batchAtOnceBelow", 0);

  /** 0: requests go out alone; else the session's batcher's threshold ({@link #batched}). */
  final int batchAtOnceBelow;

  public EngineFixture() {
    this(SuspensionPolicy.WAIT_FOR_EXPIRY);
  }

  EngineFixture(SuspensionPolicy policy) {
    this(
        new FakeZooKeeper(),
        new ManualScheduler.FakeClock(),
        null,
        FIRST_SESSION,
        policy,
        false,
        BATCHED_BY_DEFAULT);
    zk.mkdirs(DIR);
  }

  private EngineFixture(boolean deferred) {
    this(
        new FakeZooKeeper(),
        new ManualScheduler.FakeClock(),
        null,
        FIRST_SESSION,
        SuspensionPolicy.WAIT_FOR_EXPIRY,
        deferred,
        BATCHED_BY_DEFAULT);
    zk.mkdirs(DIR);
  }

  /**
   * A fixture whose library executor does not run a task at once but queues it until {@link
   * #runTasks()}: for the races between what the executor runs (a loss told, a future completed)
   * and what the session does meanwhile (a new session connects).
   */
  public static EngineFixture deferred() {
    return new EngineFixture(true);
  }

  /** Runs the deferred executor's tasks, and those they queue, until none is left. */
  public void runTasks() {
    Runnable t;
    while ((t = tasks.poll()) != null) {
      t.run();
    }
  }

  /** Whether the deferred executor has tasks waiting. */
  public boolean hasTasks() {
    return !tasks.isEmpty();
  }

  /**
   * A fixture whose session sends its requests through a {@link io.zklock.internal.zk.Batcher}, as
   * a live session does, on a server that answers read-only multis: a call goes out at once while
   * fewer than {@code atOnceBelow} requests are in flight (1: only when none is), else it waits for
   * the next reply and goes with the others.
   */
  static EngineFixture batched(int atOnceBelow) {
    return batched(atOnceBelow, 0);
  }

  /**
   * As {@link #batched(int)}, a call held only while {@code holdFrom} calls or more are outstanding
   * (in flight or queued; 0: whenever the window is full).
   */
  static EngineFixture batched(int atOnceBelow, int holdFrom) {
    EngineFixture f =
        new EngineFixture(
            new FakeZooKeeper(),
            new ManualScheduler.FakeClock(),
            null,
            FIRST_SESSION,
            SuspensionPolicy.WAIT_FOR_EXPIRY,
            false,
            atOnceBelow,
            holdFrom);
    f.zk.mkdirs(DIR);
    return f;
  }

  /**
   * Another client on the same fake server, clock and scheduler as {@code shared}: its own session
   * ({@code sessionId}), connection and requests, so that a test can run the real code of two
   * clients against one tree (one holds and releases, the other waits).
   */
  private EngineFixture(
      FakeZooKeeper zk,
      ManualScheduler.FakeClock clock,
      ManualScheduler scheduler,
      long sessionId,
      SuspensionPolicy policy,
      boolean deferred,
      int batchAtOnceBelow) {
    this(zk, clock, scheduler, sessionId, policy, deferred, batchAtOnceBelow, 0);
  }

  private EngineFixture(
      FakeZooKeeper zk,
      ManualScheduler.FakeClock clock,
      ManualScheduler scheduler,
      long sessionId,
      SuspensionPolicy policy,
      boolean deferred,
      int batchAtOnceBelow,
      int batchHoldFrom) {
    this.batchAtOnceBelow = batchAtOnceBelow;
    this.zk = zk;
    this.clock = clock;
    this.scheduler = scheduler != null ? scheduler : new ManualScheduler(clock);
    this.requests = new Requests(this.scheduler, clock);
    // the server's clock (ctime, mtime) moves with the test's
    zk.serverClock(() -> clock.nanoTime() / 1_000_000L);
    this.session = new FakeSession(zk, sessionId, batchAtOnceBelow, batchHoldFrom, this.scheduler);
    session.tell(requests);
    ctx =
        new RequestContext(
            session,
            new Deleter(session),
            new Dirs(NS, Ids.OPEN_ACL_UNSAFE, false, session),
            requests,
            new SharedListings(),
            EngineFixture::nodeData,
            Ids.OPEN_ACL_UNSAFE,
            policy,
            clock,
            deferred ? tasks::add : Runnable::run,
            this.scheduler,
            Events.NONE,
            RandomIds.SECURE,
            WallClock.SYSTEM);
  }

  static byte[] nodeData(NodeKind kind, long sessionId, Map<String, String> extra) {
    StringBuilder json =
        new StringBuilder("{\"session\":\"0x" + Long.toHexString(sessionId) + "\",\"kind\":\"")
            .append(kind.label())
            .append('"');
    extra.forEach(
        (k, v) -> json.append(',').append(Json.quote(k)).append(':').append(Json.quote(v)));
    return json.append('}').toString().getBytes(StandardCharsets.UTF_8);
  }

  /** A started request: the engine's object, and the caller's future. */
  record Started(LockRequest request, CompletableFuture<LockHandle> future) {
    LockRequest.State state() {
      return request.state();
    }

    /** The handle the caller got; fails the test if there is none. */
    LockHandle handle() {
      if (!future.isDone() || future.isCompletedExceptionally()) {
        throw new AssertionError("not granted: " + future + ", state " + request.state());
      }
      LockHandle h = future.join();
      if (h == null) {
        throw new AssertionError("completed without a handle, state " + request.state());
      }
      return h;
    }
  }

  /**
   * Another client of the same fake server, clock and scheduler, on session {@code sessionId} (see
   * the private constructor). Requests sent through {@link FakeZooKeeper} itself as a {@code ZkOps}
   * stay this fixture's.
   */
  public EngineFixture otherClient(long sessionId) {
    EngineFixture other =
        new EngineFixture(
            zk,
            clock,
            scheduler,
            sessionId,
            SuspensionPolicy.WAIT_FOR_EXPIRY,
            false,
            batchAtOnceBelow);
    zk.useSession(session.sessionId());
    return other;
  }

  // ---------------------------------------------------------------- requests, as the locks start
  // them

  Started mutex(boolean tryOnly, long nanos, boolean hasDeadline) {
    return queue(NodeKind.MUTEX, Ordering.forKind(NodeKind.MUTEX), tryOnly, nanos, hasDeadline);
  }

  /** A request of the queue of sequential nodes, as {@code NodeLock.queue} starts it. */
  Started queue(
      NodeKind kind, Ordering.Rule rule, boolean tryOnly, long nanos, boolean hasDeadline) {
    return start(new QueueProtocol(DIR, kind, rule, Map.of()), tryOnly, nanos, hasDeadline);
  }

  /** A request of a mutex with a lock-delay, as {@code NodeLock.queue} starts it with one. */
  Started delayedMutex(Duration delay, boolean tryOnly, long nanos, boolean hasDeadline) {
    NodeKind kind = NodeKind.MUTEX;
    return start(
        new QueueProtocol(DIR, kind, Ordering.forKind(kind), Map.of(), delay.toNanos()),
        tryOnly,
        nanos,
        hasDeadline);
  }

  Started acquire() {
    return mutex(false, 0, false);
  }

  /** A plain acquire of the mutex whose directory is {@code dir} (another lock than DIR's). */
  Started acquireIn(String dir) {
    NodeKind kind = NodeKind.MUTEX;
    return start(new QueueProtocol(dir, kind, Ordering.forKind(kind), Map.of()), false, 0, false);
  }

  Started tryAcquire() {
    return mutex(true, 0, false);
  }

  Started acquire(Duration timeout) {
    return mutex(false, timeout.toNanos(), true);
  }

  Started simple(boolean tryOnly, long nanos, boolean hasDeadline) {
    return start(new SingleNodeProtocol(DIR), tryOnly, nanos, hasDeadline);
  }

  Started simpleAcquire() {
    return simple(false, 0, false);
  }

  /** How a request waits, from the old triple: now, until a deadline, or forever. */
  private Waiting waiting(boolean tryOnly, long nanos, boolean hasDeadline) {
    if (tryOnly) {
      return Waiting.NOW;
    }
    return hasDeadline ? Waiting.after(nanos, ctx.clock()) : Waiting.FOREVER;
  }

  private Started start(NodeProtocol protocol, boolean tryOnly, long nanos, boolean hasDeadline) {
    LockRequest r =
        new LockRequest(
            "orders", protocol, ctx, new Ticket(ctx, waiting(tryOnly, nanos, hasDeadline)), x -> x);
    return new Started(r, r.start());
  }

  // ---------------------------------------------------------------- the world around

  /** Delivers every reply and event, and whatever they lead to. */
  public void settle() {
    zk.deliverAll();
  }

  /** The children of the lock directory, sorted by name. */
  public List<String> nodes() {
    return zk.children(DIR);
  }

  /** Another client queues a mutex node; returns its path. */
  String otherQueues() {
    return otherQueues(NodeKind.MUTEX);
  }

  /** Another client queues a node of {@code kind}; returns its path. */
  public String otherQueues(NodeKind kind) {
    return zk.create(
        OTHER_SESSION,
        DIR + "/" + QueueNode.prefix(kind, QueueNode.newAttemptId()),
        CreateMode.EPHEMERAL_SEQUENTIAL);
  }

  /** Another client holds the simple lock's node. */
  String otherHoldsSimple() {
    return zk.create(
        OTHER_SESSION,
        SIMPLE_NODE,
        nodeData(NodeKind.SIMPLE, OTHER_SESSION, Map.of("attempt", QueueNode.newAttemptId())),
        CreateMode.EPHEMERAL);
  }

  /** The session expires and the client hears it; then a new session connects. */
  public long expireAndRenew() {
    session.expire();
    long s = nextSession++;
    session.newSession(s);
    return s;
  }

  /**
   * The instance is closed: its requests hear it and its session ends ({@code ZkLocksImpl.close}
   * after it marked itself closed).
   */
  public void close() {
    session.close();
  }

  public long nextSessionId() {
    return nextSession++;
  }
}
