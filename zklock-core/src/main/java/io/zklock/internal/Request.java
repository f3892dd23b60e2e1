package io.zklock.internal;

/**
 * A lock request that hears the session's news: the queue locks' {@link Attempt}s and the simple
 * lock's {@link SimpleAttempt}s. Registered with {@link ZkLocksImpl} while pending or held.
 */
interface Request {
  /** The connection dropped; the session may be alive. */
  void sessionSuspended();

  /** Session {@code expiredSession} ended, and every ephemeral node it made with it. */
  void sessionExpired(long expiredSession);

  /** The {@link io.zklock.ZkLocks} was closed. */
  void sessionClosed();
}
