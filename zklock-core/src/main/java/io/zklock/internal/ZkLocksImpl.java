package io.zklock.internal;

import io.zklock.DistributedLock;
import io.zklock.DistributedSemaphore;
import io.zklock.LeaderElection;
import io.zklock.LockHandle;
import io.zklock.LockInfo;
import io.zklock.LockNode;
import io.zklock.ReadWriteLock;
import io.zklock.SessionListener;
import io.zklock.SessionState;
import io.zklock.ZkLockException;
import io.zklock.ZkLocks;
import io.zklock.internal.engine.LockRequest;
import io.zklock.internal.engine.RequestContext;
import io.zklock.internal.engine.Requests;
import io.zklock.internal.inspect.Inspector;
import io.zklock.internal.protocol.SharedListings;
import io.zklock.internal.recipe.CohortLock;
import io.zklock.internal.recipe.Election;
import io.zklock.internal.recipe.MultiLock;
import io.zklock.internal.recipe.NodeLock;
import io.zklock.internal.recipe.ReadWriteLockImpl;
import io.zklock.internal.recipe.SemaphoreImpl;
import io.zklock.internal.rules.Args;
import io.zklock.internal.rules.Clock;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.Waiting;
import io.zklock.internal.zk.Deleter;
import io.zklock.internal.zk.Dirs;
import io.zklock.internal.zk.SerialExecutor;
import io.zklock.internal.zk.Session;
import io.zklock.internal.zk.SessionConfig;
import io.zklock.internal.zk.StartGate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.ACL;

/** The {@link ZkLocks} implementation: the session, the library's threads, and the recipes. */
public final class ZkLocksImpl implements ZkLocks {
  /**
   * Threads of the library's executor; with ZooKeeper's two, a ZkLocks uses four threads in all.
   */
  static final int THREADS = 2;

  private static final AtomicInteger INSTANCES = new AtomicInteger();

  /** Set on the library's own threads, which must not wait for work queued on them. */
  private static final ThreadLocal<Boolean> LIBRARY_THREAD = ThreadLocal.withInitial(() -> false);

  private final SessionConfig config;
  private final ScheduledThreadPoolExecutor pool;
  private final Executor serialEvents;
  private final Session session;
  private final Deleter deleter;
  private final Dirs dirs;
  private final Clock clock;
  private final Requests requests = new Requests();
  private final RequestContext requestContext;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Inspector inspector = new Inspector(this);

  private final StartGate gate;

  private final Map<String, CohortLock> cohorts = new ConcurrentHashMap<>();
  private final Map<String, ReadWriteLockImpl> cohortRws = new ConcurrentHashMap<>();

  private ZkLocksImpl(SessionConfig config, Clock clock, String ownerData) {
    this.config = config;
    this.clock = clock;
    int instance = INSTANCES.incrementAndGet();
    AtomicInteger threads = new AtomicInteger();
    ThreadFactory tf =
        r -> {
          Thread t =
              new Thread(
                  () -> {
                    LIBRARY_THREAD.set(true);
                    r.run();
                  },
                  "zklock-" + instance + "-" + threads.incrementAndGet());
          t.setDaemon(true);
          return t;
        };
    this.pool = new ScheduledThreadPoolExecutor(THREADS, tf, (r, ex) -> r.run());
    pool.setRemoveOnCancelPolicy(true);
    this.serialEvents = new SerialExecutor(pool);
    this.session = new Session(config, serialEvents, pool, clock);
    this.deleter = new Deleter(session);
    this.gate = new StartGate(config, clock, pool);
    this.dirs =
        new Dirs(config.namespace(), config.acl().entries(), config.guardsDirectories(), session);
    this.requestContext =
        new RequestContext(
            session,
            deleter,
            dirs,
            requests,
            new SharedListings(),
            NodeDataWriter.forThisProcess(config.clientName(), ownerData),
            config.acl().entries(),
            config.suspensionPolicy(),
            clock,
            pool,
            pool);
    session.addObserver(
        new Session.Observer() {
          @Override
          public void connected(Session.Conn conn) {}

          @Override
          public void suspended(Session.Conn conn) {
            requests.suspended();
          }

          @Override
          public void expired(Session.Conn expired) {
            requests.expired(expired.sessionId());
          }

          @Override
          public void closed() {
            requests.closed();
          }
        });
  }

  /** Connects a new instance; used by {@link ZkLocks.Builder#build()}. */
  public static ZkLocks connect(SessionConfig config) {
    return connect(config, Clock.SYSTEM);
  }

  /** Connects a new instance whose lock nodes carry {@code ownerData} (or none, if null). */
  public static ZkLocks connect(SessionConfig config, String ownerData) {
    return connect(config, Clock.SYSTEM, ownerData);
  }

  static ZkLocksImpl connect(SessionConfig config, Clock clock) {
    return connect(config, clock, null);
  }

  static ZkLocksImpl connect(SessionConfig config, Clock clock, String ownerData) {
    ZkLocksImpl impl = new ZkLocksImpl(config, clock, ownerData);
    if (config.connectInBackground()) {
      impl.startInBackground();
      return impl;
    }
    try {
      impl.session.start();
      impl.createNamespace();
      Session.Conn conn = impl.session.current();
      if (conn != null) {
        impl.dirs.learnIdentities(conn.zk(), config.auth());
      }
    } catch (RuntimeException e) {
      impl.close();
      throw e;
    }
    return impl;
  }

  /**
   * {@code connectInBackground}: opens the session without waiting; requests wait at the {@link
   * StartGate} until the first connection is made and this client's identities are known.
   */
  private void startInBackground() {
    gate.closeUntilConnected(session, conn -> dirs.learnIdentities(conn.zk(), config.auth()));
    try {
      session.startInBackground();
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Starts a request at once, or once this instance may start requests ({@link StartGate}). */
  public CompletableFuture<LockHandle> whenReady(
      Function<Waiting, CompletableFuture<LockHandle>> start, Waiting waiting, String path) {
    if (gate.isOpen()) {
      return start.apply(waiting);
    }
    checkOpen();
    return gate.whenOpen(start, waiting, path);
  }

  /** Whether requests may start at once (see {@link #whenReady(Runnable)}). */
  public boolean isReady() {
    return gate.isReadyOrFailed();
  }

  /** Runs {@code r} once requests may start; never if this instance is closed first. */
  public void whenReady(Runnable r) {
    gate.whenReadyOrFailed(r);
  }

  private void createNamespace() {
    String ns = config.namespace();
    if (ns.isEmpty()) {
      return;
    }
    Session.Conn conn = session.current();
    if (conn == null) {
      throw new ZkLockException("lost the connection to '" + config.connectString() + "' at start");
    }
    StringBuilder path = new StringBuilder();
    try {
      for (String seg : ns.substring(1).split("/")) {
        path.append('/').append(seg);
        String p = path.toString();
        if (conn.zk().exists(p, false) == null) {
          try {
            conn.zk().create(p, new byte[0], config.acl().entries(), CreateMode.PERSISTENT);
          } catch (KeeperException.NodeExistsException raced) {
            // another client made it first
          }
        }
      }
    } catch (KeeperException e) {
      throw new ZkLockException(
          "cannot create the namespace "
              + ns
              + " at '"
              + config.connectString()
              + "': "
              + e.code()
              + (e.code() == KeeperException.Code.NOAUTH ? " (not authorized)" : ""),
          path.toString(),
          conn.sessionId(),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ZkLockException("interrupted while creating the namespace " + ns, e);
    }
  }

  // ------------------------------------------------------------------ for the recipes

  /** What this instance's lock requests need ({@link LockRequest}). */
  public RequestContext requestContext() {
    return requestContext;
  }

  public SessionConfig config() {
    return config;
  }

  public Session session() {
    return session;
  }

  Deleter deleter() {
    return deleter;
  }

  public Dirs dirs() {
    return dirs;
  }

  public Clock clock() {
    return clock;
  }

  /** The library's executor, on which user-visible futures complete. */
  public Executor executor() {
    return pool;
  }

  public ScheduledExecutorService scheduler() {
    return pool;
  }

  public List<ACL> acl() {
    return config.acl().entries();
  }

  public String dirOf(String name) {
    return config.namespace() + "/" + name;
  }

  /** Whether the calling thread is one of the library's executor threads (of any instance). */
  public static boolean onLibraryThread() {
    return LIBRARY_THREAD.get();
  }

  /** Whether {@link #close()} was called. */
  public boolean isClosed() {
    return closed.get();
  }

  public void checkOpen() {
    if (closed.get()) {
      throw new ZkLockException("this ZkLocks instance is closed");
    }
  }

  /**
   * For requests that must not wait (tryAcquire()): while the connection is down nobody can tell
   * whether the lock is free, so say so rather than wait or guess.
   */
  public void checkConnected(String path) {
    checkOpen();
    SessionState s = session.state();
    if (s != SessionState.CONNECTED) {
      throw new ZkLockException(
          "not connected to ZooKeeper (session " + s + "): cannot tell whether the lock is free",
          path,
          session.sessionId(),
          null);
    }
  }

  /** Number of requests pending or held, for tests and metrics. */
  int activeCount() {
    return requests.size();
  }

  // ------------------------------------------------------------------ ZkLocks

  @Override
  public DistributedLock mutex(String name) {
    return NodeLock.queue(this, Args.lockName(name), NodeKind.MUTEX);
  }

  @Override
  public DistributedLock mutex(String name, io.zklock.LockOptions options) {
    java.util.Objects.requireNonNull(options, "options");
    String n = Args.lockName(name);
    if (!options.isCohort()) {
      return mutex(n);
    }
    checkOpen();
    CohortLock c = cohorts.computeIfAbsent(n, k -> new CohortLock(this, k, options));
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
  }

  @Override
  public ReadWriteLock readWriteLock(String name) {
    return new ReadWriteLockImpl(this, Args.lockName(name));
  }

  @Override
  public ReadWriteLock readWriteLock(String name, io.zklock.LockOptions options) {
    java.util.Objects.requireNonNull(options, "options");
    String n = Args.lockName(name);
    if (!options.isCohort()) {
      return readWriteLock(n);
    }
    checkOpen();
    ReadWriteLockImpl rw =
        cohortRws.computeIfAbsent(n, k -> new ReadWriteLockImpl(this, k, options));
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

  @Override
  public DistributedLock simpleLock(String name) {
    return NodeLock.simple(this, Args.lockName(name));
  }

  @Override
  public DistributedSemaphore semaphore(String name, int permits) {
    return new SemaphoreImpl(this, Args.lockName(name), permits);
  }

  @Override
  public DistributedLock multiLock(DistributedLock... locks) {
    checkOpen();
    return MultiLock.of(this, locks);
  }

  @Override
  public LeaderElection leaderElection(String name, String participantId) {
    return new Election(this, Args.lockName(name), Args.participantId(participantId));
  }

  @Override
  public Optional<LockInfo> inspect(String name) {
    return inspector.inspect(Args.lockName(name));
  }

  @Override
  public List<LockInfo> inspectAll(String under) {
    java.util.Objects.requireNonNull(under, "under");
    return inspector.inspectAll(under.isEmpty() ? under : Args.lockName(under));
  }

  @Override
  public List<LockNode> forceRelease(String name) {
    return inspector.forceRelease(Args.lockName(name));
  }

  @Override
  public boolean forceRelease(LockNode holder) {
    return inspector.forceRelease(java.util.Objects.requireNonNull(holder, "holder"));
  }

  @Override
  public List<LockNode> requestRelease(String name) {
    return inspector.requestRelease(Args.lockName(name));
  }

  @Override
  public SessionState sessionState() {
    return session.state();
  }

  @Override
  public long sessionId() {
    return session.sessionId();
  }

  /** The session's password, for tests that must expire it from another client. */
  byte[] sessionPassword() {
    Session.Conn c = session.session();
    return c == null ? new byte[0] : c.zk().getSessionPasswd();
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
  public void addSessionListener(SessionListener listener) {
    session.addListener(java.util.Objects.requireNonNull(listener, "listener"));
  }

  @Override
  public void removeSessionListener(SessionListener listener) {
    session.removeListener(listener);
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    session.close();
    pool.shutdown();
  }

  @Override
  public String toString() {
    return "ZkLocks[" + config.connectString() + config.namespace() + ", " + session.state() + "]";
  }
}
