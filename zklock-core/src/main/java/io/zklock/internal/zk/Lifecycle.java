package io.zklock.internal.zk;

import io.zklock.LockHandle;
import io.zklock.SessionState;
import io.zklock.ZkLockException;
import io.zklock.internal.rules.Waiting;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * Whether a {@code ZkLocks} is open, and when its requests may start: the instance's closed flag,
 * its stopped flag ({@code ZkLocks#stop()} until {@code start()}), its {@link StartGate} and its
 * session's state, as the recipes ask them.
 */
public final class Lifecycle {
  private final Session session;
  private final StartGate gate;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile boolean stopped;

  public Lifecycle(Session session, StartGate gate) {
    this.session = session;
    this.gate = gate;
  }

  /** Marks the instance closed; returns true the first time only. */
  public boolean close() {
    return closed.compareAndSet(false, true);
  }

  /**
   * Marks the instance stopped; returns true if it was running (not closed, not stopped already).
   * Called holding the instance's restart lock.
   */
  public boolean stop() {
    if (closed.get() || stopped) {
      return false;
    }
    stopped = true;
    return true;
  }

  /** Whether the instance is stopped and not closed: {@code start()} may open it again. */
  public boolean isStopped() {
    return stopped && !closed.get();
  }

  /** Marks a stopped instance running again, once its new session is connected. */
  public void started() {
    stopped = false;
  }

  /** Whether the instance is closed, or stopped: no request may start, nothing may rejoin. */
  public boolean isClosed() {
    return closed.get() || stopped;
  }

  /**
   * @throws ZkLockException if the instance is closed, or stopped
   */
  public void checkOpen() {
    if (closed.get()) {
      throw new ZkLockException("this ZkLocks instance is closed");
    }
    if (stopped) {
      throw new ZkLockException(
          "this ZkLocks instance is stopped: its start() opens a new session");
    }
  }

  /**
   * For requests that must not wait (tryAcquire()): while the connection is down nobody can tell
   * whether the lock is free, so say so rather than wait or guess.
   */
  public void checkConnected(String path) {
    checkOpen();
    SessionState s = session.state();
    if (s != SessionState.CONNECTED) {
      throw new ZkLockException(
          "not connected to ZooKeeper (session " + s + "): cannot tell whether the lock is free",
          path,
          session.sessionId(),
          null);
    }
  }

  /** Starts a request at once, or once this instance may start requests ({@link StartGate}). */
  public CompletableFuture<LockHandle> whenReady(
      Function<Waiting, CompletableFuture<LockHandle>> start, Waiting waiting, String path) {
    if (gate.isOpen()) {
      return start.apply(waiting);
    }
    checkOpen();
    return gate.whenOpen(start, waiting, path);
  }

  /** Whether requests may start at once (see {@link #whenReady(Runnable)}). */
  public boolean isReady() {
    return gate.isReadyOrFailed();
  }

  /** Runs {@code r} once requests may start; never if this instance is closed first. */
  public void whenReady(Runnable r) {
    gate.whenReadyOrFailed(r);
  }
}
