package io.zklock;

import java.time.Duration;
import java.util.Objects;

/**
 * How a mutex made by {@link ZkLocks#mutex(String, LockOptions)} behaves. Immutable; each setter
 * returns a new instance.
 *
 * <p>Options set exactly one {@link Mode}: plain (the default), {@link #cohort()}, {@link
 * #curatorCompatible()}, {@link #kazooCompatible()} or a {@link #lockDelay(Duration) lock-delay}.
 * The modes exclude each other, and a lock kind that does not support the mode it is given refuses
 * it when it is made, naming itself and the mode.
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
 *
 * <p>One recipe per path: Curator orders the nodes of its different recipes apart (a {@code
 * LeaderSelector}'s or {@code InterProcessMutex}'s {@code -lock-} nodes, a {@code LeaderLatch}'s
 * {@code -latch-} nodes, a read-write lock's, a semaphore's), so two of them on one path can hold
 * or lead at once. A request that finds, in the listing it reads anyway, nodes of a recipe that
 * cannot share its queue (the compatible election beside {@code -lock-} nodes, the compatible mutex
 * beside {@code -latch-} or read-write nodes, any compatible kind beside zklock's plain nodes or
 * the reverse) fails with a {@link ZkLockException} that names the path, the node found and the
 * lock kind to use instead, and deletes its node; an election reports it from {@link
 * LeaderElection#awaitLeadership} and {@link LeaderElection#leader()} and keeps trying to join with
 * back-off. This costs no request, and is a best effort: a Curator client that joins the path after
 * a zklock request holds cannot be seen (docs/migrating-from-curator.md). The waiter next in line
 * lists the directory before it holds (one read per handoff, in this mode and the kazoo-compatible
 * one), so that such a client that joined after its last listing is refused there.
 *
 * <p>The compatible mutex also shares its queue with Go's zookeeper client's {@code Lock} ({@code
 * go-zookeeper/zk}, nodes {@code _c_<guid>-lock-<sequence>}), which reads the sequence after {@code
 * lock-} as Curator does (docs/interop.md); every other kind refuses Go's nodes.
 *
 * <h2>kazoo-compatible mode</h2>
 *
 * {@link #kazooCompatible()} makes a mutex, a read-write lock or an election share one fair queue
 * with Python kazoo's {@code Lock} (and {@code WriteLock}), {@code ReadLock}/{@code WriteLock} or
 * {@code Election} on the same path, for services in Python and Java that must not run the same
 * work at once: zklock's requests create and recognise kazoo's node names ({@code
 * <id>__lock__<sequence>} for the mutex and the write side and the election, {@code
 * <id>__rlock__<sequence>} for the read side) in the lock's directory, which must be the path given
 * to kazoo's recipe (build the {@link ZkLocks} with a {@link ZkLocks.Builder#namespace(String)
 * namespace} that is a prefix of it, and name the lock by the rest). Mutual exclusion and
 * first-come order hold across both libraries, and zklock's guarantees (fencing token, loss told
 * before another grant, no orphan node, no herd) hold for zklock's clients; what kazoo's clients do
 * is kazoo's (docs/interop.md says what cannot hold for them). A lock's path must be used in this
 * mode by every zklock client or by none: kazoo skips zklock's plain names, and a request that
 * finds nodes of another naming (plain, Curator's, another library's) refuses with a {@link
 * ZkLockException} naming the node, as in the Curator-compatible mode. A directory whose sequence
 * counter nears the end of its range is refused too, since kazoo orders its sequences as text. Not
 * combinable with the other modes.
 *
 * <p>A {@link ZkLocks#semaphore(String, int, LockOptions) semaphore} in this mode shares its
 * permits with kazoo's {@code Semaphore} on the same path, in kazoo's layout: its leases are the
 * path's children (unsequenced {@code <32 hex>} nodes), its permit count the path's data as plain
 * text, and one client at a time is admitted through a kazoo {@code Lock} at the sibling path
 * {@code <path>-__lock__}, in arrival order across both libraries. A stored count other than the
 * client's, or zklock's own semaphore layout on the path, is refused, naming what was found.
 *
 * <h2>Lock-delay</h2>
 *
 * {@link #lockDelay(Duration)} sets a lock-delay, as Chubby and Consul offer it: when a grant ends
 * by <em>failure</em> (its session expired, its node was deleted by someone else, such as {@code
 * zklock release} or {@link ZkLocks#forceRelease}, or its lease ran out), the next grant waits out
 * the delay, so that the failed holder's requests still in flight reach the resource before anyone
 * else's. A grant that ends by its holder's release hands over at once, with no extra round trip.
 * Waiters tell the two apart by what ZooKeeper records: a clean release of a lock with a delay
 * writes the released node's name into the lock directory in the same {@code multi} as the node's
 * deletion. What cannot be proven clean is treated as a failure (see docs/guarantees.md).
 *
 * <p>Supported by the plain (non-cohort) {@link ZkLocks#mutex(String, LockOptions) mutex} only, and
 * never dropped silently: {@link #cohort()} or {@link #curatorCompatible()} with a delay are
 * refused when the options are built, and a read-write lock, a semaphore or an election given a
 * delay refuses it at the call; both with an {@link IllegalArgumentException}, the latter naming
 * the lock (docs/guarantees.md says why the read-write lock cannot have one). Every client of one
 * lock should use the same delay: a client with a shorter one waits only that long. The default,
 * zero, is today's behaviour: no extra request anywhere. During a delay the waiter keeps its place
 * and its node, and when the delay is over it holds on one read of its node (which proves its
 * session and node still there); a timeout, an interruption or a cancellation during the delay
 * withdraws it as any waiter, leaving no node, and a {@code tryAcquire()} finds the lock busy.
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

  /**
   * The one mode a lock runs in: the modes exclude each other, so options hold exactly one. Each
   * lock kind supports some of them, and refuses the others when it is made, naming itself and the
   * mode ({@link IllegalArgumentException}).
   */
  public enum Mode {
    /** One node per request, zklock's own node names: the default. */
    PLAIN,
    /** Requests of one {@link ZkLocks} share one node: {@link LockOptions#cohort()}. */
    COHORT,
    /** One queue with Apache Curator's recipe: {@link LockOptions#curatorCompatible()}. */
    CURATOR_COMPATIBLE,
    /** One queue with Python kazoo's recipe: {@link LockOptions#kazooCompatible()}. */
    KAZOO_COMPATIBLE,
    /** A plain lock whose grant after a failure waits: {@link LockOptions#lockDelay(Duration)}. */
    LOCK_DELAY
  }

  private static final LockOptions DEFAULTS =
      new LockOptions(
          Mode.PLAIN, DEFAULT_MAX_LOCAL_HANDOFFS, DEFAULT_MAX_LOCAL_HOLD, Duration.ZERO);

  private final Mode mode;
  private final int maxLocalHandoffs;
  private final Duration maxLocalHold;
  private final Duration lockDelay; // not zero in LOCK_DELAY mode only

  private LockOptions(Mode mode, int maxLocalHandoffs, Duration maxLocalHold, Duration lockDelay) {
    this.mode = mode;
    this.maxLocalHandoffs = maxLocalHandoffs;
    this.maxLocalHold = maxLocalHold;
    this.lockDelay = lockDelay;
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
    return new LockOptions(
        Mode.COHORT, DEFAULT_MAX_LOCAL_HANDOFFS, DEFAULT_MAX_LOCAL_HOLD, Duration.ZERO);
  }

  /**
   * A lock that shares one queue with Apache Curator's recipe on the same path: see the class
   * documentation. Requests are not cohorted; the local-handoff bounds do not apply.
   */
  public static LockOptions curatorCompatible() {
    return new LockOptions(
        Mode.CURATOR_COMPATIBLE, DEFAULT_MAX_LOCAL_HANDOFFS, DEFAULT_MAX_LOCAL_HOLD, Duration.ZERO);
  }

  /**
   * A lock that shares one queue with Python kazoo's recipe on the same path: see the class
   * documentation. Supported by the mutex, the read-write lock, the semaphore and the election.
   * Requests are not cohorted; the local-handoff bounds do not apply.
   */
  public static LockOptions kazooCompatible() {
    return new LockOptions(
        Mode.KAZOO_COMPATIBLE, DEFAULT_MAX_LOCAL_HANDOFFS, DEFAULT_MAX_LOCAL_HOLD, Duration.ZERO);
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
    return new LockOptions(mode, k, maxLocalHold, lockDelay);
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
    return new LockOptions(mode, maxLocalHandoffs, t, lockDelay);
  }

  /**
   * After a grant of this lock ends by failure, the next grant waits this long (see the class
   * documentation); after a clean release, no wait. Zero (the default) turns it off.
   *
   * @param d not negative, at most a day
   * @throws IllegalArgumentException if {@code d} is null, negative, longer than a day, or set on a
   *     {@link #cohort()} or {@link #curatorCompatible()} lock (they do not support a lock-delay)
   */
  public LockOptions lockDelay(Duration d) {
    Objects.requireNonNull(d, "lockDelay");
    if (d.isNegative()) {
      throw new IllegalArgumentException("lockDelay must not be negative: " + d);
    }
    if (d.compareTo(Duration.ofDays(1)) > 0) {
      throw new IllegalArgumentException("lockDelay must be at most a day: " + d);
    }
    if (mode != Mode.PLAIN && mode != Mode.LOCK_DELAY && !d.isZero()) {
      throw new IllegalArgumentException(
          "a lock-delay is supported by the plain mutex only, not by a "
              + (mode == Mode.COHORT
                  ? "cohort"
                  : mode == Mode.KAZOO_COMPATIBLE ? "kazoo-compatible" : "curator-compatible")
              + " lock: "
              + d);
    }
    return new LockOptions(
        d.isZero() ? Mode.PLAIN : Mode.LOCK_DELAY, maxLocalHandoffs, maxLocalHold, d);
  }

  /** The mode these options set: exactly one. */
  public Mode mode() {
    return mode;
  }

  /** The lock-delay after a failed grant; zero when none. */
  public Duration lockDelay() {
    return lockDelay;
  }

  /** Whether requests of one {@link ZkLocks} share one node. */
  public boolean isCohort() {
    return mode == Mode.COHORT;
  }

  /** Whether the lock shares one queue with Curator's recipe on its path. */
  public boolean isCuratorCompatible() {
    return mode == Mode.CURATOR_COMPATIBLE;
  }

  /** Whether the lock shares one queue with kazoo's recipe on its path. */
  public boolean isKazooCompatible() {
    return mode == Mode.KAZOO_COMPATIBLE;
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
        && mode == other.mode
        && maxLocalHandoffs == other.maxLocalHandoffs
        && maxLocalHold.equals(other.maxLocalHold)
        && lockDelay.equals(other.lockDelay);
  }

  @Override
  public int hashCode() {
    return Objects.hash(mode, maxLocalHandoffs, maxLocalHold, lockDelay);
  }

  @Override
  public String toString() {
    switch (mode) {
      case CURATOR_COMPATIBLE:
        return "LockOptions[curator-compatible]";
      case KAZOO_COMPATIBLE:
        return "LockOptions[kazoo-compatible]";
      case COHORT:
        return "LockOptions[cohort, maxLocalHandoffs="
            + maxLocalHandoffs
            + ", maxLocalHold="
            + maxLocalHold
            + "]";
      case LOCK_DELAY:
        return "LockOptions[plain, lockDelay=" + lockDelay + "]";
      default:
        return "LockOptions[plain]";
    }
  }
}
