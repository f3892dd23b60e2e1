package io.zklock.internal.coord;

import io.zklock.ZkLockException;
import io.zklock.internal.rules.ErrorKind;
import io.zklock.internal.rules.KazooSemaphore;
import io.zklock.internal.zk.Session;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;

/**
 * The kazoo-compatible semaphore's permit count and directories, as Python kazoo's {@code
 * Semaphore} keeps them: the count is the semaphore path's data as plain text ({@code "3"}), the
 * path and the admission lock's sibling path ({@code <dir>-__lock__}) are PERSISTENT nodes, as
 * kazoo's {@code ensure_path} makes them (a kazoo {@code Semaphore} checks its path once and lists
 * it on every acquisition after: a container reaped meanwhile would fail it).
 *
 * <p>Every request checks, before it queues for admission: the path is made with the count if
 * missing, a path without data is claimed with a conditional write of it, and the data is judged by
 * {@link KazooSemaphore#judgeData}: another count, zklock's JSON form, or data that is no count is
 * refused with a {@link ZkLockException} naming it, whose cause is an {@link
 * IllegalArgumentException}. While a data watch set by the last check stands on the same session,
 * later requests skip the reads (as {@link PermitCount} does).
 */
public final class KazooPermitCount {
  private final CoordContext ctx;
  private final String dir;
  private final String admissionDir;
  private final int permits;
  private volatile long verifiedSession;
  private final Watcher invalidate =
      event -> {
        if (event.getType() != EventType.None) {
          verifiedSession = 0L;
        }
      };

  public KazooPermitCount(CoordContext ctx, String dir, int permits) {
    this.ctx = ctx;
    this.dir = dir;
    this.admissionDir = KazooSemaphore.admissionDir(dir);
    this.permits = permits;
  }

  /** Completes once the count is known to be ours and both paths exist; exceptionally if not. */
  public CompletableFuture<Void> check() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    again(done);
    return done;
  }

  private void again(CompletableFuture<Void> done) {
    if (done.isDone()) {
      return;
    }
    ctx.session()
        .whenConnected(
            conn -> {
              if (verifiedSession == conn.sessionId()) {
                done.complete(null);
              } else {
                read(conn, done);
              }
            },
            () ->
                done.completeExceptionally(
                    new ZkLockException("the ZkLocks instance is closed", dir, 0L, null)));
  }

  private void read(Session.Conn conn, CompletableFuture<Void> done) {
    conn.guarded(done, dir)
        .ops()
        .getData(
            dir,
            invalidate,
            (rc, p, c, bytes, stat) -> {
              Code code = Code.get(rc);
              if (code == Code.OK) {
                KazooSemaphore.Data d = KazooSemaphore.judgeData(bytes, permits);
                switch (d.verdict()) {
                  case SAME -> admissionDir(conn, done);
                  case UNCLAIMED -> claim(conn, stat.getVersion(), done);
                  default -> {
                    String message = KazooSemaphore.dataRefusal(dir, d, permits);
                    done.completeExceptionally(
                        new ZkLockException(
                            message, dir, conn.sessionId(), new IllegalArgumentException(message)));
                  }
                }
              } else if (code == Code.NONODE) {
                create(conn, done);
              } else {
                retry(code, "read", conn, done);
              }
            });
  }

  private void create(Session.Conn conn, CompletableFuture<Void> done) {
    conn.guarded(done, dir)
        .ops()
        .create(
            dir,
            KazooSemaphore.countData(permits),
            ctx.acl(),
            CreateMode.PERSISTENT,
            (rc, p, c, name, created) -> {
              Code code = Code.get(rc);
              if (code == Code.OK || code == Code.NODEEXISTS) {
                again(done);
              } else if (code == Code.NONODE) {
                ctx.dirs()
                    .ensure(
                        conn.guarded(done, dir),
                        dir.substring(0, dir.lastIndexOf('/')),
                        err -> {
                          if (err != null) {
                            done.completeExceptionally(err);
                          } else {
                            again(done);
                          }
                        });
              } else {
                retry(code, "create", conn, done);
              }
            });
  }

  /** A path without data (kazoo's {@code ensure_path} ahead of its write, or a parent): ours. */
  private void claim(Session.Conn conn, int version, CompletableFuture<Void> done) {
    conn.guarded(done, dir)
        .ops()
        .setData(
            dir,
            KazooSemaphore.countData(permits),
            version,
            (rc, p, c, stat) -> {
              Code code = Code.get(rc);
              if (code == Code.OK || code == Code.BADVERSION || code == Code.NONODE) {
                again(done);
              } else {
                retry(code, "store the count in", conn, done);
              }
            });
  }

  private void admissionDir(Session.Conn conn, CompletableFuture<Void> done) {
    conn.guarded(done, dir)
        .ops()
        .create(
            admissionDir,
            new byte[0],
            ctx.acl(),
            CreateMode.PERSISTENT,
            (rc, p, c, name, created) -> {
              Code code = Code.get(rc);
              if (code == Code.OK || code == Code.NODEEXISTS) {
                verifiedSession = conn.sessionId(); // and watched since the read
                done.complete(null);
              } else if (code == Code.NONODE) {
                again(done); // the semaphore's path went meanwhile
              } else {
                retry(code, "create", conn, done);
              }
            });
  }

  private void retry(Code code, String what, Session.Conn conn, CompletableFuture<Void> done) {
    if (ErrorKind.retryable(code) || code == Code.SESSIONEXPIRED) {
      again(done);
      return;
    }
    done.completeExceptionally(
        new ZkLockException(
            "cannot "
                + what
                + " "
                + dir
                + ": "
                + code
                + (code == Code.NOAUTH ? " (not authorized)" : ""),
            dir,
            conn.sessionId(),
            null));
  }
}
