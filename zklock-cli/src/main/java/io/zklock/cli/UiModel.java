package io.zklock.cli;

import static io.zklock.cli.LockListing.quote;

import io.zklock.LocalLocks;
import io.zklock.LockInfo;
import io.zklock.LockNode;
import io.zklock.SessionListener;
import io.zklock.SessionState;
import io.zklock.ZkLocks;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * What {@code zklock ui} shows: every lock under the namespace as {@link ZkLocks#inspectAll} reads
 * it (the same as {@code zklock ls}), kept current by one {@link ZkLocks#watchLocks} watch, and a
 * timeline of what changed since the view opened. Changes are read on one thread: the watch marks
 * locks dirty, and one refresh reads every dirty lock again ({@link ZkLocks#inspect}), or
 * everything after a reconnection. Browsers read this model, never ZooKeeper.
 *
 * <p>Beside the locks it keeps what the view itself knows: its own session's state (when it is not
 * connected, everything shown is as last known), when each holder was granted (ZooKeeper's records,
 * {@link LockNode#granted()}, narrowed by the reads in which this view saw the request waiting and
 * then holding), and, where the servers answer {@code cons} ({@link SessionProbe}), which holders'
 * sessions have a connection.
 */
final class UiModel implements AutoCloseable {
  /** The timeline keeps this many events; older ones are dropped (the page says so). */
  static final int TIMELINE_LIMIT = 2_000;

  /**
   * How often the holders' sessions are probed while any lock is shown: every 2 s, or, when an
   * answer takes long (a large ensemble's {@code cons} lists every connection; a server that does
   * not answer costs the timeout), {@link #PROBE_SHARE} times as long as the last one took, so that
   * the probe keeps a server busy at most one part in twenty of the time.
   */
  static final long PROBE_EVERY_MILLIS = 2_000;

  static final int PROBE_SHARE = 20;

  /** One entry of the timeline. */
  record Event(
      long seq,
      long time,
      String type,
      String lock,
      String kind,
      String node,
      String client,
      String session,
      long token,
      String reason) {
    String json() {
      return "{\"seq\":"
          + seq
          + ",\"time\":"
          + time
          + ",\"type\":"
          + quote(type)
          + ",\"lock\":"
          + quote(lock)
          + ",\"kind\":"
          + quote(kind)
          + ",\"node\":"
          + quote(node)
          + ",\"client\":"
          + quote(client)
          + ",\"session\":"
          + quote(session)
          + ",\"token\":"
          + token
          + ",\"reason\":"
          + quote(reason)
          + "}";
    }

    boolean matches(String query, String kindWanted, String clientWanted) {
      if (kindWanted != null && !kindWanted.isEmpty() && !kindWanted.equals(kind)) {
        return false;
      }
      if (clientWanted != null && !clientWanted.isEmpty() && !clientWanted.equals(client)) {
        return false;
      }
      String q = query == null ? "" : query.strip().toLowerCase(Locale.ROOT);
      return q.isEmpty()
          || lock.toLowerCase(Locale.ROOT).contains(q)
          || client.toLowerCase(Locale.ROOT).contains(q)
          || reason.toLowerCase(Locale.ROOT).contains(q);
    }
  }

  /**
   * When this view knows a holder was granted: at or after {@code from}, at or before {@code to}
   * (the view's clock, ms); {@code how}: {@code records} (exact, ZooKeeper's records), {@code seen}
   * (this view saw the request waiting, then holding), {@code range} (bounded by the records and
   * the read that first saw it holding, as for a holder older than the view). {@code told}: when
   * this view's watch first told of a change of the lock after the read that saw the request
   * waiting, the view being connected all along (ZooKeeper sends a watch event at each change, in
   * order, as it happens: the grant was told then, give or take the event's way); 0 when not so.
   */
  record Granted(long from, long to, String how, long told) {}

  /** What the probe knows of a session: when it last saw it connected, since when not. */
  record SessionSeen(long lastConnected, long absentSince, int timeoutMillis) {}

  /** One lock as the page gets it. */
  record Row(
      int id,
      LockInfo info,
      long changed,
      String kind,
      Map<String, Granted> grants,
      long waitSince,
      long holdTo,
      Set<String> clients,
      long readAt) {}

  /** Every lock at one version, by name, with the counts per kind and per client. */
  record Snapshot(
      long version,
      List<Row> rows,
      long held,
      long waiting,
      Map<String, Integer> kinds,
      Map<String, Integer> clients,
      long countsChanged) {}

  /** The view's own session and how current what it shows is. */
  record ViewState(
      String state,
      String server,
      long sessionId,
      long sinceMillis,
      boolean current,
      long knownAtMillis,
      String error) {
    String json() {
      return "{\"status\":"
          + quote(state)
          + ",\"server\":"
          + quote(server)
          + ",\"sessionId\":"
          + quote("0x" + Long.toHexString(sessionId))
          + ",\"statusSince\":"
          + sinceMillis
          + ",\"current\":"
          + current
          + ",\"knownAt\":"
          + knownAtMillis
          + ",\"error\":"
          + quote(error)
          + "}";
    }
  }

  /** Told after each refresh that changed something, and at each change of the view's state. */
  interface Listener {
    void changed(long version, List<Event> events);

    default void viewChanged(ViewState state) {}
  }

  private final ZkLocks locks;
  private final String under;
  private final LongSupplier wallClock;
  private final SessionProbe probe;
  private final ScheduledExecutorService refresher =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "zklock-ui-refresh");
            t.setDaemon(true);
            return t;
          });

  // the periodic probe: on its own thread, so that a slow answer does not hold up the refreshes
  private final ScheduledExecutorService prober =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "zklock-ui-probe");
            t.setDaemon(true);
            return t;
          });

  // written on the refresher thread only; read by HTTP threads under the monitor
  private final TreeMap<String, Row> byName = new TreeMap<>();
  private final Map<String, Integer> ids = new HashMap<>();
  private final Deque<Event> timeline = new ArrayDeque<>();
  private long version;
  private long seq;
  private final long openedMillis;
  private volatile Snapshot snapshot = new Snapshot(0, List.of(), 0, 0, Map.of(), Map.of(), 0);

  // what this view saw of requests, by node path (refresher thread only)
  private final Map<String, Long> seenWaiting = new HashMap<>(); // read start where it waited
  private final Map<String, Granted> grants = new HashMap<>();
  private final Map<Long, SessionSeen> sessions = new ConcurrentHashMap<>();
  private volatile SessionProbe.Answer lastProbe = SessionProbe.Answer.unknown("not asked yet");

  private final Set<String> dirty = ConcurrentHashMap.newKeySet();
  // the first change the watch told of each lock since its last read (view's clock)
  private final Map<String, Long> told = new ConcurrentHashMap<>();
  private final Map<String, Long> toldRead = new HashMap<>(); // taken by the refresh, applied
  private volatile long currentSince; // when the view last became current (after a stale time)
  private final AtomicBoolean dirtyAll = new AtomicBoolean(true);
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private final AtomicLong zkReads = new AtomicLong(); // inspect/inspectAll calls
  private final AtomicLong refreshes = new AtomicLong();
  private final AtomicLong probes = new AtomicLong();
  private final Map<String, String> forcedBy = new ConcurrentHashMap<>(); // node path -> who
  private final List<Listener> listeners = new CopyOnWriteArrayList<>();
  private final SessionListener sessionListener = (s, id) -> sessionChanged(s);
  private volatile io.zklock.LockWatch watch;
  private volatile String lastError = "";
  private volatile long staleSince = -1; // wall ms since when what is shown may be out of date
  private volatile boolean everConnected;

  UiModel(ZkLocks locks, String under, LongSupplier wallClock, SessionProbe probe) {
    this.locks = locks;
    this.under = under;
    this.wallClock = wallClock;
    this.probe = probe;
    this.openedMillis = wallClock.getAsLong();
  }

  UiModel(ZkLocks locks, String under, LongSupplier wallClock) {
    this(locks, under, wallClock, new SessionProbe("", false, 1_000));
  }

  /** Reads everything once (fails if ZooKeeper cannot be read), then sets the watch. */
  void start() {
    locks.addSessionListener(sessionListener);
    long readStart = wallClock.getAsLong();
    List<LockInfo> all = locks.inspectAll(under);
    zkReads.incrementAndGet();
    everConnected = true;
    synchronized (this) {
      Map<String, LockInfo> read = new HashMap<>();
      all.forEach(l -> read.put(l.name(), l));
      // what was there before the view opened is no event of its timeline
      apply(read, Set.of(), false, readStart, wallClock.getAsLong(), null);
    }
    dirtyAll.set(false);
    watch = locks.watchLocks(under, this::changed);
    if (probe.servers() > 0) {
      prober.execute(this::probeRound);
    }
  }

  void addListener(Listener l) {
    listeners.add(l);
  }

  void removeListener(Listener l) {
    listeners.remove(l);
  }

  /** The watch told a change: mark it, and refresh once for everything marked meanwhile. */
  private void changed(String name) {
    if (name == null) {
      dirtyAll.set(true);
    } else {
      dirty.add(name);
      told.putIfAbsent(name, wallClock.getAsLong());
    }
    if (scheduled.compareAndSet(false, true)) {
      refresher.execute(this::refresh);
    }
  }

  private void sessionChanged(SessionState s) {
    if (s == SessionState.CONNECTED) {
      everConnected = true;
    } else if (staleSince < 0) {
      staleSince = wallClock.getAsLong();
    }
    ViewState v = viewState();
    for (Listener l : listeners) {
      l.viewChanged(v);
    }
  }

  private void refresh() {
    scheduled.set(false);
    refreshes.incrementAndGet();
    Map<String, LockInfo> read = new HashMap<>();
    Set<String> gone = new HashSet<>();
    boolean all = dirtyAll.getAndSet(false);
    long readStart = wallClock.getAsLong();
    boolean wasStale = staleSince >= 0;
    try {
      toldRead.clear();
      if (all) {
        dirty.clear();
        told.clear(); // changes may have gone untold: nothing to narrow grants with
        for (LockInfo l : locks.inspectAll(under)) {
          read.put(l.name(), l);
        }
        zkReads.incrementAndGet();
      } else {
        List<String> names = new ArrayList<>(dirty);
        dirty.removeAll(names);
        for (String n : names) {
          Long t = told.remove(n);
          if (t != null) {
            toldRead.put(n, t);
          }
          zkReads.incrementAndGet();
          locks.inspect(n).ifPresentOrElse(l -> read.put(n, l), () -> gone.add(n));
        }
      }
      lastError = "";
    } catch (RuntimeException e) {
      lastError = String.valueOf(e.getMessage());
      if (staleSince < 0) {
        staleSince = readStart;
      }
      dirtyAll.set(true); // read everything at the next change or reconnection
      if (locks.sessionState() == SessionState.CONNECTED) {
        // connected but the read failed (a server that is going away, an ACL): try again soon
        refresher.schedule(() -> changed(null), 1, TimeUnit.SECONDS);
      }
      listeners.forEach(l -> l.viewChanged(viewState()));
      return;
    }
    long readEnd = wallClock.getAsLong();
    // a node that went is told apart by its session: asked now, outside the monitor
    SessionProbe.Answer fresh = null;
    if (probe.servers() > 0 && anyNodeWent(read, gone, all)) {
      fresh = probe.ask();
      probes.incrementAndGet();
    }
    List<Event> events = new ArrayList<>();
    long v;
    synchronized (this) {
      pendingAnswer = fresh;
      v = apply(read, gone, all, readStart, readEnd, events);
      if (all && locks.sessionState() == SessionState.CONNECTED && staleSince >= 0) {
        staleSince = -1; // everything read again on a live session: current from now on
        currentSince = readEnd;
      }
    }
    for (Listener l : listeners) {
      l.changed(v, events);
    }
    if (wasStale && staleSince < 0) {
      listeners.forEach(l -> l.viewChanged(viewState()));
    }
  }

  private SessionProbe.Answer pendingAnswer; // the probe asked for the refresh being applied

  /** Whether a node shown now is missing from what was just read. */
  private boolean anyNodeWent(Map<String, LockInfo> read, Set<String> gone, boolean all) {
    Snapshot s = snapshot;
    if (!gone.isEmpty() || (all && s.rows().size() != read.size())) {
      return true;
    }
    for (LockInfo l : read.values()) {
      Row old = row(l.name());
      if (old == null) {
        continue;
      }
      Set<String> now = new HashSet<>();
      l.holders().forEach(n -> now.add(n.path()));
      l.waiters().forEach(n -> now.add(n.path()));
      for (List<LockNode> list : List.of(old.info().holders(), old.info().waiters())) {
        for (LockNode n : list) {
          if (!now.contains(n.path())) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /** Called holding the monitor: applies one read, returns the new version. */
  private long apply(
      Map<String, LockInfo> read,
      Set<String> goneNames,
      boolean all,
      long readStart,
      long readEnd,
      List<Event> events) {
    long v = ++version;
    Set<String> gone = new HashSet<>(goneNames);
    if (all) {
      for (String n : byName.keySet()) {
        if (!read.containsKey(n)) {
          gone.add(n);
        }
      }
    }
    // the sessions that hold or wait in what was just read: alive at the read
    Set<Long> owners = new HashSet<>();
    for (LockInfo l : read.values()) {
      l.holders().forEach(h -> owners.add(h.sessionId()));
      l.waiters().forEach(w -> owners.add(w.sessionId()));
    }
    Classifier classifier = new Classifier(owners, readEnd);
    for (String n : gone) {
      Row old = byName.remove(n);
      if (old != null) {
        diff(old.info(), null, readEnd, classifier, events);
        forget(old.info());
      }
    }
    for (LockInfo l : read.values()) {
      Row old = byName.get(l.name());
      if (old != null && old.info().equals(l)) {
        continue; // told twice, or changed and back: nothing to show
      }
      if (events != null) {
        diff(old == null ? null : old.info(), l, readEnd, classifier, events);
      }
      if (old != null) {
        forgetGoneNodes(old.info(), l);
      }
      byName.put(l.name(), row(l, v, readStart, readEnd, old));
    }
    for (Event e : events == null ? List.<Event>of() : events) {
      timeline.addLast(e);
      if (timeline.size() > TIMELINE_LIMIT) {
        timeline.removeFirst();
      }
    }
    publish(v);
    return v;
  }

  /** Builds the row of {@code l}: its holders' grants as this view knows them. */
  private Row row(LockInfo l, long v, long readStart, long readEnd, Row before) {
    // told: the first change of this lock the watch told since its last read, when the view was
    // current all along since that read
    Long t = toldRead.get(l.name());
    long toldAt =
        t != null && before != null && before.readAt() >= currentSince && staleSince < 0 ? t : 0;
    int id = ids.computeIfAbsent(l.name(), k -> ids.size() + 1);
    Map<String, Granted> g = new LinkedHashMap<>();
    long holdTo = Long.MAX_VALUE;
    for (LockNode h : l.holders()) {
      Granted known = granted(h, readEnd, toldAt);
      grants.put(h.path(), known);
      g.put(h.path(), known);
      holdTo = Math.min(holdTo, known.to());
      seenWaiting.remove(h.path());
    }
    long waitSince = Long.MAX_VALUE;
    for (LockNode w : l.waiters()) {
      seenWaiting.put(w.path(), readStart);
      waitSince = Math.min(waitSince, w.since().toEpochMilli());
    }
    Set<String> clients = new HashSet<>();
    l.holders().forEach(n -> clients.add(clientOf(n)));
    l.waiters().forEach(n -> clients.add(clientOf(n)));
    return new Row(
        id, l, v, kindOf(l), Map.copyOf(g), waitSince, holdTo, Set.copyOf(clients), readStart);
  }

  /**
   * What this view knows of a holder's grant: ZooKeeper's records ({@link LockNode#granted()}),
   * narrowed by what this view saw: waiting at the start of an earlier read, holding at the end of
   * this one.
   */
  private Granted granted(LockNode h, long readEnd, long toldAt) {
    Granted before = grants.get(h.path());
    LockNode.Grant records = h.granted().orElse(null);
    long from = records == null ? h.since().toEpochMilli() : records.earliest().toEpochMilli();
    long to =
        records == null || records.latest().isEmpty()
            ? Long.MAX_VALUE
            : records.latest().get().toEpochMilli();
    if (records != null && records.exact()) {
      return new Granted(from, from, "records", 0);
    }
    if (before != null) {
      return before; // held when read before: what was known then still holds
    }
    Long waited = seenWaiting.get(h.path());
    String how = "range";
    long toldOf = 0;
    if (waited != null && waited >= from) {
      from = waited;
      how = "seen";
      toldOf = toldAt >= waited ? toldAt : 0;
    }
    to = Math.min(to, readEnd);
    if (to < from) {
      to = from; // clocks of the servers and of this view differ: keep the window whole
    }
    return new Granted(from, to, how, toldOf);
  }

  private void forget(LockInfo l) {
    l.holders().forEach(h -> grants.remove(h.path()));
    l.waiters().forEach(w -> seenWaiting.remove(w.path()));
  }

  private void forgetGoneNodes(LockInfo old, LockInfo now) {
    Set<String> present = new HashSet<>();
    now.holders().forEach(n -> present.add(n.path()));
    now.waiters().forEach(n -> present.add(n.path()));
    for (LockNode n : old.holders()) {
      if (!present.contains(n.path())) {
        grants.remove(n.path());
      }
    }
    for (LockNode n : old.waiters()) {
      if (!present.contains(n.path())) {
        seenWaiting.remove(n.path());
      }
    }
  }

  /** Called holding the monitor: a new snapshot for the HTTP threads. */
  private void publish(long v) {
    List<Row> rows = new ArrayList<>(byName.values());
    long held = 0;
    long waiting = 0;
    Map<String, Integer> kinds = new TreeMap<>();
    Map<String, Integer> clients = new HashMap<>();
    for (Row r : rows) {
      if (r.info().isHeld()) {
        held++;
      }
      waiting += r.info().waiters().size();
      kinds.merge(r.kind(), 1, Integer::sum);
      for (List<LockNode> list : List.of(r.info().holders(), r.info().waiters())) {
        for (LockNode n : list) {
          clients.merge(clientOf(n), 1, Integer::sum);
        }
      }
    }
    Snapshot before = snapshot;
    boolean same = before.kinds().equals(kinds) && before.clients().equals(clients);
    snapshot =
        new Snapshot(
            v,
            Collections.unmodifiableList(rows),
            held,
            waiting,
            Collections.unmodifiableMap(kinds),
            Collections.unmodifiableMap(clients),
            same ? before.countsChanged() : v);
  }

  /**
   * Why a node went, where the events allow: this view forced it; its session is still connected
   * (or still holds other nodes), so its holder released it; its session had no connection for the
   * session timeout, so it expired; its session ended with its connection, so its client closed it;
   * else unknown.
   */
  private final class Classifier {
    private final Set<Long> owners;
    private final long now;
    private SessionProbe.Answer fresh;

    Classifier(Set<Long> owners, long now) {
      this.owners = owners;
      this.now = now;
      this.fresh = pendingAnswer;
      pendingAnswer = null;
    }

    /** {type, reason} for a holder ({@code held}) or a waiter that went. */
    String[] why(LockNode n, boolean held, boolean election) {
      String forced = forcedBy.remove(n.path());
      if (forced != null) {
        return new String[] {"forced", "forced release by " + forced};
      }
      String done = held ? (election ? "stepped down" : "released") : "withdrew";
      String type = held ? "released" : "withdrawn";
      long sid = n.sessionId();
      if (fresh == null) {
        fresh = SessionProbe.Answer.unknown("the servers are not probed");
      }
      if (!fresh.known()) {
        if (owners.contains(sid)) {
          return new String[] {
            type,
            done
                + " by its client: its session held other nodes in the same read"
                + (held ? " (or forced by another client)" : "")
          };
        }
        return new String[] {
          "gone",
          (held ? "released, or its session ended" : "withdrew, or its session ended")
              + ": ZooKeeper does not tell which here ("
              + fresh.why()
              + ")"
        };
      }
      if (fresh.sessions().containsKey(sid)) {
        return new String[] {
          type,
          done
              + " by its client: its session is still connected"
              + (held
                  ? " (a release, its lease running out, or a forced release by another client)"
                  : "")
        };
      }
      SessionSeen s = sessions.get(sid);
      if (s == null || s.lastConnected() < 0) {
        return new String[] {
          "gone",
          (held ? "released" : "withdrew")
              + ", or its session ended (the probe never saw its session connected)"
        };
      }
      // a session expires a timeout after its last heartbeat, and a client sends one at least
      // every third of it: not sooner than two thirds of the timeout after it was seen connected
      long elapsed = now - s.lastConnected();
      boolean couldHaveExpired = s.timeoutMillis() > 0 && elapsed * 3 >= s.timeoutMillis() * 2L;
      String seen = Instant.ofEpochMilli(s.lastConnected()).toString();
      if (s.absentSince() >= 0) {
        if (couldHaveExpired) {
          return new String[] {
            "session-expired",
            "its session expired: no connection since between "
                + seen
                + " and "
                + Instant.ofEpochMilli(s.absentSince())
                + " (session timeout "
                + (s.timeoutMillis() / 1000)
                + " s)"
          };
        }
        return new String[] {
          "gone",
          "deleted while its session had no connection (since "
              + Instant.ofEpochMilli(s.absentSince())
              + "), too soon for an expiry: forced by another client"
        };
      }
      if (!couldHaveExpired) {
        return new String[] {
          "session-closed",
          "its session ended with its connection, too soon for an expiry: its client closed it"
              + " (or its process exited)"
        };
      }
      return new String[] {
        "gone",
        "its session ended: closed by its client, or expired (last seen connected "
            + seen
            + "; the probe did not see when its connection went)"
      };
    }
  }

  /** Called holding the monitor: the timeline events between two reads of one lock. */
  private void diff(LockInfo old, LockInfo now, long time, Classifier why, List<Event> out) {
    Map<String, LockNode> oldHolders = byPath(old == null ? List.of() : old.holders());
    Map<String, LockNode> oldWaiters = byPath(old == null ? List.of() : old.waiters());
    Map<String, LockNode> newHolders = byPath(now == null ? List.of() : now.holders());
    Map<String, LockNode> newWaiters = byPath(now == null ? List.of() : now.waiters());
    LockInfo either = now != null ? now : old;
    String lock = either.name();
    String kind = kindOf(either);
    boolean election = either.kind() == LockInfo.Kind.ELECTION;
    for (LockNode h : oldHolders.values()) {
      if (!newHolders.containsKey(h.path())) {
        String[] tr = why.why(h, true, election);
        out.add(event(time, tr[0], lock, kind, h, tr[1]));
      } else if (!h.releaseRequested() && newHolders.get(h.path()).releaseRequested()) {
        out.add(
            event(time, "release-requested", lock, kind, h, requester(newHolders.get(h.path()))));
      }
    }
    for (LockNode h : newHolders.values()) {
      if (!oldHolders.containsKey(h.path())) {
        out.add(event(time, election ? "leads" : "granted", lock, kind, h, ""));
      }
    }
    for (LockNode w : newWaiters.values()) {
      if (!oldWaiters.containsKey(w.path()) && !oldHolders.containsKey(w.path())) {
        out.add(event(time, "queued", lock, kind, w, ""));
      }
    }
    for (LockNode w : oldWaiters.values()) {
      if (!newWaiters.containsKey(w.path()) && !newHolders.containsKey(w.path())) {
        String[] tr = why.why(w, false, election);
        out.add(event(time, tr[0], lock, kind, w, tr[1]));
      }
    }
  }

  private static String requester(LockNode n) {
    String by = n.data().get("releaseRequestedBy");
    return by == null ? "" : "asked by " + by;
  }

  private static Map<String, LockNode> byPath(List<LockNode> nodes) {
    Map<String, LockNode> m = new LinkedHashMap<>();
    nodes.forEach(n -> m.put(n.path(), n));
    return m;
  }

  private Event event(long time, String type, String lock, String kind, LockNode n, String why) {
    return new Event(
        ++seq,
        time,
        type,
        lock,
        kind,
        n.path(),
        clientOf(n),
        "0x" + Long.toHexString(n.sessionId()),
        n.fencingToken(),
        why);
  }

  static String clientOf(LockNode n) {
    return n.clientName().isEmpty() ? "?" : n.clientName();
  }

  // ------------------------------------------------------------------ sessions

  /** One periodic probe, then the next after {@link #PROBE_EVERY_MILLIS} or longer. */
  private void probeRound() {
    long start = wallClock.getAsLong();
    try {
      probeSessions();
    } catch (RuntimeException e) {
      lastProbe = SessionProbe.Answer.unknown(String.valueOf(e.getMessage()));
    }
    long took = Math.max(0, wallClock.getAsLong() - start);
    try {
      prober.schedule(
          this::probeRound,
          Math.max(PROBE_EVERY_MILLIS, took * PROBE_SHARE),
          TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException closed) {
      // the view is closing
    }
  }

  /** Asks which sessions are connected; marks the rows whose holders' sessions changed. */
  private void probeSessions() {
    Snapshot s = snapshot;
    if (s.rows().isEmpty()) {
      return;
    }
    Set<Long> owners = new HashSet<>();
    for (Row r : s.rows()) {
      r.info().holders().forEach(h -> owners.add(h.sessionId()));
      r.info().waiters().forEach(w -> owners.add(w.sessionId()));
    }
    SessionProbe.Answer a;
    try {
      a = probe.ask();
    } catch (RuntimeException e) {
      a = SessionProbe.Answer.unknown(String.valueOf(e.getMessage()));
    }
    probes.incrementAndGet();
    SessionProbe.Answer before = lastProbe;
    lastProbe = a;
    long now = wallClock.getAsLong();
    Set<Long> changedSessions = new HashSet<>();
    if (a.known()) {
      for (long sid : owners) {
        SessionSeen old = sessions.get(sid);
        Integer to = a.sessions().get(sid);
        if (to != null) {
          if (old == null || old.absentSince() >= 0) {
            changedSessions.add(sid);
          }
          sessions.put(sid, new SessionSeen(now, -1, to));
        } else if (old != null && old.absentSince() < 0) {
          sessions.put(sid, new SessionSeen(old.lastConnected(), now, old.timeoutMillis()));
          changedSessions.add(sid);
        }
      }
      sessions.keySet().retainAll(owners);
    }
    if (before.known() != a.known()) {
      changedSessions.add(-1L); // every row: the probe came or went
    }
    if (changedSessions.isEmpty()) {
      return;
    }
    long v;
    synchronized (this) {
      v = ++version;
      Set<Long> mine = new HashSet<>();
      for (Map.Entry<String, Row> e : byName.entrySet()) {
        Row r = e.getValue();
        mine.clear();
        r.info().holders().forEach(h -> mine.add(h.sessionId()));
        r.info().waiters().forEach(w -> mine.add(w.sessionId()));
        if (changedSessions.contains(-1L) || !Collections.disjoint(mine, changedSessions)) {
          e.setValue(
              new Row(
                  r.id(),
                  r.info(),
                  v,
                  r.kind(),
                  r.grants(),
                  r.waitSince(),
                  r.holdTo(),
                  r.clients(),
                  r.readAt()));
        }
      }
      publish(v);
    }
    for (Listener l : listeners) {
      l.changed(v, List.of());
    }
  }

  /** The probe's news of a session: {@code connected}, {@code disconnected} or {@code unknown}. */
  String sessionLink(long sid) {
    if (!lastProbe.known()) {
      return "unknown";
    }
    SessionSeen s = sessions.get(sid);
    if (s == null) {
      return lastProbe.sessions().containsKey(sid) ? "connected" : "unknown";
    }
    return s.absentSince() >= 0 ? "disconnected" : "connected";
  }

  SessionSeen session(long sid) {
    return sessions.get(sid);
  }

  SessionProbe.Answer lastProbe() {
    return lastProbe;
  }

  /** Remembers that this view forced {@code nodePath} out, so that its loss names who did it. */
  void forced(String nodePath, String who) {
    forcedBy.put(nodePath, who);
  }

  /** Forgets {@link #forced}: the node was gone before this view could delete it. */
  void unforced(String nodePath) {
    forcedBy.remove(nodePath);
  }

  /** Marks {@code name} for a refresh, as the watch would (after an action of this view). */
  void touch(String name) {
    changed(name);
  }

  // ------------------------------------------------------------------ reading

  /** The view's own session, and since when what it shows is as last known. */
  ViewState viewState() {
    LocalLocks l = locks.localLocks();
    long now = wallClock.getAsLong();
    long since = now - l.sessionStateFor().toMillis();
    String state =
        switch (l.sessionState()) {
          case CONNECTED -> "connected";
          case SUSPENDED -> everConnected ? "suspended" : "connecting";
          case LOST -> "lost";
          case CLOSED -> "closed";
        };
    long stale = staleSince;
    boolean current = l.sessionState() == SessionState.CONNECTED && stale < 0;
    return new ViewState(
        state,
        l.connectedServer(),
        l.sessionId(),
        since,
        current,
        current ? now : stale,
        lastError);
  }

  Snapshot snapshot() {
    return snapshot;
  }

  synchronized long version() {
    return version;
  }

  /** Every lock now, by name. */
  List<LockInfo> all() {
    return snapshot.rows().stream().map(Row::info).toList();
  }

  synchronized Row row(String name) {
    return byName.get(name);
  }

  LockInfo lock(String name) {
    Row r = row(name);
    return r == null ? null : r.info();
  }

  long zkReads() {
    return zkReads.get();
  }

  long refreshes() {
    return refreshes.get();
  }

  long probes() {
    return probes.get();
  }

  io.zklock.LockWatch watch() {
    return watch;
  }

  String lastError() {
    return lastError;
  }

  long openedMillis() {
    return openedMillis;
  }

  /** The timeline events after {@code afterSeq} that match, oldest first, at most {@code limit}. */
  synchronized List<Event> timeline(
      long afterSeq, int limit, String query, String kind, String client) {
    List<Event> out = new ArrayList<>();
    for (Event e : timeline) {
      if (e.seq() > afterSeq && e.matches(query, kind, client)) {
        out.add(e);
      }
    }
    return out.size() > limit ? out.subList(out.size() - limit, out.size()) : out;
  }

  List<Event> timeline(long afterSeq, int limit) {
    return timeline(afterSeq, limit, null, null, null);
  }

  // ------------------------------------------------------------------ the page's queries

  /** The page's filters: the search box, kind, client, "has waiters", "held longer than". */
  record Query(
      String q, String kind, String state, String client, boolean withWaiters, long heldLonger) {}

  /** A filter for the page's search box, kind menu, client, "has waiters", "held longer than". */
  static Predicate<Row> filter(Query query, long now) {
    Predicate<LockInfo> base = filter(query.q(), query.kind(), query.state());
    return r -> {
      if (!base.test(r.info())) {
        return false;
      }
      if (query.withWaiters() && r.info().waiters().isEmpty()) {
        return false;
      }
      if (query.client() != null
          && !query.client().isEmpty()
          && !r.clients().contains(query.client())) {
        return false;
      }
      if (query.heldLonger() > 0
          && (r.holdTo() == Long.MAX_VALUE || now - r.holdTo() < query.heldLonger())) {
        return false;
      }
      return true;
    };
  }

  /**
   * The page's orders: {@code attention} (locks with waiters by longest wait, then held ones by
   * longest hold, then the rest by name), {@code wait}, {@code hold}, {@code waiters}, {@code
   * name}. A hold is as long as it surely is (since the latest possible grant).
   */
  static Comparator<Row> order(String sort) {
    Comparator<Row> byName = Comparator.comparing(r -> r.info().name());
    Comparator<Row> byWait = Comparator.comparingLong(Row::waitSince);
    Comparator<Row> byHold = Comparator.comparingLong(Row::holdTo);
    Comparator<Row> byWaiters =
        Comparator.comparingInt((Row r) -> r.info().waiters().size()).reversed();
    return switch (sort == null ? "" : sort) {
      case "wait" -> byWait.thenComparing(byHold).thenComparing(byName);
      case "hold" -> byHold.thenComparing(byName);
      case "waiters" -> byWaiters.thenComparing(byWait).thenComparing(byName);
      case "name" -> byName;
      default ->
          Comparator.comparingInt(
                  (Row r) -> !r.info().waiters().isEmpty() ? 0 : r.info().isHeld() ? 1 : 2)
              .thenComparing(byWait)
              .thenComparing(byHold)
              .thenComparing(byName);
    };
  }

  /** A filter for the page's search box and kind menu. */
  static Predicate<LockInfo> filter(String q, String kind, String state) {
    String query = q == null ? "" : q.trim().toLowerCase(Locale.ROOT);
    return l -> {
      if (kind != null && !kind.isEmpty() && !kind.equals(kindOf(l))) {
        return false;
      }
      if ("held".equals(state) && !l.isHeld()) {
        return false;
      }
      if ("waiting".equals(state) && l.waiters().isEmpty()) {
        return false;
      }
      if (query.isEmpty()) {
        return true;
      }
      if (l.name().toLowerCase(Locale.ROOT).contains(query)) {
        return true;
      }
      for (List<LockNode> list : List.of(l.holders(), l.waiters())) {
        for (LockNode n : list) {
          if (n.clientName().toLowerCase(Locale.ROOT).contains(query)
              || n.host().toLowerCase(Locale.ROOT).contains(query)
              || n.ownerData().toLowerCase(Locale.ROOT).contains(query)) {
            return true;
          }
        }
      }
      return false;
    };
  }

  /** The kind the page shows: the lock's, or "cohort" when its nodes are a cohort's. */
  static String kindOf(LockInfo l) {
    for (List<LockNode> list : List.of(l.holders(), l.waiters())) {
      for (LockNode n : list) {
        if (n.kind() == LockNode.Kind.COHORT
            || n.kind() == LockNode.Kind.COHORT_WRITE
            || n.kind() == LockNode.Kind.COHORT_READ) {
          return "cohort";
        }
      }
    }
    return switch (l.kind()) {
      case READ_WRITE -> "read-write";
      case DOUBLE_BARRIER -> "double-barrier";
      default -> l.kind().name().toLowerCase(Locale.ROOT);
    };
  }

  /** One lock as JSON: the fields of {@code zklock ls --json}, and what the page adds. */
  static String lockJson(LockInfo lock, long nowMillis, int maxWaiters) {
    return lockJson(lock, nowMillis, maxWaiters, 0, Map.of(), sid -> "unknown", sid -> null);
  }

  /** One lock as JSON with what this view knows of its holders' grants and sessions. */
  static String lockJson(
      LockInfo lock,
      long nowMillis,
      int maxWaiters,
      int id,
      Map<String, Granted> grants,
      java.util.function.LongFunction<String> link,
      java.util.function.LongFunction<SessionSeen> seen) {
    StringBuilder sb = new StringBuilder();
    sb.append("{\"name\":").append(quote(lock.name()));
    if (id > 0) {
      sb.append(",\"id\":").append(id);
    }
    sb.append(",\"path\":").append(quote(lock.path()));
    sb.append(",\"kind\":").append(quote(lock.kind().name().toLowerCase(Locale.ROOT)));
    sb.append(",\"shownKind\":").append(quote(kindOf(lock)));
    if (lock.kind() == LockInfo.Kind.SEMAPHORE) {
      sb.append(",\"permits\":").append(lock.permits());
    }
    if (!lock.state().isEmpty()) {
      // a latch's, barrier's or condition's state, as zklock ls --json gives it
      sb.append(",\"state\":{");
      List<String> keys = new ArrayList<>(lock.state().keySet());
      Collections.sort(keys);
      for (int k = 0; k < keys.size(); k++) {
        sb.append(k > 0 ? "," : "")
            .append(quote(keys.get(k)))
            .append(':')
            .append(quote(lock.state().get(keys.get(k))));
      }
      sb.append('}');
    }
    if (lock.kind() == LockInfo.Kind.ELECTION && lock.isHeld()) {
      LockNode leader = lock.holders().get(0);
      sb.append(",\"leader\":")
          .append(quote(leader.participantId().orElse(leader.clientName())))
          .append(",\"epoch\":")
          .append(leader.fencingToken());
    }
    sb.append(",\"holders\":[");
    nodes(sb, lock.holders(), lock.holders().size(), nowMillis, true, grants, link, seen);
    sb.append("],\"waitersTotal\":").append(lock.waiters().size());
    sb.append(",\"waiters\":[");
    nodes(sb, lock.waiters(), maxWaiters, nowMillis, false, grants, link, seen);
    sb.append("]}");
    return sb.toString();
  }

  private static void nodes(
      StringBuilder sb,
      List<LockNode> list,
      int max,
      long nowMillis,
      boolean holds,
      Map<String, Granted> grants,
      java.util.function.LongFunction<String> link,
      java.util.function.LongFunction<SessionSeen> seen) {
    for (int i = 0; i < Math.min(max, list.size()); i++) {
      LockNode e = list.get(i);
      if (i > 0) {
        sb.append(',');
      }
      sb.append("{\"node\":").append(quote(e.name()));
      sb.append(",\"path\":").append(quote(e.path()));
      sb.append(",\"kind\":").append(quote(e.kind().label()));
      sb.append(",\"state\":").append(quote(holds ? "holds" : LockListing.waiting(e)));
      sb.append(",\"client\":").append(quote(e.clientName().isEmpty() ? "?" : e.clientName()));
      sb.append(",\"participant\":")
          .append(e.participantId().map(LockListing::quote).orElse("null"));
      sb.append(",\"host\":").append(quote(e.host().isEmpty() ? "?" : e.host()));
      sb.append(",\"pid\":").append(e.pid() > 0 ? Long.toString(e.pid()) : "null");
      sb.append(",\"session\":").append(quote("0x" + Long.toHexString(e.sessionId())));
      sb.append(",\"since\":").append(quote(e.since().toString()));
      sb.append(",\"sinceMillis\":").append(e.since().toEpochMilli());
      sb.append(",\"ageMillis\":").append(Math.max(0, nowMillis - e.since().toEpochMilli()));
      sb.append(",\"token\":").append(e.fencingToken());
      sb.append(",\"releaseRequested\":").append(e.releaseRequested());
      sb.append(",\"data\":").append(quote(e.ownerData()));
      if (holds) {
        Granted g = grants.get(e.path());
        if (g != null) {
          sb.append(",\"grantedFrom\":").append(g.from());
          sb.append(",\"grantedTo\":").append(g.to());
          sb.append(",\"grantedHow\":").append(quote(g.how()));
          if (g.told() > 0) {
            sb.append(",\"grantTold\":").append(g.told());
          }
        }
      }
      sb.append(",\"link\":").append(quote(link.apply(e.sessionId())));
      SessionSeen s = seen.apply(e.sessionId());
      if (s != null && s.absentSince() >= 0) {
        sb.append(",\"disconnectedSince\":").append(s.absentSince());
        sb.append(",\"sessionTimeout\":").append(s.timeoutMillis());
      }
      sb.append('}');
    }
  }

  @Override
  public void close() {
    locks.removeSessionListener(sessionListener);
    io.zklock.LockWatch w = watch;
    if (w != null) {
      w.close();
    }
    refresher.shutdownNow();
    prober.shutdownNow();
  }
}
