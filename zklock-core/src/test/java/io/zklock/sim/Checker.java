package io.zklock.sim;

import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.QueueNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The properties zklock promises, checked as the world runs: each API call's outcome is told here
 * as it happens, the ensemble's committed log is the truth, and a broken rule fails the run at once
 * ({@link SimFailure}, named by its rule). See docs/reliability.md for the rules in words.
 */
final class Checker {
  /** How a grant shares its lock. */
  enum Mode {
    /** Alone: a mutex, a writer, a simple lock, a leader. */
    EXCLUSIVE,
    /** Shared with readers, never with a writer. */
    READ,
    /** One of at most {@code permits} leases. */
    LEASE
  }

  /** One request and, once granted, its grant, as its caller saw them. */
  static final class Hold {
    final int id;
    final String client;
    final SimProcess process;
    final String lock;
    final Mode mode;
    final boolean foreign; // a Curator client's: never told of a loss
    final long requestedAt;
    final long sessionTimeoutNanos;
    final String what;
    long grantedAt = -1;
    long token;
    String path;
    long session;
    int permits = 1;
    long endedAt = -1; // release started, or ended without a grant
    long releasedAt = -1; // its release returned
    boolean stalledByCurator; // ended here, not in the library: it still waits there (PROGRESS)
    String outcome = "waiting";
    long lostAt = -1;
    String lostReason;
    long czxid; // its node's, at the grant (0 if it was gone already)
    long goneAt = -1; // its node deleted at the leader (not by its own release)
    boolean cancelled; // cancelled, interrupted or timed out: not owed a grant
    long leaseNanos; // its grant's lease (withLease), 0 if none
    boolean leaseJudged; // its lease's end judged (or left unjudged) already
    long owedFrom; // from when a free lock owes it a grant (a Condition's re-acquire: its wait's

    // end)

    Hold(
        int id,
        String client,
        SimProcess process,
        String lock,
        Mode mode,
        boolean foreign,
        long now,
        long sessionTimeoutNanos,
        String what) {
      this.id = id;
      this.client = client;
      this.process = process;
      this.lock = lock;
      this.mode = mode;
      this.foreign = foreign;
      this.requestedAt = now;
      this.owedFrom = now;
      this.sessionTimeoutNanos = sessionTimeoutNanos;
      this.what = what;
    }

    boolean granted() {
      return grantedAt >= 0;
    }

    boolean waiting() {
      return grantedAt < 0 && endedAt < 0;
    }

    /** Whether its caller believes it holds the lock now. */
    boolean believes(SimEnsemble ens) {
      if (!granted() || endedAt >= 0 || lostAt >= 0) {
        return false;
      }
      if (foreign) {
        // a Curator holder is never told; it holds while its node does
        return path != null && ens.truth().get(path) != null;
      }
      return true;
    }

    @Override
    public String toString() {
      return "#"
          + id
          + " "
          + client
          + " "
          + what
          + " "
          + lock
          + (granted() ? " token " + token + " " + path : "")
          + " ["
          + outcome
          + "]";
    }
  }

  private final Sim sim;
  private final SimEnsemble ens;
  private final Map<Integer, Hold> holds = new LinkedHashMap<>();
  private final Map<String, List<Hold>> byLock = new TreeMap<>();
  private final Map<String, Integer> permitsOf = new HashMap<>();
  private final Map<String, Long> deletedAt = new HashMap<>(); // node -> sim time at the leader
  private final Map<String, Long> maxToken = new HashMap<>();
  private final Map<String, Long> maxWriterToken = new HashMap<>();
  private int ids;
  final Map<String, Long> counters = new TreeMap<>();

  /** Whether a session is a zklock client's (the others are foreign: Curator's). */
  java.util.function.LongPredicate zklockSession = s -> true;

  /** When the faults stop; progress is owed from then on. */
  long quietFrom = Long.MAX_VALUE;

  /**
   * STALL: from when a free lock owes its waiters a grant (the faults stopped, and the nodes of
   * sessions they ended are gone: a session timeout later), and for how long it may stay free with
   * a waiter owed.
   */
  long stallFrom = Long.MAX_VALUE;

  long stallBound = 5 * Sim.SEC;

  private final Map<String, Long> freeSince = new HashMap<>(); // lock -> free with a waiter since

  Checker(Sim sim, SimEnsemble ens) {
    this.sim = sim;
    this.ens = ens;
  }

  void count(String what) {
    counters.merge(what, 1L, Long::sum);
  }

  void count(String what, long n) {
    counters.merge(what, n, Long::sum);
  }

  void permits(String lock, int n) {
    permitsOf.put(lock, n);
  }

  /**
   * Fails the run. Recorded with the world before it is thrown: a rule checked on a path through
   * the library (a lost() future's callback, a lock event) would otherwise be caught there, as the
   * library catches what a listener or a dependent action throws.
   */
  private void fail(String rule, String text) {
    SimFailure f = new SimFailure(rule, text);
    sim.fail(f);
    throw f;
  }

  private void trace(String what) {
    if (sim.trace.on()) {
      sim.trace.add(sim.now(), "checker", what);
    }
  }

  // ------------------------------------------------------------------ the truth

  /** Every committed entry, before the leader applies it: which nodes go, when. */
  void committed(Txn.Entry e) {
    guarded(e.txn(), e.session());
    record(e.txn(), e.zxid());
    admission(e.txn(), e.session());
    storedKind(e.txn(), e.session());
  }

  /**
   * GUARDED, at the leader: a write to the store (only guarded transactions write it) commits only
   * in a multi that checks a lock node which stands now (before the entry applies) and is the node
   * of a grant its session's caller was given: inside that grant's node lifetime.
   */
  private void guarded(Txn t, long session) {
    List<Txn> ops = t instanceof Txn.Multi m ? m.ops() : List.of(t);
    boolean writesStore = false;
    for (Txn op : ops) {
      if (op instanceof Txn.SetData sd && sd.path().equals(Workload.STORE)) {
        writesStore = true;
      }
    }
    if (!writesStore) {
      return;
    }
    SimTree tree = ens.truth();
    for (Txn op : ops) {
      if (!(op instanceof Txn.Check c)) {
        continue;
      }
      SimTree.Node n = tree.get(c.path());
      if (n == null || n.ephemeralOwner != session) {
        continue;
      }
      for (Hold h : holds.values()) {
        if (h.granted() && c.path().equals(h.path) && n.czxid == h.czxid) {
          count("guarded.checkedAtTheLeader");
          return;
        }
      }
    }
    fail(
        "GUARDED",
        "session 0x"
            + Long.toHexString(session)
            + " commits a write to "
            + Workload.STORE
            + " that checks no standing node of a grant of its own: "
            + t);
  }

  private final Map<String, String> kinds = new HashMap<>(); // directory -> its stored kind

  /**
   * STORED_KIND: a directory that stores a recipe's number (a latch's count, a semaphore's permits,
   * a double barrier's members) keeps its kind: another recipe on the same name refuses it instead
   * of writing over it.
   */
  private void storedKind(Txn t, long session) {
    if (t instanceof Txn.Multi m) {
      for (Txn op : m.ops()) {
        storedKind(op, session);
      }
      return;
    }
    String path;
    byte[] data;
    if (t instanceof Txn.Create c) {
      path = c.path();
      data = c.data();
    } else if (t instanceof Txn.SetData sd) {
      path = sd.path();
      data = sd.data();
    } else {
      if (t instanceof Txn.Delete d) {
        kinds.remove(d.path());
      }
      return;
    }
    String text = new String(data, java.nio.charset.StandardCharsets.UTF_8);
    if (!text.startsWith("{")) {
      return;
    }
    String kind;
    try {
      kind = io.zklock.internal.rules.Json.parseObject(text).get("kind");
    } catch (RuntimeException notJson) {
      return;
    }
    if (kind == null) {
      return;
    }
    String before = kinds.put(path, kind);
    if (before != null && !before.equals(kind)) {
      fail(
          "STORED_KIND",
          "session 0x"
              + Long.toHexString(session)
              + " wrote a "
              + kind
              + "'s state over the "
              + before
              + " stored in "
              + path
              + ": "
              + text);
    }
  }

  /**
   * QUEUE_ORDER for a semaphore (zklock's and Curator's InterProcessSemaphoreV2 alike): a lease is
   * created only by the request the admission mutex admitted, the head of {@code <dir>/queue} (or
   * {@code <dir>/locks} in the Curator-compatible mode); a request whose session ended queues again
   * for admission, behind whoever queued meanwhile, before it makes a lease.
   */
  private void admission(Txn t, long session) {
    if (t instanceof Txn.Multi m) {
      for (Txn op : m.ops()) {
        admission(op, session);
      }
      return;
    }
    if (!(t instanceof Txn.Create c) || !SimTree.parent(c.path()).endsWith("/leases")) {
      return;
    }
    SimTree tree = ens.truth();
    String dir = SimTree.parent(SimTree.parent(c.path()));
    if (!zklockSession.test(session)) {
      // a Curator client's: its own protocol, not zklock's promise. Curator 5.9 retries a lease's
      // create across a session expiry on its new handle, without the admission lock of the old
      // session: then more leases wait than permits allow, each waiting for the others, and nobody
      // owes progress on that semaphore any more
      SimTree.Node locks = tree.get(dir + "/locks");
      boolean admitted = false;
      if (locks != null && !locks.children.isEmpty()) {
        String head = null;
        for (String k : locks.children) {
          if (head == null || seq(k).compareTo(seq(head)) < 0) {
            head = k;
          }
        }
        admitted = tree.get(dir + "/locks/" + head).ephemeralOwner == session;
      }
      if (!admitted) {
        count("curator.leaseWithoutAdmission");
        trace("Curator's session 0x" + Long.toHexString(session) + " leases without admission");
        oversubscribedByCurator.add(SimTree.name(dir));
      }
      return;
    }
    String data = new String(c.data(), java.nio.charset.StandardCharsets.UTF_8);
    String admitted = null;
    if (data.startsWith("{")) {
      // zklock's lease names its admission node; none: tryAcquire's lease, which never queues
      admitted = io.zklock.internal.rules.Json.parseObject(data).get("admission");
      if (admitted == null) {
        count("lease.withoutQueueing");
        return;
      }
    }
    for (String q : List.of(dir + "/queue", dir + "/locks")) {
      SimTree.Node n = tree.get(q);
      if (n == null || n.children.isEmpty()) {
        continue;
      }
      String head = null;
      for (String k : n.children) {
        if (head == null || seq(k).compareTo(seq(head)) < 0) {
          head = k;
        }
      }
      SimTree.Node h = tree.get(q + "/" + head);
      if (h.ephemeralOwner == session && (admitted == null || admitted.equals(head))) {
        return;
      }
      fail(
          "QUEUE_ORDER",
          "session 0x"
              + Long.toHexString(session)
              + " creates lease "
              + c.path()
              + (admitted != null ? " as admitted by " + admitted : "")
              + " without being admitted: the head of "
              + q
              + " is "
              + head
              + " of session 0x"
              + Long.toHexString(h.ephemeralOwner)
              + "; its nodes there: "
              + nodesOf(tree, q, session));
    }
    fail(
        "QUEUE_ORDER",
        "session 0x"
            + Long.toHexString(session)
            + " creates lease "
            + c.path()
            + (admitted != null ? " as admitted by " + admitted : "")
            + " while nobody is admitted (no node in "
            + dir
            + "/queue or /locks)");
  }

  /** Semaphores a Curator client leased without admission: progress is not owed there. */
  private final java.util.Set<String> oversubscribedByCurator = new java.util.HashSet<>();

  /** Whether a Curator client leased without admission (the requests left waiting are excused). */
  boolean stalledByCurator() {
    return !oversubscribedByCurator.isEmpty();
  }

  private static String seq(String name) {
    return name.length() >= 10 ? name.substring(name.length() - 10) : name;
  }

  private static List<String> nodesOf(SimTree tree, String dir, long session) {
    List<String> out = new ArrayList<>();
    for (String k : tree.get(dir).children) {
      if (tree.get(dir + "/" + k).ephemeralOwner == session) {
        out.add(k);
      }
    }
    return out;
  }

  private final Map<String, Long> createdCzxid = new HashMap<>(); // path -> its latest node's
  private final Map<String, Long> createdOwner = new HashMap<>(); // path -> its latest node's
  private final Map<String, Long> ownerByNode = new HashMap<>(); // every node made: its session

  private void record(Txn t, long zxid) {
    SimTree tree = ens.truth();
    if (t instanceof Txn.Create c) {
      createdCzxid.put(c.path(), zxid);
      createdOwner.put(c.path(), c.ephemeralOwner());
      ownerByNode.put(nodeKey(c.path(), zxid), c.ephemeralOwner());
      createdAt.put(nodeKey(c.path(), zxid), sim.now());
    } else if (t instanceof Txn.Delete d) {
      SimTree.Node n = tree.get(d.path());
      if (n != null) {
        deletedAt.put(nodeKey(d.path(), n.czxid), sim.now());
      }
    } else if (t instanceof Txn.Multi m) {
      for (Txn op : m.ops()) {
        record(op, zxid);
      }
    } else if (t instanceof Txn.CloseSession cs) {
      var mine = tree.ephemerals().get(cs.session());
      if (mine != null) {
        for (String p : mine) {
          deletedAt.put(nodeKey(p, tree.get(p).czxid), sim.now());
        }
      }
    }
  }

  /** A node, as opposed to its path (a simple lock's path is every holder's). */
  private static String nodeKey(String path, long czxid) {
    return path + "@" + Long.toHexString(czxid);
  }

  /** When {@code h}'s node went at the leader, or null. */
  private Long goneAt(Hold h) {
    return h.path == null || h.czxid == 0 ? null : deletedAt.get(nodeKey(h.path, h.czxid));
  }

  // ------------------------------------------------------------------ what callers saw

  Hold request(
      String client,
      SimProcess process,
      String lock,
      Mode mode,
      boolean foreign,
      long sessionTimeoutNanos,
      String what) {
    Hold h =
        new Hold(++ids, client, process, lock, mode, foreign, sim.now(), sessionTimeoutNanos, what);
    holds.put(h.id, h);
    byLock.computeIfAbsent(lock, k -> new ArrayList<>()).add(h);
    count("requests");
    trace("request " + h);
    return h;
  }

  /** A request was granted: its caller now holds {@code path} with {@code token}. */
  void granted(Hold h, long token, String path, long session, int permits) {
    if (h.granted()) {
      fail("ONE_GRANT", "granted twice: " + h);
    }
    h.grantedAt = sim.now();
    h.token = token;
    h.path = path;
    h.session = session;
    h.permits = permits;
    SimTree.Node n = path == null ? null : ens.truth().get(path);
    Long madeBy = token > 0 && path != null ? ownerByNode.get(nodeKey(path, token)) : null;
    if (n != null && madeBy != null && n.czxid != token) {
      // a node at a path every holder shares (a simple lock's), made by another since: the token
      // (our node's czxid) names ours, gone already
      n = null;
      h.czxid = token;
      h.session = madeBy;
      count("grants.nodeReplacedBeforeTold");
    } else {
      h.czxid = n != null ? n.czxid : path == null ? 0 : createdCzxid.getOrDefault(path, 0L);
    }
    if (h.session == 0) {
      h.session = n != null ? n.ephemeralOwner : createdOwner.getOrDefault(path, 0L);
    }
    h.outcome = "granted";
    count("grants");
    trace("granted " + h);
    if (h.foreign && path != null && n == null) {
      // Curator grants itself on a read from a follower that has not applied its old session's
      // expiry yet: its node is gone at the leader, so it holds nothing (Curator's weakness, not
      // zklock's promise); such a holder never believes it holds (its node is gone)
      count("curator.grantedANodeAlreadyGone");
      h.outcome = "granted a node already gone";
      return;
    }
    checkExclusion(h);
    checkTokens(h);
    checkQueueOrder(h, n);
  }

  /**
   * QUEUE_ORDER (fairness): a queue's request is granted only when no node that queued before its
   * own is left ahead of it: for an exclusive node none at all, for a shared one no exclusive one.
   * Checked at the leader in the directory the granted node still stands in: a node created there
   * before ours (a lower czxid) that stands now stood at every moment since ours was made, so every
   * listing or watch the grant stood on showed it. A request whose session ended queues again with
   * a new node, behind those that queued meanwhile. A semaphore's leases are not a queue.
   */
  private void checkQueueOrder(Hold h, SimTree.Node mine) {
    if (mine == null || h.path == null) {
      return;
    }
    QueueNode me = QueueNode.parse(SimTree.name(h.path));
    if (me == null || me.kind() == NodeKind.SEMAPHORE || me.kind() == NodeKind.CURATOR_LEASE) {
      return;
    }
    SimTree t = ens.truth();
    String dir = SimTree.parent(h.path);
    SimTree.Node d = t.get(dir);
    if (d == null) {
      return;
    }
    for (String child : d.children) {
      QueueNode other = child.equals(me.name()) ? null : QueueNode.parse(child);
      SimTree.Node o = other == null ? null : t.get(dir + "/" + child);
      if (o != null
          && o.czxid < mine.czxid
          && (me.kind().exclusive() || other.kind().exclusive())) {
        fail(
            "QUEUE_ORDER",
            h
                + " granted while "
                + child
                + " of session 0x"
                + Long.toHexString(o.ephemeralOwner)
                + ", queued before it, stands ahead of it in "
                + dir);
      }
    }
    count("queueOrder.checked");
  }

  /** Ended without a grant: timed out, busy, cancelled, interrupted, or failed. */
  void ended(Hold h, String how, boolean owedNothing) {
    if (h.granted()) {
      fail("ONE_END", "a granted request also ended " + how + ": " + h);
    }
    if (h.endedAt >= 0) {
      fail("ONE_END", "ended twice (" + h.outcome + ", then " + how + "): " + h);
    }
    h.endedAt = sim.now();
    h.outcome = how;
    h.cancelled = owedNothing;
    count("ended." + how);
    trace("ended " + h);
  }

  void releaseStarted(Hold h) {
    if (h.endedAt < 0) {
      h.endedAt = sim.now();
    }
    h.outcome = h.lostAt >= 0 ? "lost, released" : "released";
    trace("release " + h);
  }

  /**
   * RELEASED: {@code release()} (and {@code close()}, and {@code releaseAsync()}'s future) returns
   * once the server has acknowledged the deletion of the lock node, or once the node is known to be
   * gone with its session ({@code LockHandle#release}). So at the return the grant's node does not
   * stand at the leader (an acknowledged delete was committed there first) while the client still
   * uses the session that made it ({@code clientSession}: its {@code ZkLocks}' session now, 0 if
   * none). A session the client has given up (expired, declared lost at zklock's deadline) may keep
   * its nodes until the ensemble expires it: not judged; nor one whose ZooKeeper handle has ended
   * ({@code handleEnded}): a 3.9 client that heard nothing for 4T/3 expires its session itself
   * (ZOOKEEPER-4508) and answers what it had pending {@code SESSIONEXPIRED}, maybe before zklock's
   * session has heard of that end, while the ensemble keeps the session until its own timeout. Nor
   * is a cohort's release, which hands the lock to a local waiter and keeps the node by design. A
   * multi-lock is judged by its first part.
   */
  void released(Hold h, long clientSession, java.util.function.LongPredicate handleEnded) {
    h.releasedAt = sim.now();
    if (h.foreign || h.path == null || h.czxid == 0 || isCohort(h.path)) {
      return;
    }
    SimTree.Node n = ens.truth().get(h.path);
    if (n == null || n.czxid != h.czxid) {
      count("released.nodeGone");
      return;
    }
    if (clientSession == 0
        || n.ephemeralOwner != clientSession
        || handleEnded.test(n.ephemeralOwner)) {
      count("released.sessionOver");
      return;
    }
    fail(
        "RELEASED",
        h
            + ": its release returned while its node still stands at the leader, on session 0x"
            + Long.toHexString(clientSession)
            + ", which the client still uses");
  }

  void lost(Hold h, String reason) {
    if (h.lostAt >= 0) {
      fail("LOST_ONCE", "lost told twice: " + h);
    }
    if (!h.granted()) {
      fail("LOST_ONCE", "lost told for a request never granted: " + h);
    }
    h.lostAt = sim.now();
    h.lostReason = reason;
    if (h.leaseNanos > 0 && reason.equals("LEASE_EXPIRED")) {
      // LEASE, the other way: counted from the grant, which came after the request, on a clock
      // within 1 % of real time, a lease never runs out sooner than that after the request
      long soonest = h.requestedAt + h.leaseNanos * 98 / 100;
      if (h.lostAt < soonest) {
        fail(
            "LEASE",
            h
                + ": told its lease of "
                + Trace.fmt(h.leaseNanos)
                + " s ran out "
                + Trace.fmt(h.lostAt - h.requestedAt)
                + " s after it was requested");
      }
      long late = h.lostAt - Math.max(h.grantedAt + h.leaseNanos, h.process.resumedAt());
      counters.merge("lease.toldLateMaxMicros", late / 1000, Math::max);
    }
    if (h.endedAt < 0) {
      h.outcome = "lost " + reason;
    }
    count("lost." + reason);
    trace("lost " + h);
  }

  /**
   * The process of a zklock caller that holds a lock now while a caller of another process waits
   * for it in a conflicting mode (the first such, by lock name and request order), or null: a fault
   * timed against zklock's deadline picks it.
   */
  SimProcess holderWithAnotherWaiting() {
    for (List<Hold> hs : byLock.values()) {
      for (Hold h : hs) {
        if (h.foreign || !h.believes(ens)) {
          continue;
        }
        for (Hold o : hs) {
          if (o.waiting() && !o.cancelled && o.process != h.process && conflict(h, o)) {
            return h.process;
          }
        }
      }
    }
    return null;
  }

  // ------------------------------------------------------------------ the rules

  private static boolean conflict(Hold a, Hold b) {
    if (a.mode == Mode.LEASE || b.mode == Mode.LEASE) {
      return false; // counted, not paired
    }
    return a.mode == Mode.EXCLUSIVE || b.mode == Mode.EXCLUSIVE;
  }

  /**
   * EXCLUSION: at a grant, no conflicting holder still believes it holds the lock, unless its
   * process was paused lately (the paused holder of docs/guarantees.md, which no client can be told
   * in time); leases are counted against the permits.
   */
  private void checkExclusion(Hold g) {
    List<Hold> others = byLock.get(g.lock);
    int leases = 0;
    List<Hold> excused = new ArrayList<>();
    for (Hold o : others) {
      if (o == g || !o.believes(ens)) {
        continue;
      }
      boolean clash;
      if (g.mode == Mode.LEASE && o.mode == Mode.LEASE) {
        leases += o.permits;
        clash = false;
      } else {
        clash = conflict(o, g);
      }
      if (!clash) {
        continue;
      }
      // the paused holder of docs/guarantees.md, and a session the world expired at once: the
      // holder (or the new grantee, acting on news from before) could not be told in time; both
      // must be told within a bound (LOSS_TOLD)
      if (pausedLately(o) || pausedLately(g)) {
        excused.add(o);
        count("exclusion.excused.paused");
        continue;
      }
      if (forcedLately(o) || forcedLately(g)) {
        excused.add(o);
        count("exclusion.excused.forced");
        continue;
      }
      fail(
          "EXCLUSION",
          g + " granted while " + o + " still believes it holds " + g.lock + explainGone(o));
    }
    if (g.mode == Mode.LEASE) {
      int permits = permitsOf.getOrDefault(g.lock, 1);
      if (leases + g.permits > permits) {
        // excuse leases of paused processes
        int strict = 0;
        for (Hold o : others) {
          if (o != g
              && o.believes(ens)
              && o.mode == Mode.LEASE
              && !pausedLately(o)
              && !forcedLately(o)
              && !pausedLately(g)
              && !forcedLately(g)) {
            strict += o.permits;
          }
        }
        if (strict + g.permits > permits) {
          fail(
              "EXCLUSION",
              g
                  + " granted with "
                  + strict
                  + " of "
                  + permits
                  + " permits already held: "
                  + believers(g.lock, g));
        }
      }
    }
  }

  private String explainGone(Hold o) {
    Long d = goneAt(o);
    return d == null
        ? " (its node still exists)"
        : " (its node went at the leader " + Trace.fmt(sim.now() - d) + " s ago)";
  }

  private List<Hold> believers(String lock) {
    return believers(lock, null);
  }

  private List<Hold> believers(String lock, Hold except) {
    List<Hold> out = new ArrayList<>();
    for (Hold o : byLock.get(lock)) {
      if (o != except && o.believes(ens)) {
        out.add(o);
      }
    }
    return out;
  }

  /** Sessions the world expired by force (a fault), and when: no client can be told in time. */
  private final Map<String, Long> createdAt = new HashMap<>(); // node -> committed at the leader

  private final Map<Long, Long> forcedExpiry = new HashMap<>();

  void forcedExpiry(long session) {
    forcedExpiry.putIfAbsent(session, sim.now());
  }

  /**
   * Whether {@code h}'s session was ended by force lately: the ensemble expired it at once (what
   * the testkit's expiry does), so its holder could not be told before another was granted; it must
   * still be told within a bound (LOSS_TOLD).
   */
  private boolean forcedLately(Hold h) {
    Long at = h.session == 0 ? null : forcedExpiry.get(h.session);
    return at != null && sim.now() - at < h.sessionTimeoutNanos + 3 * Sim.SEC;
  }

  /** Whether {@code h}'s process was paused within the last two session timeouts. */
  private boolean pausedLately(Hold h) {
    return h.process != null
        && h.process.pausedWithin(sim.now() - 2 * h.sessionTimeoutNanos - Sim.SEC, sim.now());
  }

  /**
   * TOKENS: an exclusive grant's token exceeds every earlier grant's; a reader's every writer's.
   */
  private void checkTokens(Hold g) {
    if (g.foreign || g.token <= 0 || g.mode == Mode.LEASE) {
      return;
    }
    if (pausedLately(g) || forcedLately(g)) {
      count("tokens.excused");
      return; // a grant on news from before its session ended (paused, or expired at once)
    }
    String family = g.lock + (g.path != null && isCohort(g.path) ? "#cohort" : "");
    if (g.mode == Mode.EXCLUSIVE) {
      Long max = maxToken.get(family);
      if (max != null && g.token <= max) {
        fail("TOKENS", g + ": token " + g.token + " not above an earlier grant's " + max);
      }
      maxToken.put(family, g.token);
      maxWriterToken.put(family, g.token);
    } else {
      Long w = maxWriterToken.get(family);
      if (w != null && g.token <= w) {
        fail("TOKENS", g + ": reader's token " + g.token + " not above a writer's " + w);
      }
      maxToken.merge(family, g.token, Math::max);
    }
  }

  private static boolean isCohort(String path) {
    String name = path.substring(path.lastIndexOf('/') + 1);
    return name.startsWith("c-") || name.startsWith("cw-") || name.startsWith("cr-");
  }

  /**
   * Every step: a holder whose node is gone must be told within a bound (LOSS_TOLD); after the
   * faults stop, nobody waits forever (PROGRESS).
   */
  void periodic() {
    long now = sim.now();
    for (Hold h : holds.values()) {
      leaseRunsOut(h, now);
      if (h.foreign || !h.granted() || h.lostAt >= 0 || h.endedAt >= 0 || h.path == null) {
        continue;
      }
      Long gone = goneAt(h);
      if (gone == null) {
        continue;
      }
      long from = Math.max(gone, h.process.resumedAt());
      long bound = h.sessionTimeoutNanos + 3 * Sim.SEC;
      if (now - from > bound) {
        fail(
            "LOSS_TOLD",
            h
                + ": its node went at the leader "
                + Trace.fmt(now - gone)
                + " s ago and it was never told (bound "
                + Trace.fmt(bound)
                + " s)");
      }
    }
  }

  /**
   * LEASE: a leased grant that its holder neither released nor lost is released by the library when
   * its lease runs out, and told ({@code lost()}, {@code LEASE_EXPIRED}): the lease is a timer in
   * the holder's process, counted from the grant (before its caller saw it), on that process's
   * clock (within 1 % of real time). It does not run while the process is paused: then from the
   * resumption. Bound: {@link #LEASE_SLACK} more, for the library's pool.
   */
  private void leaseRunsOut(Hold h, long now) {
    if (h.leaseNanos == 0 || h.leaseJudged || !h.granted() || h.lostAt >= 0 || h.endedAt >= 0) {
      return;
    }
    long runsOut = h.grantedAt + h.leaseNanos * 102 / 100;
    long due = Math.max(runsOut, h.process.resumedAt()) + LEASE_SLACK;
    if (now > due) {
      if (faultNear(h.grantedAt, due, h.sessionTimeoutNanos + Sim.SEC)) {
        // the lease is promised to run out while the holder's process runs and reaches the
        // ensemble (DistributedLock#withLease: not while it is paused or cut off); a fault near
        // may have cut it off, so this one is not judged
        h.leaseJudged = true;
        count("lease.notJudged.faultNear");
        return;
      }
      fail(
          "LEASE",
          h
              + ": its lease of "
              + Trace.fmt(h.leaseNanos)
              + " s ran out at "
              + Trace.fmt(runsOut)
              + " and it still holds, never told, "
              + Trace.fmt(now - runsOut)
              + " s later");
    }
  }

  private final List<long[]> faults = new ArrayList<>(); // [from, to] of each fault, as begun

  /** A fault began now and lasts until {@code to} (its effects may last a while longer). */
  void fault(long to) {
    faults.add(new long[] {sim.now(), Math.max(sim.now(), to)});
  }

  /**
   * Whether a fault was under way from {@code from} to {@code to}, or ended {@code after} before.
   */
  private boolean faultNear(long from, long to, long after) {
    for (long[] f : faults) {
      if (f[0] <= to && f[1] + after >= from) {
        return true;
      }
    }
    return false;
  }

  /** How late a lease's end may be told, past its time (the library's pool, its scheduler). */
  static final long LEASE_SLACK = Sim.SEC;

  /**
   * STALL (sharper than PROGRESS): once the faults stopped and the nodes of the sessions they ended
   * are gone, a lock is never left free while a request that is owed a grant waits on it, for more
   * than {@link #stallBound}: free means no holder believes it holds (a semaphore: fewer leases
   * held than permits). The wait of a waiter its caller gave up on, or of a Condition's await
   * before its time-out, is not owed.
   */
  void stall() {
    long now = sim.now();
    if (now < stallFrom) {
      return;
    }
    for (Map.Entry<String, List<Hold>> e : byLock.entrySet()) {
      String lock = e.getKey();
      Hold owed = null;
      int leases = 0;
      boolean held = false;
      for (Hold h : e.getValue()) {
        if (h.waiting() && !h.cancelled && now >= h.owedFrom && owed == null) {
          owed = h;
        }
        if (h.believes(ens)) {
          if (h.mode == Mode.LEASE) {
            leases += h.permits;
          } else {
            held = true;
          }
        }
      }
      Integer permits = permitsOf.get(lock);
      boolean free = permits == null ? !held && leases == 0 : !held && leases < permits;
      if (owed == null || !free || oversubscribedByCurator.contains(lock)) {
        freeSince.remove(lock);
        continue;
      }
      long since = Math.max(stallFrom, freeSince.computeIfAbsent(lock, k -> now));
      if (now - since > stallBound) {
        fail(
            "STALL",
            lock
                + " is free ("
                + (permits == null ? "no holder" : leases + " of " + permits + " permits held")
                + ") for "
                + Trace.fmt(now - since)
                + " s while "
                + owed
                + " waits (since "
                + Trace.fmt(owed.requestedAt)
                + "), the faults over since "
                + Trace.fmt(quietFrom));
      }
      count("stall.freeWithAWaiter"); // steps seen free with a waiter owed (a handoff's instants)
    }
  }

  /**
   * The lock directories whose nodes {@link #orphans} judges (empty: not judged in this run; the
   * runs of the lock focuses set them).
   */
  List<String> orphanDirs = List.of();

  /** The network, to tell a working connection from one cut off (ORPHAN). */
  Net net;

  /** How long a node may stand unowned on a connection that works all along (ORPHAN). */
  static final long ORPHAN_BOUND = 2 * Sim.SEC;

  /** Client and directory -> {since when more nodes than requests stand, its connection}. */
  private final Map<String, long[]> surplusSince = new HashMap<>();

  /**
   * ORPHAN: a request that ended (withdrawn: timed out, cancelled, interrupted, busy; or released)
   * leaves no lock node behind on a session its client still uses: not even one whose create's fate
   * it did not know (the reply lost with the connection) when it gave up. Such a node is one that
   * later requests queue behind for the session's life; zklock searches for it by its attempt id
   * and deletes it as soon as the client is connected ({@code LockRequest#withdraw}, {@code
   * Deleter#deleteAttempt}). CLEAN sees only what is left at quiescence, STALL only a free lock
   * once the faults are over: neither sees a node left standing for seconds and gone before, nor
   * one whose session a later fault ended. So, every 50 ms, per zklock client whose current session
   * is connected, in each directory of the run's lock: the nodes of that session at the leader are
   * at most the client's requests that may own one (waiting, or granted and not yet released: a
   * cohort's requests share one node, a semaphore's request has one in its admission queue and one
   * lease; a request whose wait PROGRESS excused, behind a Curator client's lease without
   * admission, still waits in the library). More may stand while a withdrawal's delete is on its
   * way, but not for {@link #ORPHAN_BOUND} on a connection that works all along: the same
   * connection, its process running, its server serving, reached, neither cut off from the others
   * nor applying the log late, and a leader that can commit. Anything else starts the count again
   * (a request cannot reach the ensemble then, and that is not the rule's to judge).
   */
  void orphans(List<ZkNode> clients) {
    if (orphanDirs.isEmpty()) {
      return;
    }
    long now = sim.now();
    SimTree t = ens.truth();
    java.util.Set<String> seen = new java.util.HashSet<>();
    boolean commits = ens.leaderHasQuorum();
    for (ZkNode n : clients) {
      SimZkClient c = n.current();
      long s = n.locks.sessionId();
      if (!commits || c == null || s == 0 || c.getSessionId() != s || !works(n, c)) {
        continue;
      }
      java.util.Set<String> mine = t.ephemerals().get(s);
      if (mine == null || mine.isEmpty()) {
        continue;
      }
      Map<String, List<String>> byDir = new TreeMap<>();
      for (String p : mine) {
        for (String d : orphanDirs) {
          if (p.startsWith(d + "/")) {
            byDir.computeIfAbsent(SimTree.parent(p), k -> new ArrayList<>()).add(p);
            break;
          }
        }
      }
      if (byDir.isEmpty()) {
        continue;
      }
      int owners = 0;
      for (Hold h : holds.values()) {
        if (!h.foreign
            && h.process == n.process
            && (h.waiting() || h.stalledByCurator || (h.granted() && h.releasedAt < 0))) {
          owners++; // a request PROGRESS excused still waits in the library, its nodes with it
        }
      }
      for (Map.Entry<String, List<String>> e : byDir.entrySet()) {
        if (e.getValue().size() <= owners) {
          continue;
        }
        String key = n.name + " " + e.getKey();
        seen.add(key);
        long[] since = surplusSince.get(key);
        if (since == null || since[1] != c.connections()) {
          since = new long[] {now, c.connections()};
          surplusSince.put(key, since);
          count("orphan.surplusSeen"); // a withdrawal's or release's delete on its way, mostly
        }
        long standing = now - since[0];
        counters.merge("orphan.surplusMaxMicros", standing / 1000, Math::max);
        if (standing > ORPHAN_BOUND) {
          failOrphan(n, s, e.getKey(), e.getValue(), owners, standing);
        }
      }
    }
    surplusSince.keySet().retainAll(seen);
  }

  /**
   * Whether {@code c}, the handle of {@code n}, works now: connected, its process running, its
   * server up, serving and reached, neither cut off from the others nor applying the log late.
   */
  private boolean works(ZkNode n, SimZkClient c) {
    int id = c.serverId();
    if (!c.connected() || c.closed() || n.process.paused() || id < 0) {
      return false;
    }
    SimServer server = ens.servers[id];
    return server.alive
        && server.serving
        && !server.lagging()
        && !ens.isolated(id)
        && (net == null || !net.isCut(n.process.name(), id, sim.now()));
  }

  private void failOrphan(
      ZkNode n, long session, String dir, List<String> paths, int owners, long standing) {
    SimTree t = ens.truth();
    List<String> nodes = new ArrayList<>();
    for (String p : paths) {
      SimTree.Node nd = t.get(p);
      Long made = nd == null ? null : createdAt.get(nodeKey(p, nd.czxid));
      nodes.add(SimTree.name(p) + (made == null ? "" : " (made at " + Trace.fmt(made) + ")"));
    }
    List<Hold> lately = new ArrayList<>();
    for (Hold h : holds.values()) {
      if (!h.foreign && h.process == n.process) {
        lately.add(h);
      }
    }
    fail(
        "ORPHAN",
        n.name
            + "'s session 0x"
            + Long.toHexString(session)
            + " has "
            + paths.size()
            + " nodes in "
            + dir
            + " for "
            + owners
            + " of its requests that may own one, for "
            + Trace.fmt(standing)
            + " s on a connection that works (bound "
            + Trace.fmt(ORPHAN_BOUND)
            + " s): "
            + nodes
            + "; its latest requests: "
            + lately.subList(Math.max(0, lately.size() - 6), lately.size()));
  }

  /** PROGRESS: once the faults stopped, a request still waiting after {@code bound} is stuck. */
  void progress(long bound) {
    long now = sim.now();
    if (now - quietFrom < bound) {
      return;
    }
    for (Hold h : holds.values()) {
      if (h.waiting()
          && now - Math.max(h.requestedAt, quietFrom) > bound
          && oversubscribedByCurator.contains(h.lock)) {
        count("progress.excused.curatorLeaseWithoutAdmission");
        h.stalledByCurator = true;
        h.cancelled = true;
        h.endedAt = now;
        h.outcome = "stalled by Curator's lease without admission";
        continue;
      }
      if (h.waiting() && now - Math.max(h.requestedAt, quietFrom) > bound) {
        fail(
            "PROGRESS",
            h
                + " still waits "
                + Trace.fmt(now - h.requestedAt)
                + " s after it asked, "
                + Trace.fmt(now - quietFrom)
                + " s after the last fault; holders: "
                + believers(h.lock));
      }
    }
  }

  /**
   * CLEAN: at quiescence (every request ended, every hold released) no client's lock node is left;
   * after every client closed, no ephemeral node at all.
   */
  void clean(List<ZkNode> nodes, boolean afterClose) {
    SimTree t = ens.truth();
    // at quiescence, the sessions zklock's clients still use; after the close, every one of theirs
    // (a session a client gave up on lingers on the ensemble until it expires it: not a leak)
    java.util.Set<Long> ours = new java.util.HashSet<>();
    for (ZkNode n : nodes) {
      for (SimZkClient c : n.handles) {
        if (afterClose || !c.closed()) {
          ours.add(c.getSessionId());
        }
      }
    }
    List<String> left = new ArrayList<>();
    for (var e : t.ephemerals().entrySet()) {
      if (!ours.contains(e.getKey())) {
        continue; // a foreign client's (Curator's own cleanliness is not zklock's promise)
      }
      for (String p : e.getValue()) {
        left.add(p + " (session 0x" + Long.toHexString(e.getKey()) + ")");
      }
    }
    if (!left.isEmpty()) {
      fail(
          "CLEAN",
          (afterClose ? "after every client closed" : "at quiescence, nothing held or queued")
              + ", nodes are left: "
              + left);
    }
  }

  List<Hold> holdsOf(String lock) {
    return byLock.getOrDefault(lock, List.of());
  }

  List<Hold> all() {
    return List.copyOf(holds.values());
  }
}
