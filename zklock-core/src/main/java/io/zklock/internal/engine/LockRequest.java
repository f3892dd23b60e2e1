package io.zklock.internal.engine;

import io.zklock.LocalRequest;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.LockNode;
import io.zklock.SuspensionPolicy;
import io.zklock.ZkLockException;
import io.zklock.internal.protocol.Node;
import io.zklock.internal.protocol.NodeProtocol;
import io.zklock.internal.protocol.RecipeMixException;
import io.zklock.internal.protocol.Step;
import io.zklock.internal.rules.ErrorKind;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.zk.Deleter;
import io.zklock.internal.zk.Dirs;
import io.zklock.internal.zk.GuardedOps;
import io.zklock.internal.zk.Session;
import io.zklock.internal.zk.ZkOps;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.WatcherType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One lock request, from its first create to its release: the engine every lock of this library
 * runs on (the JDK's shape: one engine, and each lock plugs its rules into it). It owns the
 * request's life, as the {@link State} machine below: the session's news, the grant, the
 * withdrawal, the loss, the release and the watch on its own node. How a node is made, found again
 * after a lost reply and judged is its {@link NodeProtocol}'s; what a recipe adds to a grant (a
 * downgrade's pins, a lease) wraps the handle ({@code view}).
 *
 * <p>Threads: ZooKeeper's event thread (replies, watches), the library's executor (session news,
 * timeouts) and users' threads (cancel, release) all come here; nothing blocks, and every
 * transition happens under this object's monitor. Each step of the protocol gets a {@link Step}
 * stamped with the request's {@code epoch}; every transition that starts a new step bumps the
 * epoch, so a late reply or watch of an abandoned step is recognised in one place ({@link
 * Step#live}) and dropped.
 */
public final class LockRequest implements Handle {
  private static final Logger log = LoggerFactory.getLogger(LockRequest.class);

  /** The life of a request. Each value says what is true while the request is in it. */
  enum State {
    /** No create in flight and no node: waits for a connected session to send the create. */
    PENDING,
    /** The create is sent; whether it made a node is not known yet. */
    CREATING,
    /** The create's reply was lost to a connection loss; the protocol looks for our node. */
    RECOVERING,
    /**
     * Not granted; the protocol watches what it waits for. A queue request's node is known; a
     * simple lock request has none (it watches the holder's).
     */
    WAITING,
    /** Granted: the node is ours and the handle was given out. */
    HELD,
    /** Granted, but our node was deleted under us; the reason is being found. Not held. */
    VANISHED,
    /** Released by its holder; the node's deletion is under way or done. */
    RELEASED,
    /** Lost while granted: session expired, node deleted, suspension policy, lease, or closed. */
    LOST,
    /** Ended before being granted: timeout, interrupt, cancel, busy tryAcquire, failure, close. */
    WITHDRAWN;

    /** Granted and not yet ended: the states a loss or a release leaves. */
    public boolean granted() {
      return this == HELD || this == VANISHED;
    }

    boolean ended() {
      return this == RELEASED || this == LOST || this == WITHDRAWN;
    }
  }

  /** A watch the protocol set for the request's wait, removed when the request stops waiting. */
  private record Watch(String path, Watcher watcher, WatcherType type) {}

  /**
   * How long a holder goes without a watch on its own node, at least ({@link
   * Requests#ownWatchLater} adds at most {@link Requests#OWN_WATCH_SLACK_MILLIS}). A forced
   * deletion (an operator deleting the node) is noticed at most this late, while the many short
   * holds save two requests each: the watch and its removal before the delete.
   */
  static final long OWN_WATCH_DELAY_MILLIS = 50;

  /**
   * How long a waiter that gave up (timeout, cancel) waits for its node's delete before it answers
   * anyway, at least. The delete takes one round trip on a live connection; past this (and past
   * {@link #CLEANUP_GRACE_ROUND_TRIPS} of the round trips its create took) the connection has most
   * likely gone silent, and the node is deleted in the background.
   */
  static final long CLEANUP_GRACE_MILLIS = 1_000;

  /**
   * On a slow connection the grace is this many times the round trip the request's own create took
   * on it, if that is longer than {@link #CLEANUP_GRACE_MILLIS}: a connection whose round trip is
   * 400 ms (a distant server, a loaded machine) is slow, not silent, and its delete is waited for.
   */
  static final int CLEANUP_GRACE_ROUND_TRIPS = 4;

  /** The grace is never longer than this, however slow the create was. */
  static final long CLEANUP_GRACE_MAX_MILLIS = 10_000;

  private final String lockName;
  private final NodeProtocol protocol;
  private final RequestContext ctx;
  private final Ticket ticket;
  private final Function<LockRequest, ? extends LockHandle> view;
  private final CompletableFuture<LockLostException> lost = new CompletableFuture<>();

  /**
   * What a guarded commit of a grant whose node vanished waits for: the loss's exception, once its
   * reason is known. Unlike {@link #lost}, completed even if the holder released first (a lease
   * that ran out, say): a commit made while the reason was being found must still end.
   */
  private final CompletableFuture<LockLostException> guardRefusal = new CompletableFuture<>();

  private final ReleaseRequests releaseRequests = new ReleaseRequests();
  private final Watcher ownWatcher = GuardedOps.guard(this::onOwnNodeEvent, this::failed);

  // guarded by this
  private State state = State.PENDING;
  private int epoch;
  private int createEpoch; // the epoch of the latest create: a withdrawal cleans up after it
  private String attemptId; // names the latest create's node, to find it after a lost reply
  private long session; // the session of the latest create, and of the node
  private Node node;
  private Watch watch;
  private Watch sideWatch; // a second watch of the same wait (the exclusive rule's look-ahead)
  private boolean ownWatchSet; // the data watch on our own node was requested

  /** The last create was sent right behind its directory's create ({@link Dirs#createAhead}). */
  private boolean dirSentAhead;

  private Later.Entry ownWatchTimer;
  private CompletableFuture<Void> released;
  private Throwable withdrawal; // why a withdrawn request ended (null: timeout or busy)
  private boolean abandoned; // released by the library on the holder's failure (a lease ran out)
  private boolean releasedWhileVanished; // released before its vanished node's reason was found
  private int ownVersion; // the data version our node had when we last wrote it (a delay's mark)
  private long startNanos; // when start() ran, by the context's clock
  private long boundSession; // 0, or the only session the request may have a node on (boundTo)
  private long createSentNanos; // when the latest create was sent, by the context's clock
  private long createRoundTripNanos; // how long the latest create took to be answered (0: unknown)
  private long grantNanos; // when the request was granted, by the context's clock

  /**
   * @param view what the caller is handed at the grant: this request, or a recipe's wrapper of it
   */
  public LockRequest(
      String lockName,
      NodeProtocol protocol,
      RequestContext ctx,
      Ticket ticket,
      Function<LockRequest, ? extends LockHandle> view) {
    this.lockName = lockName;
    this.protocol = protocol;
    this.ctx = ctx;
    this.ticket = ticket;
    this.view = view;
  }

  /**
   * Binds the request to session {@code sessionId}: a step of a recipe's request that may exist
   * only beside what the recipe holds on that session (a semaphore's lease, beside its admission).
   * It is created on that session only; when the session ends before the grant (its node, if any,
   * gone with it), the request is not created again on the new session but ends with a {@link
   * SessionEndedException}, so that the recipe starts over from its first step. A grant is lost
   * with its session as any other. Call before {@link #start()}; 0 (the default) binds nothing.
   */
  public LockRequest boundTo(long sessionId) {
    synchronized (this) {
      boundSession = sessionId;
    }
    return this;
  }

  /** Starts the request; the future completes with the handle, or null when busy or timed out. */
  public CompletableFuture<LockHandle> start() {
    synchronized (this) {
      startNanos = ctx.clock().nanoTime();
    }
    ctx.requests().add(this);
    ticket.onGiveUp(() -> giveUp(null));
    ctx.session().whenConnected(this::send, this::closed);
    return ticket.result;
  }

  synchronized State state() {
    return state;
  }

  // ---------------------------------------------------------------- create

  private void send(Session.Conn conn) {
    send(conn, false);
  }

  /**
   * Whether the lock directory is made PERSISTENT, not a container: in the kazoo-compatible kinds,
   * as kazoo makes it. A kazoo {@code Lock} makes its path once per lock object and then creates in
   * it without making it again: a container the server reaped while empty would fail its next
   * acquire with {@code NoNodeError}.
   */
  private boolean persistentDir() {
    return protocol.kind().kazoo();
  }

  /** {@code dirChecked}: the lock directory's ACL was just checked ({@link Dirs#verify}). */
  private void send(Session.Conn conn, boolean dirChecked) {
    if (!dirChecked && !ctx.dirs().trusted(protocol.dir())) {
      ctx.dirs()
          .verify(
              conn.guarded(this::failed), // its callbacks run the request's code: under its guard
              protocol.dir(),
              persistentDir(),
              () -> send(conn, true),
              this::send,
              this::closed,
              this::giveUp);
      return;
    }
    Step step;
    synchronized (this) {
      if (state != State.PENDING) {
        return;
      }
      if (ticket.expired()) {
        withdraw(null);
        return;
      }
      if (boundSession != 0L && conn.sessionId() != boundSession) {
        sessionEnded(); // the session it belongs to ended before its first create
        return;
      }
      state = State.CREATING;
      createEpoch = ++epoch;
      createSentNanos = ctx.clock().nanoTime();
      attemptId = ctx.ids().attemptId(protocol.kind());
      session = conn.sessionId();
      step = new RequestStep(conn, epoch);
    }
    protocol.create(step);
  }

  /** Called holding the monitor: create anew once connected (our node, if any, is gone). */
  private void createAgain() {
    epoch++;
    forgetNode();
    watch = null;
    state = State.PENDING;
    ctx.session().whenConnected(this::send, this::closed);
  }

  /**
   * Called holding the monitor: a request bound to a session ({@link #boundTo}) whose session ended
   * before the grant ends, without a node (it went with the session) and without a create on the
   * new session.
   */
  private void sessionEnded() {
    epoch++;
    forgetNode();
    watch = null; // set on the ended session's handle: nothing to remove
    sideWatch = null;
    state = State.WITHDRAWN;
    ctx.requests().remove(this);
    ticket.end(new SessionEndedException(protocol.dir(), boundSession));
  }

  /**
   * Called holding the monitor: the request no longer has a node. What belonged to the node goes
   * with it: its path, its token and its own-node watch, so that a later node gets a watch of its
   * own.
   */
  private void forgetNode() {
    node = null;
    ownWatchSet = false;
    ownVersion = 0;
  }

  private void recover(Session.Conn conn, int e) {
    synchronized (this) {
      if (e != epoch || state != State.RECOVERING) {
        return;
      }
      if (conn.sessionId() != session) {
        createAgain(); // the old session ended, and any node with it
        return;
      }
    }
    protocol.recover(new RequestStep(conn, e));
  }

  // ---------------------------------------------------------------- outcomes

  /**
   * Called holding the monitor: returns what to hand the caller, outside the monitor, before the
   * own-node watch is scheduled ({@link #afterGrant}).
   */
  private LockHandle grant() {
    state = State.HELD;
    grantNanos = ctx.clock().nanoTime();
    epoch++;
    dropWatch();
    return view.apply(this);
  }

  /**
   * After the caller was handed the grant: schedules the own-node watch, unless the hold is over
   * already (a short hold released before this runs costs no timer at all).
   */
  private synchronized void afterGrant(Node granted) {
    if (state == State.HELD && node == granted && !ownWatchSet && ownWatchTimer == null) {
      watchOwnNodeLater();
    }
  }

  /**
   * Withdraws the request (timeout when {@code failure} is null, cancel, interrupt, failure,
   * close). If it was granted in the meantime and the caller never saw the handle, the grant is
   * released.
   */
  void giveUp(Throwable failure) {
    synchronized (this) {
      if (!state.granted()) {
        if (!state.ended()) {
          withdraw(failure);
        }
        return;
      }
    }
    if (ticket.takeBack(failure)) {
      releaseAsync(); // granted just now, but the caller gave up first
    }
  }

  /**
   * A callback or watcher of this request threw ({@link GuardedOps}): a bug of zklock's, or an
   * {@link Error} such as {@link StackOverflowError} or {@link OutOfMemoryError}. ZooKeeper's event
   * thread would log it and drop it, and the request would wait for ever. Logged here, once, and
   * the request ends as the safe outcome of a half-run step allows, whatever that step had done:
   *
   * <ul>
   *   <li>not granted: withdrawn with a {@link ZkLockException} whose cause is {@code t}; its node
   *       is deleted (found by its attempt id if the create's reply was not read), as on any failed
   *       acquire;
   *   <li>granted but the grant not yet handed to the caller (a grant half-recorded): the caller
   *       hears the failure instead, and the node is deleted as after a holder's failure;
   *   <li>granted and handed out: the hold can no longer be vouched for (its own-node watch may be
   *       what failed), so it is lost ({@link LockLostException.Reason#INTERNAL_ERROR}, told
   *       through {@code lost()}) and its node deleted;
   *   <li>ended: the caller is answered if a withdrawal cut short had not yet done so, and a
   *       withdrawn node is deleted again (a deletion under way or done is not repeated).
   * </ul>
   */
  void failed(Throwable t) {
    log.error(
        "zklock's code failed on a reply or watch of a request for {} ({}); the request is ended",
        lockName,
        protocol.dir(),
        t);
    ZkLockException failure;
    synchronized (this) {
      failure =
          new ZkLockException(
              "zklock's code failed on a reply or watch of this request: " + t,
              protocol.dir(),
              session,
              t);
      if (!state.granted()) {
        if (!state.ended()) {
          withdraw(failure);
        } else if (state == State.WITHDRAWN) {
          if (node != null) {
            deleteNode(false);
          }
          ctx.requests().remove(this);
          ticket.end(failure); // a no-op if the caller was answered
        }
        return;
      }
    }
    if (ticket.takeBack(failure)) {
      releaseAsFailure(); // the caller never saw the handle
      return;
    }
    synchronized (this) {
      if (state.granted()) {
        lose(LockLostException.Reason.INTERNAL_ERROR, t);
      }
    }
  }

  private void closed() {
    synchronized (this) {
      if (state == State.WITHDRAWN) {
        endWithdrawal();
        return;
      }
      if (state.granted()) {
        lose(LockLostException.Reason.CLOSED);
        return;
      }
      if (state == State.RELEASED && releasedWhileVanished) {
        vanished(LockLostException.Reason.CLOSED);
        return;
      }
    }
    giveUp(new ZkLockException("the ZkLocks instance is closed", protocol.dir(), 0L, null));
  }

  /** Called holding the monitor: end a request that was not granted; its node goes too. */
  private void withdraw(Throwable failure) {
    withdraw(failure, true);
  }

  /**
   * Called holding the monitor: end a request that was not granted; its node goes too. The caller
   * hears the end once the node is gone (one round trip), so a request that timed out or found the
   * lock busy leaves nothing that a later request could queue behind; but never later than the
   * connection's loss: without a connection the caller hears at once (a timeout holds during an
   * outage) and the node goes in the background, as soon as the connection returns or with the
   * session. {@code waitForCleanup} false: hear at once in any case.
   */
  private void withdraw(Throwable failure, boolean waitForCleanup) {
    State was = state;
    state = State.WITHDRAWN;
    epoch++;
    dropWatch();
    CompletableFuture<Void> gone = CompletableFuture.completedFuture(null);
    if (node != null) {
      gone = deleteNode(false);
    } else if (was == State.CREATING || was == State.RECOVERING) {
      // the create is in flight or its fate unknown: find what it made, by attempt id
      gone = protocol.deleteUnknown(ctx, attemptId, session);
    }
    boolean tryOnly = ticket.tryOnly();
    if (!waitForCleanup
        || gone.isDone()
        || ctx.session().current() == null
        || (!tryOnly && node == null)) {
      // a waiter whose create's fate is unknown does not wait for the search of its node
      ctx.requests().remove(this);
      ticket.end(failure);
      return;
    }
    // still registered until the node is gone, so that the session's news can end the wait
    withdrawal = failure;
    CompletableFuture<Void> heard = gone;
    if (!tryOnly) {
      // a connection that went silent is noticed late: a waiter waits for its delete no longer
      // than the grace, then its node goes in the background
      CompletableFuture<Void> grace = new CompletableFuture<>();
      ScheduledFuture<?> t =
          ctx.scheduler()
              .schedule(() -> grace.complete(null), cleanupGraceNanos(), TimeUnit.NANOSECONDS);
      gone.whenComplete((v, x) -> t.cancel(false));
      heard = CompletableFuture.anyOf(gone, grace).thenApply(v -> null);
    }
    ticket.endAfter(heard, failure);
    gone.whenComplete((v, t) -> ctx.requests().remove(this));
  }

  /**
   * Called holding the monitor: how long a waiter that gave up waits for its node's delete at most
   * ({@link #CLEANUP_GRACE_MILLIS}, longer on a connection whose round trips are slow).
   */
  private long cleanupGraceNanos() {
    return cleanupGraceNanos(createRoundTripNanos);
  }

  /** The grace after a create that took {@code createRoundTripNanos} to be answered. */
  static long cleanupGraceNanos(long createRoundTripNanos) {
    long floor = TimeUnit.MILLISECONDS.toNanos(CLEANUP_GRACE_MILLIS);
    long cap = TimeUnit.MILLISECONDS.toNanos(CLEANUP_GRACE_MAX_MILLIS);
    long slow =
        createRoundTripNanos > cap / CLEANUP_GRACE_ROUND_TRIPS
            ? cap
            : createRoundTripNanos * CLEANUP_GRACE_ROUND_TRIPS;
    return Math.min(cap, Math.max(floor, slow));
  }

  /** Called holding the monitor: a withdrawn request's cleanup lost its connection; end now. */
  private void endWithdrawal() {
    ticket.end(withdrawal);
  }

  /** Called holding the monitor. */
  private void lose(LockLostException.Reason reason) {
    lose(reason, null);
  }

  /** Called holding the monitor; {@code cause}, if not null, is the loss's cause. */
  private void lose(LockLostException.Reason reason, Throwable cause) {
    state = State.LOST;
    epoch++;
    ctx.requests().remove(this);
    LockLostException ex = new LockLostException(path(), session, reason);
    if (cause != null) {
      ex.initCause(cause);
    }
    if (reason == LockLostException.Reason.SUSPENDED
        || reason == LockLostException.Reason.INTERNAL_ERROR) {
      // give the lock back (at once, or as soon as the connection returns, if the session lived)
      released = deleteNode(true);
    } else {
      released = CompletableFuture.completedFuture(null);
    }
    ctx.executor()
        .execute(
            () -> {
              lost.complete(ex);
              guardRefusal.complete(ex);
            });
  }

  /**
   * Called holding the monitor: deletes our node, guaranteed, removing our watch on it first.
   * {@code held}: the node was granted (a release, not a withdrawal; see {@link
   * Deleter#releaseInFlight}).
   */
  private CompletableFuture<Void> deleteNode(boolean held) {
    if (ownWatchTimer != null) {
      ownWatchTimer.cancel();
      ownWatchTimer = null;
    }
    return ctx.deleter()
        .deleteCreated(
            node.path(),
            node.session(),
            ownWatchSet ? ownWatcher : null,
            node.czxid(),
            held,
            protocol.reusesNodeNames(),
            held
                ? (state == State.RELEASED && !abandoned ? protocol.releaseOps(node.path()) : null)
                : protocol.withdrawOps(node.path()));
  }

  /** Called holding the monitor: removes the protocol's watches, if any is set. */
  private void dropWatch() {
    if (watch != null) {
      remove(watch);
      watch = null;
    }
    dropSideWatch();
  }

  /** Called holding the monitor: removes the protocol's second watch, if one is set. */
  private void dropSideWatch() {
    if (sideWatch != null) {
      remove(sideWatch);
      sideWatch = null;
    }
  }

  private void remove(Watch w) {
    Session.Conn c = ctx.session().current();
    if (c != null) {
      c.ops().removeWatches(w.path(), w.watcher(), w.type(), (rc, p, x) -> {});
    }
  }

  // ---------------------------------------------------------------- our own node

  /**
   * Called holding the monitor: a data watch on our own node tells us if someone else deletes it (a
   * forced release) or asks for a release. Set a little after the grant, at once by an adoption.
   */
  private void watchOwnNode(Session.Conn conn) {
    if (ownWatchSet || node == null || conn.sessionId() != node.session()) {
      return;
    }
    ownWatchSet = true;
    Node mine = node;
    GuardedOps.of(conn.ops(), this::failed)
        .exists(
            mine.path(),
            ownWatcher,
            (rc, p, c, stat) -> {
              Code code = Code.get(rc);
              if (code == Code.NONODE || (code == Code.OK && stat.getCzxid() != mine.czxid())) {
                // gone, or another's node by the same name: that watch is not ours to keep
                conn.ops().removeWatches(p, ownWatcher, WatcherType.Data, (r, p2, x) -> {});
                ownNodeGone(mine);
              } else if (code == Code.OK && stat.getVersion() > ownVersionOf(mine)) {
                releaseRequested(mine); // asked before the watch was set (lock nodes start at 0)
              } else if (ErrorKind.retryWhenConnected(code)) {
                ownWatchLost(mine);
              }
            });
  }

  /** The data version our own last write left on {@code mine} (0: never written by us). */
  private synchronized int ownVersionOf(Node mine) {
    return node == mine ? ownVersion : 0;
  }

  /**
   * The own-node watch's request met a connection loss: no watch was set (the client sets again, on
   * reconnecting, only the watches whose replies it had), so set it again once connected, or a
   * forced deletion would never be heard.
   */
  private void ownWatchLost(Node mine) {
    synchronized (this) {
      if (node != mine) {
        return;
      }
      ownWatchSet = false;
    }
    ctx.session().whenConnected(this::watchOwnNodeIfHeld, () -> {});
  }

  private void watchOwnNodeLater() {
    ownWatchTimer =
        ctx.requests()
            .ownWatchLater(() -> ctx.session().whenConnected(this::watchOwnNodeIfHeld, () -> {}));
  }

  private synchronized void watchOwnNodeIfHeld(Session.Conn conn) {
    if (state == State.HELD) {
      watchOwnNode(conn);
    }
  }

  private void onOwnNodeEvent(WatchedEvent event) {
    Node mine;
    synchronized (this) {
      mine = node;
      if (mine == null || !mine.path().equals(event.getPath())) {
        return; // the watch of a node we no longer have
      }
      if (event.getType() == EventType.NodeDataChanged) {
        ownWatchSet = false; // the watch fired: set it again, so a deletion is still heard
      }
    }
    if (event.getType() == EventType.NodeDataChanged) {
      ctx.session().whenConnected(this::watchOwnNodeIfHeld, () -> {});
      releaseRequested(mine);
    } else if (event.getType() == EventType.NodeDeleted) {
      ownNodeGone(mine);
    }
  }

  /** Node {@code mine} was deleted, and not by us. */
  private void ownNodeGone(Node mine) {
    Step step;
    synchronized (this) {
      if (node != mine) {
        return;
      }
      if (state == State.HELD) {
        // isHeld() is false from now on; the reason takes one more round trip
        state = State.VANISHED;
        ctx.session().classifyLoss(mine.session(), mine.path(), this::vanished, this::closed);
        return;
      }
      Session.Conn conn = ctx.session().current();
      if (state != State.WAITING || conn == null) {
        return;
      }
      step = new RequestStep(conn, ++epoch);
    }
    protocol.judge(step); // finds our node gone and queues again
  }

  private synchronized void vanished(LockLostException.Reason reason) {
    if (state == State.VANISHED) {
      lose(reason);
    } else if (state == State.RELEASED && releasedWhileVanished) {
      // released before the reason was found: lost() stays incomplete, commits are refused
      LockLostException ex = new LockLostException(path(), session, reason);
      ctx.executor().execute(() -> guardRefusal.complete(ex));
    }
  }

  /** Someone asked the holder of node {@code mine} to release ({@code ZkLocks#requestRelease}). */
  private void releaseRequested(Node mine) {
    synchronized (this) {
      if (state != State.HELD || node != mine) {
        return;
      }
    }
    releaseRequests.requested(ctx.executor());
  }

  // ---------------------------------------------------------------- session news

  /** The connection dropped; the session may be alive. */
  void sessionSuspended() {
    synchronized (this) {
      if (state == State.WITHDRAWN) {
        endWithdrawal();
        return;
      }
      if (ticket.tryOnly() && !state.granted() && !state.ended()) {
        // tryAcquire() never waits, not for a connection either: it cannot tell whether the lock
        // is free, so it says so at once; its node, if any, goes in the background
        withdraw(
            new ZkLockException(
                "lost the connection to ZooKeeper while trying the lock: cannot tell whether it is"
                    + " free",
                protocol.dir(),
                session,
                null),
            false);
        return;
      }
      if (ctx.suspensionPolicy() == SuspensionPolicy.TREAT_AS_LOST && state.granted()) {
        lose(LockLostException.Reason.SUSPENDED);
      }
    }
  }

  /** Session {@code expiredSession} ended, and every ephemeral node it made with it. */
  synchronized void sessionExpired(long expiredSession) {
    if (session != expiredSession) {
      return;
    }
    switch (state) {
      case WITHDRAWN -> endWithdrawal(); // the node went with the session
      case HELD, VANISHED -> lose(LockLostException.Reason.SESSION_EXPIRED);
      case CREATING, RECOVERING, WAITING -> {
        if (boundSession != 0L) {
          sessionEnded(); // its recipe starts over, on the new session, from its first step
        } else {
          createAgain(); // on the new session, same deadline
        }
      }
      default -> {}
    }
  }

  /** The {@link io.zklock.ZkLocks} was closed. */
  void sessionClosed() {
    closed();
  }

  /**
   * What {@link io.zklock.ZkLocks#localLocks()} shows of this request at {@code nowNanos} (the
   * context's clock), or null once it has ended.
   */
  synchronized LocalRequest snapshot(long nowNanos) {
    LocalRequest.State shown;
    if (state == State.HELD) {
      shown = LocalRequest.State.HELD;
    } else if (state == State.VANISHED) {
      shown = LocalRequest.State.LOSING;
    } else if (state.ended()) {
      return null;
    } else {
      shown = LocalRequest.State.WAITING;
    }
    boolean granted = shown != LocalRequest.State.WAITING;
    long waitedNanos = (granted ? grantNanos : nowNanos) - startNanos;
    long heldNanos = granted ? nowNanos - grantNanos : 0L;
    return new LocalRequest(
        lockName,
        LockNode.Kind.valueOf(protocol.kind().name()),
        shown,
        node == null ? "" : node.path(),
        session,
        node == null ? 0L : node.czxid(),
        Duration.ofNanos(Math.max(0L, waitedNanos)),
        Duration.ofNanos(Math.max(0L, heldNanos)),
        releaseRequests.isRequested());
  }

  /** When the request started, by the context's clock: orders {@link Requests#snapshot}. */
  synchronized long startNanos() {
    return startNanos;
  }

  // ---------------------------------------------------------------- LockHandle

  @Override
  public String lockName() {
    return lockName;
  }

  @Override
  public synchronized String path() {
    return node == null ? null : node.path();
  }

  @Override
  public synchronized long fencingToken() {
    return node == null ? 0L : node.czxid();
  }

  @Override
  public synchronized boolean isHeld() {
    return state == State.HELD;
  }

  @Override
  public CompletableFuture<LockLostException> lost() {
    return lost;
  }

  @Override
  public void onReleaseRequested(Runnable action) {
    releaseRequests.add(action, ctx.executor());
  }

  @Override
  public boolean isReleaseRequested() {
    return releaseRequests.isRequested();
  }

  @Override
  public synchronized Guard guard() {
    return switch (state) {
      case HELD -> Guard.held(node.path(), node.session(), ctx);
      case VANISHED, LOST -> Guard.losing(guardRefusal);
      case RELEASED -> Guard.released(lockName);
      default ->
          Guard.refused(
              new IllegalMonitorStateException("this request of " + lockName + " was not granted"));
    };
  }

  /**
   * Releases the grant on its holder's failure (a lease that ran out), not by the holder: the node
   * goes as by {@link #releaseAsync()}, but without the lock-delay's record of a clean release, so
   * the next grant waits out the delay ({@link io.zklock.LockOptions#lockDelay}).
   */
  public CompletableFuture<Void> releaseAsFailure() {
    synchronized (this) {
      abandoned = true;
    }
    return releaseAsync();
  }

  @Override
  public CompletableFuture<Void> releaseAsync() {
    synchronized (this) {
      if (state == State.RELEASED && released.isCompletedExceptionally()) {
        // the server refused the delete (an operator's ACL change, say): the node is still ours,
        // and what a retry needs was kept, so this release tries again
        released = deleteNode(true);
        return released;
      }
      if (released != null) {
        return released;
      }
      if (!state.granted()) {
        // never granted to a caller (a grant racing a cancel) or already ended
        if (!state.ended()) {
          withdraw(null);
        }
        return released != null ? released : CompletableFuture.completedFuture(null);
      }
      releasedWhileVanished = state == State.VANISHED;
      state = State.RELEASED;
      epoch++;
      ctx.requests().remove(this);
      released = deleteNode(true);
      return released;
    }
  }

  @Override
  public String toString() {
    return "LockHandle["
        + lockName
        + " ("
        + protocol.label()
        + "), node="
        + path()
        + ", token="
        + fencingToken()
        + "]";
  }

  // ---------------------------------------------------------------- steps

  /**
   * One step of the request, handed to its protocol ({@link Step}). A report on a step the request
   * has moved past ({@link #live}) is dropped, so a protocol never checks what happened meanwhile.
   */
  private final class RequestStep implements Step {
    private final Session.Conn conn;
    private final int stamp;
    private Watcher watcher; // the watch this step was made for, if any

    private RequestStep(Session.Conn conn, int stamp) {
      this.conn = conn;
      this.stamp = stamp;
    }

    /** Called holding the monitor: whether the request is still at this step. */
    private boolean live() {
      return stamp == epoch;
    }

    /**
     * The connection's calls, guarded: a callback that throws fails the request ({@link #failed}).
     */
    @Override
    public ZkOps zk() {
      return GuardedOps.of(conn.ops(), LockRequest.this::failed);
    }

    @Override
    public Session.Conn conn() {
      return conn;
    }

    @Override
    public long session() {
      return conn.sessionId();
    }

    @Override
    public String attemptId() {
      synchronized (LockRequest.this) {
        return attemptId;
      }
    }

    @Override
    public Node node() {
      synchronized (LockRequest.this) {
        return node;
      }
    }

    @Override
    public boolean mayWait() {
      return !ticket.tryOnly();
    }

    @Override
    public Watcher ownWatcher() {
      return ownWatcher;
    }

    @Override
    public Watcher watcher() {
      return watcher;
    }

    @Override
    public byte[] nodeData(NodeKind kind, Map<String, String> extra) {
      return ctx.nodeData().of(kind, conn.sessionId(), extra);
    }

    @Override
    public RequestContext ctx() {
      return ctx;
    }

    @Override
    public void created(String path, long czxid) {
      synchronized (LockRequest.this) {
        if (state == State.WITHDRAWN) {
          if (stamp == createEpoch) {
            // withdrawn while the create was in flight: delete what it made
            ctx.deleter().deleteCreated(path, conn.sessionId(), null, czxid);
          }
          return;
        }
        if (!live() || state != State.CREATING) {
          return;
        }
        dirSentAhead = false;
        createRoundTripNanos = Math.max(0L, ctx.clock().nanoTime() - createSentNanos);
        node = new Node(path, czxid, conn.sessionId());
        state = State.WAITING; // same step: a listing sent behind the create judges it
      }
    }

    @Override
    public void adopted(String path, long czxid, boolean ownWatched) {
      synchronized (LockRequest.this) {
        if (!live() || state != State.RECOVERING) {
          return;
        }
        node = new Node(path, czxid, conn.sessionId());
        ownWatchSet = ownWatched;
        state = State.WAITING;
        log.debug("adopted lock node {} after a connection loss", path);
      }
    }

    @Override
    public void createFailed(Code code) {
      synchronized (LockRequest.this) {
        if (!live() || state != State.CREATING) {
          return;
        }
        if (code == Code.NONODE) {
          epoch++; // a listing sent behind the create fails too: drop it
          state = State.PENDING;
          if (!dirSentAhead && ctx.dirs().trusted(protocol.dir())) {
            // the directory is missing (first use, or reaped): create it and, right behind it on
            // the same connection, our node: one round trip. Should that fail too (its parent is
            // missing), the next NONODE walks the path.
            dirSentAhead = true;
            ctx.dirs().createAhead(conn, protocol.dir(), persistentDir());
            ctx.session().whenConnected(LockRequest.this::send, LockRequest.this::closed);
            return;
          }
          dirSentAhead = false;
          ctx.dirs()
              .ensure(
                  conn.guarded(LockRequest.this::failed),
                  protocol.dir(),
                  persistentDir(),
                  err -> {
                    if (err == null) {
                      ctx.session().whenConnected(LockRequest.this::send, LockRequest.this::closed);
                    } else {
                      giveUp(err);
                    }
                  });
          return;
        }
        switch (ErrorKind.of(code)) {
          case RETRY_WHEN_CONNECTED -> {
            int next = ++epoch;
            state = State.RECOVERING;
            ctx.session().whenConnected(c -> recover(c, next), LockRequest.this::closed);
          }
          case SESSION_ENDED -> {
            // what the session's news does, which may have passed already: a create sent on the
            // handle of a session just declared lost is refused there (EndedOps)
            if (boundSession != 0L) {
              sessionEnded();
            } else {
              createAgain();
            }
          }
          case FINAL ->
              withdraw(
                  new ZkLockException(
                      "cannot create lock node: "
                          + (code == Code.NOAUTH
                              ? "not authorized (the lock's ACL does not let this identity queue)"
                              : code.name()),
                      protocol.dir(),
                      conn.sessionId(),
                      null));
        }
      }
    }

    @Override
    public void queued(int position) {
      ticket.queued(position); // outside the monitor: the protocol checked isLive() just before
    }

    @Override
    public void granted() {
      LockHandle handle;
      Node granted;
      synchronized (LockRequest.this) {
        if (!live() || state != State.WAITING || node == null) {
          return;
        }
        handle = grant();
        granted = node;
      }
      ticket.grant(handle); // may wake a blocked caller at once: outside the monitor
      afterGrant(granted);
    }

    @Override
    public void wroteOwnData(String path, int version) {
      synchronized (LockRequest.this) {
        if (node != null && node.path().equals(path) && version > ownVersion) {
          ownVersion = version;
        }
      }
    }

    @Override
    public void busy() {
      synchronized (LockRequest.this) {
        if (live() && !state.ended()) {
          withdraw(null);
        }
      }
    }

    @Override
    public Step watch(String path, WatcherType type, BiConsumer<Step, WatchedEvent> onEvent) {
      synchronized (LockRequest.this) {
        if (!live()
            || (state != State.CREATING && state != State.RECOVERING && state != State.WAITING)) {
          return null;
        }
        if (!mayWait()) {
          withdraw(null);
          return null;
        }
        state = State.WAITING;
        dropSideWatch(); // a second watch of an earlier wait
        RequestStep next = new RequestStep(conn, ++epoch);
        Watcher watcher =
            GuardedOps.guard(
                event -> {
                  if (event.getType() != EventType.None) {
                    watchFired(next);
                  }
                  onEvent.accept(next, event);
                },
                LockRequest.this::failed);
        next.watcher = watcher;
        watch = new Watch(path, watcher, type);
        return next;
      }
    }

    @Override
    public Watcher alsoWatch(String path, WatcherType type, Consumer<WatchedEvent> onEvent) {
      synchronized (LockRequest.this) {
        if (!live() || state != State.WAITING || watcher == null) {
          return null;
        }
        Watch[] mine = new Watch[1];
        Watcher w =
            GuardedOps.guard(
                event -> {
                  if (event.getType() != EventType.None) {
                    sideWatchFired(mine[0]);
                  }
                  onEvent.accept(event);
                },
                LockRequest.this::failed);
        mine[0] = new Watch(path, w, type);
        sideWatch = mine[0];
        return w;
      }
    }

    @Override
    public Step next() {
      synchronized (LockRequest.this) {
        if (!live() || (state != State.CREATING && state != State.WAITING)) {
          return null;
        }
        return new RequestStep(conn, ++epoch);
      }
    }

    @Override
    public void whenConnected(Consumer<Step> action) {
      ctx.session()
          .whenConnected(
              c -> {
                Step next;
                synchronized (LockRequest.this) {
                  if (!live() || c.sessionId() != session) {
                    return;
                  }
                  next = new RequestStep(c, ++epoch);
                }
                action.accept(next);
              },
              LockRequest.this::closed);
    }

    @Override
    public void again() {
      synchronized (LockRequest.this) {
        if (live() && !state.ended() && !state.granted()) {
          createAgain();
        }
      }
    }

    @Override
    public boolean isLive() {
      synchronized (LockRequest.this) {
        return live();
      }
    }

    @Override
    public void fail(ZkLockException e) {
      synchronized (LockRequest.this) {
        if (!live()) {
          return;
        }
      }
      if (e instanceof RecipeMixException) {
        mixed(e);
      }
      giveUp(e);
    }
  }

  /**
   * This request refused to queue beside a node of another recipe or library ({@code refusal} names
   * it). Its own caller hears the refusal; the warning and the Flight Recorder event are for the
   * holders' side: that node's client holds without seeing zklock's nodes, so whoever zklock's rule
   * lets hold (and the waiter next in line, granted on its predecessor's deletion without a
   * listing) may hold beside it until they release. The first zklock client to list the node says
   * so here; nothing is sent to the holders themselves.
   */
  private void mixed(ZkLockException refusal) {
    log.warn(
        "{}: the holder of this lock by zklock's rule, and its waiter next in line, may hold beside"
            + " that node's client until they release (see zklock ls)",
        refusal.getMessage());
    FlightEvents.recipeMix(lockName, protocol.dir(), refusal.getMessage(), session);
  }

  /** The second watch {@code w} fired (and so is gone from the server): nothing to remove. */
  private synchronized void sideWatchFired(Watch w) {
    if (sideWatch == w) {
      sideWatch = null;
    }
  }

  /** The watch of {@code step} fired (and so is gone from the server): nothing to remove. */
  private synchronized void watchFired(RequestStep step) {
    if (watch != null && watch.watcher() == step.watcher) {
      watch = null;
    }
  }
}
