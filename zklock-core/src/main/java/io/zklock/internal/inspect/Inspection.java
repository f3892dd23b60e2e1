package io.zklock.internal.inspect;

import io.zklock.LockInfo;
import io.zklock.LockNode;
import io.zklock.internal.rules.ClientOrder;
import io.zklock.internal.rules.ForeignNode;
import io.zklock.internal.rules.GrantWindow;
import io.zklock.internal.rules.KindMix;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.Ordering;
import io.zklock.internal.rules.QueueNode;
import io.zklock.internal.rules.StoredNumber;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Who holds and who waits, decided from what was read of a lock directory: a pure function, the
 * same {@link Ordering} rules the requests themselves follow. {@link Inspector} does the reading.
 */
public final class Inspection {
  private Inspection() {}

  /** The field a semaphore lease's data names its request's admission node with. */
  public static final String ADMISSION_FIELD = "admission";

  /** The field of a semaphore's permit count, in the semaphore directory's and leases' data. */
  public static final String PERMITS_FIELD = "permits";

  /** The field of the owner's payload ({@code ZkLocks.Builder#ownerData}). */
  public static final String OWNER_FIELD = "owner";

  /** The field a release request adds to a holder's data ({@code ZkLocks#requestRelease}). */
  public static final String RELEASE_FIELD = "releaseRequestedBy";

  /**
   * One node as read: its name and path, its stat's creation zxid and time, ephemeral owner and
   * data version, and its data's fields.
   */
  public record Read(
      String name,
      String path,
      long czxid,
      long ctimeMillis,
      long ephemeralOwner,
      int version,
      Map<String, String> data) {}

  /**
   * What was read of one lock directory.
   *
   * @param name the lock's name
   * @param dir the lock's directory
   * @param dirData the directory's data fields (a semaphore stores its permits there)
   * @param nodes the directory's lock nodes: queue nodes and the simple lock's node
   * @param semaphore whether the directory is a semaphore's
   * @param leases a semaphore's lease nodes
   * @param admission a semaphore's admission queue nodes
   */
  public record Dir(
      String name,
      String dir,
      Map<String, String> dirData,
      List<Read> nodes,
      boolean semaphore,
      List<Read> leases,
      List<Read> admission,
      Listing nodesListing,
      Listing leasesListing) {

    /** What was read, without the listings: no grant is bounded but a simple lock's. */
    public Dir(
        String name,
        String dir,
        Map<String, String> dirData,
        List<Read> nodes,
        boolean semaphore,
        List<Read> leases,
        List<Read> admission) {
      this(
          name,
          dir,
          dirData,
          nodes,
          semaphore,
          leases,
          admission,
          Listing.UNKNOWN,
          Listing.UNKNOWN);
    }
  }

  /**
   * One listing of a directory: its {@code pzxid} (the transaction of its last child change), its
   * own {@code czxid} and the names listed, for {@link GrantWindow}.
   *
   * @param known whether the listing was read ({@link #UNKNOWN} otherwise)
   */
  public record Listing(boolean known, long pzxid, long dirCzxid, List<String> names) {
    /** No listing. */
    public static final Listing UNKNOWN = new Listing(false, 0L, 0L, List.of());

    public Listing {
      names = List.copyOf(names);
    }

    /** A listing read with its stat. */
    public static Listing of(long pzxid, long dirCzxid, List<String> names) {
      return new Listing(true, pzxid, dirCzxid, names);
    }
  }

  /** Decides who holds and who waits; empty if nobody does. */
  public static Optional<LockInfo> decide(Dir d) {
    List<LockNode> holders = new ArrayList<>();
    List<LockNode> waiters = new ArrayList<>();
    int permits = 0;
    LockInfo.Kind kind;
    String mix; // the recipes its directory (or one of a semaphore's two) mixes, or null
    String foreign; // the libraries of other programs' lock nodes found there, or null
    if (d.semaphore()) {
      kind = LockInfo.Kind.SEMAPHORE;
      int stored = StoredNumber.positive(d.dirData().get(PERMITS_FIELD));
      permits = stored;
      // zklock's leases, or a Curator-compatible semaphore's (its own and Curator's clients')
      List<Read> leases = queueOrder(d.leases(), null);
      List<Read> admission = queueOrder(d.admission(), null);
      NodeKind leaseKind =
          leases.stream().anyMatch(r -> QueueNode.parse(r.name()).kind().curator())
                  || admission.stream().anyMatch(r -> QueueNode.parse(r.name()).kind().curator())
              ? NodeKind.CURATOR_LEASE
              : NodeKind.SEMAPHORE;
      List<QueueNode> q = nodesOf(leases);
      // the leases of one request share its admission node: several for a request of several
      // permits, which holds only when all of them do (Ordering.leaseRequest)
      Map<String, List<Integer>> byRequest = new HashMap<>();
      for (int i = 0; i < leases.size(); i++) {
        String a = leases.get(i).data().get(ADMISSION_FIELD);
        if (a != null) {
          byRequest.computeIfAbsent(a, k -> new ArrayList<>()).add(i);
        }
      }
      for (int i = 0; i < leases.size(); i++) {
        Read r = leases.get(i);
        int p = StoredNumber.positive(r.data().get(PERMITS_FIELD));
        if (p == 0) {
          p = stored > 0 ? stored : 1;
        }
        if (permits == 0) {
          permits = p;
        }
        List<Integer> request = byRequest.getOrDefault(r.data().get(ADMISSION_FIELD), List.of(i));
        int[] indexes = request.stream().mapToInt(Integer::intValue).toArray();
        boolean holds = Ordering.leaseRequest(p, q, indexes) instanceof Ordering.Hold;
        if (holds) {
          // a request of several permits holds once all its leases do: after the last one's grant
          Optional<LockNode.Grant> g = Optional.empty();
          for (int k : indexes) {
            g = later(g, grantOf(leases.get(k), d.leasesListing(), leases));
          }
          holders.add(node(r, leaseKind, LockNode.State.HOLDING, g));
        } else {
          waiters.add(node(r, leaseKind, LockNode.State.ADMITTED)); // only admitted requests lease
        }
      }
      // two directories: the leases, and the admission queue (a Curator-compatible semaphore's is
      // a Curator mutex's), each read for a mix of its own
      String leasesMix = KindMix.mixOf(kindsOf(leases));
      mix = leasesMix != null ? leasesMix : KindMix.mixOf(kindsOf(admission));
      // a request is shown once: an admission node whose request has leased already is that
      // request's lease, whichever library made it (zklock's leases name their admission node)
      Set<String> leased = new java.util.HashSet<>(byRequest.keySet());
      leased.addAll(admittedByCurator(leases, admission));
      boolean head = true; // the first admission node is the admitted one: the queue is exclusive
      for (Read r : admission) {
        if (!leased.contains(r.name())) {
          waiters.add(node(r, leaseKind, head ? LockNode.State.ADMITTED : LockNode.State.QUEUED));
        }
        head = false;
      }
      List<Read> others = new ArrayList<>(foreignOf(d.leases()));
      others.addAll(foreignOf(d.admission()));
      foreign = addForeign(others, holders, waiters);
    } else {
      Read simple = null;
      List<Read> queued = new ArrayList<>();
      for (Read r : d.nodes()) {
        if (r.name().equals(NodeKind.SIMPLE_NODE)) {
          simple = r;
        } else if (QueueNode.parse(r.name()) != null) {
          queued.add(r);
        }
      }
      List<Read> queue = queueOrder(queued, null);
      List<QueueNode> q = nodesOf(queue);
      List<NodeKind> kinds = new ArrayList<>(); // for a mix of recipes
      kind = simple != null ? LockInfo.Kind.SIMPLE : null;
      if (simple != null) {
        // created holding: its grant is its creation
        holders.add(
            node(
                simple,
                NodeKind.SIMPLE,
                LockNode.State.HOLDING,
                Optional.of(LockNode.Grant.exactly(Instant.ofEpochMilli(simple.ctimeMillis())))));
        kinds.add(NodeKind.SIMPLE);
      }
      // kazoo's clients see only kazoo's names: in a directory that mixes them with others, a
      // kazoo node holds or waits as kazoo decides among kazoo's nodes alone
      List<QueueNode> kazooOnly = q.stream().filter(n -> n.kind().kazoo()).toList();
      List<String> names = d.nodes().stream().map(Read::name).toList();
      boolean kazooApart = !kazooOnly.isEmpty() && kazooOnly.size() < q.size();
      for (int i = 0; i < queue.size(); i++) {
        NodeKind k = q.get(i).kind();
        kinds.add(k);
        kind = stronger(kind, k);
        boolean holds;
        if (k == NodeKind.GO_LOCK) {
          // Go's client decides on every name of the directory it reads a sequence from (kazoo's
          // and Curator's among them), and fails on any other
          holds = ClientOrder.go(names, q.get(i).name()).holds();
        } else if (kazooApart && k.kazoo()) {
          holds =
              Ordering.forKind(k).decide(kazooOnly, kazooOnly.indexOf(q.get(i)))
                  instanceof Ordering.Hold;
        } else if (k == NodeKind.SEMAPHORE || k == NodeKind.CURATOR_LEASE) {
          // a semaphore's leases directory, inspected by its path
          int p = StoredNumber.positive(queue.get(i).data().get(PERMITS_FIELD));
          holds = Ordering.lease(p > 0 ? p : 1).decide(q, i) instanceof Ordering.Hold;
          permits = Math.max(permits, p);
        } else {
          holds = Ordering.forKind(k).decide(q, i) instanceof Ordering.Hold;
        }
        if (holds) {
          holders.add(
              node(
                  queue.get(i),
                  k,
                  LockNode.State.HOLDING,
                  grantOf(queue.get(i), d.nodesListing(), queue)));
        } else {
          waiters.add(node(queue.get(i), k, LockNode.State.QUEUED));
        }
      }
      mix = KindMix.mixOf(kinds);
      List<Read> others = foreignOf(d.nodes());
      foreign = addForeign(others, holders, waiters);
      if (foreign != null) {
        kind = stronger(kind, NodeKind.MUTEX);
        // one queue in creation order, whichever library made each node
        holders.sort(Comparator.comparingLong(LockNode::fencingToken));
        waiters.sort(Comparator.comparingLong(LockNode::fencingToken));
      }
    }
    if (holders.isEmpty() && waiters.isEmpty()) {
      return Optional.empty();
    }
    // recipes that order a directory differently: who holds is as zklock's rules decide, which
    // the other recipe's clients do not follow (KindMix); another library's nodes: as its own
    // rules likely decide, among its own nodes (ForeignNode)
    Map<String, String> state = new java.util.TreeMap<>();
    if (mix != null) {
      state.put(KindMix.MIX_FIELD, mix);
    }
    if (foreign != null) {
      state.put(FOREIGN_FIELD, foreign);
    }
    return Optional.of(new LockInfo(d.name(), d.dir(), kind, permits, holders, waiters, state));
  }

  /**
   * Decides a kazoo-compatible semaphore ({@link io.zklock.internal.rules.KazooSemaphore}): every
   * lease in its directory holds (kazoo's admitted client creates one only while a permit is free);
   * the admission queue at {@code <dir>-__lock__} waits, its head admitted. A kazoo client's nodes
   * show the client {@value #KAZOO_CLIENT} and its identifier as owner data; a zklock request that
   * holds leases is not shown again as admitted (its leases name its admission node).
   *
   * @param permits the count stored as the directory's data
   * @param leases the directory's children, read
   * @param admission the admission queue's nodes, read
   */
  public static Optional<LockInfo> decideKazooSemaphore(
      String name, String dir, int permits, List<Read> leases, List<Read> admission) {
    List<LockNode> holders = new ArrayList<>();
    List<LockNode> waiters = new ArrayList<>();
    Set<String> leased = new java.util.HashSet<>();
    List<Read> byToken = new ArrayList<>(leases);
    byToken.sort(Comparator.comparingLong(Read::czxid));
    for (Read r : byToken) {
      holders.add(node(asKazoos(r), NodeKind.KAZOO_LEASE, LockNode.State.HOLDING));
      String a = r.data().get(ADMISSION_FIELD);
      if (a != null) {
        leased.add(a);
      }
    }
    boolean head = true;
    for (Read r : queueOrder(admission, NodeKind.KAZOO_LOCK)) {
      if (!leased.contains(r.name())) {
        waiters.add(
            node(
                asKazoos(r),
                NodeKind.KAZOO_LEASE,
                head ? LockNode.State.ADMITTED : LockNode.State.QUEUED));
      }
      head = false;
    }
    if (holders.isEmpty() && waiters.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        new LockInfo(name, dir, LockInfo.Kind.SEMAPHORE, permits, holders, waiters, Map.of()));
  }

  /** A node without data is a kazoo client's too (an identifier of {@code ""}, kazoo's default). */
  private static Read asKazoos(Read r) {
    if (!r.data().isEmpty()) {
      return r;
    }
    return new Read(
        r.name(),
        r.path(),
        r.czxid(),
        r.ctimeMillis(),
        r.ephemeralOwner(),
        r.version(),
        Map.of(Inspector.CURATOR_FIELD, ""));
  }

  /**
   * The admission nodes of {@code admission} whose request has a lease in {@code leases}, matched
   * for Curator's leases, which do not name their admission node: Curator's client takes one lease
   * per turn of the admission mutex, creating it while it holds that mutex, so a Curator lease's
   * admission node is the latest node of the same session created before the lease. A client that
   * holds a lease from an earlier turn and queues again has an admission node created after that
   * lease, which stays a request of its own.
   */
  static Set<String> admittedByCurator(List<Read> leases, List<Read> admission) {
    Set<String> out = new java.util.HashSet<>();
    for (Read lease : leases) {
      if (lease.data().containsKey(ADMISSION_FIELD)
          || !lease.data().containsKey(Inspector.CURATOR_FIELD) && !lease.data().isEmpty()) {
        continue; // zklock's: named in its data, or a tryAcquire() lease, which has none
      }
      Read by = null;
      for (Read a : admission) {
        if (a.ephemeralOwner() == lease.ephemeralOwner()
            && a.czxid() < lease.czxid()
            && !out.contains(a.name())
            && (by == null || a.czxid() > by.czxid())) {
          by = a;
        }
      }
      if (by != null) {
        out.add(by.name());
      }
    }
    return out;
  }

  /**
   * The field of an inspected lock's state that names the libraries whose lock nodes its directory
   * holds beside (or instead of) zklock's ({@link ForeignNode.Library#label()}, sorted, joined with
   * {@code ","}).
   */
  public static final String FOREIGN_FIELD = "foreign";

  /** The field of a foreign node's data naming the library that likely made it. */
  public static final String LIBRARY_FIELD = "library";

  /**
   * The reads among {@code reads} that are another library's lock nodes: proven by the name, or by
   * the stat for a name no known library makes (an ephemeral node, not a longer lock's directory).
   */
  static List<Read> foreignOf(List<Read> reads) {
    List<Read> out = new ArrayList<>();
    for (Read r : reads) {
      ForeignNode f = ForeignNode.classify(r.name());
      if (f != null && (f.certain() || ForeignNode.ephemeral(r.ephemeralOwner()))) {
        out.add(r);
      }
    }
    return out;
  }

  /**
   * Adds {@code others} (another library's lock nodes) to the holders and waiters, as their own
   * libraries likely decide ({@link ForeignNode#likelyHolders}); returns the libraries' labels, or
   * null if there are none.
   */
  private static String addForeign(
      List<Read> others, List<LockNode> holders, List<LockNode> waiters) {
    if (others.isEmpty()) {
      return null;
    }
    List<ForeignNode> nodes = new ArrayList<>();
    for (Read r : others) {
      nodes.add(ForeignNode.classify(r.name()));
    }
    Set<String> holding = ForeignNode.likelyHolders(nodes);
    java.util.TreeSet<String> libraries = new java.util.TreeSet<>();
    for (int i = 0; i < others.size(); i++) {
      Read r = others.get(i);
      ForeignNode f = nodes.get(i);
      libraries.add(f.library().label());
      boolean holds = holding.contains(r.name());
      (holds ? holders : waiters)
          .add(foreignNode(r, f, holds ? LockNode.State.HOLDING : LockNode.State.QUEUED));
    }
    return String.join(",", libraries);
  }

  /**
   * A lock node of another library as {@code inspect} shows it: the client {@code (<library>)}, its
   * data (kazoo's identifier, say) as owner data, and under {@link #LIBRARY_FIELD} the library.
   */
  static LockNode foreignNode(Read r, ForeignNode f, LockNode.State state) {
    Map<String, String> data = new HashMap<>(r.data());
    String text = data.remove(Inspector.CURATOR_FIELD); // not JSON: the node's data as text
    data.put(LIBRARY_FIELD, f.library().label());
    return new LockNode(
        r.name(),
        r.path(),
        LockNode.Kind.FOREIGN,
        "(" + f.library().label() + ")",
        "",
        0L,
        r.ephemeralOwner(),
        Instant.ofEpochMilli(r.ctimeMillis()),
        r.czxid(),
        text == null ? "" : text,
        false,
        data,
        state);
  }

  // the layouts of the coordination recipes (io.zklock.internal.recipe: LatchImpl, BarrierImpl,
  // DoubleBarrierImpl, ConditionImpl), repeated here: inspection reads, it does not depend on them
  static final String LATCH = "latch";
  static final String BARRIER = "barrier";
  static final String DOUBLE_BARRIER = "double-barrier";
  static final String LATCH_OPEN = "open";
  static final String MARKER_PREFIX = "c-";
  static final String MEMBER_PREFIX = "m-";
  static final String READY_PREFIX = "ready-";

  /** What separates a lock's directory name from its condition's: {@code <lock>.cond-<name>}. */
  static final String CONDITION_INFIX = ".cond-";

  static final String WAITER_PREFIX = "cv-";

  /** Whether {@code kind} (a directory's data field) is a coordination recipe's. */
  static boolean isCoordination(String kind) {
    return LATCH.equals(kind) || BARRIER.equals(kind) || DOUBLE_BARRIER.equals(kind);
  }

  /** Whether the last segment of {@code dir} names a condition's directory. */
  static boolean isConditionDir(String dir) {
    String last = dir.substring(dir.lastIndexOf('/') + 1);
    int at = last.lastIndexOf(CONDITION_INFIX);
    return at > 0 && at + CONDITION_INFIX.length() < last.length();
  }

  /**
   * Whether a child of a coordination directory (or a condition's) is the recipe's own node, which
   * is no directory of its own to look into.
   */
  static boolean isRecipeNode(String kind, String child) {
    if (LATCH.equals(kind)) {
      return child.equals(LATCH_OPEN) || child.startsWith(MARKER_PREFIX);
    }
    if (DOUBLE_BARRIER.equals(kind)) {
      return child.startsWith(MEMBER_PREFIX) || child.startsWith(READY_PREFIX);
    }
    if (CONDITION_INFIX.equals(kind)) {
      return child.startsWith(WAITER_PREFIX);
    }
    return false;
  }

  /**
   * The entry of a coordination recipe's directory (latch, barrier, double barrier: by its data's
   * {@code kind}) or of a condition's directory, from its data fields and its children's names;
   * empty for a condition nobody waits on, or a directory that is neither.
   */
  public static Optional<LockInfo> decideCoordination(
      String name, String dir, Map<String, String> dirData, List<String> children) {
    String kind = dirData.get("kind");
    Map<String, String> state = new java.util.LinkedHashMap<>();
    LockInfo.Kind k;
    if (isConditionDir(dir)) {
      long waiting = children.stream().filter(c -> c.startsWith(WAITER_PREFIX)).count();
      if (waiting == 0) {
        return Optional.empty();
      }
      String last = dir.substring(dir.lastIndexOf('/') + 1);
      int at = last.lastIndexOf(CONDITION_INFIX);
      String lockName = name.substring(0, name.length() - (last.length() - at));
      state.put("lock", lockName);
      state.put("condition", last.substring(at + CONDITION_INFIX.length()));
      state.put("waiting", Long.toString(waiting));
      k = LockInfo.Kind.CONDITION;
    } else if (LATCH.equals(kind)) {
      state.put("count", dirData.getOrDefault("count", ""));
      state.put("remaining", dirData.getOrDefault("remaining", ""));
      state.put("open", Boolean.toString(children.contains(LATCH_OPEN)));
      k = LockInfo.Kind.LATCH;
    } else if (BARRIER.equals(kind)) {
      state.put("set", "true");
      k = LockInfo.Kind.BARRIER;
    } else if (DOUBLE_BARRIER.equals(kind)) {
      String round = dirData.getOrDefault("round", "0");
      String prefix = MEMBER_PREFIX + round + "-";
      state.put("members", dirData.getOrDefault("members", ""));
      state.put("round", round);
      state.put("phase", dirData.getOrDefault("phase", ""));
      state.put(
          "entered", Long.toString(children.stream().filter(c -> c.startsWith(prefix)).count()));
      k = LockInfo.Kind.DOUBLE_BARRIER;
    } else {
      return Optional.empty();
    }
    return Optional.of(new LockInfo(name, dir, k, 0, List.of(), List.of(), state));
  }

  /**
   * The kind of a directory whose nodes are of several kinds: read-write over election over mutex
   * over simple, so a misuse of one name by several kinds still shows as the richest of them.
   */
  private static LockInfo.Kind stronger(LockInfo.Kind now, NodeKind k) {
    LockInfo.Kind of;
    switch (k) {
      case READ:
      case WRITE:
      case COHORT_READ:
      case COHORT_WRITE:
      case CURATOR_READ:
      case CURATOR_WRITE:
      case KAZOO_READ:
        of = LockInfo.Kind.READ_WRITE;
        break;
      case ELECTION:
      case CURATOR_LATCH:
        of = LockInfo.Kind.ELECTION;
        break;
      case SEMAPHORE:
      case CURATOR_LEASE:
      case KAZOO_LEASE:
        of = LockInfo.Kind.SEMAPHORE;
        break;
      default:
        of = LockInfo.Kind.MUTEX;
    }
    if (now == null || rank(of) > rank(now)) {
      return of;
    }
    return now;
  }

  private static int rank(LockInfo.Kind k) {
    switch (k) {
      case SIMPLE:
        return 0;
      case MUTEX:
        return 1;
      case ELECTION:
        return 2;
      case READ_WRITE:
        return 3;
      default:
        return 4;
    }
  }

  /**
   * Queue nodes in the order the requests see them: by sequence with wrap-around, or by creation
   * zxid when the counter has (nearly) overflowed ({@link QueueNode}). Foreign names and, when
   * {@code only} is given, other kinds are left out.
   */
  static List<Read> queueOrder(List<Read> reads, NodeKind only) {
    List<QueueNode> parsed = new ArrayList<>();
    Map<String, Read> byName = new java.util.HashMap<>();
    for (Read r : reads) {
      QueueNode n = QueueNode.parse(r.name());
      if (n != null && (only == null || n.kind() == only)) {
        parsed.add(n.withCzxid(r.czxid()));
        byName.put(r.name(), r);
      }
    }
    parsed.sort(QueueNode.nearOverflow(parsed) ? QueueNode.BY_CREATION : QueueNode.ORDER);
    List<Read> out = new ArrayList<>(parsed.size());
    for (QueueNode n : parsed) {
      out.add(byName.get(n.name()));
    }
    return out;
  }

  private static List<NodeKind> kindsOf(List<Read> reads) {
    return nodesOf(reads).stream().map(QueueNode::kind).toList();
  }

  private static List<QueueNode> nodesOf(List<Read> reads) {
    List<QueueNode> out = new ArrayList<>(reads.size());
    for (Read r : reads) {
      out.add(QueueNode.parse(r.name()).withCzxid(r.czxid()));
    }
    return out;
  }

  /**
   * The window of a holder's grant ({@link GrantWindow}) from the listing of its directory and the
   * creation times read of the nodes it lists; empty without a listing.
   */
  static Optional<LockNode.Grant> grantOf(Read holder, Listing listing, List<Read> reads) {
    if (!listing.known()) {
      return Optional.empty();
    }
    QueueNode self = QueueNode.parse(holder.name());
    if (self == null) {
      return Optional.empty();
    }
    int ahead = 0; // the sequential children listed before it
    for (String n : listing.names()) {
      QueueNode q = QueueNode.parse(n);
      if (q != null && QueueNode.ORDER.compare(q, self) < 0) {
        ahead++;
      }
    }
    Read last = holder; // the child read with the greatest czxid
    for (Read r : reads) {
      if (r.czxid() > last.czxid()) {
        last = r;
      }
    }
    GrantWindow.Window w =
        GrantWindow.of(
            self.sequence(),
            holder.czxid(),
            holder.ctimeMillis(),
            ahead,
            listing.pzxid(),
            last.czxid(),
            last.ctimeMillis(),
            listing.dirCzxid());
    return Optional.of(
        new LockNode.Grant(
            Instant.ofEpochMilli(w.earliestMillis()),
            w.bounded() ? Optional.of(Instant.ofEpochMilli(w.latestMillis())) : Optional.empty()));
  }

  /** The later of two grants (a request of several leases): the greater bounds of both. */
  private static Optional<LockNode.Grant> later(
      Optional<LockNode.Grant> a, Optional<LockNode.Grant> b) {
    if (a.isEmpty()) {
      return b;
    }
    if (b.isEmpty()) {
      return a;
    }
    Instant earliest =
        a.get().earliest().isAfter(b.get().earliest()) ? a.get().earliest() : b.get().earliest();
    Optional<Instant> latest =
        a.get().latest().isEmpty() || b.get().latest().isEmpty()
            ? Optional.empty()
            : Optional.of(
                a.get().latest().get().isAfter(b.get().latest().get())
                    ? a.get().latest().get()
                    : b.get().latest().get());
    return Optional.of(
        new LockNode.Grant(earliest, latest.map(l -> l.isBefore(earliest) ? earliest : l)));
  }

  /** The client name shown for a kazoo client's node. */
  public static final String KAZOO_CLIENT = "(kazoo)";

  /** The field of a kazoo client's node's data under which its identifier (its data) is shown. */
  public static final String KAZOO_FIELD = "kazoo";

  /** The client name shown for a node of Go's zookeeper client. */
  public static final String GO_CLIENT = "(go-zookeeper)";

  /** The field of a Go client's node's data under which its guid is shown. */
  public static final String GO_FIELD = "go";

  /** The client name shown for a Curator client's node in a compatible queue. */
  public static final String CURATOR_CLIENT = "(curator)";

  public static LockNode node(Read r, NodeKind kind, LockNode.State state) {
    return node(r, kind, state, Optional.empty());
  }

  static LockNode node(
      Read r, NodeKind kind, LockNode.State state, Optional<LockNode.Grant> granted) {
    Map<String, String> d = r.data();
    long pid = 0;
    try {
      pid = Long.parseLong(d.getOrDefault("pid", "0"));
    } catch (NumberFormatException e) {
      // not ours to judge: unknown
    }
    // A Curator client's node in a compatible queue: its data is not ours (an address, or the data
    // given to Curator's recipe), shown as its owner data. A LeaderLatch node's data is the
    // participant id, whichever library wrote it, so those show no client.
    String curatorData = d.get(Inspector.CURATOR_FIELD);
    boolean curatorClient = curatorData != null && kind.curator() && kind != NodeKind.CURATOR_LATCH;
    if (curatorData != null && kind.kazoo()) {
      // a kazoo client's node: its data is the identifier given to kazoo's recipe
      curatorClient = true;
      d = Map.of(KAZOO_FIELD, curatorData);
    }
    if (kind == NodeKind.GO_LOCK) {
      // zklock never makes these: Go's client's node, its data (if any) given to LockWithData
      QueueNode go = QueueNode.parse(r.name());
      String text = curatorData != null ? curatorData : "";
      return new LockNode(
          r.name(),
          r.path(),
          LockNode.Kind.GO_LOCK,
          GO_CLIENT,
          "",
          0L,
          r.ephemeralOwner(),
          Instant.ofEpochMilli(r.ctimeMillis()),
          r.czxid(),
          text.isEmpty() ? go.attemptId() : text,
          false,
          Map.of(GO_FIELD, go.attemptId()),
          state,
          granted);
    }
    return new LockNode(
        r.name(),
        r.path(),
        LockNode.Kind.valueOf(kind.name()),
        curatorClient
            ? (kind.kazoo() ? KAZOO_CLIENT : CURATOR_CLIENT)
            : d.getOrDefault("client", ""),
        d.getOrDefault("host", ""),
        pid,
        r.ephemeralOwner(),
        Instant.ofEpochMilli(r.ctimeMillis()),
        r.czxid(),
        curatorClient ? curatorData : d.getOrDefault(OWNER_FIELD, ""),
        r.version() > 0 || d.containsKey(RELEASE_FIELD),
        d,
        state,
        granted);
  }
}
