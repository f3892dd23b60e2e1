package io.zklock;

/**
 * What a held lock does while the connection is suspended (down, with the session perhaps alive).
 *
 * <p>While suspended, nothing can be known: the session may live on, so the lock is still held, or
 * the ensemble may already have expired it and granted the lock to another client. The default,
 * {@link #WAIT_FOR_EXPIRY}, keeps the lock until the session is known to be gone. {@link
 * #TREAT_AS_LOST} gives up the lock the moment the connection drops, for users who must not act
 * while in doubt. Under either policy, a holder that hears nothing from the ensemble is told its
 * lock is lost before the ensemble can expire its session (zklock's session deadline).
 */
public enum SuspensionPolicy {
  /**
   * Keep holding while suspended; the lock is lost when the session is known to have expired, or at
   * the latest at zklock's session deadline (the negotiated timeout less a margin after the
   * ensemble last answered), before the ensemble can expire the session and grant the lock to
   * anyone else.
   */
  WAIT_FOR_EXPIRY,
  /**
   * Treat suspension as loss: every held handle's {@link LockHandle#lost()} completes with reason
   * {@link LockLostException.Reason#SUSPENDED} and its node is deleted once the connection returns.
   */
  TREAT_AS_LOST
}
