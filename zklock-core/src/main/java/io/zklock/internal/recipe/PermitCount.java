package io.zklock.internal.recipe;

import io.zklock.ZkLockException;
import io.zklock.internal.engine.RequestContext;
import io.zklock.internal.inspect.Inspection;
import io.zklock.internal.rules.ErrorKind;
import io.zklock.internal.rules.StoredNumber;
import io.zklock.internal.zk.Session;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;

/**
 * A semaphore's permit count, stored in its directory's data ({@code
 * {"kind":"semaphore","permits":3}}) by the first client to use it, and checked by every request: a
 * client that asks with another count is refused with a {@link ZkLockException} naming both, its
 * cause an {@link IllegalArgumentException}.
 *
 * <p>The check reads the directory (one read, sent alongside the request's first step, so it adds
 * no latency) and leaves a data watch on it; while that watch stands on the same session, later
 * requests of this semaphore instance skip the read. The watch fires when the directory changes or
 * goes (the server reaps an idle semaphore's directory; the next user may then store another
 * count), and the next request reads again.
 *
 * <p>A directory without a count (made as the parent of the semaphore's queue by an older zklock,
 * or by a race with that queue's creation) is claimed with a conditional write of the count. A
 * directory whose data is not a semaphore's (a latch's or double barrier's of the same name) is
 * refused as another count is, its data left as it is ({@link StoredNumber}).
 */
final class PermitCount {
  private static final String KIND = "semaphore";

  private final RequestContext ctx;
  private final String dir;
  private final int permits;
  private final byte[] data;
  private volatile long verifiedSession;
  private final Watcher invalidate =
      event -> {
        if (event.getType() != EventType.None) {
          verifiedSession = 0L;
        }
      };

  PermitCount(RequestContext ctx, String dir, int permits) {
    this.ctx = ctx;
    this.dir = dir;
    this.permits = permits;
    this.data =
        ("{\"kind\":\"" + KIND + "\",\"" + Inspection.PERMITS_FIELD + "\":" + permits + "}")
            .getBytes(StandardCharsets.UTF_8);
  }

  /** Completes when the stored count is known to be ours; exceptionally if it differs. */
  CompletableFuture<Void> check() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    ctx.session()
        .whenConnected(
            conn -> {
              if (verifiedSession == conn.sessionId()) {
                done.complete(null);
              } else {
                read(conn, done);
              }
            },
            () -> done.completeExceptionally(closed()));
    return done;
  }

  private ZkLockException closed() {
    return new ZkLockException("the ZkLocks instance is closed", dir, 0L, null);
  }

  private void again(CompletableFuture<Void> done) {
    ctx.session().whenConnected(c -> read(c, done), () -> done.completeExceptionally(closed()));
  }

  private void read(Session.Conn conn, CompletableFuture<Void> done) {
    conn.ops()
        .getData(
            dir,
            invalidate,
            (rc, p, c, bytes, stat) -> {
              Code code = Code.get(rc);
              switch (code) {
                case OK:
                  StoredNumber.Read r =
                      StoredNumber.judge(bytes, KIND, Inspection.PERMITS_FIELD, permits);
                  switch (r.verdict()) {
                    case SAME -> {
                      verifiedSession = conn.sessionId();
                      done.complete(null);
                    }
                    case OTHER_NUMBER ->
                        done.completeExceptionally(mismatch(r.stored(), conn.sessionId()));
                    case OTHER_KIND ->
                        done.completeExceptionally(
                            callersMistake(r.otherKindMessage(dir, KIND), conn.sessionId()));
                    case UNCLAIMED -> claim(conn, stat.getVersion(), done);
                  }
                  break;
                case NONODE:
                  create(conn, done);
                  break;
                default:
                  if (ErrorKind.retryable(code)) {
                    again(done);
                  } else {
                    done.completeExceptionally(failure("read", code, conn.sessionId()));
                  }
              }
            });
  }

  private void create(Session.Conn conn, CompletableFuture<Void> done) {
    conn.ops()
        .create(
            dir,
            data,
            ctx.acl(),
            CreateMode.CONTAINER,
            (rc, p, c, name, created) -> {
              Code code = Code.get(rc);
              switch (code) {
                case OK:
                case NODEEXISTS:
                  again(done); // read it back (and watch it)
                  break;
                case NONODE:
                  ctx.dirs()
                      .ensure(
                          conn,
                          dir.substring(0, dir.lastIndexOf('/')),
                          err -> {
                            if (err != null) {
                              done.completeExceptionally(err);
                            } else {
                              again(done);
                            }
                          });
                  break;
                default:
                  if (ErrorKind.retryable(code)) {
                    again(done); // read it back (and watch it)
                  } else {
                    done.completeExceptionally(failure("create", code, conn.sessionId()));
                  }
              }
            });
  }

  private void claim(Session.Conn conn, int version, CompletableFuture<Void> done) {
    conn.ops()
        .setData(
            dir,
            data,
            version,
            (rc, p, c, stat) -> {
              Code code = Code.get(rc);
              switch (code) {
                case OK:
                  // our own write fired the watch: the next request reads once more
                  done.complete(null);
                  break;
                case BADVERSION: // someone else stored a count first: compare with it
                case NONODE:
                  again(done);
                  break;
                default:
                  if (ErrorKind.retryable(code)) {
                    again(done);
                  } else {
                    done.completeExceptionally(
                        failure("store the permit count in", code, conn.sessionId()));
                  }
              }
            });
  }

  /** The count stored in a semaphore directory's data, or 0 if none. */
  static int storedIn(byte[] bytes) {
    return StoredNumber.judge(bytes, KIND, Inspection.PERMITS_FIELD, 1).stored();
  }

  /** A refusal whose cause says it is the caller's mistake (a command line maps it to usage). */
  private ZkLockException mismatch(int stored, long session) {
    return callersMistake(
        "semaphore has "
            + stored
            + " permits (stored by its first client), but this client asked for "
            + permits
            + ": use the same count everywhere",
        session);
  }

  private ZkLockException callersMistake(String message, long session) {
    return new ZkLockException(message, dir, session, new IllegalArgumentException(message));
  }

  private ZkLockException failure(String what, Code code, long session) {
    return new ZkLockException(
        "cannot "
            + what
            + " the semaphore directory: "
            + code
            + (code == Code.NOAUTH ? " (not authorized)" : ""),
        dir,
        session,
        null);
  }
}
