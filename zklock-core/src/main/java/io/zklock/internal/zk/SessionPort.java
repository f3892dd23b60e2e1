package io.zklock.internal.zk;

import io.zklock.LockLostException;
import java.util.function.Consumer;

/**
 * What a lock request needs of the session: the live connection, and word of when there is one.
 * {@link Session} is the real one; tests of the request engine give a fake.
 */
public interface SessionPort {
  /** The live connection, or null if not connected. */
  Session.Conn current();

  /**
   * The id of the session in use (connected or suspended), or 0 when there is none (after an
   * expiry, before the next connection) or once closed.
   */
  long sessionId();

  /**
   * Runs {@code action} with the live connection as soon as there is one: at once (on the caller's
   * thread) if connected. Once closed, runs {@code onClosed} instead.
   */
  void whenConnected(Consumer<Session.Conn> action, Runnable onClosed);

  /**
   * For work on a node of session {@code owner}: runs {@code action} as soon as {@code owner} is
   * connected, or {@code gone} as soon as {@code owner} is over (expired, declared lost, closed);
   * exactly one of them runs.
   */
  void whenConnectedTo(long owner, Consumer<Session.Conn> action, Runnable gone);

  /**
   * Finds out why a held node of session {@code nodeSession} vanished: a live session means someone
   * deleted it, an ended one that the session expired.
   */
  void classifyLoss(
      long nodeSession, String path, Consumer<LockLostException.Reason> verdict, Runnable onClosed);

  /**
   * Tells {@code o} of every later connection, suspension, expiry and the close, in order (the
   * recipes and the lock watch, which must set their watches again on a new session).
   */
  void addObserver(Session.Observer o);

  void removeObserver(Session.Observer o);
}
