package io.zklock.internal.rules;

/**
 * Whether a batched create in a directory the client has not seen exist may join a {@code multi}: a
 * pure rule over the outcomes of such creates, one client's.
 *
 * <p>A create in a missing directory fails ({@code NONODE}), and a {@code multi} is all or none:
 * one such create in a multi fails the multi, whose other ops then go again (one more round trip).
 * A client that creates in directories it has not seen either meets new names (a lock's first use:
 * the directory is missing, every time) or names it has not met lately (a service's entities, made
 * long ago or by another instance, forgotten by a bounded cache: the directory exists, nearly every
 * time). The rule tells the two apart by what happened: such creates join multis only after {@link
 * #TRUST_AFTER} in a row found their directory; one that did not sends them alone again.
 *
 * <p>So a client meeting only new names never puts one in a multi, and every multi that fails on a
 * missing directory follows {@link #TRUST_AFTER} creates that found theirs: such failures are at
 * most the found ones divided by {@link #TRUST_AFTER}.
 *
 * <p>Not thread-safe: the batcher calls it under its monitor.
 */
public final class UnseenDirs {
  /** Creates in a row that found their unseen directory, after which such creates join multis. */
  public static final int TRUST_AFTER = 4;

  private int foundInARow;

  /** Whether a create in a directory not seen may join a multi now. */
  public boolean batchable() {
    return foundInARow >= TRUST_AFTER;
  }

  /**
   * A create in a directory not seen was answered: {@code found} if the directory existed (the
   * create succeeded, or its node existed), not if it was missing. Other outcomes (a connection
   * loss, an ACL) tell nothing and are not reported.
   */
  public void answered(boolean found) {
    foundInARow = found ? Math.min(foundInARow + 1, TRUST_AFTER) : 0;
  }
}
