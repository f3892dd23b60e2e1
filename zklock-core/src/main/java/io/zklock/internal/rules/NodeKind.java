package io.zklock.internal.rules;

/**
 * The kinds of lock node, each with the name prefix that makes a lock directory readable by eye.
 */
public enum NodeKind {
  /** A mutex request: exclusive. */
  MUTEX("m", "mutex", true),
  /** A read-lock request: shared with other readers. */
  READ("r", "read", false),
  /** A write-lock request: exclusive. */
  WRITE("w", "write", true),
  /** A semaphore lease request. */
  SEMAPHORE("s", "semaphore", false),
  /** A leader-election participant: exclusive. */
  ELECTION("e", "election", true),
  /**
   * A cohort mutex's node, shared by the requests of one client (a cohort lock): exclusive; its
   * holders' tokens are not comparable with plain mutex tokens.
   */
  COHORT("c", "cohort", true),
  /**
   * The write side of a cohort read-write lock, shared by the write requests of one client: orders
   * like {@link #WRITE} (exclusive); its holders' tokens are cohort tokens.
   */
  COHORT_WRITE("cw", "cohort-write", true),
  /**
   * The read side of a cohort read-write lock, shared by the read requests of one client: orders
   * like {@link #READ} (shared).
   */
  COHORT_READ("cr", "cohort-read", false),
  /** The one node of a simple lock, named {@code x-lock}: exclusive, not a queue. */
  SIMPLE("x", "simple", true);

  /** The name of the simple lock's one node in its directory: {@code x-lock}. */
  public static final String SIMPLE_NODE = SIMPLE.prefix + "-lock";

  private final String prefix;
  private final String label;
  private final boolean exclusive;

  NodeKind(String prefix, String label, boolean exclusive) {
    this.prefix = prefix;
    this.label = label;
    this.exclusive = exclusive;
  }

  /** The one-letter prefix of node names of this kind. */
  public String prefix() {
    return prefix;
  }

  /** The word used in node data and by {@code zklock ls}. */
  public String label() {
    return label;
  }

  /** Whether the node is shared by the requests of one client (a cohort's node). */
  public boolean cohort() {
    return this == COHORT || this == COHORT_WRITE || this == COHORT_READ;
  }

  /** Whether a node of this kind excludes every other node queued after it. */
  public boolean exclusive() {
    return exclusive;
  }

  /** The kind of a prefix, or null if it is not one of ours. */
  public static NodeKind ofPrefix(String prefix) {
    for (NodeKind k : values()) {
      if (k.prefix.equals(prefix)) {
        return k;
      }
    }
    return null;
  }
}
