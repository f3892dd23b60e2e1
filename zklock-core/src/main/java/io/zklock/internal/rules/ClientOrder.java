package io.zklock.internal.rules;

import java.util.Collection;

/**
 * How each client of one lock path orders the others' nodes: zklock in each of its modes, and the
 * mutexes of the libraries zklock may meet there. A pure rule, as each library's source has it;
 * {@link KindMix} and {@link ForeignNode} are zklock's side of it, and {@code
 * ClientOrderPropertiesTest} checks every entry against the libraries' own algorithms, written out.
 *
 * <p>Each client names its nodes its own way and, after creating its node, lists the directory and
 * decides on what it reads of the other names:
 *
 * <ul>
 *   <li>zklock's plain mode: {@code m-<id>-<seq>} (and {@code r-}, {@code w-}, {@code e-}, ...);
 *       Curator-compatible mode: {@code _c_<uuid>-lock-<seq>}; kazoo-compatible mode: {@code <32
 *       hex>__lock__<seq>}. A zklock request queues by sequence behind the nodes of its own family
 *       ({@link KindMix}) and refuses any other lock node it finds ({@link #view}: {@link
 *       View#REFUSES}).
 *   <li>Curator's {@code InterProcessMutex}: {@code _c_<uuid>-lock-<seq>}; sorts every child by the
 *       text after its last {@code lock-}, or by its whole name when it has none, which then sorts
 *       after every ten-digit sequence: such a node is behind Curator's, whatever its age.
 *   <li>kazoo's {@code Lock}: {@code <32 hex>__lock__<seq>}; keeps the children matching {@code
 *       (?:__lock__)(-?\d{10})$} and skips the rest. With {@code extra_lock_patterns=["-lock-"]}
 *       the pattern also matches Curator's and Go's names (and zklock's Curator-compatible ones).
 *   <li>Go's {@code Lock} ({@code go-zookeeper/zk}): {@code _c_<32 hex>-lock-<seq>}; reads each
 *       child's sequence after its last {@code lock-} or, if it has none, after its last {@code __}
 *       ({@link #goSequence}), waits for the largest sequence below its own, and holds when its own
 *       is the lowest ({@link #go}). A child whose sequence it cannot read makes its {@code Lock}
 *       return an error ({@link View#FAILS}), leaving its node behind until its session ends.
 * </ul>
 *
 * <p>Every one of them that reads a node's sequence reads the same number, and orders by it (as
 * text or as a number: the same order for ten-digit sequences away from the counter's end). So what
 * decides whether two clients may share a path is only whether each reads the other's names: {@link
 * #view}, and from it {@link #mix}. Two clients whose views are both {@link View#WAITS} share one
 * fair queue; two whose views are each {@link View#WAITS}, {@link View#REFUSES} or {@link
 * View#FAILS} never hold at once, but do not share a queue (one side's requests fail); a client
 * whose view of another is {@link View#IGNORES} holds beside it.
 */
public final class ClientOrder {
  private ClientOrder() {}

  /** The clients of a lock path. */
  public enum Client {
    /** zklock's mutex with no compatible mode. */
    ZKLOCK_PLAIN("zklock (plain)"),
    /** zklock's mutex with {@code LockOptions.curatorCompatible()}. */
    ZKLOCK_CURATOR("zklock, LockOptions.curatorCompatible()"),
    /** zklock's mutex with {@code LockOptions.kazooCompatible()}. */
    ZKLOCK_KAZOO("zklock, LockOptions.kazooCompatible()"),
    /** Curator's {@code InterProcessMutex}. */
    CURATOR_MUTEX("Curator's InterProcessMutex"),
    /** kazoo's {@code Lock} (or {@code WriteLock}), as made by default. */
    KAZOO_LOCK("kazoo's Lock"),
    /** kazoo's {@code Lock} made with {@code extra_lock_patterns=["-lock-"]}. */
    KAZOO_LOCK_EXTRA("kazoo's Lock with extra_lock_patterns=[\"-lock-\"]"),
    /** Go's zookeeper client's {@code Lock} ({@code go-zookeeper/zk}). */
    GO_LOCK("Go's zookeeper client's Lock");

    private final String words;

    Client(String words) {
      this.words = words;
    }

    /** The client, in words. */
    public String words() {
      return words;
    }
  }

  /** What a client's request does about a node of another client queued before its own. */
  public enum View {
    /** Reads its sequence, and waits for it: it does not hold while that node stands. */
    WAITS,
    /** Skips it, or sorts it behind its own node: it may hold while that node holds. */
    IGNORES,
    /** zklock refuses to queue beside it: the request fails, and its node is deleted. */
    REFUSES,
    /** Go's {@code Lock} cannot read a sequence from it and returns an error. */
    FAILS
  }

  private static final View W = View.WAITS;
  private static final View I = View.IGNORES;
  private static final View R = View.REFUSES;
  private static final View F = View.FAILS;

  /**
   * {@code VIEW[later][earlier]}, in the order of {@link Client}: ZKLOCK_PLAIN, ZKLOCK_CURATOR,
   * ZKLOCK_KAZOO, CURATOR_MUTEX, KAZOO_LOCK, KAZOO_LOCK_EXTRA, GO_LOCK. zklock's Curator-compatible
   * nodes are named as Curator's, its kazoo-compatible ones as kazoo's: the columns of those pairs
   * are alike.
   */
  private static final View[][] VIEW = {
    /* ZKLOCK_PLAIN     */ {W, R, R, R, R, R, R},
    /* ZKLOCK_CURATOR   */ {R, W, R, W, R, R, W},
    /* ZKLOCK_KAZOO     */ {R, R, W, R, W, W, R},
    /* CURATOR_MUTEX    */ {I, W, I, W, I, I, W},
    /* KAZOO_LOCK       */ {I, I, W, I, W, W, I},
    /* KAZOO_LOCK_EXTRA */ {I, W, W, W, W, W, W},
    /* GO_LOCK          */ {F, W, W, W, W, W, W},
  };

  /**
   * What a request of {@code later} does about a node of {@code earlier} queued before its own:
   * zklock refuses every family but its mode's ({@link KindMix}); Curator's mutex and kazoo's lock
   * skip (or sort behind their own) every name they do not read; Go's lock fails on a name it reads
   * no sequence from, zklock's plain names among them.
   *
   * <p>One exception, of zklock's plain names: an attempt id that ended in {@code lock} (or {@code
   * latch}) would give Curator's and Go's clients a sequence to read in it, and so a view of that
   * one node unlike the others'; zklock's ids never do ({@link RandomIds#attemptId()}).
   */
  public static View view(Client later, Client earlier) {
    return VIEW[later.ordinal()][earlier.ordinal()];
  }

  /** Whether clients {@code a} and {@code b} may use one path. */
  public enum Mix {
    /** One fair queue: each waits for the other's earlier nodes. */
    SHARED,
    /**
     * Never two holders, but no shared queue either: one side refuses or fails where it meets the
     * other's nodes.
     */
    APART,
    /**
     * One side ignores the other's nodes and holds beside them: whatever zklock refuses, the other
     * client may hold beside a zklock holder. zklock refuses the mix where it sees it.
     */
    UNSAFE
  }

  /** {@link Mix} of two clients from their {@link #view}s of each other. Symmetric. */
  public static Mix mix(Client a, Client b) {
    View ab = view(a, b);
    View ba = view(b, a);
    if (ab == View.IGNORES || ba == View.IGNORES) {
      return Mix.UNSAFE;
    }
    return ab == View.WAITS && ba == View.WAITS ? Mix.SHARED : Mix.APART;
  }

  /**
   * Whether zklock's requests of {@code mode} see the nodes of {@code a} and {@code b} alike: when
   * they do for every pair of clients {@code mode} shares a queue with, a client that holds beside
   * one zklock node of the queue holds beside every one (see docs/interop.md, the next waiter's
   * grant).
   */
  public static boolean seenAlike(Client viewer, Client a, Client b) {
    return (view(viewer, a) == View.IGNORES) == (view(viewer, b) == View.IGNORES);
  }

  // ---------------------------------------------------------------- Go's client

  /** Returned by {@link #goSequence} for a name Go's client reads no sequence from. */
  public static final long NO_SEQUENCE = Long.MIN_VALUE;

  /**
   * Go's {@code parseSeq}: the text after the last {@code lock-} or, if there is none, after the
   * last {@code __} (the whole name if neither), read by {@code strconv.Atoi} (an optional sign and
   * ASCII digits, in a 64-bit int); {@link #NO_SEQUENCE} where {@code Atoi} fails.
   */
  public static long goSequence(String name) {
    String last = lastPart(name, "lock-");
    if (last == null) {
      last = lastPart(name, "__");
    }
    if (last == null) {
      last = name;
    }
    return atoi(last);
  }

  /**
   * Go's {@code strings.Split(s, sep)[len-1]} when the split gives more than one part; else null.
   */
  private static String lastPart(String s, String sep) {
    int at = s.lastIndexOf(sep);
    return at < 0 ? null : s.substring(at + sep.length());
  }

  private static long atoi(String s) {
    int i = 0;
    if (!s.isEmpty() && (s.charAt(0) == '+' || s.charAt(0) == '-')) {
      i = 1;
    }
    if (i == s.length()) {
      return NO_SEQUENCE;
    }
    for (int j = i; j < s.length(); j++) {
      if (s.charAt(j) < '0' || s.charAt(j) > '9') {
        return NO_SEQUENCE;
      }
    }
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      return NO_SEQUENCE; // beyond 64 bits: Atoi's range error
    }
  }

  /**
   * What Go's {@code Lock} decides on a listing: it holds, waits for {@code waitFor}, or fails on
   * {@code failsOn} (a name it reads no sequence from: its {@code Lock} returns the error).
   */
  public record GoDecision(boolean holds, String waitFor, String failsOn) {}

  /**
   * Go's {@code LockWithData} on one listing of {@code children}, for its node {@code own}: fails
   * on the first child whose sequence it cannot read, holds if its own sequence is the lowest, else
   * waits for the child with the largest sequence below its own (and lists again when that one
   * changes or goes: it never holds without a listing).
   */
  public static GoDecision go(Collection<String> children, String own) {
    long seq = goSequence(own);
    long lowest = seq;
    long prev = -1;
    String prevName = "";
    for (String child : children) {
      long s = goSequence(child);
      if (s == NO_SEQUENCE || seq == NO_SEQUENCE) {
        return new GoDecision(false, null, s == NO_SEQUENCE ? child : own);
      }
      if (s < lowest) {
        lowest = s;
      }
      if (s < seq && s > prev) {
        prev = s;
        prevName = child;
      }
    }
    return seq == lowest ? new GoDecision(true, null, null) : new GoDecision(false, prevName, null);
  }
}
