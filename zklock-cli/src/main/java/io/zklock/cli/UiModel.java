package io.zklock.cli;

import static io.zklock.cli.LockListing.quote;

import io.zklock.LockInfo;
import io.zklock.LockNode;
import io.zklock.ZkLocks;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
 */
final class UiModel implements AutoCloseable {
  /** The timeline keeps this many events; older ones are dropped (the page says so). */
  static final int TIMELINE_LIMIT = 2_000;

  /** One entry of the timeline. */
  record Event(
      long seq,
      long time,
      String type,
      String lock,
      String node,
      String client,
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
          + ",\"node\":"
          + quote(node)
          + ",\"client\":"
          + quote(client)
          + ",\"token\":"
          + token
          + ",\"reason\":"
          + quote(reason)
          + "}";
    }
  }

  /** Told after each refresh that changed something, with the new timeline events. */
  interface Listener {
    void changed(long version, List<Event> events);
  }

  private final ZkLocks locks;
  private final String under;
  private final LongSupplier wallClock;
  private final ExecutorService refresher =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "zklock-ui-refresh");
            t.setDaemon(true);
            return t;
          });

  // written on the refresher thread only; read by HTTP threads under the monitor
  private final TreeMap<String, LockInfo> byName = new TreeMap<>();
  private final Deque<Event> timeline = new ArrayDeque<>();
  private long version;
  private long seq;
  private final long openedMillis;

  private final Set<String> dirty = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean dirtyAll = new AtomicBoolean(true);
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private final AtomicLong zkReads = new AtomicLong(); // inspect/inspectAll calls
  private final AtomicLong refreshes = new AtomicLong();
  private final Map<String, String> forcedBy = new ConcurrentHashMap<>(); // node path -> who
  private final List<Listener> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();
  private volatile io.zklock.LockWatch watch;
  private volatile String lastError = "";

  UiModel(ZkLocks locks, String under, LongSupplier wallClock) {
    this.locks = locks;
    this.under = under;
    this.wallClock = wallClock;
    this.openedMillis = wallClock.getAsLong();
  }

  /** Reads everything once (fails if ZooKeeper cannot be read), then sets the watch. */
  void start() {
    List<LockInfo> all = locks.inspectAll(under);
    zkReads.incrementAndGet();
    synchronized (this) {
      all.forEach(l -> byName.put(l.name(), l));
      version++;
    }
    dirtyAll.set(false);
    watch = locks.watchLocks(under, this::changed);
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
    }
    if (scheduled.compareAndSet(false, true)) {
      refresher.execute(this::refresh);
    }
  }

  private void refresh() {
    scheduled.set(false);
    refreshes.incrementAndGet();
    Map<String, LockInfo> read = new HashMap<>();
    Set<String> gone = new HashSet<>();
    boolean all = dirtyAll.getAndSet(false);
    try {
      if (all) {
        dirty.clear();
        for (LockInfo l : locks.inspectAll(under)) {
          read.put(l.name(), l);
        }
        zkReads.incrementAndGet();
      } else {
        List<String> names = new ArrayList<>(dirty);
        dirty.removeAll(names);
        for (String n : names) {
          zkReads.incrementAndGet();
          locks.inspect(n).ifPresentOrElse(l -> read.put(n, l), () -> gone.add(n));
        }
      }
      lastError = "";
    } catch (RuntimeException e) {
      lastError = String.valueOf(e.getMessage());
      dirtyAll.set(true); // read everything at the next change or reconnection
      return;
    }
    long now = wallClock.getAsLong();
    List<Event> events = new ArrayList<>();
    long v;
    synchronized (this) {
      if (all) {
        for (String n : byName.keySet()) {
          if (!read.containsKey(n)) {
            gone.add(n);
          }
        }
      }
      for (String n : gone) {
        LockInfo old = byName.remove(n);
        if (old != null) {
          diff(old, null, now, events);
        }
      }
      for (LockInfo l : read.values()) {
        LockInfo old = byName.put(l.name(), l);
        diff(old, l, now, events);
      }
      for (Event e : events) {
        timeline.addLast(e);
        if (timeline.size() > TIMELINE_LIMIT) {
          timeline.removeFirst();
        }
      }
      v = ++version;
    }
    for (Listener l : listeners) {
      l.changed(v, events);
    }
  }

  /** Called holding the monitor: the timeline events between two reads of one lock. */
  private void diff(LockInfo old, LockInfo now, long time, List<Event> out) {
    Map<String, LockNode> oldHolders = byPath(old == null ? List.of() : old.holders());
    Map<String, LockNode> oldWaiters = byPath(old == null ? List.of() : old.waiters());
    Map<String, LockNode> newHolders = byPath(now == null ? List.of() : now.holders());
    Map<String, LockNode> newWaiters = byPath(now == null ? List.of() : now.waiters());
    String lock = now != null ? now.name() : old.name();
    boolean election = (now != null ? now.kind() : old.kind()) == LockInfo.Kind.ELECTION;
    for (LockNode h : oldHolders.values()) {
      if (!newHolders.containsKey(h.path())) {
        String who = forcedBy.remove(h.path());
        if (who != null) {
          out.add(event(time, "lost", lock, h, "forced release by " + who));
        } else {
          out.add(
              event(
                  time,
                  "released",
                  lock,
                  h,
                  election
                      ? "leader stepped down (released, or its session ended)"
                      : "node deleted" + " (released, or its session ended)"));
        }
      } else if (!h.releaseRequested() && newHolders.get(h.path()).releaseRequested()) {
        out.add(event(time, "release-requested", lock, h, requester(newHolders.get(h.path()))));
      }
    }
    for (LockNode h : newHolders.values()) {
      if (!oldHolders.containsKey(h.path())) {
        out.add(event(time, election ? "leads" : "granted", lock, h, ""));
      }
    }
    for (LockNode w : newWaiters.values()) {
      if (!oldWaiters.containsKey(w.path()) && !oldHolders.containsKey(w.path())) {
        out.add(event(time, "queued", lock, w, ""));
      }
    }
    for (LockNode w : oldWaiters.values()) {
      if (!newWaiters.containsKey(w.path()) && !newHolders.containsKey(w.path())) {
        out.add(event(time, "withdrawn", lock, w, "gave up, or its session ended"));
      }
    }
  }

  private static String requester(LockNode n) {
    String by = n.data().get("releaseRequestedBy");
    return by == null ? "" : "asked by " + by;
  }

  private static Map<String, LockNode> byPath(List<LockNode> nodes) {
    Map<String, LockNode> m = new java.util.LinkedHashMap<>();
    nodes.forEach(n -> m.put(n.path(), n));
    return m;
  }

  private Event event(long time, String type, String lock, LockNode n, String reason) {
    return new Event(++seq, time, type, lock, n.path(), n.clientName(), n.fencingToken(), reason);
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

  synchronized long version() {
    return version;
  }

  synchronized List<LockInfo> all() {
    return List.copyOf(byName.values());
  }

  synchronized LockInfo lock(String name) {
    return byName.get(name);
  }

  long zkReads() {
    return zkReads.get();
  }

  long refreshes() {
    return refreshes.get();
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

  /** The timeline events after {@code afterSeq}, oldest first, at most {@code limit}. */
  synchronized List<Event> timeline(long afterSeq, int limit) {
    List<Event> out = new ArrayList<>();
    for (Event e : timeline) {
      if (e.seq() > afterSeq) {
        out.add(e);
      }
    }
    return out.size() > limit ? out.subList(out.size() - limit, out.size()) : out;
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
    StringBuilder sb = new StringBuilder();
    sb.append("{\"name\":").append(quote(lock.name()));
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
      java.util.Collections.sort(keys);
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
    nodes(sb, lock.holders(), lock.holders().size(), nowMillis, true);
    sb.append("],\"waitersTotal\":").append(lock.waiters().size());
    sb.append(",\"waiters\":[");
    nodes(sb, lock.waiters(), maxWaiters, nowMillis, false);
    sb.append("]}");
    return sb.toString();
  }

  private static void nodes(
      StringBuilder sb, List<LockNode> list, int max, long nowMillis, boolean holds) {
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
      sb.append('}');
    }
  }

  @Override
  public void close() {
    io.zklock.LockWatch w = watch;
    if (w != null) {
      w.close();
    }
    refresher.shutdownNow();
  }
}
