package io.zklock.internal.zk;

import io.zklock.internal.rules.ErrorKind;
import io.zklock.internal.rules.QueueNode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.WatcherType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Guaranteed deletion of a lock node: a delete that meets a connection loss is retried when the
 * connection returns, until it succeeds, the node is already gone, or its session has ended (which
 * deletes an ephemeral node anyway; a session zklock declares lost at its deadline counts as ended,
 * so a deletion never waits longer than that deadline). What a retry needs (path, session, watcher)
 * is kept until then.
 */
public final class Deleter {
  private static final Logger log = LoggerFactory.getLogger(Deleter.class);

  private final SessionPort session;

  /**
   * Deletions of nodes whose names are reused ({@link #deleteCreated}) under way, by path: a
   * request cleaned up twice (a withdrawal racing its create's reply) deletes its node once.
   */
  private final ConcurrentHashMap<String, Pending> deletingCreated = new ConcurrentHashMap<>();

  /** This client's deletes on their way to the server, by path (see {@link #deleteInFlight}). */
  private final ConcurrentHashMap<String, InFlight> inFlight = new ConcurrentHashMap<>();

  /** A delete on its way: whether the server applied it, and whether its node was held. */
  private record InFlight(CompletableFuture<Boolean> applied, boolean held) {}

  public Deleter(SessionPort session) {
    this.session = session;
  }

  /**
   * Deletes {@code path}, an ephemeral node created by session {@code owner}. If {@code ownWatcher}
   * is not null, the data watch it set on the node is removed first (pipelined, so a release costs
   * one round trip and fires no watch of ours on the server).
   *
   * @return a future completed once the node is known to be gone
   */
  CompletableFuture<Void> delete(String path, long owner, Watcher ownWatcher) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    attempt(path, owner, ownWatcher, done, 0L, false, false, null, false);
    return done;
  }

  /**
   * The outcome of this client's delete of {@code path} that the server has not answered yet, or
   * null if there is none: completes with true when the server applied it, false otherwise. A
   * request waiting behind a node of its own session learns from this whether that node's deletion
   * was a release (applied while the session lived) or the session's expiry; the reply follows the
   * deletion's watch event on the same connection, so waiting for it costs nothing.
   */
  public CompletableFuture<Boolean> deleteInFlight(String path) {
    InFlight d = inFlight.get(path);
    return d == null ? null : d.applied();
  }

  /**
   * Like {@link #deleteInFlight}, but only for the release of a node that was held (a grant's node,
   * deleted by {@link #deleteCreated(String, long, Watcher, long, boolean)} with {@code held}):
   * null otherwise. A node held by an exclusive rule was the head of its queue; its applied
   * deletion leaves nothing ahead of the node right behind it, whatever that node's last listing
   * showed.
   */
  public CompletableFuture<Boolean> releaseInFlight(String path) {
    InFlight d = inFlight.get(path);
    return d == null || !d.held() ? null : d.applied();
  }

  /**
   * Deletes {@code path} like {@link #delete}, for a node whose name is reused by later holders
   * (the simple lock's): a retry after a connection loss first reads the node back and deletes it
   * only if its creation zxid is still {@code czxid}, checked rather than assumed. The first delete
   * may have succeeded unseen and someone else may have created the node since; a blind retry would
   * delete their lock.
   */
  public CompletableFuture<Void> deleteCreated(
      String path, long owner, Watcher ownWatcher, long czxid) {
    return deleteCreated(path, owner, ownWatcher, czxid, false);
  }

  /**
   * Like {@link #deleteCreated(String, long, Watcher, long)}; {@code held}: the node was granted to
   * its request (see {@link #releaseInFlight}).
   */
  CompletableFuture<Void> deleteCreated(
      String path, long owner, Watcher ownWatcher, long czxid, boolean held) {
    return deleteCreated(path, owner, ownWatcher, czxid, held, false);
  }

  /**
   * Like {@link #deleteCreated(String, long, Watcher, long, boolean)}; {@code checkFirst}: read the
   * node back before the first delete too, not only before a retry. For a node whose name is reused
   * by every holder (the simple lock's), a holder that has not yet heard that an operator deleted
   * its node would otherwise delete the node the next holder created meanwhile; the read costs one
   * round trip per release.
   */
  public CompletableFuture<Void> deleteCreated(
      String path, long owner, Watcher ownWatcher, long czxid, boolean held, boolean checkFirst) {
    return deleteCreated(path, owner, ownWatcher, czxid, held, checkFirst, null);
  }

  /**
   * Like {@link #deleteCreated(String, long, Watcher, long, boolean, boolean)}; {@code before}, if
   * not null, are ops sent ahead of the delete in one {@code multi} (a lock-delay's record, {@link
   * io.zklock.internal.rules.LockDelay}): one round trip, as a plain delete, applied all or none.
   */
  public CompletableFuture<Void> deleteCreated(
      String path,
      long owner,
      Watcher ownWatcher,
      long czxid,
      boolean held,
      boolean checkFirst,
      List<Op> marker) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    Pending mine = new Pending(czxid, done);
    Pending running = deletingCreated.putIfAbsent(path, mine);
    if (running != null && running.czxid() == czxid) {
      // this node's deletion is under way: a second delete, applied after the first and after a
      // new holder created the name again, would delete the new holder's node
      return running.done();
    }
    if (running == null) {
      done.whenComplete((v, t) -> deletingCreated.remove(path, mine));
    }
    attempt(path, owner, ownWatcher, done, czxid, checkFirst, held, marker, false);
    return done;
  }

  /** A deletion by {@link #deleteCreated} under way. */
  private record Pending(long czxid, CompletableFuture<Void> done) {}

  /**
   * One try. {@code czxid}: the node's creation zxid if its name is reused (0 if unique); {@code
   * check}: read it back first, because an earlier try met a connection loss; {@code held}: see
   * {@link #releaseInFlight}; {@code afterThrow}: an earlier try's callback threw ({@link
   * #thrown}).
   */
  private void attempt(
      String path,
      long owner,
      Watcher ownWatcher,
      CompletableFuture<Void> done,
      long czxid,
      boolean check,
      boolean held,
      List<Op> marker,
      boolean afterThrow) {
    // as soon as the owning session is over (expired, declared lost at zklock's session deadline,
    // or closed) the ephemeral node is gone or going with it: nothing waits past that deadline
    session.whenConnectedTo(
        owner,
        conn -> {
          if (check) {
            GuardedOps.of(
                    conn.ops(),
                    thrown(path, owner, ownWatcher, done, czxid, held, marker, afterThrow, null))
                .exists(
                    path,
                    null,
                    (rc, p, ctx, stat) -> {
                      Code code = Code.get(rc);
                      if (code == Code.OK && stat != null && stat.getCzxid() == czxid) {
                        attempt(
                            path, owner, ownWatcher, done, czxid, false, held, marker, afterThrow);
                      } else if (ErrorKind.retryWhenConnected(code)) {
                        attempt(
                            path, owner, ownWatcher, done, czxid, true, held, marker, afterThrow);
                      } else {
                        done.complete(null); // gone, or someone else's now
                      }
                    });
            return;
          }
          // known as in flight before anything is sent: the watch-removed event of the request
          // below reaches a waiter of this session on the event thread, which may run before this
          // thread goes on (a loaded machine), and the waiter asks deleteInFlight then
          CompletableFuture<Boolean> applied = new CompletableFuture<>();
          InFlight entry = new InFlight(applied, held);
          inFlight.put(path, entry);
          ZkOps ops =
              GuardedOps.of(
                  conn.ops(),
                  thrown(path, owner, null, done, czxid, held, marker, afterThrow, entry));
          if (ownWatcher != null) {
            // removeAllWatches, not removeWatches(path, watcher): the latter only checks the
            // server's watch and removes the client's, so the server would still fire it on our own
            // delete. Only this session's watches on our own node go; nobody else's.
            conn.ops().removeAllWatches(path, WatcherType.Data, (rc, p, ctx) -> {});
          }
          java.util.function.IntConsumer answered =
              rc -> {
                Code code = Code.get(rc);
                inFlight.remove(path, entry);
                applied.complete(code == Code.OK);
                if (code == Code.OK || code == Code.NONODE) {
                  done.complete(null);
                  return;
                }
                switch (ErrorKind.of(code)) {
                  case SESSION_ENDED:
                    done.complete(null); // its ephemeral nodes went with it
                    break;
                  case RETRY_WHEN_CONNECTED:
                    // try again when the connection is back (watch already removed locally)
                    attempt(path, owner, null, done, czxid, czxid != 0L, held, marker, afterThrow);
                    break;
                  case FINAL:
                  default:
                    log.error(
                        "cannot delete lock node {} of session 0x{}: {}; it will go when the"
                            + " session ends",
                        path,
                        Long.toHexString(owner),
                        code);
                    done.completeExceptionally(
                        new io.zklock.ZkLockException(
                            "cannot delete lock node: " + code, path, owner, null));
                }
              };
          if (marker == null) {
            ops.delete(path, (rc, p, ctx) -> answered.accept(rc));
          } else {
            List<Op> all = new ArrayList<>(marker);
            all.add(Op.delete(path, -1));
            ops.multi(all, (rc, p, ctx, results) -> answered.accept(multiCode(rc, results)));
          }
        },
        () -> done.complete(null)); // the session is over: its ephemeral nodes go with it
  }

  /**
   * Where a throwable escaping a callback of a deletion's try goes ({@link GuardedOps}): a bug of
   * zklock's, or an {@link Error}, on ZooKeeper's event thread, which would log it and drop it, and
   * the deletion would never end (a {@code tryAcquire()} or a {@code release()} waiting for it for
   * ever) nor delete its node. Logged once at ERROR; the deletion is tried once more from the start
   * (the node read back first when its creation zxid is known: the throwable may have come after
   * the server applied the delete); should that try throw too, the deletion fails with it, its node
   * left to its session, as when the server refuses the delete. {@code ownWatcher}: the watch still
   * to remove (null once the removal was sent); {@code entry}: the try's delete in flight, if it
   * was sent: no longer in flight, and not taken as applied (a waiter reads instead).
   */
  private Consumer<Throwable> thrown(
      String path,
      long owner,
      Watcher ownWatcher,
      CompletableFuture<Void> done,
      long czxid,
      boolean held,
      List<Op> marker,
      boolean afterThrow,
      InFlight entry) {
    Consumer<Throwable> end =
        onceMore(
            afterThrow,
            done,
            path,
            owner,
            () -> attempt(path, owner, ownWatcher, done, czxid, czxid != 0L, held, marker, true));
    return t -> {
      if (entry != null) {
        inFlight.remove(path, entry);
        entry.applied().complete(false);
      }
      end.accept(t);
    };
  }

  /**
   * A deletion's guard ({@link #thrown}): the first throwable logged at ERROR and the deletion
   * tried {@code again}; the next (from that try's callback, {@code afterThrow}, or as it is sent)
   * fails {@code done}.
   */
  private static Consumer<Throwable> onceMore(
      boolean afterThrow, CompletableFuture<Void> done, String path, long owner, Runnable again) {
    if (afterThrow) {
      return GuardedOps.failing(done, path, owner);
    }
    return t -> {
      log.error(
          "zklock's code failed on a reply of a deletion in {}; trying it once more", path, t);
      GuardedOps.run(again, GuardedOps.failing(done, path, owner)); // it may throw as it sends
    };
  }

  /** A multi's outcome: OK, or the code of the op that failed it. */
  private static int multiCode(int rc, List<OpResult> results) {
    if (rc == Code.OK.intValue() || results == null) {
      return rc;
    }
    for (OpResult r : results) {
      if (r instanceof OpResult.ErrorResult e
          && e.getErr() != Code.OK.intValue()
          && e.getErr() != Code.RUNTIMEINCONSISTENCY.intValue()) {
        return e.getErr();
      }
    }
    return rc;
  }

  /**
   * Deletes the node of request {@code attemptId} in {@code dir}, if there is one: for a request
   * withdrawn while its create was in flight or its reply lost. The listing follows a sync: the
   * connection may have come back on a server that has not applied the create yet, and the sync
   * brings it up to date, so the listing sees the node if the create happened.
   *
   * @return a future completed once no node of the request is left
   */
  public CompletableFuture<Void> deleteAttempt(String dir, String attemptId, long owner) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    deleteAttempt(dir, attemptId, owner, done, false);
    return done;
  }

  /**
   * One try of {@link #deleteAttempt}; {@code done} completes once no node of it is left. A
   * throwable escaping its callback is handled as a deletion's ({@link #thrown}): logged, the
   * search made once more ({@code afterThrow}), then failed.
   */
  private void deleteAttempt(
      String dir, String attemptId, long owner, CompletableFuture<Void> done, boolean afterThrow) {
    session.whenConnected(
        conn -> {
          if (conn.sessionId() != owner) {
            done.complete(null); // the session ended, and its nodes with it
            return;
          }
          Sync.sync(conn, dir);
          Consumer<Throwable> thrown =
              onceMore(
                  afterThrow,
                  done,
                  dir,
                  owner,
                  () -> deleteAttempt(dir, attemptId, owner, done, true));
          GuardedOps.of(conn.ops(), thrown)
              .getChildren(
                  dir,
                  null,
                  (rc, p, ctx, children, stat) -> {
                    Code code = Code.get(rc);
                    if (ErrorKind.retryWhenConnected(code)) {
                      deleteAttempt(dir, attemptId, owner, done, afterThrow);
                      return;
                    }
                    if (code != Code.OK) {
                      done.complete(null); // no directory, no node
                      return;
                    }
                    List<CompletableFuture<Void>> deletes = new ArrayList<>();
                    for (String child : children) {
                      QueueNode n = QueueNode.parse(child);
                      if (n != null && n.attemptId().equals(attemptId)) {
                        deletes.add(delete(dir + "/" + child, owner, null));
                      }
                    }
                    CompletableFuture.allOf(deletes.toArray(new CompletableFuture<?>[0]))
                        .whenComplete((v, t) -> done.complete(null));
                  });
        },
        () -> done.complete(null));
  }
}
