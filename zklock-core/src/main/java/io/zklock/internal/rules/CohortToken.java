package io.zklock.internal.rules;

/**
 * The fencing tokens of a cohort lock: {@code (czxid << 16) | k}, where {@code czxid} is the
 * creation zxid of the cohort's node and {@code k} the number of the local handoff on that node (0
 * for its first holder). Tokens of one node increase with {@code k}; a later node has a larger
 * {@code czxid}, so every token of it exceeds every token of an earlier node. The encoding needs
 * {@code czxid < 2^47}: a zxid is {@code epoch << 32 | counter}, so the ensemble's epoch must be
 * below 2^15 (32,768 leader elections). A pure function, tested by property.
 */
public final class CohortToken {
  /** Bits of the local handoff number. */
  public static final int LOCAL_BITS = 16;

  /** The largest local handoff number on one node; the next takes a fresh node. */
  public static final int MAX_LOCAL = (1 << LOCAL_BITS) - 1;

  /** The largest czxid the encoding can carry without overflowing a positive long. */
  static final long MAX_CZXID = (1L << (63 - LOCAL_BITS)) - 1;

  private CohortToken() {}

  /** Whether a node of this creation zxid can carry cohort tokens. */
  public static boolean fits(long czxid) {
    return czxid >= 0 && czxid <= MAX_CZXID;
  }

  /**
   * The token of the {@code k}-th local holder of the node created at {@code czxid}.
   *
   * @throws IllegalArgumentException if {@code czxid} does not {@link #fits fit} or {@code k} is
   *     outside {@code 0..MAX_LOCAL}
   */
  public static long encode(long czxid, int k) {
    if (!fits(czxid)) {
      throw new IllegalArgumentException(
          "czxid 0x" + Long.toHexString(czxid) + " too large for a cohort token (epoch >= 2^15)");
    }
    if (k < 0 || k > MAX_LOCAL) {
      throw new IllegalArgumentException("local handoff number out of 0.." + MAX_LOCAL + ": " + k);
    }
    return (czxid << LOCAL_BITS) | k;
  }
}
