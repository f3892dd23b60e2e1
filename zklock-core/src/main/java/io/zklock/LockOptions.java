package io.zklock;

import java.time.Duration;
import java.util.Objects;

/**
 * How a mutex made by {@link ZkLocks#mutex(String, LockOptions)} behaves. Immutable; each setter
 * returns a new instance.
 *
 * <h2>Cohort locking</h2>
 *
 * {@link #cohort()} makes the requests of one {@link ZkLocks} on one lock share a single lock node
 * (lock cohorting, Dice, Marathe and Shavit, PPoPP 2012): the first request queues a node; while
 * the node is held, the requests of every thread and every {@code acquireAsync()} of that {@code
 * ZkLocks} on that lock wait in memory, in arrival order, and each release hands the lock to the
 * next one of them without any ZooKeeper request. When no local request waits, the release deletes
 * the node as usual.
 *
 * <p>So that other processes are not starved, the cohort gives its node back to the queue, and its
 * remaining local requests queue again with a new node, once a request of another client waits
 * behind it and either {@link #maxLocalHandoffs(int) K} local handoffs were made on the node or the
 * node has been held for {@link #maxLocalHold(Duration) T}. The cohort learns of a waiter behind it
 * with one child watch on the lock directory, set after each grant of a node, off the path of every
 * handoff. A remote waiter therefore waits at most for K local holds (or T, plus the one hold that
 * is running when T passes) and one handoff through ZooKeeper.
 *
 * <p>What stays the same: at most one holder across every process; a local holder's {@link
 * LockHandle#lost()} completes when the shared node is lost while it holds; local waiters queue
 * again when the node is lost, and their deadlines still apply; a waiter that times out, is
 * interrupted or cancelled leaves nothing behind. What changes: {@link LockHandle#release()}
 * returns at once when it hands the lock to a local waiter (there is nothing to delete), and the
 * {@link LockHandle#fencingToken() fencing token} is {@code (czxid << 16) | k}, the node's creation
 * zxid and the handoff's number {@code k} on that node (0 for the first holder): still strictly
 * increasing across holders, but not comparable with the tokens of a plain mutex of the same name.
 * A lock's name must therefore be used in cohort mode by every client or by none; cohort nodes are
 * named {@code c-...} so that {@code zklock ls} tells them apart. See docs/guarantees.md.
 *
 * <h2>Curator-compatible mode</h2>
 *
 * {@link #curatorCompatible()} makes a mutex or a read-write lock share one fair queue with Apache
 * Curator's {@code InterProcessMutex} or {@code InterProcessReadWriteLock} on the same path, for a
 * rolling migration: zklock's requests create and recognise Curator's node names ({@code
 * _c_<uuid>-lock-<sequence>}, {@code _c_<uuid>-__READ__<sequence>}, {@code
 * _c_<uuid>-__WRIT__<sequence>}) in the lock's directory, which must be the path given to Curator's
 * recipe (build the {@link ZkLocks} with {@link ZkLocks.Builder#namespace(String) namespace} {@code
 * "/"}, or Curator's namespace, and name the lock by the rest of the path). Mutual exclusion and
 * first-come order hold across both libraries, and zklock's guarantees (fencing token, loss told
 * before another grant, no orphan node, no herd) hold for zklock's clients; what Curator's clients
 * do is Curator's (docs/migrating-from-curator.md says what cannot hold for them). A lock's path
 * must be used in this mode by every zklock client or by none. Not combinable with {@link
 * #cohort()}.
 */
public final class LockOptions {
  /**
   * Default {@link #maxLocalHandoffs(int)}: 16 local handoffs per node while someone waits. With
   * short critical sections, 16 local holds take about as long as one handoff through ZooKeeper, so
   * a remote waiter waits about two handoffs' time, while each ZooKeeper handoff is shared by 17
   * grants (measured in docs/benchmarks.md: 7.9x the plain mutex's rate with 4 clients x 8 threads;
   * K = 4 gave 2.1x, K = 64 12.8x for 2.5x the remote wait).
   */
  public static final int DEFAULT_MAX_LOCAL_HANDOFFS = 16;

  /**
   * Default {@link #maxLocalHold(Duration)}: 10 ms of holding one node while someone waits, which
   * caps the same unfairness when critical sections are long (about one handoff through ZooKeeper
   * at a 1 ms round trip, plus margin).
   */
  public static final Duration DEFAULT_MAX_LOCAL_HOLD = Duration.ofMillis(10);

  /**
   * The largest {@link #maxLocalHandoffs(int)}: the handoff's number must fit the token's low 16
   * bits.
   */
  public static final int MAX_LOCAL_HANDOFFS_LIMIT = (1 << 16) - 1;

  private static final LockOptions DEFAULTS =
      new LockOptions(false, DEFAULT_MAX_LOCAL_HANDOFFS, DEFAULT_MAX_LOCAL_HOLD, false);

  private final boolean cohort;
  private final int maxLocalHandoffs;
  private final Duration maxLocalHold;
  private final boolean curatorCompatible;

  private LockOptions(
      boolean cohort, int maxLocalHandoffs, Duration maxLocalHold, boolean curatorCompatible) {
    this.cohort = cohort;
    this.maxLocalHandoffs = maxLocalHandoffs;
    this.maxLocalHold = maxLocalHold;
    this.curatorCompatible = curatorCompatible;
  }

  /** A plain mutex: one node per request, as {@link ZkLocks#mutex(String)}. */
  public static LockOptions defaults() {
    return DEFAULTS;
  }

  /**
   * A cohort mutex with the default bounds ({@value #DEFAULT_MAX_LOCAL_HANDOFFS} handoffs, 10 ms):
   * see the class documentation.
   */
  public static LockOptions cohort() {
    return new LockOptions(true, DEFAULT_MAX_LOCAL_HANDOFFS, DEFAULT_MAX_LOCAL_HOLD, false);
  }

  /**
   * A lock that shares one queue with Apache Curator's recipe on the same path: see the class
   * documentation. Requests are not cohorted; the local-handoff bounds do not apply.
   */
  public static LockOptions curatorCompatible() {
    return new LockOptions(false, DEFAULT_MAX_LOCAL_HANDOFFS, DEFAULT_MAX_LOCAL_HOLD, true);
  }

  /**
   * At most this many local handoffs on one node once a request of another client waits behind it
   * (then the node is given back). Only meaningful with {@link #cohort()}.
   *
   * @param k at least 0 (0: give the node back at the first release after a remote waiter is seen),
   *     at most {@value #MAX_LOCAL_HANDOFFS_LIMIT}
   * @throws IllegalArgumentException if {@code k} is out of range
   */
  public LockOptions maxLocalHandoffs(int k) {
    if (k < 0 || k > MAX_LOCAL_HANDOFFS_LIMIT) {
      throw new IllegalArgumentException(
          "maxLocalHandoffs must be in 0.." + MAX_LOCAL_HANDOFFS_LIMIT + ": " + k);
    }
    return new LockOptions(cohort, k, maxLocalHold, curatorCompatible);
  }

  /**
   * At most this long of continuous holding of one node, counted from its grant, once a request of
   * another client waits behind it: the first release after that gives the node back. A running
   * holder is never interrupted; the bound is checked at each release. Only meaningful with {@link
   * #cohort()}.
   *
   * @param t not negative (zero: give the node back at the first release after a remote waiter is
   *     seen)
   * @throws IllegalArgumentException if {@code t} is null, negative or too large in nanoseconds
   */
  public LockOptions maxLocalHold(Duration t) {
    Objects.requireNonNull(t, "maxLocalHold");
    if (t.isNegative()) {
      throw new IllegalArgumentException("maxLocalHold must not be negative: " + t);
    }
    try {
      t.toNanos();
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("maxLocalHold too large: " + t, e);
    }
    return new LockOptions(cohort, maxLocalHandoffs, t, curatorCompatible);
  }

  /** Whether requests of one {@link ZkLocks} share one node. */
  public boolean isCohort() {
    return cohort;
  }

  /** Whether the lock shares one queue with Curator's recipe on its path. */
  public boolean isCuratorCompatible() {
    return curatorCompatible;
  }

  /** The bound K on local handoffs per node while another client waits. */
  public int maxLocalHandoffs() {
    return maxLocalHandoffs;
  }

  /** The bound T on holding one node while another client waits. */
  public Duration maxLocalHold() {
    return maxLocalHold;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LockOptions other
        && cohort == other.cohort
        && maxLocalHandoffs == other.maxLocalHandoffs
        && maxLocalHold.equals(other.maxLocalHold)
        && curatorCompatible == other.curatorCompatible;
  }

  @Override
  public int hashCode() {
    return Objects.hash(cohort, maxLocalHandoffs, maxLocalHold, curatorCompatible);
  }

  @Override
  public String toString() {
    if (curatorCompatible) {
      return "LockOptions[curator-compatible]";
    }
    return cohort
        ? "LockOptions[cohort, maxLocalHandoffs="
            + maxLocalHandoffs
            + ", maxLocalHold="
            + maxLocalHold
            + "]"
        : "LockOptions[plain]";
  }
}
