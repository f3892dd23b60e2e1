package io.zklock.internal.rules;

import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which kinds of lock node may share one lock directory, where Curator's recipes are concerned: a
 * pure rule, read on the listing a request already has.
 *
 * <p>Curator's recipes each sort a directory's children by the text after their own lock name
 * ({@code StandardLockInternalsDriver.fixForSorting}: the text after the last {@code lock-}, {@code
 * latch-}, or, for the read-write lock, {@code __READ__} and {@code __WRIT__}); a name without that
 * lock name sorts by its whole text, which starts with a letter or {@code _}, so after every
 * ten-digit sequence. A Curator client therefore sees every node of another recipe as queued behind
 * it, whatever its sequence: a {@code LeaderSelector} (an {@code InterProcessMutex}, {@code -lock-}
 * nodes) joining a directory of {@code LeaderLatch} nodes leads at once beside the latch's leader,
 * and so does a latch joining a directory of mutex nodes. zklock orders every kind by sequence, so
 * a zklock request would wait correctly, but the Curator clients around it would not. Curator's own
 * recipes never share a directory across these families, and zklock's plain nodes ({@code m-},
 * {@code e-}, ...) are outside all of them.
 *
 * <p>Python kazoo's recipes keep only the children whose names end in {@code __lock__<sequence>} or
 * {@code __rlock__<sequence>} and skip every other name, zklock's plain and Curator-compatible
 * names among them: its kinds ({@link NodeKind#kazoo()}) are a family of their own too.
 *
 * <p>Go's zookeeper client's {@code Lock} ({@link NodeKind#GO_LOCK}, {@code _c_<guid>-lock-<seq>})
 * and Curator's mutex read each other's names by the same sequence, so Go's nodes share the Curator
 * mutex's family; every other family either skips Go's names or is skipped by Go's client ({@link
 * ClientOrder}).
 *
 * <p>So a request of kind {@code ours} refuses to stay in a directory that holds a node of a kind
 * of another family ({@link #conflict}) when either kind is one of Curator's or kazoo's ({@link
 * NodeKind#compatible()}): zklock's own kinds mix among themselves as before. This is a best
 * effort: it sees what was in the directory when the request listed it; a Curator client that joins
 * later cannot be seen by a request that already holds.
 */
public final class KindMix {
  private KindMix() {}

  /**
   * The family of a kind: the kinds one Curator recipe creates in one directory. Every one of
   * zklock's own kinds is in the family {@code 0}.
   */
  static int family(NodeKind kind) {
    switch (kind) {
      case CURATOR_MUTEX:
      case GO_LOCK:
        return 1;
      case CURATOR_READ:
      case CURATOR_WRITE:
        return 2;
      case CURATOR_LATCH:
        return 3;
      case CURATOR_LEASE:
        return 4;
      case KAZOO_LOCK:
      case KAZOO_READ:
        return 5;
      case KAZOO_LEASE:
        return 6; // never in a queue: its own directory, counted (KazooSemaphore)
      default:
        return 0;
    }
  }

  /** Whether nodes of kinds {@code a} and {@code b} may share one directory. Symmetric. */
  public static boolean compatible(NodeKind a, NodeKind b) {
    return family(a) == family(b);
  }

  /**
   * The bit mask of the kinds that may not share a directory with {@code ours} (bit {@code
   * ordinal()}), to test against {@link Listing#kindMask()}.
   */
  public static int incompatibleMask(NodeKind ours) {
    return INCOMPATIBLE[ours.ordinal()];
  }

  private static final int[] INCOMPATIBLE = new int[NodeKind.values().length];

  static {
    for (NodeKind ours : NodeKind.values()) {
      int mask = 0;
      for (NodeKind k : NodeKind.values()) {
        if (!compatible(ours, k)) {
          mask |= 1 << k.ordinal();
        }
      }
      INCOMPATIBLE[ours.ordinal()] = mask;
    }
  }

  /**
   * Whether a directory whose nodes have the kinds of {@code kindMask} ({@link #bit} of each) holds
   * a kind that may not share it with {@code ours}.
   */
  public static boolean mixed(NodeKind ours, int kindMask) {
    return (kindMask & incompatibleMask(ours)) != 0;
  }

  /** The bit of {@code kind} in a kind mask. */
  public static int bit(NodeKind kind) {
    return 1 << kind.ordinal();
  }

  /**
   * The first node of {@code queue} whose kind may not share the directory with a request of kind
   * {@code ours}, or null if none. On a {@link Listing} this reads its kind mask first: no scan
   * unless there is a conflict.
   */
  public static QueueNode conflict(NodeKind ours, List<QueueNode> queue) {
    if (queue instanceof Listing listing && !mixed(ours, listing.kindMask())) {
      return null;
    }
    for (QueueNode n : queue) {
      if (!compatible(ours, n.kind())) {
        return n;
      }
    }
    return null;
  }

  /**
   * The kinds of a directory that mixes recipes, as {@link io.zklock.LockInfo#state()} shows them
   * under {@link #MIX_FIELD}: the labels of {@code kinds} ({@link NodeKind#label()}), distinct,
   * sorted and joined with {@code ","}, when two of them may not share a directory; null when they
   * all may.
   */
  public static String mixOf(Collection<NodeKind> kinds) {
    Set<NodeKind> distinct = kinds.isEmpty() ? Set.of() : EnumSet.copyOf(kinds);
    boolean mixed = false;
    for (NodeKind a : distinct) {
      for (NodeKind b : distinct) {
        mixed |= !compatible(a, b);
      }
    }
    if (!mixed) {
      return null;
    }
    return distinct.stream().map(NodeKind::label).sorted().collect(Collectors.joining(","));
  }

  /** The field of an inspected lock's state that names the kinds of a mixed directory. */
  public static final String MIX_FIELD = "mix";

  /** What created a node of {@code kind}, in words, and what zklock offers in its place. */
  static String whatMakes(NodeKind kind) {
    switch (kind) {
      case CURATOR_MUTEX:
        return "a node of Curator's InterProcessMutex or LeaderSelector (zklock's counterpart:"
            + " the compatible mutex, locks.mutex(name, LockOptions.curatorCompatible()))";
      case CURATOR_READ:
      case CURATOR_WRITE:
        return "a node of Curator's InterProcessReadWriteLock (zklock's counterpart: the"
            + " compatible read-write lock, locks.readWriteLock(name,"
            + " LockOptions.curatorCompatible()))";
      case CURATOR_LATCH:
        return "a node of Curator's LeaderLatch (zklock's counterpart: the compatible election,"
            + " locks.leaderElection(name, id, LockOptions.curatorCompatible()))";
      case CURATOR_LEASE:
        return "a lease of Curator's InterProcessSemaphoreV2 (zklock's counterpart: the"
            + " compatible semaphore, locks.semaphore(name, permits,"
            + " LockOptions.curatorCompatible()))";
      case KAZOO_LOCK:
        return "a node of Python kazoo's Lock, WriteLock or Election, or of zklock's"
            + " kazoo-compatible mutex, write lock or election (the kazoo-compatible counterpart:"
            + " locks.mutex(name, LockOptions.kazooCompatible()), or the read-write lock or"
            + " election with the same option)";
      case KAZOO_LEASE:
        return "a lease of Python kazoo's Semaphore (zklock's counterpart: the kazoo-compatible"
            + " semaphore, locks.semaphore(name, permits, LockOptions.kazooCompatible()))";
      case KAZOO_READ:
        return "a node of Python kazoo's ReadLock (zklock's counterpart: the kazoo-compatible"
            + " read-write lock, locks.readWriteLock(name, LockOptions.kazooCompatible()))";
      case GO_LOCK:
        return "a node of Go's zookeeper client's Lock (go-zookeeper/zk), which shares a queue"
            + " with zklock's Curator-compatible mutex alone (locks.mutex(name,"
            + " LockOptions.curatorCompatible()))";
      default:
        return "a node of zklock's plain "
            + kind.label()
            + " (not in a Curator- or kazoo-compatible mode)";
    }
  }

  /** How a request of {@code kind} is called in a message: its mode and its label. */
  static String describe(NodeKind kind) {
    if (kind.kazoo()) {
      return "kazoo-compatible " + kind.label();
    }
    return kind.curator() ? "Curator-compatible " + kind.label() : "plain " + kind.label();
  }

  /**
   * The message of a refusal: the directory, what our request is, the node found and what made it,
   * and where to read more.
   */
  public static String refusal(String dir, NodeKind ours, QueueNode found) {
    if (found.kind() == NodeKind.GO_LOCK && !ours.kazoo() && !ours.curator()) {
      return "refusing to queue a "
          + describe(ours)
          + " request in "
          + dir
          + ": it holds "
          + found.name()
          + ", "
          + whatMakes(found.kind())
          + ". Go's client reads no sequence from zklock's plain names and zklock's plain"
          + " requests do not queue behind Go's, so the two do not share one queue; use the"
          + " Curator-compatible mutex on this path, see docs/interop.md";
    }
    if (ours.kazoo() || found.kind().kazoo()) {
      return "refusing to queue a "
          + describe(ours)
          + " request in "
          + dir
          + ": it holds "
          + found.name()
          + ", "
          + whatMakes(found.kind())
          + ". kazoo's clients see only kazoo's names (__lock__, __rlock__) and skip every other,"
          + " so a kazoo client and a client of the other naming would hold (or lead) at once;"
          + " use on this path the lock kind that matches the nodes already there, see"
          + " docs/interop.md";
    }
    return "refusing to queue a "
        + describe(ours)
        + " request in "
        + dir
        + ": it holds "
        + found.name()
        + ", "
        + whatMakes(found.kind())
        + ". Curator orders the nodes of different recipes apart, so the two would hold (or"
        + " lead) at once; use on this path the lock kind that matches the nodes already there,"
        + " see docs/migrating-from-curator.md, \"One recipe per path\"";
  }
}
