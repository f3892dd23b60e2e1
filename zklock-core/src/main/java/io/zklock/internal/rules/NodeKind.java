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
  SIMPLE("x", "simple", true),
  /**
   * A node of the Curator-compatible mutex, named as Curator's {@code InterProcessMutex} names its
   * nodes, {@code _c_<uuid>-lock-<sequence>}: made by Curator's clients or by zklock's in the
   * compatible mode (the data tells which). Exclusive.
   */
  CURATOR_MUTEX("lock-", "curator-mutex", true, true),
  /**
   * The read side of the Curator-compatible read-write lock, {@code _c_<uuid>-__READ__<sequence>}
   * as Curator's {@code InterProcessReadWriteLock} names it: shared.
   */
  CURATOR_READ("__READ__", "curator-read", false, true),
  /**
   * The write side of the Curator-compatible read-write lock, {@code _c_<uuid>-__WRIT__<sequence>}:
   * exclusive.
   */
  CURATOR_WRITE("__WRIT__", "curator-write", true, true),
  /**
   * A participant of the Curator-compatible election, {@code _c_<uuid>-latch-<sequence>} as
   * Curator's {@code LeaderLatch} names it, whose data is the participant id alone: exclusive (the
   * head leads).
   */
  CURATOR_LATCH("latch-", "curator-latch", true, true),
  /**
   * A lease of the Curator-compatible semaphore, {@code _c_<uuid>-lease-<sequence>} in the
   * semaphore's {@code leases} directory, as Curator's {@code InterProcessSemaphoreV2} names them.
   */
  CURATOR_LEASE("lease-", "curator-lease", false, true),
  /**
   * A node of the kazoo-compatible mutex, write lock or election, named as Python kazoo's {@code
   * Lock}, {@code WriteLock} and {@code Election} name theirs, {@code <id>__lock__<sequence>}: made
   * by kazoo's clients or by zklock's in the kazoo-compatible mode (the data tells which).
   * Exclusive.
   */
  KAZOO_LOCK("__lock__", "kazoo-lock", true, false, true),
  /**
   * The read side of the kazoo-compatible read-write lock, {@code <id>__rlock__<sequence>} as
   * kazoo's {@code ReadLock} names it: shared.
   */
  KAZOO_READ("__rlock__", "kazoo-read", false, false, true),
  /**
   * A lease of the kazoo-compatible semaphore, named as Python kazoo's {@code Semaphore} names its
   * leases: a bare {@code uuid4().hex} (no prefix, no sequence) in the semaphore's own directory,
   * admitted through a {@link #KAZOO_LOCK} queue at {@code <dir>-__lock__} ({@link
   * KazooSemaphore}). Not a queue node: never parsed from a listing.
   */
  KAZOO_LEASE("", "kazoo-lease", false, false, true),
  /**
   * A node of Go's zookeeper client's {@code Lock} ({@code go-zookeeper/zk}), named {@code
   * _c_<guid>-lock-<sequence>} with a guid of 32 lowercase hex digits: never created by zklock, but
   * a queue node of the Curator-compatible mutex's directory, where Go's client and Curator's order
   * every node alike ({@link ClientOrder}). Exclusive (Go's lock has no readers).
   */
  GO_LOCK("lock-", "go-lock", true);

  /**
   * The directory of the Curator-compatible semaphore's admission mutex ({@link #CURATOR_MUTEX}
   * nodes), as Curator's {@code InterProcessSemaphoreV2} names it.
   */
  public static final String CURATOR_SEMAPHORE_LOCKS = "locks";

  /**
   * The start of the names Curator gives its protected nodes, {@code _c_<uuid>-<lock name>}: the
   * uuid is its id to find the node again after a connection loss, as our attempt id.
   */
  public static final String CURATOR_PROTECTED = "_c_";

  /** The name of the simple lock's one node in its directory: {@code x-lock}. */
  public static final String SIMPLE_NODE = SIMPLE.prefix + "-lock";

  private final String prefix;
  private final String label;
  private final boolean exclusive;
  private final boolean curator;
  private final boolean kazoo;

  NodeKind(String prefix, String label, boolean exclusive) {
    this(prefix, label, exclusive, false, false);
  }

  NodeKind(String prefix, String label, boolean exclusive, boolean curator) {
    this(prefix, label, exclusive, curator, false);
  }

  NodeKind(String prefix, String label, boolean exclusive, boolean curator, boolean kazoo) {
    this.prefix = prefix;
    this.label = label;
    this.exclusive = exclusive;
    this.curator = curator;
    this.kazoo = kazoo;
  }

  /**
   * The prefix of node names of this kind; for a {@link #curator()} kind, Curator's lock name that
   * comes after the protected prefix and before the sequence ({@code lock-}, {@code __READ__},
   * {@code __WRIT__}); for a {@link #kazoo()} kind, kazoo's marker before the sequence ({@code
   * __lock__}, {@code __rlock__}).
   */
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

  /**
   * Whether nodes of this kind are named as Curator's recipes name theirs ({@code _c_<uuid>-<lock
   * name><sequence>}), to share one queue with Curator's clients.
   */
  public boolean curator() {
    return curator;
  }

  /**
   * Whether nodes of this kind are named as Python kazoo's lock recipes name theirs ({@code
   * <id>__lock__<sequence>}, {@code <id>__rlock__<sequence>}), to share one queue with kazoo's
   * clients.
   */
  public boolean kazoo() {
    return kazoo;
  }

  /**
   * Whether nodes of this kind are named as another library's ({@link #curator()}, {@link
   * #kazoo()}, {@link #GO_LOCK}).
   */
  public boolean compatible() {
    return curator || kazoo || this == GO_LOCK;
  }

  /** Whether a node of this kind excludes every other node queued after it. */
  public boolean exclusive() {
    return exclusive;
  }

  /** The kind of a prefix, or null if it is not one of ours. */
  public static NodeKind ofPrefix(String prefix) {
    for (NodeKind k : values()) {
      if (!k.compatible() && k.prefix.equals(prefix)) {
        return k;
      }
    }
    return null;
  }
}
