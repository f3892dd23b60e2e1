package io.zklock.internal.engine;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The requests of one {@link io.zklock.ZkLocks} that are pending or held: each hears the session's
 * news (suspended, expired, closed) through here.
 */
public final class Requests {
  private final Set<LockRequest> active = ConcurrentHashMap.newKeySet();

  void add(LockRequest r) {
    active.add(r);
  }

  void remove(LockRequest r) {
    active.remove(r);
  }

  /** Number of requests pending or held, for tests and metrics. */
  int size() {
    return active.size();
  }

  /** The connection dropped; the session may be alive. */
  public void suspended() {
    active.forEach(LockRequest::sessionSuspended);
  }

  /** Session {@code sessionId} ended, and every ephemeral node it made with it. */
  public void expired(long sessionId) {
    active.forEach(r -> r.sessionExpired(sessionId));
  }

  /** The instance was closed. */
  public void closed() {
    active.forEach(LockRequest::sessionClosed);
  }
}
