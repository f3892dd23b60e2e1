package io.zklock.internal;

import io.zklock.DistributedLock;
import io.zklock.DistributedSemaphore;
import io.zklock.LeaderElection;
import io.zklock.LocalLocks;
import io.zklock.LockInfo;
import io.zklock.LockNode;
import io.zklock.LockOptions;
import io.zklock.LockOptions.Mode;
import io.zklock.LockWatch;
import io.zklock.ReadWriteLock;
import io.zklock.SessionListener;
import io.zklock.SessionState;
import io.zklock.ZkLockException;
import io.zklock.ZkLocks;
import io.zklock.internal.coord.CoordContext;
import io.zklock.internal.engine.Events;
import io.zklock.internal.engine.RequestContext;
import io.zklock.internal.engine.Requests;
import io.zklock.internal.inspect.Inspector;
import io.zklock.internal.inspect.LockWatcher;
import io.zklock.internal.protocol.SharedListings;
import io.zklock.internal.recipe.CohortLock;
import io.zklock.internal.recipe.Election;
import io.zklock.internal.recipe.MultiLock;
import io.zklock.internal.recipe.NodeLock;
import io.zklock.internal.recipe.ReadWriteLockImpl;
import io.zklock.internal.recipe.RecipeContext;
import io.zklock.internal.recipe.SemaphoreImpl;
import io.zklock.internal.rules.AclRule;
import io.zklock.internal.rules.Args;
import io.zklock.internal.rules.Clock;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.zk.Deleter;
import io.zklock.internal.zk.Dirs;
import io.zklock.internal.zk.Lifecycle;
import io.zklock.internal.zk.Platform;
import io.zklock.internal.zk.SerialExecutor;
import io.zklock.internal.zk.Session;
import io.zklock.internal.zk.SessionConfig;
import io.zklock.internal.zk.StartGate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import org.apache.zookeeper.data.ACL;

/**
 * The {@link ZkLocks} implementation: the wiring. It makes the session, the library's threads and
 * the contexts the layers below are handed ({@link RequestContext} for lock requests, {@link
 * RecipeContext} for the recipes), and answers the API by making recipes on them.
 */
final class ZkLocksImpl implements ZkLocks {
  private final SessionConfig config;
  private final List<ACL> acl; // config.acl() in ZooKeeper's types
  private final ScheduledExecutorService pool;
  private final Session session;
  private final Dirs dirs;
  private final StartGate gate;
  private final Lifecycle lifecycle;
  private final Inspector inspector;
  private final RecipeContext recipes;
  private final CoordContext coordination;
  private final Events events;

  private final Map<String, CohortLock> cohorts = new ConcurrentHashMap<>();
  private final Map<String, ReadWriteLockImpl> cohortRws = new ConcurrentHashMap<>();

  private final Requests requests;
  private final Clock clock;
  private final Object restart = new Object(); // stop() and start()

  private ZkLocksImpl(
      SessionConfig config,
      Platform platform,
      String ownerData,
      List<io.zklock.LockEventListener> listeners) {
    this.config = config;
    this.clock = platform.clock();
    this.pool = platform.executor().get();
    this.requests = new Requests(pool, clock);
    this.events = Events.of(listeners, config.clientName());
    Executor serialEvents = new SerialExecutor(pool);
    this.session =
        new Session(config, platform.connector(), serialEvents, pool, clock, platform.background());
    this.acl = AclRule.toZooKeeper(config.acl());
    this.gate = new StartGate(config, clock, pool);
    this.lifecycle = new Lifecycle(session, gate);
    this.dirs = new Dirs(config.namespace(), acl, config.guardsDirectories(), session);
    RequestContext requestContext =
        new RequestContext(
            session,
            new Deleter(session),
            dirs,
            requests,
            new SharedListings(),
            NodeDataWriter.forThisProcess(config.clientName(), ownerData),
            acl,
            config.suspensionPolicy(),
            clock,
            pool,
            pool,
            events,
            platform.ids(),
            platform.wallClock());
    this.inspector = new Inspector(session, config, clock, lifecycle, acl);
    this.recipes =
        new RecipeContext(requestContext, session, lifecycle, config.namespace(), inspector);
    this.coordination = recipes.coord(); // the same session, threads and namespace
    session.addListener(events::session); // makes no event unless someone listens
    session.addObserver(requests.sessionObserver());
  }

  /**
   * Connects a new instance on {@code platform} whose lock nodes carry {@code ownerData} (or none,
   * if null).
   */
  static ZkLocksImpl connect(
      SessionConfig config,
      Platform platform,
      String ownerData,
      List<io.zklock.LockEventListener> listeners) {
    ZkLocksImpl impl = new ZkLocksImpl(config, platform, ownerData, listeners);
    if (config.connectInBackground()) {
      impl.startInBackground();
      return impl;
    }
    try {
      impl.session.start();
      impl.createNamespace();
      Session.Conn conn = impl.session.current();
      if (conn != null) {
        impl.dirs.learnIdentities(conn, config);
      }
    } catch (RuntimeException e) {
      impl.close();
      throw e;
    }
    return impl;
  }

  static ZkLocksImpl connect(SessionConfig config, Clock clock) {
    return connect(config, Platform.SYSTEM.withClock(clock), null, List.of());
  }

  /**
   * {@code connectInBackground}: opens the session without waiting; requests wait at the {@link
   * StartGate} until the first connection is made and this client's identities are known.
   */
  private void startInBackground() {
    gate.closeUntilConnected(
        session,
        conn -> {
          session.learnServerLine(conn);
          dirs.learnIdentities(conn, config);
        });
    try {
      session.startInBackground();
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  private void createNamespace() {
    if (config.namespace().isEmpty()) {
      return;
    }
    Session.Conn conn = session.current();
    if (conn == null) {
      throw new ZkLockException("lost the connection to '" + config.connectString() + "' at start");
    }
    dirs.createNamespace(conn, config.connectString());
  }

  // ------------------------------------------------------------------ ZkLocks

  @Override
  public DistributedLock mutex(String name) {
    return NodeLock.queue(recipes, Args.lockName(config.namespace(), name), NodeKind.MUTEX);
  }

  @Override
  public DistributedLock mutex(String name, LockOptions options) {
    String n = Args.lockName(config.namespace(), name);
    switch (modeOf("mutex", n, options, Mode.values())) {
      case CURATOR_COMPATIBLE:
        return NodeLock.queue(recipes, n, NodeKind.CURATOR_MUTEX);
      case KAZOO_COMPATIBLE:
        return NodeLock.queue(recipes, n, NodeKind.KAZOO_LOCK);
      case LOCK_DELAY:
        return NodeLock.queue(recipes, n, NodeKind.MUTEX, options.lockDelay().toNanos());
      case COHORT:
        lifecycle.checkOpen();
        CohortLock c = cohorts.computeIfAbsent(n, k -> new CohortLock(recipes, k, options));
        if (!c.options().equals(options)) {
          throw new IllegalArgumentException(
              "the cohort lock '"
                  + n
                  + "' is already used here with "
                  + c.options()
                  + ", not "
                  + options);
        }
        return c;
      default:
        return mutex(n);
    }
  }

  /**
   * The one check of options against what a kind of lock supports: the options' {@link Mode}
   * (exactly one), or a refusal that names the lock and the mode, so that no mode is ever dropped
   * silently (a lock-delay above all, which only the plain mutex honours).
   */
  private static Mode modeOf(String kind, String name, LockOptions options, Mode... supported) {
    java.util.Objects.requireNonNull(options, "options");
    for (Mode m : supported) {
      if (m == options.mode()) {
        return m;
      }
    }
    if (options.mode() == Mode.LOCK_DELAY) {
      throw new IllegalArgumentException(
          "a lock-delay is supported by the plain mutex only, not by the "
              + kind
              + " '"
              + name
              + "' (it would not be honoured): "
              + options);
    }
    throw new IllegalArgumentException(
        "the "
            + kind
            + " '"
            + name
            + "' has no "
            + options.mode().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-')
            + " mode: "
            + options);
  }

  @Override
  public ReadWriteLock readWriteLock(String name) {
    return new ReadWriteLockImpl(recipes, Args.lockName(config.namespace(), name));
  }

  @Override
  public ReadWriteLock readWriteLock(String name, LockOptions options) {
    String n = Args.lockName(config.namespace(), name);
    Mode mode =
        modeOf(
            "read-write lock",
            n,
            options,
            Mode.PLAIN,
            Mode.COHORT,
            Mode.CURATOR_COMPATIBLE,
            Mode.KAZOO_COMPATIBLE);
    if (mode == Mode.CURATOR_COMPATIBLE || mode == Mode.KAZOO_COMPATIBLE) {
      return new ReadWriteLockImpl(recipes, n, options);
    }
    if (mode == Mode.PLAIN) {
      return readWriteLock(n);
    }
    lifecycle.checkOpen();
    ReadWriteLockImpl rw =
        cohortRws.computeIfAbsent(n, k -> new ReadWriteLockImpl(recipes, k, options));
    if (!rw.options().equals(options)) {
      throw new IllegalArgumentException(
          "the cohort read-write lock '"
              + n
              + "' is already used here with "
              + rw.options()
              + ", not "
              + options);
    }
    return rw;
  }

  /** This instance's session (tests that look at the server through the same connection). */
  Session session() {
    return session;
  }

  /** What this instance's recipes share (tests that build a recipe around fakes). */
  RecipeContext recipes() {
    return recipes;
  }

  /** The library's executor (tests that must know what it has run by some moment). */
  Executor executor() {
    return pool;
  }

  @Override
  public DistributedLock simpleLock(String name) {
    return NodeLock.simple(recipes, Args.lockName(config.namespace(), name));
  }

  @Override
  public DistributedSemaphore semaphore(String name, int permits) {
    return new SemaphoreImpl(recipes, Args.lockName(config.namespace(), name), permits);
  }

  @Override
  public io.zklock.DistributedCountDownLatch countDownLatch(String name, int count) {
    return new io.zklock.internal.coord.LatchImpl(
        coordination, Args.lockName(config.namespace(), name), count);
  }

  @Override
  public io.zklock.DistributedBarrier barrier(String name) {
    return new io.zklock.internal.coord.BarrierImpl(
        coordination, Args.lockName(config.namespace(), name));
  }

  @Override
  public io.zklock.DistributedDoubleBarrier doubleBarrier(String name, int members) {
    return new io.zklock.internal.coord.DoubleBarrierImpl(
        coordination, Args.lockName(config.namespace(), name), members);
  }

  @Override
  public DistributedSemaphore semaphore(String name, int permits, LockOptions options) {
    String n = Args.lockName(config.namespace(), name);
    Mode mode =
        modeOf("semaphore", n, options, Mode.PLAIN, Mode.CURATOR_COMPATIBLE, Mode.KAZOO_COMPATIBLE);
    if (mode == Mode.KAZOO_COMPATIBLE) {
      return SemaphoreImpl.kazooCompatible(recipes, n, permits);
    }
    return new SemaphoreImpl(recipes, n, permits, mode == Mode.CURATOR_COMPATIBLE);
  }

  @Override
  public DistributedLock multiLock(DistributedLock... locks) {
    lifecycle.checkOpen();
    return MultiLock.of(recipes, locks);
  }

  @Override
  public LeaderElection leaderElection(String name, String participantId) {
    return new Election(
        recipes, Args.lockName(config.namespace(), name), Args.participantId(participantId));
  }

  @Override
  public LeaderElection leaderElection(String name, String participantId, LockOptions options) {
    String n = Args.lockName(config.namespace(), name);
    Mode mode =
        modeOf("election", n, options, Mode.PLAIN, Mode.CURATOR_COMPATIBLE, Mode.KAZOO_COMPATIBLE);
    return new Election(
        recipes,
        n,
        Args.participantId(participantId),
        mode == Mode.CURATOR_COMPATIBLE
            ? NodeKind.CURATOR_LATCH
            : mode == Mode.KAZOO_COMPATIBLE ? NodeKind.KAZOO_LOCK : NodeKind.ELECTION);
  }

  @Override
  public Optional<LockInfo> inspect(String name) {
    return inspector.inspect(Args.lockName(config.namespace(), name));
  }

  @Override
  public List<LockInfo> inspectAll(String under) {
    java.util.Objects.requireNonNull(under, "under");
    return inspector.inspectAll(under.isEmpty() ? under : Args.lockName(config.namespace(), under));
  }

  @Override
  public List<LockNode> forceRelease(String name) {
    return inspector.forceRelease(Args.lockName(config.namespace(), name));
  }

  @Override
  public boolean forceRelease(LockNode holder) {
    return inspector.forceRelease(java.util.Objects.requireNonNull(holder, "holder"));
  }

  @Override
  public void holdOff(String name, java.time.Duration duration) {
    inspector.holdOff(
        Args.lockName(config.namespace(), name),
        Args.positiveMillis(duration, "duration").toMillis());
  }

  @Override
  public java.time.Duration holdOffRemaining(String name) {
    return java.time.Duration.ofMillis(
        inspector.holdOffRemaining(Args.lockName(config.namespace(), name)));
  }

  @Override
  public List<LockNode> requestRelease(String name) {
    return inspector.requestRelease(Args.lockName(config.namespace(), name));
  }

  @Override
  public LockWatch watchLocks(String under, Consumer<String> onChange) {
    java.util.Objects.requireNonNull(onChange, "onChange");
    String u = under.isEmpty() ? under : Args.lockName(config.namespace(), under);
    lifecycle.checkOpen();
    return new LockWatcher(session, config.namespace(), u, onChange, pool).start();
  }

  @Override
  public LocalLocks localLocks() {
    long since;
    SessionState state;
    long id;
    do { // the state, its start and the id of one moment: read again if a transition came between
      since = session.stateSinceNanos();
      state = sessionState();
      id = sessionId();
    } while (since != session.stateSinceNanos());
    return new LocalLocks(
        clientName(),
        namespace(),
        state,
        id,
        negotiatedSessionTimeout(),
        requests.snapshot(clock),
        java.time.Duration.ofNanos(Math.max(0L, clock.nanoTime() - since)),
        session.server());
  }

  @Override
  public SessionState sessionState() {
    return session.state();
  }

  @Override
  public long sessionId() {
    return session.sessionId();
  }

  @Override
  public java.time.Duration negotiatedSessionTimeout() {
    return session.negotiatedTimeout();
  }

  @Override
  public String clientName() {
    return config.clientName();
  }

  @Override
  public String namespace() {
    return config.namespace().isEmpty() ? "/" : config.namespace();
  }

  @Override
  public void addEventListener(io.zklock.LockEventListener listener) {
    events.add(
        java.util.Objects.requireNonNull(listener, "listener"), session::state, session::sessionId);
  }

  @Override
  public void removeEventListener(io.zklock.LockEventListener listener) {
    events.remove(listener);
  }

  @Override
  public void addSessionListener(SessionListener listener) {
    session.addListener(java.util.Objects.requireNonNull(listener, "listener"));
  }

  @Override
  public void removeSessionListener(SessionListener listener) {
    session.removeListener(listener);
  }

  @Override
  public long droppedEvents() {
    return events.dropped();
  }

  @Override
  public void stop() {
    synchronized (restart) {
      if (!lifecycle.stop()) {
        return;
      }
      session.close(); // its observers: every request fails or loses its hold, as at close()
      cohorts.clear(); // their state ended with the session; start() makes new ones
      cohortRws.clear();
    }
  }

  @Override
  public void start() {
    synchronized (restart) {
      if (!lifecycle.isStopped()) {
        lifecycle.checkOpen(); // closed: say so; running: nothing to do
        return;
      }
      session.restart();
      try {
        createNamespace();
        Session.Conn conn = session.current();
        if (conn != null) {
          dirs.learnIdentities(conn, config);
        }
      } catch (RuntimeException e) {
        session.close();
        throw e;
      }
      lifecycle.started();
    }
  }

  @Override
  public void close() {
    if (!lifecycle.close()) {
      return;
    }
    session.close();
    pool.shutdown();
    events.close();
  }

  @Override
  public String toString() {
    return "ZkLocks[" + config.connectString() + config.namespace() + ", " + session.state() + "]";
  }
}
