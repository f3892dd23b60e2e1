package io.zklock.internal;

import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.ZkLockException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.WatcherType;
import org.apache.zookeeper.data.Stat;

/**
 * One request for a {@link SimpleLock}, from the first create to the release. Same discipline as
 * {@link Attempt}: never blocks, state changes under this object's monitor, the {@code epoch}
 * counter drops late callbacks of abandoned steps.
 *
 * <p>Identity: the node's data carries this request's attempt id (and the session), so after a
 * connection loss on create the request reads the node back: its own id means the create happened
 * (adopt it), another id means someone else holds the lock (seed 001's checkNode).
 */
final class SimpleAttempt implements Handle, Request {

  /** The life of a request. */
  enum State {
    /** Waiting for a connected session before sending the create. */
    PENDING,
    /** The create was sent. */
    CREATING,
    /** The create's reply was lost; reading the node back to learn whose it is. */
    RECOVERING,
    /** Someone else holds the node; we watch it. */
    WAITING,
    /** The lock is ours. */
    HELD,
    /** Released by its holder. */
    RELEASED,
    /** Lost while held. */
    LOST,
    /** Given up before being granted. */
    WITHDRAWN
  }

  private final SimpleLock lock;
  private final ZkLocksImpl ctx;
  private final String path;
  private final Ticket ticket;
  private final String attemptId = QueueNode.newAttemptId();
  private final CompletableFuture<LockLostException> lost = new CompletableFuture<>();
  private final Watcher ownWatcher = this::onOwnNodeEvent;
  private final ReleaseRequests releaseRequests = new ReleaseRequests();

  // guarded by this
  private State state = State.PENDING;
  private int epoch;
  private int createEpoch;
  private long nodeSession;
  private long czxid;
  private Watcher waitWatcher;
  private CompletableFuture<Void> released;
  private boolean nodeGone;

  SimpleAttempt(SimpleLock lock, Ticket ticket) {
    this.lock = lock;
    this.ctx = lock.ctx();
    this.path = lock.path();
    this.ticket = ticket;
  }

  /** Starts the request; the future completes with the handle, or null when busy or timed out. */
  CompletableFuture<LockHandle> start() {
    ctx.register(this);
    ticket.onGiveUp(() -> giveUp(null));
    ctx.session().whenConnected(this::send, this::closed);
    return ticket.result;
  }

  private void send(Session.Conn conn) {
    int e;
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
      nodeSession = conn.sessionId();
    }
    byte[] data = ctx.nodeData(NodeKind.SIMPLE, conn.sessionId(), Map.of("attempt", attemptId));
    conn.zk()
        .create(
            path,
            data,
            ctx.acl(),
            CreateMode.EPHEMERAL,
            (AsyncCallback.Create2Callback)
                (rc, p, c, name, stat) -> onCreated(conn, e, Code.get(rc), stat),
            null,
            -1);
  }

  private void onCreated(Session.Conn conn, int e, Code code, Stat stat) {
    synchronized (this) {
      if (state == State.WITHDRAWN) {
        if (e == createEpoch && code == Code.OK) {
          ctx.deleter().deleteCreated(path, conn.sessionId(), null, stat.getCzxid());
        } else if (e == createEpoch
            && (code == Code.CONNECTIONLOSS || code == Code.OPERATIONTIMEOUT)) {
          deleteIfOurs(conn.sessionId());
        }
        return;
      }
      if (e != epoch || state != State.CREATING) {
        return;
      }
      switch (code) {
        case OK:
          czxid = stat.getCzxid();
          grant();
          break;
        case NODEEXISTS:
          busy(conn);
          return;
        case NONODE:
          epoch++;
          state = State.PENDING;
          ctx.dirs()
              .ensure(
                  conn,
                  lock.dir(),
                  err -> {
                    if (err == null) {
                      ctx.session().whenConnected(this::send, this::closed);
                    } else {
                      giveUp(err);
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
          return; // the session observer queues us again
        default:
          epoch++;
          giveUp(
              new ZkLockException(
                  "cannot create lock node: " + code.name(), path, conn.sessionId(), null));
          return;
      }
    }
    watchOwnNode(conn);
  }

  /** Sets a data watch on our node, to hear of a forced deletion; checks it is still ours. */
  private void watchOwnNode(Session.Conn conn) {
    long mine;
    synchronized (this) {
      mine = czxid;
    }
    conn.zk()
        .exists(
            path,
            ownWatcher,
            (rc, p, c, stat) -> {
              Code code = Code.get(rc);
              if (code == Code.NONODE
                  || (code == Code.OK && (stat == null || stat.getCzxid() != mine))) {
                synchronized (this) {
                  if (state == State.HELD && czxid == mine) {
                    nodeGone = true;
                    classifyLoss();
                  }
                }
                if (code == Code.NONODE) {
                  // exists on a missing node set a creation watch: drop it
                  conn.zk()
                      .removeWatches(
                          path, ownWatcher, WatcherType.Data, true, (r, p2, x) -> {}, null);
                }
              } else if (code == Code.OK && stat.getVersion() > 0) {
                releaseRequested(mine); // asked before the watch was set (lock nodes start at 0)
              }
            },
            null);
  }

  /** After a connection loss on create: read the node back; its data says whose it is. */
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
        .getData(
            path,
            false,
            (rc, p, c, data, stat) -> {
              Code code = Code.get(rc);
              boolean adopted = false;
              synchronized (this) {
                if (e != epoch || state != State.RECOVERING) {
                  return;
                }
                if (code == Code.CONNECTIONLOSS || code == Code.OPERATIONTIMEOUT) {
                  ctx.session().whenConnected(c2 -> recover(c2, e), this::closed);
                  return;
                }
                if (code == Code.NONODE) {
                  state = State.PENDING; // the create never happened, or the node went since
                } else if (code == Code.OK && isOurs(data, stat)) {
                  czxid = stat.getCzxid();
                  grant();
                  adopted = true;
                } else if (code == Code.OK) {
                  busy(conn); // someone else's
                  return;
                } else {
                  return; // expiry: the session observer queues us again
                }
              }
              if (adopted) {
                watchOwnNode(conn);
              } else {
                ctx.session().whenConnected(this::send, this::closed);
              }
            },
            null);
  }

  private boolean isOurs(byte[] data, Stat stat) {
    if (data == null || stat == null || stat.getEphemeralOwner() != nodeSession) {
      return false;
    }
    return attemptId.equals(Json.field(new String(data, StandardCharsets.UTF_8), "attempt"));
  }

  /** Called holding the monitor: the node is someone else's. Watch it, or give up. */
  private void busy(Session.Conn conn) {
    if (ticket.tryOnly()) {
      finishWithdrawn(null);
      return;
    }
    state = State.WAITING;
    int next = ++epoch;
    Watcher w =
        event -> {
          if (event.getType() != EventType.None) {
            rewatch(next); // deleted, or changed hands: try again
          }
        };
    waitWatcher = w;
    // getData, not exists: on a node already gone it sets no watch that could leak
    conn.zk()
        .getData(
            path,
            w,
            (rc, p, c, data, stat) -> {
              Code code = Code.get(rc);
              if (code == Code.NONODE) {
                rewatch(next);
              } else if (code == Code.CONNECTIONLOSS || code == Code.OPERATIONTIMEOUT) {
                ctx.session().whenConnected(c2 -> rewatch(next), this::closed);
              }
            },
            null);
  }

  /** The watched node changed or went: try the create again (busy() watches again if needed). */
  private void rewatch(int e) {
    synchronized (this) {
      if (e != epoch || state != State.WAITING) {
        return;
      }
      state = State.PENDING;
      epoch++;
    }
    ctx.session().whenConnected(this::send, this::closed); // create again; busy() re-watches
  }

  /** A withdrawn request's create met a connection loss: delete the node if it is ours. */
  private void deleteIfOurs(long session) {
    ctx.session()
        .whenConnected(
            conn -> {
              if (conn.sessionId() != session) {
                return;
              }
              conn.zk()
                  .getData(
                      path,
                      false,
                      (rc, p, c, data, stat) -> {
                        Code code = Code.get(rc);
                        if (code == Code.OK && isOurs(data, stat)) {
                          ctx.deleter().deleteCreated(path, session, null, stat.getCzxid());
                        } else if (code == Code.CONNECTIONLOSS || code == Code.OPERATIONTIMEOUT) {
                          deleteIfOurs(session);
                        }
                      },
                      null);
            },
            () -> {});
  }

  private void onOwnNodeEvent(WatchedEvent event) {
    if (event.getType() == EventType.NodeDataChanged) {
      // a release request: set the watch again (so a deletion is still heard), which also checks
      // the node is still ours and tells the owner
      ctx.session()
          .whenConnected(
              c -> {
                synchronized (this) {
                  if (state != State.HELD) {
                    return;
                  }
                }
                watchOwnNode(c);
              },
              () -> {});
      return;
    }
    if (event.getType() != EventType.NodeDeleted) {
      return;
    }
    synchronized (this) {
      if (state == State.HELD) {
        nodeGone = true;
        classifyLoss();
      }
    }
  }

  /** Someone asked the holder of node {@code mine} to release ({@code ZkLocks#requestRelease}). */
  private void releaseRequested(long mine) {
    synchronized (this) {
      if (state != State.HELD || czxid != mine) {
        return;
      }
    }
    releaseRequests.requested(ctx.executor());
  }

  @Override
  public void onReleaseRequested(Runnable action) {
    releaseRequests.add(action, ctx.executor());
  }

  @Override
  public boolean isReleaseRequested() {
    return releaseRequests.isRequested();
  }

  /** Our node vanished while held: find out why (one round trip), then report the loss. */
  private void classifyLoss() {
    ctx.session().classifyLoss(nodeSession, lock.dir(), this::lose, this::closed);
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
    ticket.grant(this);
  }

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

  private void closed() {
    synchronized (this) {
      if (state == State.HELD) {
        loseLocked(LockLostException.Reason.CLOSED);
        return;
      }
    }
    giveUp(new ZkLockException("the ZkLocks instance is closed", lock.dir(), 0L, null));
  }

  /** Called holding the monitor. */
  private void finishWithdrawn(Throwable failure) {
    State was = state;
    state = State.WITHDRAWN;
    epoch++;
    dropWaitWatch();
    if (was == State.RECOVERING) {
      deleteIfOurs(nodeSession);
    }
    // CREATING: onCreated deletes what the create made
    ctx.unregister(this);
    ticket.end(failure);
  }

  private void dropWaitWatch() {
    if (waitWatcher != null) {
      Session.Conn c = ctx.session().current();
      if (c != null) {
        c.zk().removeWatches(path, waitWatcher, WatcherType.Data, true, (rc, p, x) -> {}, null);
      }
      waitWatcher = null;
    }
  }

  private boolean isTerminal() {
    return state == State.RELEASED || state == State.LOST || state == State.WITHDRAWN;
  }

  /** Called holding the monitor. */
  private void loseLocked(LockLostException.Reason reason) {
    state = State.LOST;
    epoch++;
    ctx.unregister(this);
    LockLostException ex = new LockLostException(path, nodeSession, reason);
    if (reason == LockLostException.Reason.SUSPENDED) {
      released = ctx.deleter().deleteCreated(path, nodeSession, ownWatcher, czxid);
    } else {
      released = CompletableFuture.completedFuture(null);
    }
    ctx.executor().execute(() -> lost.complete(ex));
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
          epoch++;
          waitWatcher = null;
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

  @Override
  public String lockName() {
    return lock.name();
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public synchronized long fencingToken() {
    return czxid;
  }

  @Override
  public synchronized boolean isHeld() {
    return state == State.HELD && !nodeGone;
  }

  @Override
  public CompletableFuture<LockLostException> lost() {
    return lost;
  }

  @Override
  public CompletableFuture<Void> releaseAsync() {
    synchronized (this) {
      if (released != null) {
        return released;
      }
      if (state != State.HELD) {
        if (!isTerminal()) {
          finishWithdrawn(null);
        }
        return released != null ? released : CompletableFuture.completedFuture(null);
      }
      state = State.RELEASED;
      epoch++;
      ctx.unregister(this);
      released = ctx.deleter().deleteCreated(path, nodeSession, ownWatcher, czxid);
      return released;
    }
  }

  @Override
  public String toString() {
    return "LockHandle[" + lock.name() + " (simple), token=" + fencingToken() + "]";
  }
}
