package io.zklock.internal.coord;

import io.zklock.ZkLockException;
import io.zklock.internal.rules.ErrorKind;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.data.Stat;

/**
 * The calls of the barriers, each answered with the server's final code: a call whose answer was
 * lost to a connection loss or a session expiry is sent again once connected (each caller makes its
 * calls safe to repeat: a repeated create answers {@code NODEEXISTS}, a repeated conditional write
 * {@code BADVERSION}). A closed instance fails the future.
 */
public final class ZkCalls {
  /** A listing of a directory's children with the directory's stat. */
  public record Children(List<String> names, Stat stat) {}

  private final CoordContext ctx;

  public ZkCalls(CoordContext ctx) {
    this.ctx = ctx;
  }

  private ZkLockException closed(String path) {
    return new ZkLockException("the ZkLocks instance is closed", path, 0L, null);
  }

  public CompletableFuture<Code> multi(String path, List<Op> ops) {
    CompletableFuture<Code> done = new CompletableFuture<>();
    multi(path, ops, done);
    return done;
  }

  private void multi(String path, List<Op> ops, CompletableFuture<Code> done) {
    ctx.session()
        .whenConnected(
            conn ->
                conn.guarded(done, path)
                    .ops()
                    .multi(
                        ops,
                        (rc, p, c, results) -> {
                          Code code = Code.get(rc);
                          if (again(code)) {
                            multi(path, ops, done);
                          } else {
                            done.complete(code);
                          }
                        }),
            () -> done.completeExceptionally(closed(path)));
  }

  public CompletableFuture<Code> create(String path, byte[] data, CreateMode mode) {
    CompletableFuture<Code> done = new CompletableFuture<>();
    create(path, data, mode, done);
    return done;
  }

  private void create(String path, byte[] data, CreateMode mode, CompletableFuture<Code> done) {
    ctx.session()
        .whenConnected(
            conn ->
                conn.guarded(done, path)
                    .ops()
                    .create(
                        path,
                        data,
                        ctx.acl(),
                        mode,
                        (rc, p, c, name, stat) -> {
                          Code code = Code.get(rc);
                          if (code == Code.NONODE) {
                            ctx.dirs()
                                .ensure(
                                    conn.guarded(done, path),
                                    path.substring(0, path.lastIndexOf('/')),
                                    err -> {
                                      if (err != null) {
                                        done.completeExceptionally(err);
                                      } else {
                                        create(path, data, mode, done);
                                      }
                                    });
                          } else if (again(code)) {
                            create(path, data, mode, done);
                          } else {
                            done.complete(code);
                          }
                        }),
            () -> done.completeExceptionally(closed(path)));
  }

  public CompletableFuture<Code> delete(String path) {
    CompletableFuture<Code> done = new CompletableFuture<>();
    delete(path, done);
    return done;
  }

  private void delete(String path, CompletableFuture<Code> done) {
    ctx.session()
        .whenConnected(
            conn ->
                conn.guarded(done, path)
                    .ops()
                    .delete(
                        path,
                        (rc, p, c) -> {
                          Code code = Code.get(rc);
                          if (again(code)) {
                            delete(path, done);
                          } else {
                            done.complete(code);
                          }
                        }),
            () -> done.completeExceptionally(closed(path)));
  }

  public CompletableFuture<Boolean> exists(String path) {
    CompletableFuture<Boolean> done = new CompletableFuture<>();
    exists(path, done);
    return done;
  }

  private void exists(String path, CompletableFuture<Boolean> done) {
    ctx.session()
        .whenConnected(
            conn ->
                conn.guarded(done, path)
                    .ops()
                    .exists(
                        path,
                        null,
                        (rc, p, c, stat) -> {
                          Code code = Code.get(rc);
                          if (code == Code.OK || code == Code.NONODE) {
                            done.complete(code == Code.OK);
                          } else if (again(code)) {
                            exists(path, done);
                          } else {
                            done.completeExceptionally(failure(path, code));
                          }
                        }),
            () -> done.completeExceptionally(closed(path)));
  }

  public CompletableFuture<Children> children(String path) {
    CompletableFuture<Children> done = new CompletableFuture<>();
    children(path, done);
    return done;
  }

  private void children(String path, CompletableFuture<Children> done) {
    ctx.session()
        .whenConnected(
            conn ->
                conn.guarded(done, path)
                    .ops()
                    .getChildren(
                        path,
                        null,
                        (rc, p, c, names, stat) -> {
                          Code code = Code.get(rc);
                          if (code == Code.OK) {
                            done.complete(new Children(names, stat));
                          } else if (code == Code.NONODE) {
                            done.complete(new Children(List.of(), null));
                          } else if (again(code)) {
                            children(path, done);
                          } else {
                            done.completeExceptionally(failure(path, code));
                          }
                        }),
            () -> done.completeExceptionally(closed(path)));
  }

  private static boolean again(Code code) {
    return ErrorKind.retryable(code) || code == Code.SESSIONEXPIRED;
  }

  public static ZkLockException failure(String path, Code code) {
    return new ZkLockException(
        "cannot use " + path + ": " + code + (code == Code.NOAUTH ? " (not authorized)" : ""),
        path,
        0L,
        null);
  }
}
