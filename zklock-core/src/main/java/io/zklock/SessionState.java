package io.zklock;

/**
 * The state of the ZooKeeper session behind a {@link ZkLocks} instance.
 *
 * <p>Transitions: {@code CONNECTED -> SUSPENDED -> CONNECTED} when a connection drops and comes
 * back within the session timeout; {@code SUSPENDED -> LOST -> CONNECTED} when the session expired
 * and a new session was established; any state {@code -> CLOSED} on {@link ZkLocks#close()}.
 */
public enum SessionState {
  /** Connected to a server; the session is alive and every lock it holds is held. */
  CONNECTED,
  /**
   * The connection is down but the session may still be alive: locks may still be held, or may be
   * lost if the connection does not come back within the session timeout. Nothing can be known
   * until then.
   */
  SUSPENDED,
  /**
   * The session expired, or zklock declared it lost at its own session deadline (nothing heard from
   * the ensemble for the negotiated timeout less a margin): every lock it held is lost. A new
   * session is being established; once it is, the state turns {@link #CONNECTED} again with a new
   * session id.
   */
  LOST,
  /** {@link ZkLocks#close()} was called: the session has ended and nothing more will happen. */
  CLOSED
}
