package io.zklock.internal;

import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.ZkLockException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.WatcherType;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request for a queue lock (mutex, read or write side), from the first create to the release:
 * the I/O around an {@link Ordering.Rule}.
 *
 * <p>Everything here runs on ZooKeeper's event thread (callbacks, watches), the library's executor
 * (session news, timeouts) or a user's thread (cancel, release); it never blocks, and every state
 * change happens under this object's monitor, with ZooKeeper calls issued asynchronously. The
 * {@code epoch} counter is bumped whenever a new step starts, so a late callback of an abandoned
 * step is recognised and dropped.
 */
final class Attempt implements Handle, Request {
  private static final Logger log = LoggerFactory.getLogger(Attempt.class);

  /** The life of a request. */
  enum State {
    /** Waiting for a connected session before sending the create. */
    PENDING,
    /** The create was sent; our node is not known yet. */
    CREATING,
    /** The create's reply was lost to a connection loss; looking for our node by attempt id. */
    RECOVERING,
    /** Our node exists; we wait for the node the rule told us to watch. */
    WAITING,
    /** The lock is ours; a handle was given out. */
    HELD,
    /** Released by its holder; the deletion is under way or done. */
    RELEASED,
    /** Lost while held: session expired, node deleted, suspension policy, or closed. */
    LOST,
    /**
     * Given up before being granted: timeout, interrupt, cancel, busy tryAcquire, failure, close.
     */
    WITHDRAWN
  }

  private final QueueLock lock;
  private final ZkLocksImpl ctx;
  private final Ticket ticket;
  private final CompletableFuture<LockLostException> lost = new CompletableFuture<>();
  private final CompletableFuture<LockLostException> lostAny = new CompletableFuture<>();
  private final ReleaseRequests releaseRequests = new ReleaseRequests();

  // guarded by this
  private State state = State.PENDING;
  private int epoch;
  private int createEpoch; // the epoch of the create in flight, which a withdrawal must clean up
  private String attemptId;
  private String nodePath;
  private long nodeSession;
  private long czxid;
  private String watchedPath;
  private Watcher watchedWatcher;
  private WatcherType watchedType = WatcherType.Data;
  private int pins; // downgraded read holds sharing this write node
  private boolean ownerReleased; // this handle was released while pins remained
  private CompletableFuture<Void> released;

  private boolean nodeGone; // our node was deleted while held; the reason is being found
  private boolean ownWatchSet; // the data watch on our own node was requested
  private ScheduledFuture<?> ownWatchTimer;
  private final Watcher ownWatcher = this::onOwnNodeEvent;

  /**
   * How long a holder goes without a watch on its own node. A forced deletion (an operator deleting
   * the node) is noticed at most this late, while the many short holds save two requests each: the
   * watch and its removal before the delete.
   */
  static final long OWN_WATCH_DELAY_MILLIS = 50;

  Attempt(QueueLock lock, Ticket ticket) {
    this.lock = lock;
    this.ctx = lock.ctx();
    this.ticket = ticket;
  }

  /** Starts the request; the future completes with the handle, or null when busy or timed out. */
  CompletableFuture<LockHandle> start() {
    ctx.register(this);
    ticket.onGiveUp(() -> giveUp(null));
    ctx.session().whenConnected(this::send, this::closed);
    return ticket.result;
  }

  // ---------------------------------------------------------------- create + list, pipelined

  private void send(Session.Conn conn) {
    int e;
    String path;
    synchronized (this) {
      if (state != State.PENDING) {
        return;
      }
      if (ticket.expired()) {
        finishWithdrawn(null);
        return;
      }
      state = State.CREATING;
      e = ++epoch;
      createEpoch = e;
      attemptId = QueueNode.newAttemptId();
      nodeSession = conn.sessionId();
      path = lock.dir() + "/" + QueueNode.prefix(lock.kind(), attemptId);
    }
    byte[] data = ctx.nodeData(lock.kind(), conn.sessionId(), lock.extraData());
    conn.zk()
        .create(
            path,
            data,
            ctx.acl(),
            CreateMode.EPHEMERAL_SEQUENTIAL,
            (AsyncCallback.Create2Callback)
                (rc, p, ctx1, name, stat) -> onCreated(conn, e, Code.get(rc), name, stat),
            null,
            -1);
    // Applied after the create (one session's requests are ordered): the listing includes our node.
    conn.zk()
        .getChildren(
            lock.dir(),
            false,
            (AsyncCallback.Children2Callback)
                (rc, p, ctx1, children, stat) -> onListed(conn, e, Code.get(rc), children),
            null);
  }

  private void onCreated(Session.Conn conn, int e, Code code, String name, Stat stat) {
    synchronized (this) {
      if (state == State.WITHDRAWN) {
        if (e == createEpoch && code == Code.OK) {
          // withdrawn while the create was in flight: delete what it made
          ctx.deleter().delete(name, conn.sessionId(), null);
        }
        return;
      }
      if (e != epoch || state != State.CREATING) {
        return;
      }
      switch (code) {
        case OK:
          nodePath = name;
          czxid = stat.getCzxid();
          break;
        case NONODE:
          epoch++; // the pipelined listing fails too; ignore it
          state = State.PENDING;
          ctx.dirs()
              .ensure(
                  conn,
                  lock.dir(),
                  err -> {
                    if (err == null) {
                      ctx.session().whenConnected(this::send, this::closed);
                    } else {
                      fail(err);
                    }
                  });
          return;
        case CONNECTIONLOSS:
        case OPERATIONTIMEOUT:
          int next = ++epoch;
          state = State.RECOVERING;
          ctx.session().whenConnected(c -> recover(c, next), this::closed);
          return;
        case SESSIONEXPIRED:
        case SESSIONMOVED:
          return; // the session observer re-queues us
        default:
          epoch++;
          fail(
              new ZkLockException(
                  "cannot create lock node: "
                      + (code == Code.NOAUTH
                          ? "not authorized (the lock's ACL does not let this identity queue)"
                          : code.name()),
                  lock.dir(),
                  conn.sessionId(),
                  null));
          return;
      }
    }
  }

  /**
   * Called holding the monitor: a data watch on our own node tells us if someone else deletes it (a
   * forced release). Set at once by waiters, a little after the grant by holders.
   */
  private void watchOwnNode(Session.Conn conn) {
    if (ownWatchSet || nodePath == null || conn.sessionId() != nodeSession) {
      return;
    }
    ownWatchSet = true;
    String path = nodePath;
    conn.zk()
        .exists(
            path,
            ownWatcher,
            (rc, p, c, stat) -> {
              if (Code.get(rc) == Code.NONODE) {
                onOwnNodeEvent(new WatchedEvent(EventType.NodeDeleted, null, path));
              } else if (stat != null && stat.getVersion() > 0) {
                releaseRequested(); // asked before the watch was set (lock nodes start at 0)
              }
            },
            null);
  }

  private void watchOwnNodeLater() {
    ownWatchTimer =
        ctx.scheduler()
            .schedule(
                () ->
                    ctx.session()
                        .whenConnected(
                            c -> {
                              synchronized (this) {
                                if (state == State.HELD) {
                                  watchOwnNode(c);
                                }
                              }
                            },
                            () -> {}),
                OWN_WATCH_DELAY_MILLIS,
                TimeUnit.MILLISECONDS);
  }

  private void onListed(Session.Conn conn, int e, Code code, List<String> children) {
    synchronized (this) {
      if (e != epoch || (state != State.CREATING && state != State.WAITING)) {
        return;
      }
      if (code == Code.CONNECTIONLOSS || code == Code.OPERATIONTIMEOUT) {
        int next = ++epoch;
        ctx.session().whenConnected(c -> relist(c, next), this::closed);
        return;
      }
      if (code != Code.OK) {
        return; // NONODE and expiry are handled by the create's callback and the session observer
      }
    }
    evaluate(conn, e, children, false);
  }

  /**
   * After a connection loss on create: adopt our node if the create happened, else create again.
   */
  private void recover(Session.Conn conn, int e) {
    synchronized (this) {
      if (e != epoch || state != State.RECOVERING) {
        return;
      }
      if (conn.sessionId() != nodeSession) {
        state = State.PENDING; // the old session ended, and any node with it
        ctx.session().whenConnected(this::send, this::closed);
        return;
      }
    }
    conn.zk()
        .getChildren(
            lock.dir(),
            false,
            (AsyncCallback.Children2Callback)
                (rc, p, c1, children, stat) -> {
                  Code code = Code.get(rc);
                  String mine = null;
                  synchronized (this) {
                    if (e != epoch || state != State.RECOVERING) {
                      return;
                    }
                    if (code == Code.CONNECTIONLOSS || code == Code.OPERATIONTIMEOUT) {
                      ctx.session().whenConnected(c -> recover(c, e), this::closed);
                      return;
                    }
                    if (code == Code.OK) {
                      for (String child : children) {
                        QueueNode n = QueueNode.parse(child);
                        if (n != null && n.attemptId().equals(attemptId)) {
                          mine = child;
                        }
                      }
                    }
                    if (mine == null) {
                      state = State.PENDING; // the create never happened: send it again
                    }
                  }
                  if (mine == null) {
                    ctx.session().whenConnected(this::send, this::closed);
                    return;
                  }
                  adopt(conn, e, lock.dir() + "/" + mine, children);
                },
            null);
  }

  private void adopt(Session.Conn conn, int e, String path, List<String> children) {
    conn.zk()
        .exists(
            path,
            ownWatcher,
            (rc, p, c1, stat) -> {
              Code code = Code.get(rc);
              synchronized (this) {
                if (e != epoch || state != State.RECOVERING) {
                  return;
                }
                if (code == Code.OK && stat != null) {
                  ownWatchSet = true; // this exists() set it
                  nodePath = path;
                  czxid = stat.getCzxid();
                  state = State.CREATING; // known node, not yet evaluated
                  log.debug("adopted lock node {} after a connection loss", path);
                } else if (code == Code.NONODE || (code == Code.OK && stat == null)) {
                  state = State.PENDING;
                } else {
                  ctx.session().whenConnected(c -> recover(c, e), this::closed);
                  return;
                }
              }
              if (nodePath != null) {
                evaluate(conn, e, children, false);
              } else {
                ctx.session().whenConnected(this::send, this::closed);
              }
            },
            null);
  }

  private void relist(Session.Conn conn, int e) {
    synchronized (this) {
      if (e != epoch || (state != State.CREATING && state != State.WAITING)) {
        return;
      }
      if (conn.sessionId() != nodeSession) {
        return; // the session observer re-queues us
      }
    }
    conn.zk()
        .getChildren(
            lock.dir(),
            false,
            (AsyncCallback.Children2Callback)
                (rc, p, c1, children, stat) -> onListed(conn, e, Code.get(rc), children),
            null);
  }

  // ---------------------------------------------------------------- the rule, and watching

  /**
   * Decides on a listing. {@code queueWatched}: the listing was read with a child watch (the {@link
   * Ordering.WatchQueue} wait), so if we must still wait, the watch already set is enough.
   */
  private void evaluate(Session.Conn conn, int e, List<String> children, boolean queueWatched) {
    List<QueueNode> queue = QueueNode.queue(children);
    if (QueueNode.nearOverflow(queue)) {
      inCreationOrder(conn, e, queue, queueWatched);
      return;
    }
    decide(conn, e, queue, queueWatched);
  }

  /**
   * The sequence counter has overflowed (see {@link QueueNode}): read every node's creation zxid,
   * pipelined, and decide on the queue in creation order.
   */
  private void inCreationOrder(
      Session.Conn conn, int e, List<QueueNode> queue, boolean queueWatched) {
    QueueNode[] resolved = new QueueNode[queue.size()];
    AtomicInteger left = new AtomicInteger(queue.size());
    AtomicBoolean failed = new AtomicBoolean();
    for (int i = 0; i < resolved.length; i++) {
      int index = i;
      QueueNode n = queue.get(i);
      conn.zk()
          .exists(
              lock.dir() + "/" + n.name(),
              false,
              (rc, p, c1, stat) -> {
                Code code = Code.get(rc);
                if (code == Code.OK && stat != null) {
                  resolved[index] = n.withCzxid(stat.getCzxid());
                } else if (code != Code.NONODE && code != Code.OK) {
                  failed.set(true);
                }
                if (left.decrementAndGet() > 0) {
                  return;
                }
                if (failed.get()) {
                  ctx.session().whenConnected(c -> relistIfCurrent(c, e), this::closed);
                  return;
                }
                List<QueueNode> ordered = new ArrayList<>();
                for (QueueNode r : resolved) {
                  if (r != null) {
                    ordered.add(r);
                  }
                }
                ordered.sort(QueueNode.BY_CREATION);
                decide(conn, e, ordered, queueWatched);
              },
              null);
    }
  }

  private void decide(Session.Conn conn, int e, List<QueueNode> queue, boolean queueWatched) {
    Ordering.Decision decision;
    String watchPath;
    Watcher watcher;
    int next;
    synchronized (this) {
      if (e != epoch || (state != State.CREATING && state != State.WAITING)) {
        return;
      }
      String ownName = nodePath.substring(nodePath.lastIndexOf('/') + 1);
      int index = QueueNode.indexOf(queue, ownName);
      if (index < 0) {
        // our node is gone although our session lives: someone deleted it. Queue again.
        log.warn("lock node {} vanished while waiting; queueing again", nodePath);
        epoch++;
        nodePath = null;
        state = State.PENDING;
        ctx.session().whenConnected(this::send, this::closed);
        return;
      }
      decision = lock.rule().decide(queue, index);
      if (decision instanceof Ordering.Hold) {
        grant();
        return;
      }
      if (ticket.tryOnly()) {
        finishWithdrawn(null);
        return;
      }
      if (decision instanceof Ordering.WatchQueue) {
        if (!queueWatched) {
          watchQueue(conn);
        }
        return;
      }
      Ordering.Watch w = (Ordering.Watch) decision;
      state = State.WAITING;
      // No watch on our own node while waiting: a waiter's node deleted by hand is noticed when we
      // next list, or, if we are granted first, by the holder's delayed watch (docs/guarantees.md).
      next = ++epoch;
      watchPath = lock.dir() + "/" + w.node().name();
      boolean allAheadGone = w.allAheadGone();
      watcher = event -> onWatched(conn, next, event, allAheadGone);
      watchedPath = watchPath;
      watchedWatcher = watcher;
      watchedType = WatcherType.Data;
      boolean headGone = allAheadGone;
      conn.zk()
          .getData(
              watchPath,
              watcher,
              (rc, p, c1, data, stat) -> {
                Code code = Code.get(rc);
                if (code == Code.NONODE) {
                  predecessorGone(conn, next, headGone); // gone already; no watch was set
                } else if (code == Code.CONNECTIONLOSS || code == Code.OPERATIONTIMEOUT) {
                  ctx.session().whenConnected(c -> relistIfCurrent(c, next), this::closed);
                }
              },
              null);
    }
  }

  /** Called holding the monitor: list the queue with a child watch, and decide on that listing. */
  private void watchQueue(Session.Conn conn) {
    state = State.WAITING;
    int next = ++epoch;
    Watcher watcher =
        event -> {
          if (event.getType() != EventType.None) {
            relistIfCurrent(conn, next);
          }
        };
    watchedPath = lock.dir();
    watchedWatcher = watcher;
    watchedType = WatcherType.Children;
    conn.zk()
        .getChildren(
            lock.dir(),
            watcher,
            (AsyncCallback.Children2Callback)
                (rc, p, c1, children, stat) -> {
                  Code code = Code.get(rc);
                  if (code == Code.OK) {
                    evaluate(conn, next, children, true);
                  } else if (code == Code.CONNECTIONLOSS || code == Code.OPERATIONTIMEOUT) {
                    ctx.session().whenConnected(c -> relistIfCurrent(c, next), this::closed);
                  }
                },
            null);
  }

  private void onWatched(Session.Conn conn, int e, WatchedEvent event, boolean allAheadGone) {
    if (event.getType() == EventType.None) {
      return; // connection news; the session observer handles it, and the watch stays set
    }
    if (event.getType() == EventType.NodeDeleted) {
      predecessorGone(conn, e, allAheadGone);
    } else {
      relistIfCurrent(conn, e);
    }
  }

  private void predecessorGone(Session.Conn conn, int e, boolean allAheadGone) {
    int next;
    synchronized (this) {
      if (e != epoch || state != State.WAITING) {
        return;
      }
      watchedPath = null;
      watchedWatcher = null;
      if (allAheadGone) {
        grant(); // nothing else stood before us, and new nodes queue behind us
        return;
      }
      next = ++epoch;
    }
    relist(conn, next);
  }

  private void relistIfCurrent(Session.Conn conn, int e) {
    int next;
    synchronized (this) {
      if (e != epoch || (state != State.WAITING && state != State.CREATING)) {
        return;
      }
      next = ++epoch;
    }
    relist(conn, next);
  }

  private void onOwnNodeEvent(WatchedEvent event) {
    if (event.getType() == EventType.NodeDataChanged) {
      rewatchOwnNode(); // the watch fired: set it again, so a deletion is still heard
      releaseRequested();
      return;
    }
    if (event.getType() != EventType.NodeDeleted) {
      return;
    }
    Session.Conn conn;
    int next;
    synchronized (this) {
      if (state == State.HELD) {
        nodeGone = true; // isHeld() is false from now on; the reason takes one more round trip
        classifyLoss();
        return;
      }
      if (state != State.WAITING) {
        return;
      }
      conn = ctx.session().current();
      next = ++epoch;
    }
    if (conn != null) {
      relist(conn, next); // finds our node gone and queues again
    }
  }

  /** Someone asked the holder to release ({@code ZkLocks#requestRelease}). */
  private void releaseRequested() {
    synchronized (this) {
      if (state != State.HELD) {
        return;
      }
    }
    releaseRequests.requested(ctx.executor());
  }

  /** Our own-node watch fired on a data change: set it again (a waiter's is set at its grant). */
  private void rewatchOwnNode() {
    synchronized (this) {
      ownWatchSet = false;
      if (state != State.HELD) {
        return;
      }
    }
    ctx.session()
        .whenConnected(
            c -> {
              synchronized (this) {
                if (state == State.HELD) {
                  watchOwnNode(c);
                }
              }
            },
            () -> {});
  }

  /** Our node vanished while held: find out why (one round trip), then report the loss. */
  private void classifyLoss() {
    ctx.session().classifyLoss(nodeSession, nodePath, this::lose, this::closed);
  }

  private void lose(LockLostException.Reason reason) {
    synchronized (this) {
      if (state == State.HELD) {
        loseLocked(reason);
      }
    }
  }

  // ---------------------------------------------------------------- outcomes

  /** Called holding the monitor. */
  private void grant() {
    state = State.HELD;
    epoch++;
    dropWatch();
    if (!ownWatchSet) {
      watchOwnNodeLater();
    }
    ticket.grant(this);
  }

  /**
   * Withdraws the request: timeout (reason null), cancel, interrupt, close. If it was granted in
   * the meantime the grant is released. The node, if any, is deleted in the background, guaranteed.
   */
  void giveUp(Throwable failure) {
    synchronized (this) {
      if (state != State.HELD) {
        if (!isTerminal()) {
          finishWithdrawn(failure);
        }
        return;
      }
    }
    if (ticket.takeBack(failure)) {
      releaseAsync(); // granted just now, but the caller gave up first
    }
  }

  private void fail(ZkLockException e) {
    giveUp(e);
  }

  private void closed() {
    synchronized (this) {
      if (state == State.HELD) {
        loseLocked(LockLostException.Reason.CLOSED);
        return;
      }
    }
    giveUp(new ZkLockException("the ZkLocks instance is closed", lock.dir(), 0L, null));
  }

  /** Called holding the monitor: end a request that was not granted. */
  private void finishWithdrawn(Throwable failure) {
    State was = state;
    state = State.WITHDRAWN;
    epoch++;
    dropWatch();
    CompletableFuture<Void> gone = CompletableFuture.completedFuture(null);
    if (nodePath != null) {
      gone = ctx.deleter().delete(nodePath, nodeSession, ownWatch());
    } else if (was == State.CREATING || was == State.RECOVERING) {
      // The create is in flight or its fate unknown: onCreated deletes what it made; a node made by
      // a create whose reply was lost is recognised by its attempt id and deleted.
      ctx.deleter().deleteAttempt(lock.dir(), attemptId, nodeSession);
    }
    ctx.unregister(this);
    if (ticket.tryOnly()) {
      // tryAcquire() found the lock busy: answer once our node is gone, so nothing is left behind
      ticket.endAfter(gone, failure);
    } else {
      ticket.end(failure);
    }
  }

  private void dropWatch() {
    if (watchedPath != null) {
      Session.Conn c = ctx.session().current();
      if (c != null) {
        c.zk()
            .removeWatches(watchedPath, watchedWatcher, watchedType, true, (rc, p, x) -> {}, null);
      }
      watchedPath = null;
      watchedWatcher = null;
    }
  }

  /** Called holding the monitor: the watcher to remove before deleting our node, if it was set. */
  private Watcher ownWatch() {
    if (ownWatchTimer != null) {
      ownWatchTimer.cancel(false);
      ownWatchTimer = null;
    }
    return ownWatchSet ? ownWatcher : null;
  }

  private boolean isTerminal() {
    return state == State.RELEASED || state == State.LOST || state == State.WITHDRAWN;
  }

  /** Called holding the monitor. */
  private void loseLocked(LockLostException.Reason reason) {
    state = State.LOST;
    epoch++;
    ctx.unregister(this);
    LockLostException ex = new LockLostException(nodePath, nodeSession, reason);
    if (reason == LockLostException.Reason.SUSPENDED) {
      // give the lock back as soon as the connection returns, if the session survived
      released = ctx.deleter().delete(nodePath, nodeSession, ownWatch());
    } else {
      released = CompletableFuture.completedFuture(null);
    }
    boolean tellOwner = !ownerReleased;
    ctx.executor()
        .execute(
            () -> {
              lostAny.complete(ex);
              if (tellOwner) {
                lost.complete(ex);
              }
            });
  }

  // ---------------------------------------------------------------- session news

  @Override
  public void sessionSuspended() {
    if (ctx.config().suspensionPolicy() != io.zklock.SuspensionPolicy.TREAT_AS_LOST) {
      return;
    }
    synchronized (this) {
      if (state == State.HELD) {
        loseLocked(LockLostException.Reason.SUSPENDED);
      }
    }
  }

  @Override
  public void sessionExpired(long expiredSession) {
    synchronized (this) {
      if (nodeSession != expiredSession) {
        return;
      }
      switch (state) {
        case HELD:
          loseLocked(LockLostException.Reason.SESSION_EXPIRED);
          return;
        case CREATING:
        case RECOVERING:
        case WAITING:
          // the node went with the session; queue again on the new one, deadline unchanged
          epoch++;
          nodePath = null;
          watchedPath = null;
          watchedWatcher = null;
          state = State.PENDING;
          break;
        default:
          return;
      }
    }
    ctx.session().whenConnected(this::send, this::closed);
  }

  @Override
  public void sessionClosed() {
    closed();
  }

  // ---------------------------------------------------------------- LockHandle

  /** The lock this request is for. */
  QueueLock lock() {
    return lock;
  }

  @Override
  public String lockName() {
    return lock.name();
  }

  @Override
  public synchronized String path() {
    return nodePath;
  }

  @Override
  public synchronized long fencingToken() {
    return czxid;
  }

  @Override
  public synchronized boolean isHeld() {
    return state == State.HELD && !nodeGone && !ownerReleased;
  }

  // ---------------------------------------------------------------- downgrade (write -> read)

  /**
   * Adds a downgraded read hold sharing this write node: the node stays until this handle and every
   * pin are released.
   *
   * @return false if this handle does not hold the lock now
   */
  synchronized boolean pin() {
    if (state != State.HELD || nodeGone || ownerReleased) {
      return false;
    }
    pins++;
    return true;
  }

  /** Whether the node is still ours (for pins, which outlive the owner's release). */
  synchronized boolean nodeHeld() {
    return state == State.HELD && !nodeGone;
  }

  /** Completes on any loss of the node, also after the owner released it while pinned. */
  CompletableFuture<LockLostException> lostAny() {
    return lostAny;
  }

  /** Drops one pin; the last one, after the owner's release, deletes the node. */
  CompletableFuture<Void> unpin() {
    synchronized (this) {
      if (pins == 0) {
        throw new IllegalStateException("no pin to drop on " + nodePath);
      }
      pins--;
      if (pins > 0 || !ownerReleased) {
        return CompletableFuture.completedFuture(null);
      }
      if (state != State.HELD) {
        return released != null ? released : CompletableFuture.completedFuture(null);
      }
      return deleteHeldNode();
    }
  }

  /** Called holding the monitor. */
  private CompletableFuture<Void> deleteHeldNode() {
    state = State.RELEASED;
    epoch++;
    ctx.unregister(this);
    released = ctx.deleter().delete(nodePath, nodeSession, ownWatch());
    return released;
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
  public CompletableFuture<Void> releaseAsync() {
    synchronized (this) {
      if (released != null) {
        return released;
      }
      if (state != State.HELD) {
        // never granted to a caller (for example a grant racing a cancel) or already ended
        if (!isTerminal()) {
          finishWithdrawn(null);
        }
        return released != null ? released : CompletableFuture.completedFuture(null);
      }
      if (pins > 0) {
        // downgraded: the node stays, as the read hold's, until the last pin is released
        ownerReleased = true;
        return CompletableFuture.completedFuture(null);
      }
      return deleteHeldNode();
    }
  }

  @Override
  public String toString() {
    return "LockHandle[" + lock.name() + ", node=" + path() + ", token=" + fencingToken() + "]";
  }
}
