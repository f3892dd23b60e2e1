package io.zklock.internal.zk;

import io.zklock.LockLostException;
import io.zklock.SessionListener;
import io.zklock.SessionState;
import io.zklock.ZkLockException;
import io.zklock.internal.rules.Clock;
import io.zklock.internal.rules.ErrorKind;
import io.zklock.internal.rules.HeardProof;
import io.zklock.internal.rules.SessionDeadline;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one ZooKeeper session of a {@link io.zklock.ZkLocks}: connects, tracks the {@link
 * SessionState}, replaces an expired session with a new one, and tells listeners.
 *
 * <p>ZooKeeper delivers connection events on its single event thread; this class never blocks it.
 * It records the transition and hands listener calls to a serial executor.
 *
 * <p><b>The session deadline.</b> The ensemble expires a session once its leader has heard nothing
 * from it for the negotiated timeout T; a client cut off from the ensemble may never hear {@code
 * Expired}. So zklock keeps its own deadline, counted from {@code heardSentAt}: the latest instant
 * no later than which the leader is known to have heard from the session. While the session lives
 * it sends a heartbeat (a {@code sync}, which only the leader answers) every T/10 and records, for
 * each answer, when the request was <em>sent</em> and when it was answered, and on which
 * connection. An answer through a follower does not by itself prove that the leader heard: a
 * forwarded request does not touch the session at the leader, only the follower's answer to the
 * leader's next ping (every half tick) does, and a follower cut off from the leader right after
 * answering never sends it. So a heartbeat counts ({@link HeardProof}) once a later one on the same
 * connection, sent at least {@link SessionDeadline#reportNanos} (T/4 + T/40, half a tick and an
 * allowance when T is at least two ticks, ZooKeeper's smallest by default) after the first was
 * answered, is answered too: the follower passed on the first one's traffic before it forwarded the
 * second. A connection of the same session made again counts from the start of its attempt (the
 * leader revalidated the session before the connect was answered). A new session starts with {@code
 * heardSentAt} at the moment the connection attempt that made it began ({@link
 * ZkClient#connectBeganNanos()}): the leader made the session no earlier, and a connect may be
 * answered long after that (a follower that lags behind the leader answers once it has applied the
 * session's creation, up to ZooKeeper's connect timeout, the asked T / number of servers, after the
 * attempt began). A new session whose deadline is too near by the time it connects for a heartbeat
 * to be proven before it ({@link SessionDeadline#connectedInTime}: three heartbeats away or nearer,
 * 0.3 T) is not used: its handle is closed and another session is opened, with nothing sent on it
 * and nobody told of it. At {@code heardSentAt + T - margin} (see {@link
 * SessionDeadline#marginNanos}) with nothing newer proven, the session is declared lost exactly as
 * if it had expired: held locks are lost with {@link
 * io.zklock.LockLostException.Reason#SESSION_EXPIRED}, waiting requests queue again on a new
 * session, the old handle is closed in the background once the ensemble could have expired it
 * ({@link SessionDeadline#closeNanos}).
 */
public final class Session implements SessionPort {
  private static final Logger log = LoggerFactory.getLogger(Session.class);

  /**
   * One connected session: its id, and the calls a request makes on it ({@code ops}). Its client is
   * this package's alone, so nothing above the session reaches ZooKeeper's handle; a test gives
   * fake calls and no client. Immutable; a new one per connection.
   */
  public static final class Conn {
    private final ZkClient client;
    private final long sessionId;
    private final ZkOps ops;

    /** A connection without a client (tests that drive the layers above on fake calls). */
    public Conn(long sessionId, ZkOps ops) {
      this(null, sessionId, ops);
    }

    Conn(ZkClient client, long sessionId) {
      this(client, sessionId, client.ops());
    }

    Conn(ZkClient client, long sessionId, ZkOps ops) {
      this.client = client;
      this.sessionId = sessionId;
      this.ops = ops;
    }

    public long sessionId() {
      return sessionId;
    }

    /** The calls on this connection. */
    public ZkOps ops() {
      return ops;
    }

    /**
     * This connection, its calls guarded ({@link GuardedOps}): a throwable escaping a callback
     * handed to them is given to {@code failed}. For code that takes a connection and calls on it
     * for its caller ({@link Dirs}).
     */
    public Conn guarded(java.util.function.Consumer<Throwable> failed) {
      return new Conn(client, sessionId, GuardedOps.of(ops, failed));
    }

    /**
     * This connection, its calls guarded for an operation whose one outcome is {@code done}: a
     * throwable escaping a callback fails it ({@link GuardedOps#failing}, naming {@code path}).
     */
    public Conn guarded(java.util.concurrent.CompletableFuture<?> done, String path) {
      return guarded(GuardedOps.failing(done, path, sessionId));
    }

    /** The client of this connection; null for fake calls. */
    ZkClient client() {
      return client;
    }

    @Override
    public String toString() {
      return "Conn[0x" + Long.toHexString(sessionId) + "]";
    }
  }

  /** Internal listener of the recipes: unlike {@link SessionListener} it is told which handle. */
  public interface Observer {
    /** The session is connected (first time, again after suspension, or a new session). */
    void connected(Conn conn);

    /** The connection dropped; the session may be alive. */
    void suspended(Conn conn);

    /** The session {@code expired} is gone; every ephemeral node of it is gone. */
    void expired(Conn expired);

    /** The {@link io.zklock.ZkLocks} was closed. */
    void closed();
  }

  /** The least margin between zklock's session deadline and the ensemble's earliest expiry. */
  private final SessionConfig config;

  private final ZkConnector connector;
  private final Executor events; // serial: observers and listeners hear transitions in order
  private final ScheduledExecutorService scheduler;
  private final Clock clock;
  private final Platform.Background background;
  private final List<SessionListener> listeners = new CopyOnWriteArrayList<>();

  /** Whether the servers answer read-only multis: learnt once ({@link #learnServerLine}). */
  private final ServerLine serverLine = new ServerLine();

  private final List<Observer> observers = new CopyOnWriteArrayList<>();
  private final Object lock = new Object();

  // guarded by lock
  private SessionState state = SessionState.SUSPENDED;
  private long stateSinceNanos; // when state (or closed) last changed, by the clock
  private ZkClient currentZk; // the client in use; events of any other are late and ignored
  private Batcher currentBatcher; // its requests' batcher, null when not batching
  private EndedOps.End currentEnd; // set once currentZk's session is over: its calls are refused
  private Conn conn; // the session of currentZk once it has connected; null after an expiry
  private CompletableFuture<Conn> ready = new CompletableFuture<>();
  private boolean closed;
  // the deadline of the session of conn (guarded by lock)
  private CompletableFuture<Void> ended = new CompletableFuture<>(); // conn's session is over
  private long timeoutNanos; // negotiated
  // what the answered heartbeats of conn's session prove: the latest instant the leader is known to
  // have heard from it (at first, the start of the connect attempt that made the session)
  private HeardProof heard = HeardProof.madeAt(0L, 0L);
  // the number of connection events of the client in use so far: answers heard between the same two
  // events came on the same connection (ZooKeeper's event thread runs events and answers in order)
  private long connection;
  private ScheduledFuture<?> beatTask;
  private ScheduledFuture<?> deadlineTask;
  private volatile long negotiatedMillis;
  // while start() waits for the first connection: its latch and refusal, which a session opened
  // again meanwhile (the first was connected too late to be used) counts down as well
  private AtomicReference<Watcher.Event.KeeperState> startFailure;
  private CountDownLatch startFirst;

  public Session(
      SessionConfig config,
      Executor serialEvents,
      ScheduledExecutorService scheduler,
      Clock clock) {
    this(config, ZkConnector.LIVE, serialEvents, scheduler, clock);
  }

  /**
   * @param connector opens the clients: ZooKeeper's ({@link ZkConnector#LIVE}), or a simulation's
   */
  public Session(
      SessionConfig config,
      ZkConnector connector,
      Executor serialEvents,
      ScheduledExecutorService scheduler,
      Clock clock) {
    this(config, connector, serialEvents, scheduler, clock, Platform.THREADS);
  }

  /**
   * @param background where a client is closed that may wait for a server that does not answer
   */
  public Session(
      SessionConfig config,
      ZkConnector connector,
      Executor serialEvents,
      ScheduledExecutorService scheduler,
      Clock clock,
      Platform.Background background) {
    this.config = config;
    this.connector = connector;
    this.events = serialEvents;
    this.scheduler = scheduler;
    this.clock = clock;
    this.background = background;
    this.stateSinceNanos = clock.nanoTime();
  }

  /** The session timeout the ensemble granted to the current (or last) session; 0 before. */
  public Duration negotiatedTimeout() {
    return Duration.ofMillis(negotiatedMillis);
  }

  SessionConfig config() {
    return config;
  }

  /**
   * Opens the first session and waits until it is connected.
   *
   * @throws ZkLockException naming the connect string if no session is established in time
   */
  public void start() {
    AtomicReference<Watcher.Event.KeeperState> failure = new AtomicReference<>();
    CountDownLatch first = new CountDownLatch(1);
    long started = Clock.SYSTEM.nanoTime();
    long deadline = started + config.connectTimeout().toNanos();
    synchronized (lock) {
      startFailure = failure;
      startFirst = first;
    }
    ZkClient zk;
    try {
      zk = open(failure, first);
    } catch (RuntimeException e) {
      stopWaitingForStart();
      throw e;
    }
    // ZooKeeper's client retries quietly and keeps the cause to itself: look for it meanwhile,
    // and give up at once when no server can ever answer
    CompletableFuture<ConnectProbe.Finding> probe = connector.probe(config, first, deadline);
    try {
      boolean connected = first.await(config.connectTimeout().toMillis(), TimeUnit.MILLISECONDS);
      zk = stopWaitingForStart(zk);
      Watcher.Event.KeeperState bad = failure.get();
      if (bad != null) {
        zk.close();
        throw new ZkLockException(
            "cannot connect to ZooKeeper at '"
                + config.connectString()
                + "': "
                + (bad == Watcher.Event.KeeperState.AuthFailed
                    ? "authentication failed"
                    : "the session was refused (" + bad + ")"));
      }
      if (!connected || !zk.ops().connected()) {
        abandon(zk);
        ConnectProbe.Finding why = probe.getNow(null);
        if (why != null && why.certain()) {
          long tookMs = (Clock.SYSTEM.nanoTime() - started) / 1_000_000;
          throw new ZkLockException(
              "cannot connect to ZooKeeper at '"
                  + config.connectString()
                  + "': no server can answer (gave up after "
                  + tookMs
                  + " ms of the "
                  + config.connectTimeout().toMillis()
                  + " ms connect timeout): "
                  + why.message(),
              why.cause());
        }
        throw new ZkLockException(
            "cannot connect to ZooKeeper at '"
                + config.connectString()
                + "' within "
                + config.connectTimeout().toMillis()
                + " ms: no server answered"
                + (why != null
                    ? ": " + why.message()
                    : (config.tls() != null ? " (TLS handshake may have failed)" : "")
                        + "; is the ensemble running and reachable?"),
            why != null ? why.cause() : null);
      }
      long asked = config.sessionTimeout().toMillis();
      int granted = zk.sessionTimeoutMillis();
      if (granted != asked) {
        log.warn(
            "ZooKeeper at '{}' granted a session timeout of {} ms instead of the {} ms asked for"
                + " (servers clamp it to their minSessionTimeout..maxSessionTimeout, by default"
                + " 2 to 20 ticks); locks are lost after {} ms without the ensemble",
            config.connectString(),
            granted,
            asked,
            granted);
      }
      checkChroot(zk);
      Conn c = current();
      if (c != null) {
        learnServerLine(c);
      }
    } catch (InterruptedException e) {
      stopWaitingForStart(zk).close();
      Thread.currentThread().interrupt();
      throw new ZkLockException(
          "interrupted while connecting to '" + config.connectString() + "'", e);
    }
  }

  /**
   * {@link #start()} no longer waits: returns the client now in use, or {@code opened} (the one
   * start opened) if there is none: another than {@code opened} when its session was connected too
   * late to be used and a new one was opened.
   */
  private ZkClient stopWaitingForStart(ZkClient opened) {
    synchronized (lock) {
      startFailure = null;
      startFirst = null;
      return currentZk != null ? currentZk : opened;
    }
  }

  private void stopWaitingForStart() {
    stopWaitingForStart(null);
  }

  /**
   * Learns whether the servers answer read-only multis, so that listings may be batched ({@link
   * ServerLine}): one probe on {@code conn}, blocking, before any lock request is sent (at build,
   * or at the first connection of a {@code connectInBackground()} instance); nothing when batching
   * is off. A server before 3.6 answers by closing the connection: this then waits, at most the
   * connect timeout, until the client has connected again (the session lives on).
   */
  public void learnServerLine(Conn conn) {
    if (!config.batching() || conn.client() == null) {
      return;
    }
    long timeout = config.connectTimeout().toMillis();
    try {
      if (serverLine.probe(conn.client().ops(), timeout)) {
        awaitConnectedAgain(conn.client(), clock, clock.nanoTime() + timeout * 1_000_000L);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Waits until a request on {@code zk} is answered again after the server closed the connection: a
   * read sent before the client noticed the close is lost with it, one sent after waits for the
   * next connection.
   */
  private static void awaitConnectedAgain(ZkClient zk, Clock clock, long deadlineNanos)
      throws InterruptedException {
    BlockingOps ops = new BlockingOps(zk.ops());
    while (clock.nanoTime() - deadlineNanos < 0) {
      try {
        ops.exists("/");
        return;
      } catch (KeeperException.ConnectionLossException e) {
        Blocking.sleep(10);
      } catch (KeeperException e) {
        return; // answered: connected
      }
    }
  }

  /** Whether the servers answer read-only multis, as learnt (tests). */
  ServerLine serverLine() {
    return serverLine;
  }

  /**
   * Opens the first session without waiting for it ({@code connectInBackground}): ZooKeeper's
   * client keeps trying the servers; the state stays {@link SessionState#SUSPENDED} until one
   * answers, then it turns {@link SessionState#CONNECTED} as after any connection.
   *
   * @throws ZkLockException if the client cannot even be created (a malformed connect string)
   */
  public void startInBackground() {
    open(new AtomicReference<>(), null);
  }

  private void checkChroot(ZkClient zk) throws InterruptedException {
    int slash = config.connectString().indexOf('/');
    if (slash < 0 || config.connectString().length() == slash + 1) {
      return;
    }
    String chroot = config.connectString().substring(slash);
    try {
      if (new BlockingOps(zk.ops()).exists("/") == null) {
        zk.close();
        throw new ZkLockException(
            "cannot use ZooKeeper at '"
                + config.connectString()
                + "': the chroot "
                + chroot
                + " does not exist; create it first");
      }
    } catch (KeeperException e) {
      zk.close();
      throw new ZkLockException(
          "cannot use ZooKeeper at '" + config.connectString() + "': " + e.getMessage(), e);
    }
  }

  /**
   * Opens a client of a new session and makes it the one in use. {@code first}, when not null,
   * counts down at its first connection or refusal ({@code failure}: why).
   */
  private ZkClient open(AtomicReference<Watcher.Event.KeeperState> failure, CountDownLatch first) {
    Object made = new Object(); // held until the client is recorded: no news is heard before
    synchronized (made) {
      ZkClient zk =
          connector.open(
              config,
              clock,
              (client, s) -> {
                synchronized (made) {
                  // the client is recorded as the one in use (or was replaced since)
                }
                if (first != null
                    && (s == Watcher.Event.KeeperState.AuthFailed
                        || s == Watcher.Event.KeeperState.Expired)) {
                  failure.compareAndSet(null, s);
                  first.countDown();
                }
                boolean used = onConnectionEvent(client, s);
                if (first != null && used && s == Watcher.Event.KeeperState.SyncConnected) {
                  first.countDown();
                }
              });
      synchronized (lock) {
        currentZk = zk;
        currentEnd = new EndedOps.End();
        currentBatcher =
            config.batching()
                ? new Batcher(
                    new EndedOps(zk.ops(), currentEnd, events),
                    serverLine,
                    config.batchAtOnceBelow(),
                    config.batchHoldFrom(),
                    scheduler)
                : null;
      }
      return zk;
    }
  }

  /**
   * Runs on ZooKeeper's event thread: record, then hand the news to the serial executor. Returns
   * false when the event was a connection of a new session too late to be used (see {@link
   * #connectedTooLate}), true otherwise.
   */
  private boolean onConnectionEvent(ZkClient zk, Watcher.Event.KeeperState s) {
    Runnable news = null;
    long tooLate = -1; // ms from the connect attempt's start, when connected too late
    synchronized (lock) {
      if (closed) {
        return true;
      }
      if (zk != currentZk) {
        return true; // an old handle's late event
      }
      connection++;
      switch (s) {
        case SyncConnected:
        case ConnectedReadOnly:
          {
            boolean sameSession = conn != null && conn.sessionId() == zk.sessionId();
            long began = sameSession ? 0L : zk.connectBeganNanos();
            if (!sameSession) {
              negotiatedMillis = zk.sessionTimeoutMillis();
              long timeout = TimeUnit.MILLISECONDS.toNanos(negotiatedMillis);
              long now = clock.nanoTime();
              if (!SessionDeadline.connectedInTime(began, now, timeout)) {
                tooLate = TimeUnit.NANOSECONDS.toMillis(now - began);
                news = connectedTooLate(zk);
                break;
              }
            }
            Conn c =
                currentBatcher == null
                    ? new Conn(zk, zk.sessionId(), new EndedOps(zk.ops(), currentEnd, events))
                    : new Conn(zk, zk.sessionId(), currentBatcher.ops());
            conn = c;
            if (!sameSession) {
              startDeadline(c, began);
            } else if (s == Watcher.Event.KeeperState.SyncConnected) {
              // the server asked the leader to revalidate the session before it answered the
              // connect, and the leader touched it then: no earlier than this attempt began
              heard = heard.reconnected(connection, zk.connectBeganNanos());
            } else {
              heard = heard.moved(connection); // a read-only server does not ask the leader
            }
            beat(c); // at once: a reconnection does not tell when the server last heard us
            if (state != SessionState.CONNECTED) {
              state = SessionState.CONNECTED;
              stateSinceNanos = clock.nanoTime();
              CompletableFuture<Conn> r = ready;
              news =
                  () -> {
                    observers.forEach(o -> o.connected(c));
                    tell(SessionState.CONNECTED, c.sessionId());
                    handOver(r, c);
                  };
            }
            break;
          }
        case Disconnected:
          heard = heard.moved(connection);
          if (state == SessionState.CONNECTED && conn != null) {
            Conn c = conn;
            state = SessionState.SUSPENDED;
            stateSinceNanos = clock.nanoTime();
            ready = new CompletableFuture<>();
            news =
                () -> {
                  observers.forEach(o -> o.suspended(c));
                  tell(SessionState.SUSPENDED, c.sessionId());
                };
          }
          break;
        case Expired:
          if (conn != null && state != SessionState.LOST) {
            news = endLocked(false);
          }
          break;
        case AuthFailed:
          log.error(
              "authentication failed for ZooKeeper at '{}'; check the credentials",
              config.connectString());
          break;
        default:
          break;
      }
    }
    if (tooLate >= 0) {
      log.warn(
          "ZooKeeper session 0x{} at '{}' connected {} ms after its connect attempt began, and the"
              + " ensemble may expire a new session {} ms after it made it: too late to be used"
              + " safely (no heartbeat could be proven before zklock's deadline, {} ms after the"
              + " attempt began); it is closed and a new session is being opened",
          Long.toHexString(zk.sessionId()),
          config.connectString(),
          tooLate,
          negotiatedMillis,
          TimeUnit.NANOSECONDS.toMillis(
              SessionDeadline.dueNanos(0L, TimeUnit.MILLISECONDS.toNanos(negotiatedMillis))));
    }
    if (news != null) {
      events.execute(news);
    }
    return tooLate < 0;
  }

  /**
   * Called holding the lock: the new session of {@code zk} connected too late for a heartbeat of it
   * to be proven before its deadline, counted from the start of the connect attempt that made it
   * ({@link SessionDeadline#connectedInTime}): it would be declared lost then whatever it is
   * answered, or the ensemble may have expired it already (or may before a request's answer
   * arrives), so no lock may be taken on it. It is not used: nothing is sent on it, no one hears of
   * it (requests keep waiting for a connection, the state stays as it was), its handle is closed —
   * at once, as no node can be on it — and a new session is opened. Returns the news to run on the
   * serial executor.
   */
  private Runnable connectedTooLate(ZkClient zk) {
    currentZk = null; // its later events are ignored
    currentEnd.end(); // and nothing goes out on it
    stopDeadline();
    return () -> {
      background.run("zklock-close-0x" + Long.toHexString(zk.sessionId()), zk::close);
      reopen();
    };
  }

  /**
   * Completes {@code waiters} (who waited for a connection) with {@code c}, unless the session of
   * {@code c} is over by now, or the instance closed: they then wait for the next connection, as
   * those who ask now do. The session may end between the connection and this news (zklock's
   * deadline passing just as the handle connects again); handed the ended session's connection, a
   * request would send its create where it is refused, or, on a read, ask a handle that still
   * answers for a session that is over.
   */
  private void handOver(CompletableFuture<Conn> waiters, Conn c) {
    CompletableFuture<Conn> next;
    synchronized (lock) {
      next = closed || conn == null || conn.sessionId() != c.sessionId() ? ready : null;
    }
    if (next == null) {
      waiters.complete(c);
      return;
    }
    if (next == waiters) {
      return; // closed while connected: the close completed it
    }
    next.whenComplete(
        (n, err) -> {
          if (n != null) {
            waiters.complete(n);
          } else {
            waiters.completeExceptionally(err);
          }
        });
  }

  /**
   * Called holding the lock: the session of {@code conn} is over, because the ensemble said it
   * expired ({@code declared} false) or because zklock's deadline passed ({@code declared} true).
   * Returns the news to run on the serial executor: holders lose their locks, waiters queue again,
   * listeners hear {@link SessionState#LOST}, and a new session is opened.
   */
  private Runnable endLocked(boolean declared) {
    Conn old = conn;
    long closeAt = SessionDeadline.closeNanos(heard.provenAt(), timeoutNanos);
    CompletableFuture<Void> oldEnded = ended;
    boolean wasConnected = state == SessionState.CONNECTED;
    state = SessionState.LOST;
    stateSinceNanos = clock.nanoTime();
    if (ready.isDone() || wasConnected) {
      // the news of the connection completes the future it took with conn, maybe only after this
      // end (the serial executor runs it later): the next connection's waiters need a new one, or
      // they would be handed the ended session's connection at once, and again each time
      ready = new CompletableFuture<>();
    }
    conn = null;
    currentZk = null; // from now on the old handle's events are ignored: it must not come back
    currentEnd.end(); // and nothing new is sent on it: only its close (the news tells the rest)
    ended = new CompletableFuture<>();
    stopDeadline();
    return () -> {
      if (!declared) {
        old.client().close();
      }
      observers.forEach(o -> o.expired(old));
      oldEnded.complete(null);
      tell(SessionState.LOST, old.sessionId());
      if (declared) {
        closeWhenTheEnsembleCouldHaveExpired(old, closeAt);
      }
      reopen();
    };
  }

  /**
   * Closes the handle of a session declared lost, once the ensemble could have expired it ({@link
   * SessionDeadline#closeNanos}): its holders have been told by then. Closed at once, a handle that
   * is connected again (a partition that healed just before the deadline, a leader's failover)
   * would end the session on the ensemble immediately, and the next waiter could be granted before
   * the holder heard of its loss. Timed by the instance's scheduler, closed in the background:
   * closing may also wait for a server that does not answer, never on a caller's thread.
   */
  private void closeWhenTheEnsembleCouldHaveExpired(Conn old, long closeAt) {
    Runnable close = () -> background.run("zklock-close-" + hex(old), old.client()::close);
    long wait = closeAt - clock.nanoTime();
    if (wait <= 0) {
      close.run();
      return;
    }
    try {
      scheduler.schedule(close, wait, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      close.run(); // the instance is closed: its session ends now anyway
    }
  }

  private static String hex(Conn c) {
    return "0x" + Long.toHexString(c.sessionId());
  }

  /**
   * Called holding the lock, when {@code c} is a new session that connected in time: arms its
   * heartbeat and its deadline, counted from {@code began}, when the connect attempt that made the
   * session began (the leader made it no earlier).
   */
  private void startDeadline(Conn c, long began) {
    stopDeadline();
    timeoutNanos = TimeUnit.MILLISECONDS.toNanos(c.client().sessionTimeoutMillis());
    negotiatedMillis = c.client().sessionTimeoutMillis();
    heard = HeardProof.madeAt(began, connection);
    scheduleDeadline(c.sessionId());
    long period = SessionDeadline.beatNanos(timeoutNanos);
    beatTask =
        scheduler.scheduleWithFixedDelay(
            () -> {
              synchronized (lock) {
                if (conn != null
                    && conn.sessionId() == c.sessionId()
                    && state == SessionState.CONNECTED) {
                  beat(conn);
                }
              }
            },
            period,
            period,
            TimeUnit.NANOSECONDS);
  }

  /** Called holding the lock. */
  private void stopDeadline() {
    if (beatTask != null) {
      beatTask.cancel(false);
      beatTask = null;
    }
    if (deadlineTask != null) {
      deadlineTask.cancel(false);
      deadlineTask = null;
    }
  }

  /**
   * Sends one heartbeat on {@code c}. The time is taken before sending: the server receives the
   * request no earlier. {@code sync} is answered through the leader, so an answer also proves that
   * the leader was reachable after that time (a follower cut off from the leader cannot answer).
   */
  private void beat(Conn c) {
    long sentAt = clock.nanoTime();
    try {
      c.ops()
          .sync(
              "/",
              (rc, path, ctx) -> {
                Code code = Code.get(rc);
                if (code == Code.OK || code == Code.NONODE) {
                  heard(c, sentAt);
                }
              });
    } catch (RuntimeException e) {
      log.debug("heartbeat of session {} not sent", hex(c), e);
    }
  }

  /**
   * The send time, on the {@link Clock}, of the latest answered heartbeat of the current (or last)
   * session, or the start of the connect attempt that made it while none was answered: the instant
   * its deadline and the close of a session declared lost count from (tests).
   */
  long lastHeardNanos() {
    synchronized (lock) {
      return heard.provenAt();
    }
  }

  /**
   * A heartbeat of {@code c} sent at {@code sentAt} was answered now, on the connection now in use
   * (this runs on ZooKeeper's event thread, in order with the connection events): the deadline
   * moves on to the latest heartbeat proven reported to the leader ({@link HeardProof}).
   */
  private void heard(Conn c, long sentAt) {
    synchronized (lock) {
      if (closed || conn == null || conn.sessionId() != c.sessionId()) {
        return;
      }
      heard = heard.answered(connection, sentAt, clock.nanoTime(), timeoutNanos);
    }
  }

  /** Called holding the lock: the deadline task, at the current deadline. */
  private void scheduleDeadline(long sessionId) {
    long due = SessionDeadline.dueNanos(heard.provenAt(), timeoutNanos);
    long delay = Math.max(0L, due - clock.nanoTime());
    deadlineTask = scheduler.schedule(() -> checkDeadline(sessionId), delay, TimeUnit.NANOSECONDS);
  }

  /**
   * The deadline task: if nothing newer was heard, the session is declared lost (whatever the
   * connection state: ZooKeeper's client may not have noticed yet); else it runs again at the new
   * deadline.
   */
  private void checkDeadline(long sessionId) {
    Runnable news;
    long silentMillis;
    synchronized (lock) {
      if (closed || conn == null || conn.sessionId() != sessionId) {
        return;
      }
      long due = SessionDeadline.dueNanos(heard.provenAt(), timeoutNanos);
      long now = clock.nanoTime();
      if (due - now > 0) {
        scheduleDeadline(sessionId);
        return;
      }
      silentMillis = TimeUnit.NANOSECONDS.toMillis(now - heard.provenAt());
      news = endLocked(true);
    }
    log.warn(
        "ZooKeeper session 0x{} at '{}' declared lost: the ensemble's leader is known to have"
            + " heard from it {} ms ago and nothing newer, and it may expire it {} ms after it last"
            + " heard; its locks are lost, a new session is being opened",
        Long.toHexString(sessionId),
        config.connectString(),
        silentMillis,
        TimeUnit.NANOSECONDS.toMillis(timeoutNanos));
    events.execute(news);
  }

  /** After an expiry: a new handle; its SyncConnected event makes the state CONNECTED again. */
  private void reopen() {
    AtomicReference<Watcher.Event.KeeperState> failure;
    CountDownLatch first;
    synchronized (lock) {
      if (closed) {
        return;
      }
      failure = startFailure != null ? startFailure : new AtomicReference<>();
      first = startFirst; // start() still waits: the first session was connected too late
    }
    try {
      ZkClient zk = open(failure, first);
      synchronized (lock) {
        if (closed) {
          zk.close();
        }
      }
    } catch (ZkLockException e) {
      log.error("cannot open a new ZooKeeper session; retrying in 1 s", e);
      scheduler.schedule(() -> events.execute(this::reopen), 1, TimeUnit.SECONDS);
    }
  }

  private void tell(SessionState s, long sessionId) {
    for (SessionListener l : listeners) {
      try {
        l.stateChanged(s, sessionId);
      } catch (RuntimeException e) {
        log.warn("session listener {} threw; ignored", l, e);
      }
    }
  }

  public SessionState state() {
    synchronized (lock) {
      return closed ? SessionState.CLOSED : state;
    }
  }

  /**
   * When the session entered its {@link #state()}, by the clock: the last transition, or the
   * session's construction for the first {@link SessionState#SUSPENDED} (not yet connected).
   */
  public long stateSinceNanos() {
    synchronized (lock) {
      return stateSinceNanos;
    }
  }

  /**
   * The server the session is connected to, {@code host:port} as the client resolved it, or empty
   * when it is not {@link SessionState#CONNECTED}.
   */
  public String server() {
    ZkClient c;
    synchronized (lock) {
      if (closed || state != SessionState.CONNECTED || conn == null) {
        return "";
      }
      c = conn.client;
    }
    return c == null ? "" : c.server();
  }

  /** The live handle, or null if not connected. */
  @Override
  public Conn current() {
    synchronized (lock) {
      return state == SessionState.CONNECTED ? conn : null;
    }
  }

  /** The handle of the session now being used (connected or suspended), or null after expiry. */
  Conn session() {
    synchronized (lock) {
      return conn;
    }
  }

  @Override
  public long sessionId() {
    synchronized (lock) {
      return closed || conn == null ? 0L : conn.sessionId();
    }
  }

  /**
   * Runs {@code action} with the live handle as soon as the session is connected: at once (on the
   * caller's thread) if it is. Runs nothing once closed; {@code onClosed} then runs instead.
   */
  @Override
  public void whenConnected(Consumer<Conn> action, Runnable onClosed) {
    CompletableFuture<Conn> r;
    synchronized (lock) {
      if (closed) {
        r = null;
      } else if (state == SessionState.CONNECTED && conn != null) {
        Conn c = conn;
        r = CompletableFuture.completedFuture(c);
      } else {
        r = ready;
      }
    }
    if (r == null) {
      onClosed.run();
      return;
    }
    r.whenComplete(
        (c, err) -> {
          if (c != null) {
            action.accept(c);
          } else {
            onClosed.run();
          }
        });
  }

  /**
   * For work on a node of session {@code owner} (deleting it): runs {@code action} with the live
   * handle as soon as {@code owner} is connected, or {@code gone} as soon as {@code owner} is over
   * (expired, declared lost at zklock's deadline, or closed), whichever comes first; exactly one of
   * them runs. When the session is over its ephemeral nodes are gone, or will be once the ensemble
   * expires it, so nothing waits past the session deadline.
   */
  @Override
  public void whenConnectedTo(long owner, Consumer<Conn> action, Runnable gone) {
    CompletableFuture<Conn> r;
    CompletableFuture<Void> end;
    synchronized (lock) {
      if (closed || conn == null || conn.sessionId() != owner) {
        r = null;
        end = null;
      } else if (state == SessionState.CONNECTED) {
        r = CompletableFuture.completedFuture(conn);
        end = null;
      } else {
        r = ready;
        end = ended;
      }
    }
    if (r == null) {
      gone.run();
      return;
    }
    AtomicBoolean once = new AtomicBoolean();
    r.whenComplete(
        (c, err) -> {
          if (once.compareAndSet(false, true)) {
            if (c != null && c.sessionId() == owner) {
              action.accept(c);
            } else {
              gone.run();
            }
          }
        });
    if (end != null) {
      end.whenComplete(
          (v, err) -> {
            if (once.compareAndSet(false, true)) {
              gone.run();
            }
          });
    }
  }

  /**
   * Finds out why a held node of session {@code nodeSession} vanished, and tells {@code verdict}. A
   * session expiry deletes the node too, and the server may report the deletion before it closes
   * the connection, so this asks the server once: a live session means someone deleted the node
   * ({@link LockLostException.Reason#NODE_DELETED}); an ended one, that the session expired. A
   * connection loss on the way asks again when the connection is back.
   *
   * @param path any path; only the answer's code matters
   */
  @Override
  public void classifyLoss(
      long nodeSession,
      String path,
      Consumer<LockLostException.Reason> verdict,
      Runnable onClosed) {
    whenConnected(
        c -> {
          if (c.sessionId() != nodeSession) {
            verdict.accept(LockLostException.Reason.SESSION_EXPIRED);
            return;
          }
          c.ops()
              .exists(
                  path,
                  null,
                  (rc, p, x, stat) -> {
                    Code code = Code.get(rc);
                    if (ErrorKind.retryWhenConnected(code)) {
                      classifyLoss(nodeSession, path, verdict, onClosed);
                    } else if (ErrorKind.of(code) == ErrorKind.SESSION_ENDED) {
                      verdict.accept(LockLostException.Reason.SESSION_EXPIRED);
                    } else {
                      verdict.accept(LockLostException.Reason.NODE_DELETED);
                    }
                  });
        },
        onClosed);
  }

  public void addListener(SessionListener l) {
    listeners.add(l);
  }

  public void removeListener(SessionListener l) {
    listeners.remove(l);
  }

  @Override
  public void addObserver(Observer o) {
    observers.add(o);
  }

  @Override
  public void removeObserver(Observer o) {
    observers.remove(o);
  }

  /**
   * After {@link #close()}: forgets the session that ended and opens a new one, waiting for it as
   * {@link #start()} does. Does nothing if this session is not closed.
   *
   * @throws ZkLockException as {@link #start()}; the session is then closed again
   */
  public void restart() {
    synchronized (lock) {
      if (!closed) {
        return;
      }
      closed = false;
      state = SessionState.SUSPENDED;
      currentZk = null;
      conn = null;
      ready = new CompletableFuture<>();
      ended = new CompletableFuture<>();
    }
    try {
      start();
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Ends the session. Idempotent. */
  public void close() {
    ZkClient c;
    long id;
    CompletableFuture<Conn> r;
    CompletableFuture<Void> end;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      stateSinceNanos = clock.nanoTime();
      c = currentZk;
      id = c == null || conn == null ? 0L : conn.sessionId();
      r = ready;
      end = ended;
      stopDeadline();
    }
    observers.forEach(Observer::closed);
    if (c != null) {
      c.close();
    }
    r.completeExceptionally(new ZkLockException("closed"));
    end.complete(null);
    events.execute(() -> tell(SessionState.CLOSED, id));
  }

  /**
   * Closes a client that never connected on another thread, so that {@link #start()} fails in time:
   * its close waits for a server that may never answer, up to its read timeout (two thirds of the
   * session timeout). Forgets it first, so that {@link #close()} does not wait for it.
   */
  private void abandon(ZkClient zk) {
    synchronized (lock) {
      if (currentZk == zk) {
        currentZk = null;
      }
    }
    background.run("zklock-connect-close", zk::close);
  }
}
