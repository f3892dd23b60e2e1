package io.zklock.spring.integration.support;

import io.zklock.LockLostException;
import java.util.ConcurrentModificationException;

/**
 * What the last {@code unlock()} of a {@code io.zklock.spring.integration.ZkRegistryLock} throws
 * when the hold was lost before it (the session expired, an operator deleted the node, or the
 * hold's time to live ran out): a {@link ConcurrentModificationException}, as Spring Integration's
 * JDBC and Redis lock registries throw when {@code unlock()} finds that the store released the lock
 * on expiry ("Lock was released in the store due to expiration"). Code written against Spring's
 * registries catches it unchanged.
 *
 * <p>zklock's own account of the loss is the cause, a {@link LockLostException} (also {@link
 * #lockLost()}): its {@link LockLostException#reason() reason}, lock node path and session id. A
 * thread that locks again (reentrantly) a hold that was lost gets that {@link LockLostException}
 * itself, as from zklock's {@link io.zklock.DistributedLock#asLock()}: Spring's registries do not
 * check there.
 */
public final class RegistryLockLostException extends ConcurrentModificationException {
  private static final long serialVersionUID = 1L;

  RegistryLockLostException(String key, IllegalMonitorStateException lockLost) {
    super(
        "Lock "
            + key
            + " was released in the store ("
            + (lockLost instanceof LockLostException l ? l.reason() : "reason unknown")
            + ") before unlock(). The integrity of data protected by this lock may have been"
            + " compromised.",
        lockLost);
  }

  /**
   * zklock's account of the loss: its reason, lock node path and session id; {@code null} in the
   * rare case that the reason could not be had (the cause is then a plain {@link
   * IllegalMonitorStateException}).
   */
  public LockLostException lockLost() {
    return getCause() instanceof LockLostException l ? l : null;
  }
}
