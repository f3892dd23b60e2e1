package io.zklock.internal.engine;

import io.zklock.GuardedTransaction;
import io.zklock.LockLostException;
import io.zklock.ZkLockException;
import io.zklock.internal.rules.ErrorKind;
import io.zklock.internal.zk.Blocking;
import io.zklock.internal.zk.GuardedOps;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.common.PathUtils;
import org.apache.zookeeper.data.Stat;

/**
 * A {@link GuardedTransaction}: the user's operations behind one {@code check(node, -1)} per lock
 * node of the grant, sent as one {@code multi} on the grant's own session. The grant is asked for
 * its {@link Guard} twice: when the commit starts (a grant known to be over is refused without a
 * request) and right before the send (after a wait for the connection, the grant may have ended).
 * The server's answer is the only truth: a node deleted under a holder that has not heard of it yet
 * fails the check, and nothing commits.
 */
public final class Transaction implements GuardedTransaction {

  /** One operation as the user added it. */
  private record Spec(Kind kind, String path, byte[] data, Mode mode, int version) {
    Op op(List<org.apache.zookeeper.data.ACL> acl) {
      return switch (kind) {
        case CREATE -> Op.create(path, data, acl, createMode(mode));
        case SET_DATA -> Op.setData(path, data, version);
        case DELETE -> Op.delete(path, version);
        case CHECK -> Op.check(path, version);
      };
    }

    String describe(int index) {
      return kind.name().toLowerCase(java.util.Locale.ROOT).replace("_d", "D")
          + " of "
          + path
          + " (operation "
          + index
          + ")";
    }
  }

  private final Supplier<Guard> guard;
  private final io.zklock.LockHandle handle;
  private final List<Spec> specs = new ArrayList<>();
  private final AtomicBoolean committed = new AtomicBoolean();

  /**
   * @param handle the grant, for the messages
   * @param guard asks the grant for its guard, at the start of the commit and before the send
   */
  public Transaction(io.zklock.LockHandle handle, Supplier<Guard> guard) {
    this.handle = handle;
    this.guard = guard;
  }

  @Override
  public GuardedTransaction create(String path, byte[] data) {
    return create(path, data, Mode.PERSISTENT);
  }

  @Override
  public GuardedTransaction create(String path, byte[] data, Mode mode) {
    Objects.requireNonNull(mode, "mode");
    validate(path, mode == Mode.PERSISTENT_SEQUENTIAL || mode == Mode.EPHEMERAL_SEQUENTIAL);
    return add(new Spec(Kind.CREATE, path, data == null ? new byte[0] : data.clone(), mode, -1));
  }

  @Override
  public GuardedTransaction setData(String path, byte[] data) {
    return setData(path, data, -1);
  }

  @Override
  public GuardedTransaction setData(String path, byte[] data, int version) {
    validate(path, false);
    return add(
        new Spec(Kind.SET_DATA, path, data == null ? new byte[0] : data.clone(), null, version));
  }

  @Override
  public GuardedTransaction delete(String path) {
    return delete(path, -1);
  }

  @Override
  public GuardedTransaction delete(String path, int version) {
    validate(path, false);
    return add(new Spec(Kind.DELETE, path, null, null, version));
  }

  @Override
  public GuardedTransaction check(String path, int version) {
    validate(path, false);
    return add(new Spec(Kind.CHECK, path, null, null, version));
  }

  private GuardedTransaction add(Spec s) {
    if (committed.get()) {
      throw new IllegalStateException("this transaction was committed already");
    }
    specs.add(s);
    return this;
  }

  private static void validate(String path, boolean sequential) {
    Objects.requireNonNull(path, "path");
    try {
      PathUtils.validatePath(path, sequential);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "not a valid ZooKeeper path: \"" + path + "\" (" + e.getMessage() + ")", e);
    }
  }

  @Override
  public List<Result> commit() {
    CompletableFuture<List<Result>> f = commitAsync();
    try {
      return Blocking.get(f);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ZkLockException(
          "interrupted while committing a guarded transaction; it may still commit",
          handle.path(),
          0L,
          e);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof RuntimeException r) {
        r.addSuppressed(new Exception("waited for here"));
        throw r;
      }
      throw new ZkLockException("guarded transaction failed", handle.path(), 0L, c);
    }
  }

  @Override
  public CompletableFuture<List<Result>> commitAsync() {
    if (!committed.compareAndSet(false, true)) {
      throw new IllegalStateException("this transaction was committed already");
    }
    List<Spec> ops = List.copyOf(specs);
    CompletableFuture<List<Result>> out = new CompletableFuture<>();
    Guard g = guard.get();
    if (!g.holds()) {
      refuse(g, out);
      return out;
    }
    g.port()
        .whenConnectedTo(
            g.session(),
            conn -> {
              Guard now = guard.get(); // it may have ended while the connection was down
              if (!now.holds()) {
                refuse(now, out);
                return;
              }
              List<Op> multi = new ArrayList<>(now.paths().size() + ops.size());
              for (String p : now.paths()) {
                multi.add(Op.check(p, -1));
              }
              for (Spec s : ops) {
                multi.add(s.op(now.acl()));
              }
              // a throwable in its answer (on ZooKeeper's event thread, or the executor's) fails
              // the
              // commit rather than leaving it unanswered
              Consumer<Throwable> failed = GuardedOps.failing(out, handle.path(), now.session());
              try {
                GuardedOps.of(conn.ops(), failed)
                    .multi(
                        multi,
                        (rc, p, c, results) -> {
                          Runnable r =
                              () ->
                                  GuardedOps.run(() -> answer(now, ops, rc, results, out), failed);
                          try {
                            now.executor().execute(r);
                          } catch (java.util.concurrent.RejectedExecutionException closing) {
                            r.run(); // the instance is closing: answer here rather than never
                          }
                        });
              } catch (RuntimeException e) {
                out.completeExceptionally(
                    new ZkLockException(
                        "cannot send the guarded transaction: " + e.getMessage(),
                        handle.path(),
                        now.session(),
                        e));
              }
            },
            () -> {
              // the grant's session is over (or the instance closed): nothing was sent
              Guard now = guard.get();
              if (!now.holds()) {
                refuse(now, out);
              } else {
                out.completeExceptionally(
                    lost(g.paths().get(0), g.session(), LockLostException.Reason.SESSION_EXPIRED));
              }
            });
    return out;
  }

  private void answer(
      Guard g,
      List<Spec> ops,
      int rc,
      List<OpResult> results,
      CompletableFuture<List<Result>> out) {
    Code code = Code.get(rc);
    int checks = g.paths().size();
    if (code == Code.OK) {
      List<Result> done = new ArrayList<>(ops.size());
      for (int i = 0; i < ops.size(); i++) {
        done.add(result(ops.get(i), results.get(checks + i)));
      }
      out.complete(List.copyOf(done));
      return;
    }
    int failed = failedIndex(results);
    if (failed >= 0 && failed < checks) {
      // the grant's node is gone: refused by the server, whatever this process believed
      String path = g.paths().get(failed);
      if (code == Code.NONODE) {
        Guard now = guard.get();
        if (!now.holds()) {
          refuse(now, out);
        } else {
          // the engine has not heard yet; our session answered, so it lives: someone deleted it
          out.completeExceptionally(lost(path, g.session(), LockLostException.Reason.NODE_DELETED));
        }
        return;
      }
      out.completeExceptionally(
          new ZkLockException(
              "guarded transaction not committed: the check of the lock node failed: " + code,
              path,
              g.session(),
              null));
      return;
    }
    if (failed >= checks) {
      int i = failed - checks;
      out.completeExceptionally(
          new ZkLockException(
              "guarded transaction not committed: "
                  + ops.get(i).describe(i)
                  + " failed: "
                  + code
                  + "; nothing was committed",
              handle.path(),
              g.session(),
              null));
      return;
    }
    switch (ErrorKind.of(code)) {
      case SESSION_ENDED ->
          out.completeExceptionally(
              lost(g.paths().get(0), g.session(), LockLostException.Reason.SESSION_EXPIRED));
      case RETRY_WHEN_CONNECTED ->
          out.completeExceptionally(
              new ZkLockException(
                  "connection lost while committing a guarded transaction ("
                      + code
                      + "): it may or may not have been committed (if it was, it was under the"
                      + " grant); not sent again",
                  handle.path(),
                  g.session(),
                  null));
      case FINAL ->
          out.completeExceptionally(
              new ZkLockException(
                  "guarded transaction not committed: " + code, handle.path(), g.session(), null));
    }
  }

  /** The index of the op that failed, or -1 if the answer names none (no results). */
  private static int failedIndex(List<OpResult> results) {
    if (results == null) {
      return -1;
    }
    for (int i = 0; i < results.size(); i++) {
      if (results.get(i) instanceof OpResult.ErrorResult e
          && e.getErr() != Code.OK.intValue()
          && e.getErr() != Code.RUNTIMEINCONSISTENCY.intValue()) {
        return i;
      }
    }
    return -1;
  }

  private static Result result(Spec s, OpResult r) {
    return switch (s.kind()) {
      case CREATE ->
          new Result(
              Kind.CREATE,
              r instanceof OpResult.CreateResult c ? c.getPath() : s.path(),
              r instanceof OpResult.CreateResult c && c.getStat() != null
                  ? stat(c.getStat())
                  : null);
      case SET_DATA ->
          new Result(
              Kind.SET_DATA,
              s.path(),
              r instanceof OpResult.SetDataResult d && d.getStat() != null
                  ? stat(d.getStat())
                  : null);
      case DELETE -> new Result(Kind.DELETE, s.path(), null);
      case CHECK -> new Result(Kind.CHECK, s.path(), null);
    };
  }

  private static NodeStat stat(Stat s) {
    return new NodeStat(s.getCzxid(), s.getMzxid(), s.getVersion());
  }

  private static void refuse(Guard g, CompletableFuture<List<Result>> out) {
    g.refusal()
        .whenComplete(
            (ex, err) -> {
              if (ex instanceof LockLostException l) {
                // a fresh exception: its stack says where the refused commit was made
                out.completeExceptionally(lost(l.path(), l.sessionId(), l.reason()));
              } else if (ex != null) {
                out.completeExceptionally(ex);
              } else {
                out.completeExceptionally(
                    err instanceof CompletionException && err.getCause() != null
                        ? err.getCause()
                        : err);
              }
            });
  }

  private static LockLostException lost(
      String path, long session, LockLostException.Reason reason) {
    LockLostException e = new LockLostException(path, session, reason);
    return e;
  }

  private static CreateMode createMode(Mode mode) {
    return switch (mode) {
      case PERSISTENT -> CreateMode.PERSISTENT;
      case PERSISTENT_SEQUENTIAL -> CreateMode.PERSISTENT_SEQUENTIAL;
      case EPHEMERAL -> CreateMode.EPHEMERAL;
      case EPHEMERAL_SEQUENTIAL -> CreateMode.EPHEMERAL_SEQUENTIAL;
    };
  }
}
