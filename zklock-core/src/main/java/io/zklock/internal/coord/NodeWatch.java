package io.zklock.internal.coord;

import io.zklock.ZkLockException;
import io.zklock.internal.rules.ErrorKind;
import io.zklock.internal.zk.GuardedOps;
import io.zklock.internal.zk.Session;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.Watcher.WatcherType;

/**
 * Waits until one node exists (or is gone), herd-free: one {@code exists} watch per waiter, so a
 * waiter hears one notification, the one it waits for. The coordination recipes wait with it (the
 * latch's {@code open}, a barrier's node, a double barrier's {@code ready}).
 *
 * <p>Only the event it waits for ends the wait: a connection event (disconnected, connected again)
 * is not a pass, whatever its timing. When the session expires, or zklock ends it at its own
 * deadline, the watch is gone with it; the wait sets it again on the next session (a check first,
 * so a change made meanwhile is seen). A closed {@code ZkLocks} fails the wait.
 *
 * <p>The future completes with {@code true} when the node is as wanted, {@code false} at the
 * time-out; cancelling it withdraws the wait. Either way the watcher is removed from the client.
 * (ZooKeeper keeps one watch per path and session on the server, which a removal of one watcher
 * leaves standing: it fires at most once more, for nobody, and is shared by any later wait on the
 * same path; so waits that time out again and again do not add watches.)
 */
public final class NodeWatch implements Watcher {
  private final CoordContext ctx;
  private final String path;
  private final boolean present;
  private final long owner; // the session the wait is bound to; 0: none
  private final CompletableFuture<Boolean> done = new CompletableFuture<>();
  private volatile Session.Conn armedOn;
  private volatile ScheduledFuture<?> timer;

  /** How a session-bound wait ends when its session does (its caller's ephemeral node is gone). */
  public static final class SessionEnded extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SessionEnded(String path) {
      super("the session ended while waiting on " + path, null, false, false);
    }
  }

  private NodeWatch(CoordContext ctx, String path, boolean present, long owner) {
    this.ctx = ctx;
    this.path = path;
    this.present = present;
    this.owner = owner;
  }

  /**
   * Waits until {@code path} exists ({@code present}) or is gone ({@code !present}).
   *
   * @param timeoutNanos how long to wait; negative: as long as it takes; zero: one check
   */
  public static CompletableFuture<Boolean> until(
      CoordContext ctx, String path, boolean present, long timeoutNanos) {
    return until(ctx, path, present, timeoutNanos, 0L);
  }

  /**
   * As {@link #until(CoordContext, String, boolean, long)}, bound to the session {@code owner} (0:
   * to none): the end of that session (expiry, zklock's deadline) fails the wait with {@link
   * SessionEnded} instead of watching again on the next session: for a waiter whose own ephemeral
   * node went with it.
   */
  public static CompletableFuture<Boolean> until(
      CoordContext ctx, String path, boolean present, long timeoutNanos, long owner) {
    NodeWatch w = new NodeWatch(ctx, path, present, owner);
    w.done.whenComplete((v, err) -> w.cleanUp());
    if (timeoutNanos >= 0) {
      w.timer =
          ctx.scheduler()
              .schedule(() -> w.done.complete(false), timeoutNanos, TimeUnit.NANOSECONDS);
    }
    w.arm();
    return w.done;
  }

  private void arm() {
    if (done.isDone()) {
      return;
    }
    ctx.session()
        .whenConnected(
            conn -> {
              if (owner != 0L && conn.sessionId() != owner) {
                done.completeExceptionally(new SessionEnded(path));
                return;
              }
              armedOn = conn;
              conn.guarded(done, path)
                  .ops()
                  .exists(path, this, (rc, p, c, stat) -> checked(Code.get(rc)));
            },
            () ->
                done.completeExceptionally(
                    new ZkLockException("the ZkLocks instance is closed", path, 0L, null)));
  }

  private void checked(Code code) {
    switch (code) {
      case OK:
        if (present) {
          done.complete(true);
        }
        break; // else the watch stands until the node goes
      case NONODE:
        if (!present) {
          done.complete(true);
        }
        break; // else the watch stands until the node is made
      default:
        if (code == Code.SESSIONEXPIRED && owner != 0L) {
          done.completeExceptionally(new SessionEnded(path));
        } else if (ErrorKind.retryable(code) || code == Code.SESSIONEXPIRED) {
          arm(); // on the next connection or the next session
        } else {
          done.completeExceptionally(
              new ZkLockException("cannot watch " + path + ": " + code, path, 0L, null));
        }
    }
  }

  /**
   * Under the wait's guard: a throwable escaping the event's handling (on ZooKeeper's event thread,
   * which would drop it) fails the wait ({@link GuardedOps#failing}). The watcher itself is this
   * object, as a removal names it.
   */
  @Override
  public void process(WatchedEvent event) {
    GuardedOps.run(() -> handle(event), GuardedOps.failing(done, path, owner));
  }

  private void handle(WatchedEvent event) {
    if (done.isDone()) {
      return;
    }
    EventType type = event.getType();
    if (type == EventType.None) {
      KeeperState state = event.getState();
      if (state == KeeperState.Expired || state == KeeperState.Closed) {
        if (owner != 0L) {
          done.completeExceptionally(new SessionEnded(path));
        } else {
          arm(); // the watch went with the session: set it again on the next one
        }
      }
      return; // disconnected, connected again: the watch stands; not a pass
    }
    if (present && type == EventType.NodeCreated || !present && type == EventType.NodeDeleted) {
      done.complete(true);
    } else if (type != EventType.DataWatchRemoved) {
      arm(); // some other change: look again (and watch again)
    }
  }

  private void cleanUp() {
    ScheduledFuture<?> t = timer;
    if (t != null) {
      t.cancel(false);
    }
    Session.Conn conn = armedOn;
    if (conn != null) {
      try {
        conn.ops().removeWatches(path, this, WatcherType.Data, (rc, p, c) -> {});
      } catch (RuntimeException e) {
        // the handle is closed: its watches are gone with it
      }
    }
  }
}
