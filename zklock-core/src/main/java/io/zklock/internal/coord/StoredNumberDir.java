package io.zklock.internal.coord;

import io.zklock.ZkLockException;
import io.zklock.internal.rules.ErrorKind;
import io.zklock.internal.rules.Json;
import io.zklock.internal.rules.StoredNumber;
import io.zklock.internal.zk.Session;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher;

/**
 * The one driver of a directory whose data holds a recipe's defining number, stored by its first
 * client: a latch's count ({@code {"kind":"latch","count":3,...}}), a double barrier's members, a
 * semaphore's permits ({@link PermitCount}). It reads the directory, makes it if missing, claims a
 * directory without data by a conditional write, and checks the stored number against this
 * client's, as the pure {@link StoredNumber} judges: a mismatch, and a directory whose data is
 * another recipe's (or not zklock's), are refused with a {@link ZkLockException} whose cause is an
 * {@link IllegalArgumentException}. A connection loss or a session expiry on the way reads again
 * once connected.
 *
 * <p>A latch's or double barrier's directory is PERSISTENT: it keeps its state (a double barrier's
 * round) while it has no children, until someone deletes it. A semaphore's is a CONTAINER, reaped
 * with its last lease, and watched ({@code watch}) so that a change is heard.
 */
final class StoredNumberDir {
  /** One read of the directory: its JSON fields and data version, on connection {@code conn}. */
  record Read(Map<String, String> fields, int version, Session.Conn conn) {
    int intField(String name) {
      String v = fields.get(name);
      if (v == null) {
        return -1;
      }
      try {
        return Integer.parseInt(v);
      } catch (NumberFormatException e) {
        return -1;
      }
    }
  }

  private final CoordContext ctx;
  private final String dir;
  private final String kind;
  private final String field;
  private final int expected;
  private final byte[] initial;
  private final CreateMode mode;
  private final Watcher watch;
  private final IntFunction<String> mismatch;
  private final java.util.function.Function<byte[], String> otherData; // or null

  /**
   * A PERSISTENT directory, not watched (a latch's, a double barrier's).
   *
   * @param kind the recipe, as stored ({@code "latch"})
   * @param field the stored number's field ({@code "count"})
   * @param expected this client's number
   * @param initial the data a new directory is made with
   */
  StoredNumberDir(
      CoordContext ctx, String dir, String kind, String field, int expected, String initial) {
    this(
        ctx,
        dir,
        kind,
        field,
        expected,
        initial,
        CreateMode.PERSISTENT,
        null,
        stored ->
            kind
                + " has "
                + field
                + " "
                + stored
                + " (stored by its first client), but this client asked for "
                + expected
                + ": use the same "
                + field
                + " everywhere");
  }

  /**
   * @param mode how a missing directory is made
   * @param watch set on the directory by each read (null: none)
   * @param mismatch the refusal's message for a stored number other than {@code expected}
   */
  StoredNumberDir(
      CoordContext ctx,
      String dir,
      String kind,
      String field,
      int expected,
      String initial,
      CreateMode mode,
      Watcher watch,
      IntFunction<String> mismatch) {
    this(ctx, dir, kind, field, expected, initial, mode, watch, mismatch, null);
  }

  /**
   * @param otherData the refusal's message for data of another kind that it recognises (another
   *     library's recipe, say), or null to say it is not this recipe's
   */
  StoredNumberDir(
      CoordContext ctx,
      String dir,
      String kind,
      String field,
      int expected,
      String initial,
      CreateMode mode,
      Watcher watch,
      IntFunction<String> mismatch,
      java.util.function.Function<byte[], String> otherData) {
    this.otherData = otherData;
    this.ctx = ctx;
    this.dir = dir;
    this.kind = kind;
    this.field = field;
    this.expected = expected;
    this.initial = initial.getBytes(StandardCharsets.UTF_8);
    this.mode = mode;
    this.watch = watch;
    this.mismatch = mismatch;
  }

  String path() {
    return dir;
  }

  /** Reads the directory (making it first if missing) and checks the stored number. */
  CompletableFuture<Read> read() {
    CompletableFuture<Read> done = new CompletableFuture<>();
    again(done);
    return done;
  }

  void again(CompletableFuture<Read> done) {
    if (done.isDone()) {
      return;
    }
    ctx.session().whenConnected(c -> read(c, done), () -> done.completeExceptionally(closed()));
  }

  ZkLockException closed() {
    return new ZkLockException("the ZkLocks instance is closed", dir, 0L, null);
  }

  ZkLockException failure(String what, Code code, long session) {
    return new ZkLockException(
        "cannot "
            + what
            + " "
            + dir
            + ": "
            + code
            + (code == Code.NOAUTH ? " (not authorized)" : ""),
        dir,
        session,
        null);
  }

  /** Runs {@code next} on a connection when {@code code} says to try again, else fails. */
  boolean retry(Code code, String what, long session, CompletableFuture<?> done, Runnable next) {
    if (ErrorKind.retryable(code) || code == Code.SESSIONEXPIRED) {
      next.run();
      return true;
    }
    done.completeExceptionally(failure(what, code, session));
    return false;
  }

  private void read(Session.Conn conn, CompletableFuture<Read> done) {
    conn.guarded(done, dir)
        .ops()
        .getData(
            dir,
            watch,
            (rc, p, c, bytes, stat) -> {
              Code code = Code.get(rc);
              switch (code) {
                case OK:
                  StoredNumber.Read judged = StoredNumber.judge(bytes, kind, field, expected);
                  switch (judged.verdict()) {
                    case SAME ->
                        done.complete(
                            new Read(
                                Json.parseObject(new String(bytes, StandardCharsets.UTF_8)),
                                stat.getVersion(),
                                conn));
                    case OTHER_NUMBER ->
                        done.completeExceptionally(mismatch(judged.stored(), conn.sessionId()));
                    case OTHER_KIND -> {
                      String known = otherData == null ? null : otherData.apply(bytes);
                      done.completeExceptionally(
                          callersMistake(
                              known != null ? known : judged.otherKindMessage(dir, kind),
                              conn.sessionId()));
                    }
                    case UNCLAIMED -> claim(conn, stat.getVersion(), done);
                  }
                  break;
                case NONODE:
                  create(conn, done);
                  break;
                default:
                  retry(code, "read", conn.sessionId(), done, () -> again(done));
              }
            });
  }

  private void create(Session.Conn conn, CompletableFuture<Read> done) {
    conn.guarded(done, dir)
        .ops()
        .create(
            dir,
            initial,
            ctx.acl(),
            // a latch's and a double barrier's: PERSISTENT, not CONTAINER: the server would reap an
            // empty directory between a double barrier's rounds, and with it the round number
            mode,
            (rc, p, c, name, created) -> {
              Code code = Code.get(rc);
              switch (code) {
                case OK:
                case NODEEXISTS:
                  again(done);
                  break;
                case NONODE:
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
                  break;
                default:
                  retry(code, "create", conn.sessionId(), done, () -> again(done));
              }
            });
  }

  /** A directory without data (made as a parent by another use): claimed by a conditional write. */
  private void claim(Session.Conn conn, int version, CompletableFuture<Read> done) {
    conn.guarded(done, dir)
        .ops()
        .setData(
            dir,
            initial,
            version,
            (rc, p, c, stat) -> {
              Code code = Code.get(rc);
              switch (code) {
                case OK:
                case BADVERSION:
                case NONODE:
                  again(done);
                  break;
                default:
                  retry(
                      code,
                      "store the " + field + " in",
                      conn.sessionId(),
                      done,
                      () -> again(done));
              }
            });
  }

  private ZkLockException mismatch(int stored, long session) {
    return callersMistake(mismatch.apply(stored), session);
  }

  /** A refusal whose cause says it is the caller's mistake. */
  private ZkLockException callersMistake(String message, long session) {
    return new ZkLockException(message, dir, session, new IllegalArgumentException(message));
  }

  /** Runs {@code action} on a live connection, or fails {@code done} if the instance is closed. */
  void whenConnected(CompletableFuture<?> done, Consumer<Session.Conn> action) {
    ctx.session().whenConnected(action, () -> done.completeExceptionally(closed()));
  }
}
