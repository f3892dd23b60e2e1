package io.zklock.internal.recipe;

import io.zklock.DistributedCondition;
import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.ZkLockException;
import io.zklock.internal.coord.NodeWatch;
import io.zklock.internal.coord.Waits;
import io.zklock.internal.coord.ZkCalls;
import io.zklock.internal.engine.Acquisitions;
import io.zklock.internal.engine.Observation;
import io.zklock.internal.rules.Args;
import io.zklock.internal.rules.ConditionRule;
import io.zklock.internal.rules.ErrorKind;
import io.zklock.internal.zk.Blocking;
import io.zklock.internal.zk.Session;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;

/**
 * A condition of an exclusive lock. Its waiters are EPHEMERAL_SEQUENTIAL nodes {@code
 * cv-<attempt>-<sequence>} in the directory {@code <lock directory>.cond-<name>}, made while the
 * waiter holds the lock and before it releases it; a signal deletes the earliest ({@link
 * ConditionRule}); a waiter watches only its own node ({@link NodeWatch}). See {@link
 * DistributedCondition}.
 */
final class ConditionImpl implements DistributedCondition {
  /** The kind of its waits on the lock event seam. */
  static final String KIND = "condition";

  /** One waiter's node, and the session that made it. */
  record Waiter(String path, long session) {}

  private final RecipeContext ctx;
  private final DistributedLock lock;
  private final String lockDir;
  private final String name;
  private final String dir;
  private final ZkCalls calls;

  ConditionImpl(RecipeContext ctx, DistributedLock lock, String lockDir, String name) {
    Args.lockName(name);
    if (name.contains("/")) {
      throw new IllegalArgumentException("bad condition name '" + name + "': one path segment");
    }
    this.ctx = ctx;
    this.lock = lock;
    this.lockDir = lockDir;
    this.name = name;
    this.dir = lockDir + ".cond-" + name;
    this.calls = new ZkCalls(ctx.coord());
  }

  @Override
  public String name() {
    return name;
  }

  String dir() {
    return dir;
  }

  DistributedLock lock() {
    return lock;
  }

  /** Refuses a handle that is not held, or not of this lock, as the JDK refuses a non-holder. */
  void checkHeld(LockHandle held) {
    Objects.requireNonNull(held, "held");
    if (!held.path().startsWith(lockDir + "/")) {
      throw new IllegalMonitorStateException(held.path() + " is not a node of the lock " + lockDir);
    }
    if (!held.isHeld()) {
      CompletableFuture<LockLostException> lost = held.lost();
      LockLostException e = lost.isDone() ? lost.getNow(null) : null;
      if (e != null) {
        throw e;
      }
      throw new IllegalMonitorStateException("the lock " + lockDir + " is not held by " + held);
    }
  }

  @Override
  public LockHandle await(LockHandle held) throws InterruptedException {
    return await(held, -1L).handle();
  }

  @Override
  public Wakeup await(LockHandle held, Duration timeout) throws InterruptedException {
    return await(held, Args.timeoutNanos(timeout));
  }

  private Wakeup await(LockHandle held, long nanos) throws InterruptedException {
    Objects.requireNonNull(held, "held");
    Observation o = observe();
    boolean signalled;
    boolean interrupted = false;
    try {
      Waiter w = enqueue(held);
      try {
        held.release();
      } catch (RuntimeException e) {
        calls.delete(w.path()); // the lock was lost: nobody is to signal this waiter
        throw e;
      }
      try {
        signalled = waitForSignal(w, nanos, true);
      } catch (InterruptedException e) {
        if (!signalledBeforeWithdrawal(w)) {
          throw e;
        }
        signalled = true;
        interrupted = true;
      }
      Observation.waited(o, signalled);
    } catch (InterruptedException | RuntimeException | Error e) {
      Observation.waitThrew(o, e, held.fencingToken());
      throw e;
    }
    LockHandle h = Acquisitions.acquireUninterruptibly(lock);
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return new Wakeup(h, signalled);
  }

  /**
   * Tells the start of a wait on the lock event seam (kind {@value #KIND}, named {@code <lock
   * name>.cond-<name>}), or returns null if nobody listens. The wait ends at the signal or the
   * time-out; the lock taken again afterwards is told as that lock's request.
   */
  Observation observe() {
    return Observing.begin(ctx, lock.name() + ".cond-" + name, KIND);
  }

  /** Makes this holder's waiter node (it must hold the lock: the node's order is the lock's). */
  Waiter enqueue(LockHandle held) {
    checkHeld(held);
    CompletableFuture<Waiter> done = new CompletableFuture<>();
    create(ctx.requests().ids().attemptId(), done);
    try {
      return Blocking.join(done);
    } catch (RuntimeException e) {
      throw Waits.unchecked(e);
    }
  }

  private void create(String attempt, CompletableFuture<Waiter> done) {
    ctx.requests()
        .session()
        .whenConnected(
            conn ->
                conn.guarded(done, dir)
                    .ops()
                    .create(
                        dir + "/" + ConditionRule.WAITER_PREFIX + attempt + "-",
                        new byte[0],
                        ctx.requests().acl(),
                        CreateMode.EPHEMERAL_SEQUENTIAL,
                        (rc, p, c, made, stat) -> {
                          Code code = Code.get(rc);
                          if (code == Code.OK) {
                            done.complete(new Waiter(made, conn.sessionId()));
                          } else if (code == Code.NONODE) {
                            ctx.requests()
                                .dirs()
                                .ensure(
                                    conn.guarded(done, dir),
                                    dir,
                                    err -> {
                                      if (err != null) {
                                        done.completeExceptionally(err);
                                      } else {
                                        create(attempt, done);
                                      }
                                    });
                          } else if (ErrorKind.retryable(code)) {
                            adopt(conn, attempt, done);
                          } else if (code == Code.SESSIONEXPIRED) {
                            create(attempt, done); // a node it made went with the session
                          } else {
                            done.completeExceptionally(ZkCalls.failure(dir, code));
                          }
                        }),
            () ->
                done.completeExceptionally(
                    new ZkLockException("the ZkLocks instance is closed", dir, 0L, null)));
  }

  /** After a lost reply: the node the create made, if it did (found by its attempt id). */
  private void adopt(Session.Conn old, String attempt, CompletableFuture<Waiter> done) {
    calls
        .children(dir)
        .whenComplete(
            (ch, err) -> {
              if (err != null) {
                done.completeExceptionally(err);
                return;
              }
              Session.Conn now = ctx.requests().session().current();
              String prefix = ConditionRule.WAITER_PREFIX + attempt + "-";
              for (String n : ch.names()) {
                if (n.startsWith(prefix) && now != null && now.sessionId() == old.sessionId()) {
                  done.complete(new Waiter(dir + "/" + n, old.sessionId()));
                  return;
                }
              }
              create(attempt, done);
            });
  }

  /**
   * Waits until the waiter's node is deleted by a signal. A session end (the node went with it) is
   * a spurious wake-up: true.
   *
   * @param nanos negative: no time-out
   * @return true if woken (signal or spurious), false at the time-out (the node withdrawn then, or
   *     true if a signal came first)
   * @throws InterruptedException only if {@code interruptible}; the caller withdraws
   */
  boolean waitForSignal(Waiter w, long nanos, boolean interruptible) throws InterruptedException {
    CompletableFuture<Boolean> f =
        NodeWatch.until(ctx.coord(), w.path(), false, nanos, w.session());
    boolean woken;
    try {
      woken = interruptible ? Waits.join(f) : Blocking.join(f);
    } catch (NodeWatch.SessionEnded e) {
      return true;
    } catch (java.util.concurrent.CompletionException e) {
      if (e.getCause() instanceof NodeWatch.SessionEnded) {
        return true;
      }
      throw Waits.unchecked(e);
    }
    return woken || signalledBeforeWithdrawal(w);
  }

  /** Withdraws the waiter's node; true if it was already gone (signalled, or its session ended). */
  boolean signalledBeforeWithdrawal(Waiter w) {
    Code c;
    try {
      c = Blocking.join(calls.delete(w.path()));
    } catch (RuntimeException e) {
      throw Waits.unchecked(e);
    }
    if (c == Code.OK) {
      return false;
    }
    if (c == Code.NONODE) {
      return true;
    }
    throw ZkCalls.failure(w.path(), c);
  }

  @Override
  public void signal(LockHandle held) {
    signal(held, false);
  }

  @Override
  public void signalAll(LockHandle held) {
    signal(held, true);
  }

  private void signal(LockHandle held, boolean all) {
    checkHeld(held);
    try {
      while (true) {
        List<String> targets =
            ConditionRule.toSignal(Blocking.join(calls.children(dir)).names(), all);
        boolean woke = false;
        for (String t : targets) {
          Code c = Blocking.join(calls.delete(dir + "/" + t));
          if (c == Code.OK) {
            woke = true;
          } else if (c != Code.NONODE) {
            throw ZkCalls.failure(dir, c);
          }
        }
        if (all || woke || targets.isEmpty()) {
          return; // else the earliest withdrew meanwhile (time-out): wake the next
        }
      }
    } catch (RuntimeException e) {
      throw Waits.unchecked(e);
    }
  }

  @Override
  public String toString() {
    return "DistributedCondition[" + dir + "]";
  }
}
