package io.zklock.internal.engine;

import io.zklock.LockLostException;
import io.zklock.internal.zk.Batcher;
import io.zklock.internal.zk.ServerLine;
import io.zklock.internal.zk.Session;
import io.zklock.internal.zk.SessionPort;
import io.zklock.internal.zk.ZkOps;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A session the test drives, over a {@link FakeZooKeeper}: connected, suspended (connection down,
 * session alive), lost (expired, no new session yet) or closed. Like {@link Session}, it tells the
 * {@link Requests} of its instance the news (as the wiring's observer does): {@link #disconnect()}
 * → suspended, {@link #expire()} → expired, {@link #close()} → closed. Everything runs on the
 * test's thread; an action waiting for a connection runs when the test reconnects.
 */
public final class FakeSession implements SessionPort {
  public enum State {
    CONNECTED,
    SUSPENDED,
    LOST,
    CLOSED
  }

  private record Waiter(Consumer<Session.Conn> action, Runnable onClosed) {}

  private record OwnerWaiter(long owner, Consumer<Session.Conn> action, Runnable gone) {}

  private final FakeZooKeeper zk;
  private Requests requests;
  private State state = State.CONNECTED;
  private long sessionId;
  private Session.Conn conn;
  private final List<Waiter> waiters = new ArrayList<>();
  private final List<OwnerWaiter> ownerWaiters = new ArrayList<>();
  private final List<Session.Observer> observers = new ArrayList<>();

  /** 0: requests go out alone; else each session's requests go through a batcher. */
  private final int batchAtOnceBelow;

  private final java.util.concurrent.ScheduledExecutorService stallTimer;

  /** The batchers' calls outstanding from which a call may be held (0: window full, always). */
  private final int batchHoldFrom;

  /** Connected on session {@code firstSession}. */
  FakeSession(FakeZooKeeper zk, long firstSession) {
    this(zk, firstSession, 0);
  }

  /**
   * Connected on session {@code firstSession}; with {@code batchAtOnceBelow} > 0 each session's
   * calls go through a {@link Batcher} (one per session, as a live session has one per client).
   */
  FakeSession(FakeZooKeeper zk, long firstSession, int batchAtOnceBelow) {
    this(zk, firstSession, batchAtOnceBelow, null);
  }

  /** As above, the batchers' stall timer {@code stallTimer} (null: none). */
  FakeSession(
      FakeZooKeeper zk,
      long firstSession,
      int batchAtOnceBelow,
      java.util.concurrent.ScheduledExecutorService stallTimer) {
    this(zk, firstSession, batchAtOnceBelow, 0, stallTimer);
  }

  /** As above, the batchers holding calls only from {@code batchHoldFrom} calls outstanding. */
  FakeSession(
      FakeZooKeeper zk,
      long firstSession,
      int batchAtOnceBelow,
      int batchHoldFrom,
      java.util.concurrent.ScheduledExecutorService stallTimer) {
    this.zk = zk;
    this.batchAtOnceBelow = batchAtOnceBelow;
    this.batchHoldFrom = batchHoldFrom;
    this.stallTimer = stallTimer;
    connectTo(firstSession);
  }

  /** The registry to tell the news. */
  void tell(Requests requests) {
    this.requests = requests;
  }

  public State state() {
    return state;
  }

  public long sessionId() {
    return sessionId;
  }

  private void connectTo(long session) {
    sessionId = session;
    ZkOps ops =
        batchAtOnceBelow > 0
            ? new Batcher(
                    zk.opsOf(session),
                    ServerLine.readMultiAnswered(),
                    batchAtOnceBelow,
                    batchHoldFrom,
                    stallTimer)
                .ops()
            : zk.opsOf(session);
    conn = new Session.Conn(session, ops);
    zk.useSession(session);
  }

  // ---------------------------------------------------------------- the test's controls

  /** The connection drops (the session lives): requests in flight fail with CONNECTIONLOSS. */
  public void disconnect() {
    require(State.CONNECTED);
    state = State.SUSPENDED;
    zk.disconnect(sessionId);
    if (requests != null) {
      requests.suspended();
    }
    List.copyOf(observers).forEach(o -> o.suspended(conn));
  }

  /** The connection is back on the same session: waiting actions run. */
  public void reconnect() {
    require(State.SUSPENDED);
    zk.reconnect(sessionId);
    state = State.CONNECTED;
    runWaiters();
    List.copyOf(observers).forEach(o -> o.connected(conn));
  }

  /**
   * The session ended (the ensemble expired it, or zklock declared it lost), and the client heard:
   * its ephemeral nodes are gone (if the fake had not expired it yet), requests hear {@code
   * expired}, work for its nodes is dropped. No session until {@link #newSession}.
   */
  public void expire() {
    if (state == State.CLOSED || state == State.LOST) {
      throw new IllegalStateException("no session to expire: " + state);
    }
    long old = sessionId;
    if (!zk.isExpired(old)) {
      zk.expire(old);
    }
    state = State.LOST;
    if (requests != null) {
      requests.expired(old);
    }
    List<OwnerWaiter> owners = List.copyOf(ownerWaiters);
    ownerWaiters.clear();
    for (OwnerWaiter w : owners) {
      w.gone().run();
    }
    Session.Conn expired = conn;
    List.copyOf(observers).forEach(o -> o.expired(expired));
  }

  /** A new session is connected: waiting actions run on it. */
  public void newSession(long session) {
    require(State.LOST);
    connectTo(session);
    state = State.CONNECTED;
    runWaiters();
    List.copyOf(observers).forEach(o -> o.connected(conn));
  }

  /**
   * The instance is closed: requests hear it, waiting actions get {@code onClosed}, and the session
   * ends (its ephemeral nodes go).
   */
  void close() {
    if (state == State.CLOSED) {
      return;
    }
    state = State.CLOSED;
    if (requests != null) {
      requests.closed();
    }
    List<Waiter> ws = List.copyOf(waiters);
    waiters.clear();
    ws.forEach(w -> w.onClosed().run());
    List<OwnerWaiter> owners = List.copyOf(ownerWaiters);
    ownerWaiters.clear();
    owners.forEach(w -> w.gone().run());
    if (!zk.isExpired(sessionId)) {
      zk.expire(sessionId); // closing the handle ends the session: its ephemeral nodes go
    }
    List.copyOf(observers).forEach(Session.Observer::closed);
  }

  /** How many actions wait for a connection. */
  int waiting() {
    return waiters.size() + ownerWaiters.size();
  }

  private void require(State s) {
    if (state != s) {
      throw new IllegalStateException("session is " + state + ", not " + s);
    }
  }

  private void runWaiters() {
    List<Waiter> ws = List.copyOf(waiters);
    waiters.clear();
    List<OwnerWaiter> owners = List.copyOf(ownerWaiters);
    ownerWaiters.clear();
    for (Waiter w : ws) {
      if (state == State.CONNECTED) {
        w.action().accept(conn);
      } else {
        whenConnected(w.action(), w.onClosed()); // the state moved on meanwhile
      }
    }
    for (OwnerWaiter w : owners) {
      whenConnectedTo(w.owner(), w.action(), w.gone());
    }
  }

  // ---------------------------------------------------------------- SessionPort

  @Override
  public Session.Conn current() {
    return state == State.CONNECTED ? conn : null;
  }

  @Override
  public void whenConnected(Consumer<Session.Conn> action, Runnable onClosed) {
    switch (state) {
      case CLOSED -> onClosed.run();
      case CONNECTED -> action.accept(conn);
      default -> waiters.add(new Waiter(action, onClosed));
    }
  }

  @Override
  public void whenConnectedTo(long owner, Consumer<Session.Conn> action, Runnable gone) {
    if (state == State.CLOSED || state == State.LOST || owner != sessionId) {
      gone.run();
    } else if (state == State.CONNECTED) {
      action.accept(conn);
    } else {
      ownerWaiters.add(new OwnerWaiter(owner, action, gone));
    }
  }

  /** Answers from the session's state, once connected: a live node session means a deletion. */
  @Override
  public void classifyLoss(
      long nodeSession,
      String path,
      Consumer<LockLostException.Reason> verdict,
      Runnable onClosed) {
    whenConnected(
        c ->
            verdict.accept(
                c.sessionId() != nodeSession || zk.isExpired(nodeSession)
                    ? LockLostException.Reason.SESSION_EXPIRED
                    : LockLostException.Reason.NODE_DELETED),
        onClosed);
  }

  /** Told of every later change of the test's session, in order, on the test's thread. */
  @Override
  public void addObserver(Session.Observer o) {
    observers.add(o);
  }

  @Override
  public void removeObserver(Session.Observer o) {
    observers.remove(o);
  }
}
