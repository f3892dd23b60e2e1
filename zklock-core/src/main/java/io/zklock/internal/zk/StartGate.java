package io.zklock.internal.zk;

import io.zklock.LockHandle;
import io.zklock.ZkLockException;
import io.zklock.internal.rules.Clock;
import io.zklock.internal.rules.Waiting;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Where requests wait before a {@code connectInBackground()} instance first connects. Open from the
 * start for an instance that connected while being built; otherwise closed until the first
 * connection is made and this client's identities are known, and failed if the instance closes
 * first.
 */
public final class StartGate {
  private final SessionConfig config;
  private final Clock clock;
  private final ScheduledExecutorService scheduler;

  /** Null while open from the start; else completes when requests may start. */
  private volatile CompletableFuture<Void> firstReady;

  public StartGate(SessionConfig config, Clock clock, ScheduledExecutorService scheduler) {
    this.config = config;
    this.clock = clock;
    this.scheduler = scheduler;
  }

  /**
   * Closes the gate until {@code session} first connects; {@code onFirst} runs then, before it
   * opens.
   */
  public void closeUntilConnected(Session session, Consumer<Session.Conn> onFirst) {
    CompletableFuture<Void> gate = new CompletableFuture<>();
    session.addObserver(
        new Session.Observer() {
          @Override
          public void connected(Session.Conn conn) {
            if (!gate.isDone()) {
              onFirst.accept(conn);
              gate.complete(null);
              session.removeObserver(this);
            }
          }

          @Override
          public void suspended(Session.Conn conn) {}

          @Override
          public void expired(Session.Conn expired) {}

          @Override
          public void closed() {
            gate.completeExceptionally(new ZkLockException("this ZkLocks instance is closed"));
          }
        });
    firstReady = gate;
  }

  /** Whether requests may start at once. */
  boolean isOpen() {
    CompletableFuture<Void> gate = firstReady;
    return gate == null || (gate.isDone() && !gate.isCompletedExceptionally());
  }

  /** Whether the gate has been decided: open, or failed because the instance closed first. */
  boolean isReadyOrFailed() {
    CompletableFuture<Void> gate = firstReady;
    return gate == null || gate.isDone();
  }

  /** Runs {@code r} once the gate is decided (at once if it is). */
  void whenReadyOrFailed(Runnable r) {
    CompletableFuture<Void> gate = firstReady;
    if (gate == null || gate.isDone()) {
      r.run();
    } else {
      gate.thenRun(r);
    }
  }

  /**
   * Starts a request with {@code start} once the gate opens, the request waiting at most the
   * connect timeout for it (or until its own deadline, if sooner: it then completes with null,
   * timed out) and failing with a {@link ZkLockException} that names the connect string. The time
   * spent at the gate counts against the request's deadline. Cancelling the returned future before
   * the gate opens withdraws the request before it is made; after, it cancels the request.
   */
  CompletableFuture<LockHandle> whenOpen(
      Function<Waiting, CompletableFuture<LockHandle>> start, Waiting waiting, String path) {
    CompletableFuture<Void> gate = firstReady;
    long connectNanos = config.connectTimeout().toNanos();
    boolean ownFirst = waiting.endsBefore(connectNanos, clock);
    CompletableFuture<LockHandle> outer = new CompletableFuture<>();
    ScheduledFuture<?> timer =
        scheduler.schedule(
            () -> {
              if (ownFirst) {
                outer.complete(null);
              } else {
                outer.completeExceptionally(notConnected(path));
              }
            },
            ownFirst ? waiting.remainingNanos(clock) : connectNanos,
            TimeUnit.NANOSECONDS);
    gate.whenComplete(
        (v, err) -> {
          timer.cancel(false);
          if (outer.isDone()) {
            return;
          }
          if (err != null) {
            outer.completeExceptionally(err);
            return;
          }
          if (waiting.expired(clock)) {
            outer.complete(null);
            return;
          }
          CompletableFuture<LockHandle> inner;
          try {
            inner = start.apply(waiting);
          } catch (RuntimeException e) {
            outer.completeExceptionally(e);
            return;
          }
          outer.whenComplete(
              (h, e) -> {
                if (e != null) {
                  inner.cancel(true); // the caller gave up: withdraw the request
                }
              });
          inner.whenComplete(
              (h, e) -> {
                if (e != null) {
                  outer.completeExceptionally(
                      e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
                } else if (!outer.complete(h) && h != null) {
                  h.releaseAsync(); // the caller gave up meanwhile
                }
              });
        });
    return outer;
  }

  private ZkLockException notConnected(String path) {
    return new ZkLockException(
        "not connected to ZooKeeper at '"
            + config.connectString()
            + "' within the connect timeout of "
            + config.connectTimeout().toMillis()
            + " ms: no server has answered since this client was built"
            + " (connectInBackground); is the ensemble running and reachable?",
        path,
        0L,
        null);
  }
}
