package io.zklock.internal.protocol;

import io.zklock.ZkLockException;

/**
 * A request refused to queue in a directory that holds nodes of a recipe it cannot share a queue
 * with ({@link io.zklock.internal.rules.KindMix}). Users see a {@link ZkLockException}; the recipes
 * tell it from a failure worth retrying by this type.
 */
public final class RecipeMixException extends ZkLockException {
  private static final long serialVersionUID = 1L;

  private final String reason;

  public RecipeMixException(String message, String path, long sessionId) {
    super(message, path, sessionId, null);
    this.reason = message;
  }

  /**
   * The refusal without the lock path and session that {@link #getMessage()} ends with: for an
   * exception that tells this refusal again with the same path and session, which adds them once.
   */
  public String reason() {
    return reason;
  }
}
