package io.zklock.internal.rules;

/**
 * When a holder of a queue was granted, bounded by what ZooKeeper records of its directory: a pure
 * function of one listing and what was read of the nodes it lists.
 *
 * <p><b>What ZooKeeper records.</b> A node's creation is stamped with the leader's time ({@code
 * ctime}) and its transaction id ({@code czxid}); a deletion leaves no time a reader can see. A
 * request queued behind others is granted by a deletion, that of the last node ahead of it, so its
 * grant time is not recorded. What is recorded: a sequential node's number counts the children
 * created in its directory before it (ZooKeeper's internal count of creations; the {@code cversion}
 * a reader sees is creations plus deletions), and the directory's {@code pzxid} is the transaction
 * of its last child change, a creation or a deletion.
 *
 * <p><b>The rule.</b> Whether a node holds depends only on the nodes ahead of it (every recipe's
 * {@link Ordering}), all created before it, and it changes only when one of them goes. So a holder
 * has held since its creation, exactly, when
 *
 * <ul>
 *   <li>every child created before it is still listed (its number equals the nodes listed ahead of
 *       it): none went, before or after its creation. The number is a 32-bit count that wraps
 *       around; it is trusted only when the directory has seen too few transactions since its own
 *       creation to have wrapped it ({@link #MAX_CREATES_PER_TRANSACTION} creations a transaction
 *       at most, a {@code multi} bounded by ZooKeeper's packet size); or
 *   <li>the directory's last child change was its own creation ({@code pzxid == czxid}).
 * </ul>
 *
 * Otherwise it was granted at its creation or later: not before its {@code ctime}; and, when the
 * last child change was the creation of a node listed after it, not after that node's {@code ctime}
 * (every deletion came before); when the last change was a deletion (or a child not read), only the
 * listing bounds it (unbounded here). The bounds are the leader's clock, as {@code ctime} is; a
 * change of leader brings its clock's skew.
 */
public final class GrantWindow {
  /** {@link Window#latestMillis()} when only the time of the listing bounds the grant. */
  public static final long UNBOUNDED = Long.MAX_VALUE;

  /**
   * More creations than one {@code multi} can carry: ZooKeeper bounds a request by {@code
   * jute.maxbuffer} (1 MB by default), and a create takes more than 32 bytes.
   */
  static final long MAX_CREATES_PER_TRANSACTION = 1L << 15;

  private GrantWindow() {}

  /**
   * The grant came at or after {@code earliestMillis} and at or before {@code latestMillis} ({@link
   * #UNBOUNDED}: at or before the listing). Server time, ms.
   */
  public record Window(long earliestMillis, long latestMillis) {
    /** Whether the grant time is known exactly: the holder held from its creation. */
    public boolean exact() {
      return earliestMillis == latestMillis;
    }

    /** Whether a recorded time bounds it from above. */
    public boolean bounded() {
      return latestMillis != UNBOUNDED;
    }
  }

  /**
   * The window of a holder's grant.
   *
   * @param holderSequence the holder's sequence number
   * @param holderCzxid the holder's {@code czxid}
   * @param holderCtime the holder's {@code ctime}
   * @param listedAhead how many sequential children of the listing come before the holder
   * @param pzxid the directory's {@code pzxid}, as the listing read it
   * @param lastCzxid the greatest {@code czxid} among the children read (the holder's included)
   * @param lastCtime the {@code ctime} of that child
   * @param dirCzxid the directory's own {@code czxid}
   */
  public static Window of(
      int holderSequence,
      long holderCzxid,
      long holderCtime,
      int listedAhead,
      long pzxid,
      long lastCzxid,
      long lastCtime,
      long dirCzxid) {
    if ((holderSequence == listedAhead && neverWrapped(dirCzxid, pzxid)) || pzxid == holderCzxid) {
      return new Window(holderCtime, holderCtime);
    }
    if (pzxid == lastCzxid && lastCzxid > holderCzxid) {
      return new Window(holderCtime, Math.max(holderCtime, lastCtime));
    }
    return new Window(holderCtime, UNBOUNDED);
  }

  /**
   * Whether a directory created at {@code dirCzxid} whose last child change is {@code pzxid} can
   * have had no more than 2^32 creations: fewer transactions between them, in one epoch of the
   * ensemble (the high 32 bits of a zxid), than 2^32 / {@link #MAX_CREATES_PER_TRANSACTION}.
   */
  static boolean neverWrapped(long dirCzxid, long pzxid) {
    long between = pzxid - dirCzxid;
    return (dirCzxid >>> 32) == (pzxid >>> 32)
        && between >= 0
        && between < (1L << 32) / MAX_CREATES_PER_TRANSACTION;
  }
}
