package io.zklock;

/**
 * Hears the transitions of a {@link ZkLocks} session. Called on the library's executor, never on
 * the ZooKeeper event thread and never under a lock, one call at a time and in the order of the
 * transitions. A listener should return quickly; an exception it throws is logged and ignored.
 */
@FunctionalInterface
public interface SessionListener {
  /**
   * The session entered {@code state}.
   *
   * @param state the new state
   * @param sessionId the session concerned: for {@link SessionState#LOST} the expired one, for
   *     {@link SessionState#CONNECTED} the live one (after an expiry, a new id)
   */
  void stateChanged(SessionState state, long sessionId);
}
