package io.zklock.internal.rules;

import java.util.List;

/**
 * Where zklock's order of a kazoo-compatible queue and Python kazoo's own agree: a pure rule, read
 * on the listing a request already has.
 *
 * <p>kazoo's lock recipes ({@code Lock}, {@code WriteLock}, {@code ReadLock}, and {@code Election},
 * which is a {@code Lock}) keep the children whose names match {@code (?:__lock__|__rlock__)(-?\d
 * {10})$} and sort them by the matched sequence <em>as text</em> ({@code Lock._get_predecessor}). A
 * {@code Lock} or {@code WriteLock} waits for the contender just before its own node, a {@code
 * ReadLock} for the last {@code __lock__} node before it ({@code WriteLock} counts readers as
 * contenders, {@code Lock} and {@code ReadLock} do not). zklock's kazoo-compatible kinds ({@link
 * NodeKind#KAZOO_LOCK}, {@link NodeKind#KAZOO_READ}) queue by {@link Ordering#exclusive} and {@link
 * Ordering#shared} on the same nodes, ordered by sequence: the same decisions, node for node, as
 * long as the text order of the sequences is their order of creation.
 *
 * <p>It stops being so when a directory's counter nears the end of its range (two billion creations
 * without the directory once being reaped): ZooKeeper then repeats {@code 2147483647} or hands out
 * negative sequences, which kazoo sorts ahead of every positive one, or skips altogether (a sign
 * and nine digits does not match its pattern). zklock would order such a queue by creation zxid,
 * and kazoo's clients otherwise: two holders. So a kazoo-compatible request refuses a listing that
 * holds a kazoo-kind node with a negative sequence or one within {@link QueueNode#OVERFLOW_MARGIN}
 * of {@link Integer#MAX_VALUE} ({@link #agrees}), with a message that says to move to a new path
 * ({@link #refusal}).
 */
public final class KazooOrder {
  private KazooOrder() {}

  /**
   * Whether kazoo orders the kazoo-kind nodes of {@code queue} as zklock does: none of them has a
   * negative sequence or one within {@link QueueNode#OVERFLOW_MARGIN} of {@link Integer#MAX_VALUE}.
   */
  public static boolean agrees(List<QueueNode> queue) {
    return firstDisagreeing(queue) == null;
  }

  /**
   * The first kazoo-kind node of {@code queue} whose sequence kazoo may order otherwise, or null.
   */
  public static QueueNode firstDisagreeing(List<QueueNode> queue) {
    for (QueueNode n : queue) {
      if (n.kind().kazoo()
          && (n.sequence() < 0 || n.sequence() > Integer.MAX_VALUE - QueueNode.OVERFLOW_MARGIN)) {
        return n;
      }
    }
    return null;
  }

  /** The message of a refusal of a queue whose counter kazoo would order otherwise. */
  public static String refusal(String dir, NodeKind ours, QueueNode found) {
    return "refusing to queue a "
        + KindMix.describe(ours)
        + " request in "
        + dir
        + ": its node "
        + found.name()
        + " carries the sequence "
        + found.sequence()
        + ", near the end of the directory's counter, where kazoo orders the sequences' text"
        + " otherwise than their creation (or skips the node), so the two libraries could hold at"
        + " once; move the lock to a new path, or let the directory be emptied and reaped, see"
        + " docs/interop.md";
  }
}
