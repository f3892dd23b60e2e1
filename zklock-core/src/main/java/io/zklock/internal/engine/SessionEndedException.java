package io.zklock.internal.engine;

import io.zklock.ZkLockException;

/**
 * How a request bound to a session ({@link LockRequest#boundTo}) ends when that session ends before
 * it is granted: it is not created again on the new session. The recipe that bound it (a
 * semaphore's leases, bound to the session of their admission) starts the whole request again from
 * its first step; callers never see this exception.
 */
public final class SessionEndedException extends ZkLockException {
  private static final long serialVersionUID = 1L;

  SessionEndedException(String path, long sessionId) {
    super(
        "the session this request belonged to ended before it was granted", path, sessionId, null);
  }
}
