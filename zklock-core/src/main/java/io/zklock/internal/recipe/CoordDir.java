package io.zklock.internal.recipe;

import io.zklock.ZkLockException;
import io.zklock.internal.rules.ErrorKind;
import io.zklock.internal.rules.Json;
import io.zklock.internal.rules.StoredNumber;
import io.zklock.internal.zk.Session;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;

/**
 * The directory of a coordination recipe (latch, double barrier) and the number stored in its data
 * by its first client ({@code {"kind":"latch","count":3,...}}): read, made if missing, and checked
 * against this client's number, which a mismatch refuses. The directory is PERSISTENT: it keeps its
 * state (a double barrier's round) while it has no children, until someone deletes it. A mismatch,
 * and a directory whose data is another recipe's (or not zklock's), are refused with a {@link
 * ZkLockException} whose cause is an {@link IllegalArgumentException}, as for a semaphore's permits
 * ({@link StoredNumber}).
 */
final class CoordDir {
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

  private final RecipeContext ctx;
  private final String dir;
  private final String kind;
  private final String field;
  private final int expected;
  private final byte[] initial;

  /**
   * @param kind the recipe, as stored ({@code "latch"})
   * @param field the stored number's field ({@code "count"})
   * @param expected this client's number
   * @param initial the data a new directory is made with
   */
  CoordDir(RecipeContext ctx, String dir, String kind, String field, int expected, String initial) {
    this.ctx = ctx;
    this.dir = dir;
    this.kind = kind;
    this.field = field;
    this.expected = expected;
    this.initial = initial.getBytes(StandardCharsets.UTF_8);
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
    ctx.requests()
        .session()
        .whenConnected(c -> read(c, done), () -> done.completeExceptionally(closed()));
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
    conn.ops()
        .getData(
            dir,
            null,
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
                    case OTHER_KIND ->
                        done.completeExceptionally(
                            callersMistake(judged.otherKindMessage(dir, kind), conn.sessionId()));
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
    conn.ops()
        .create(
            dir,
            initial,
            ctx.requests().acl(),
            // PERSISTENT, not CONTAINER: the server would reap an empty directory between a double
            // barrier's rounds, and with it the round number that keeps rounds apart
            CreateMode.PERSISTENT,
            (rc, p, c, name, created) -> {
              Code code = Code.get(rc);
              switch (code) {
                case OK:
                case NODEEXISTS:
                  again(done);
                  break;
                case NONODE:
                  ctx.requests()
                      .dirs()
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
                  retry(code, "create", conn.sessionId(), done, () -> again(done));
              }
            });
  }

  /** A directory without data (made as a parent by another use): claimed by a conditional write. */
  private void claim(Session.Conn conn, int version, CompletableFuture<Read> done) {
    conn.ops()
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
    return callersMistake(
        kind
            + " has "
            + field
            + " "
            + stored
            + " (stored by its first client), but this client asked for "
            + expected
            + ": use the same "
            + field
            + " everywhere",
        session);
  }

  /** A refusal whose cause says it is the caller's mistake. */
  private ZkLockException callersMistake(String message, long session) {
    return new ZkLockException(message, dir, session, new IllegalArgumentException(message));
  }

  /** Runs {@code action} on a live connection, or fails {@code done} if the instance is closed. */
  void whenConnected(CompletableFuture<?> done, Consumer<Session.Conn> action) {
    ctx.requests().session().whenConnected(action, () -> done.completeExceptionally(closed()));
  }
}
