package io.zklock.soak;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Checks a soak run from its logs alone: fencing, exclusion, liveness and cleanliness. The exact
 * rules are documented in docs/reliability.md; each violation is one line of text naming the rule
 * and the events concerned.
 */
public final class Checker {
  private final SoakConfig config;
  private final List<String> violations = new ArrayList<>();
  private final Map<String, Long> counters = new TreeMap<>();
  private final Map<String, List<Long>> delays = new TreeMap<>();
  private final Map<String, Handle> handles = new LinkedHashMap<>();
  private final Map<String, Proc> procs = new LinkedHashMap<>();
  private final List<Event> storeEvents = new ArrayList<>();
  private final List<Event> faults = new ArrayList<>();
  private final List<long[]> zkFaults = new ArrayList<>();
  private final Map<String, List<Long>> mutes = new HashMap<>();
  private long runStart = Long.MAX_VALUE;

  /**
   * Slack for what runs on the library's executor after an event (a listener, {@code lost()}'s
   * callbacks) or for a process just resumed from SIGSTOP.
   */
  static final long GRACE = TimeUnit.SECONDS.toNanos(1);

  /** One request and, if granted, its grant. Times are nanoTime stamps, -1 when absent. */
  static final class Handle {
    String h;
    String proc;
    Side side;
    long requestT = -1;
    String outcome;
    long grantT = -1;
    long token;
    String session;
    long releaseStartT = -1;
    long releaseDoneT = -1;
    long lossT = -1;
    String lossReason;
    String lossSession;

    long endT = -1;
    boolean heldAtRelease;

    boolean granted() {
      return grantT >= 0;
    }

    /** When the request stopped waiting: granted, timed out or failed; MAX_VALUE if never. */
    long endOfWaitT() {
      return endT >= 0 ? endT : Long.MAX_VALUE;
    }
  }

  /** One client process. */
  static final class Proc {
    String proc;
    long killedT = -1;

    /** When the orchestrator began to kill it (the KILL_CLIENT fault's start), -1 if never. */
    long killStartT = -1;

    Integer exitCode;
    boolean closed;
    boolean quiesced;
    boolean hung;
    final Map<String, Long> sessionLostT = new HashMap<>();
    final List<long[]> faultWindows = new ArrayList<>();

    /**
     * SIGSTOP windows ({@code PAUSE_CLIENT}): the process could not run, so nobody could tell it.
     */
    final List<long[]> pauseWindows = new ArrayList<>();

    final List<Event> sessionEvents = new ArrayList<>();
  }

  /** The verdict and the figures. */
  public record Report(
      List<String> violations,
      Map<String, Long> counters,
      Map<String, List<Long>> delaysMillis,
      String summary) {
    public long counter(String name) {
      return counters.getOrDefault(name, 0L);
    }
  }

  /** The guarded writes to the ZooKeeper store nodes ({@code ZWRITE}), committed or refused. */
  private final List<Event> guardedWrites = new ArrayList<>();

  /** The latch's count-downs (logged before the call) and passes (await returned true). */
  private final List<Event> latchEvents = new ArrayList<>();

  /** The Condition's awaits, wake-ups and signalAll calls. */
  private final List<Event> condEvents = new ArrayList<>();

  public Checker(SoakConfig config) {
    this.config = config;
  }

  /**
   * Checks the logs of a run again from its work directory (every {@code *.log}): {@code java -cp
   * ... io.zklock.soak.Checker <dir>} re-reads a kept run without re-running it.
   */
  public static void main(String[] args) throws java.io.IOException {
    java.nio.file.Path dir = java.nio.file.Path.of(args[0]);
    List<Event> events = new ArrayList<>();
    try (var files = java.nio.file.Files.list(dir)) {
      for (java.nio.file.Path f : files.filter(f -> f.toString().endsWith(".log")).toList()) {
        events.addAll(EventLog.read(f));
      }
    }
    Event start = events.stream().filter(e -> e.ev().equals("RUN_START")).findFirst().orElseThrow();
    SoakConfig config =
        SoakConfig.defaults(
            start.getLong("seed", 0),
            java.time.Duration.ofSeconds(start.getLong("seconds", 0)),
            dir);
    System.out.print(new Checker(config).check(events).summary());
  }

  /** Checks the merged events of every log of a run. */
  public Report check(List<Event> events) {
    List<Event> sorted = new ArrayList<>(events);
    sorted.sort(Comparator.comparingLong(Event::t)); // stable: each log keeps its own order
    for (Event e : sorted) {
      index(e);
    }
    countLostCreateReplies();
    checkFencing();
    checkGuardedWrites();
    checkExclusion();
    checkLiveness();
    checkProcesses();
    checkLatches();
    checkSignals();
    return report();
  }

  private void count(String name) {
    counters.merge(name, 1L, Long::sum);
  }

  private void delay(String name, long nanos) {
    delays.computeIfAbsent(name, k -> new ArrayList<>()).add(TimeUnit.NANOSECONDS.toMillis(nanos));
  }

  private void violation(String rule, String text) {
    violations.add(rule + ": " + text);
  }

  private Proc proc(String name) {
    return procs.computeIfAbsent(
        name,
        n -> {
          Proc p = new Proc();
          p.proc = n;
          return p;
        });
  }

  private Handle handle(Event e) {
    String h = e.get("h");
    return handles.computeIfAbsent(
        h,
        k -> {
          Handle x = new Handle();
          x.h = k;
          x.proc = e.get("proc");
          return x;
        });
  }

  private String rel(long t) {
    return String.format("%.3fs", (t - runStart) / 1e9);
  }

  private void index(Event e) {
    switch (e.ev()) {
      case "RUN_START" -> runStart = e.t();
      case "PROC_SPAWN" -> {
        proc(e.get("proc"));
        count("processes.spawned");
      }
      case "PROC_KILLED" -> proc(e.get("proc")).killedT = e.t();
      case "PROC_EXIT" -> proc(e.get("proc")).exitCode = (int) e.getLong("code", -1);
      case "PROC_HUNG" -> proc(e.get("proc")).hung = true;
      case "NOT_QUIESCED" ->
          violation("LIVENESS", e.get("proc") + " did not finish its workers after the stop");
      case "FAULT_START" -> {
        faults.add(e);
        count("faults." + e.get("kind"));
        count("faults.total");
        String target = e.get("target");
        if (!target.startsWith("zk")) {
          Proc p = proc(target);
          p.faultWindows.add(new long[] {e.t(), Long.MAX_VALUE});
          if ("PAUSE_CLIENT".equals(e.get("kind"))) {
            p.pauseWindows.add(new long[] {e.t(), Long.MAX_VALUE});
          } else if ("KILL_CLIENT".equals(e.get("kind"))) {
            p.killStartT = e.t();
          }
        } else {
          zkFaults.add(new long[] {e.t(), Long.MAX_VALUE});
        }
      }
      case "FAULT_END" -> {
        faults.add(e);
        if ("ISOLATE_HOLDER".equals(e.get("kind"))) {
          count(
              "-".equals(e.get("granted"))
                  ? "isolate.nobodyElseGranted"
                  : "isolate.healedAfterAnotherGrant");
        }
        if ("LOSE_REPLIES".equals(e.get("kind")) && "true".equals(e.get("aimed"))) {
          count("loseReplies.aimed");
        }
        String target = e.get("target");
        List<long[]> w = target.startsWith("zk") ? zkFaults : proc(target).faultWindows;
        if (!w.isEmpty()) {
          w.get(w.size() - 1)[1] = e.t();
        }
        if ("PAUSE_CLIENT".equals(e.get("kind")) && !target.startsWith("zk")) {
          List<long[]> pw = proc(target).pauseWindows;
          if (!pw.isEmpty()) {
            pw.get(pw.size() - 1)[1] = e.t();
          }
        }
      }
      case "CLEAN_LIVE" -> {
        long orphans = e.getLong("orphans", 0);
        counters.put("clean.orphansOfLiveSessions", orphans);
        if (orphans > 0) {
          violation(
              "CLEANLINESS",
              orphans + " lock node(s) of quiesced live sessions: " + e.get("nodes"));
        }
      }
      case "CLEAN_FINAL" -> {
        long remaining = e.getLong("remaining", 0);
        counters.put("clean.remainingAfterClose", remaining);
        counters.put("clean.msUntilEmpty", e.getLong("ms", 0));
        if (remaining > 0) {
          violation(
              "CLEANLINESS",
              remaining + " lock node(s) remain after every client closed: " + e.get("nodes"));
        }
      }
      case "STORE_ACCEPT", "STORE_REJECT" -> storeEvents.add(e);
      case "ZWRITE" -> guardedWrites.add(e);
      case "MUTE" -> mutes.computeIfAbsent(e.get("target"), k -> new ArrayList<>()).add(e.t());
      case "PROC_START" -> count("processes.started");
      case "CLOCK_MISMATCH" ->
          violation("RUN", e.get("proc") + " cannot share the orchestrator's clock: " + e.fields());
      case "WORKER_CRASH" ->
          violation("LIVENESS", e.get("proc") + " worker crashed: " + e.get("err"));
      case "SESSION" -> {
        count("sessions." + e.get("state"));
        proc(e.get("proc")).sessionEvents.add(e);
        if ("LOST".equals(e.get("state"))) {
          proc(e.get("proc")).sessionLostT.putIfAbsent(e.get("session"), e.t());
        }
      }
      case "QUIESCED" -> proc(e.get("proc")).quiesced = true;
      case "CLOSED" -> proc(e.get("proc")).closed = true;
      case "UNSUPPORTED" -> count("unsupported." + e.get("side"));
      case "REQUEST" -> {
        Handle h = handle(e);
        h.requestT = e.t();
        h.side = Side.valueOf(e.get("side"));
        count("requests");
      }
      case "GRANT" -> {
        Handle h = handle(e);
        h.outcome = "GRANT";
        h.grantT = e.t();
        h.endT = e.t();
        h.side = Side.valueOf(e.get("side"));
        h.token = e.getLong("token", -1);
        h.session = e.get("session");
        count("grants");
        count("grants." + h.side);
        delay("wait.grant", e.t() - h.requestT);
      }
      case "TIMEOUT" -> {
        handle(e).outcome = "TIMEOUT";
        handle(e).endT = e.t();
        count("timeouts");
      }
      case "ACQUIRE_ERROR" -> {
        Handle h = handle(e);
        h.outcome = "ERROR";
        h.endT = e.t();
        count("acquireErrors");
        violation(
            "LIVENESS",
            h.h
                + " request failed at "
                + rel(e.t())
                + " (requests survive faults): "
                + e.get("err"));
      }
      case "WRITE" -> {
        count("writes." + ("true".equals(e.get("ok")) ? "accepted" : "rejected"));
      }
      case "LOSS" -> {
        Handle h = handle(e);
        h.lossT = e.t();
        h.lossReason = e.get("reason");
        h.lossSession = e.get("session");
        count("losses");
        count("losses." + h.lossReason);
      }
      case "RELEASE_START" -> {
        Handle h = handle(e);
        h.releaseStartT = e.t();
        h.heldAtRelease = !"false".equals(e.get("held"));
      }
      case "RELEASE_DONE" -> {
        Handle h = handle(e);
        h.releaseDoneT = e.t();
        delay("release", e.t() - h.releaseStartT);
      }
      case "RELEASE_ERROR" ->
          violation(
              "LIVENESS", e.get("h") + " release threw at " + rel(e.t()) + ": " + e.get("err"));
      case "LATCH_COUNTDOWN", "LATCH_PASS" -> latchEvents.add(e);
      case "COND_AWAIT", "COND_WOKEN", "COND_SIGNAL_ALL", "COND_SIGNAL_DONE" -> condEvents.add(e);
      default -> {
        // RUN_STOP, STOPPING and other markers
      }
    }
  }

  /** Whether the ensemble demonstrably expired the session behind this handle. */
  private boolean expired(Handle h) {
    if ("SESSION_EXPIRED".equals(h.lossReason)) {
      return true;
    }
    return h.session != null && proc(h.proc).sessionLostT.containsKey(h.session);
  }

  /**
   * When the loss of {@code h} began, as far as the logs show; {@code Long.MAX_VALUE} if it was
   * never lost. A loss excuses only what came after this moment (a rejected write, a grant out of
   * token order, an extra lease): the start of the kill of its process, the start of the fault that
   * cost its session ({@link #cause}), the moment its process heard of the expiry, or the moment it
   * was told ({@code lost()}), whichever came first. A session that expires, or a process killed,
   * later excuses nothing that happened before.
   */
  long lossBegan(Handle h) {
    long t = Long.MAX_VALUE;
    Proc p = proc(h.proc);
    if (p.killedT >= 0) {
      t = Math.min(t, p.killStartT >= 0 ? Math.min(p.killStartT, p.killedT) : p.killedT);
    }
    if (h.lossT >= 0) {
      t = Math.min(t, h.lossT);
    }
    long heard = expiryHeard(h);
    if (heard >= 0) {
      t = Math.min(t, heard);
      long[] cause = cause(h);
      if (cause != null) {
        t = Math.min(t, cause[0]);
      }
    }
    return t;
  }

  /** When h's process heard its session had expired (listener or lost()), -1 if never. */
  private long expiryHeard(Handle h) {
    Long lostT = h.session == null ? null : proc(h.proc).sessionLostT.get(h.session);
    if (lostT != null) {
      return "SESSION_EXPIRED".equals(h.lossReason) ? Math.min(lostT, h.lossT) : lostT;
    }
    return "SESSION_EXPIRED".equals(h.lossReason) ? h.lossT : -1;
  }

  /** The end of a holder's belief that it holds: release called, loss heard, or process killed. */
  private long end(Handle h) {
    long end = Long.MAX_VALUE;
    if (h.releaseStartT >= 0) {
      end = Math.min(end, h.releaseStartT);
    }
    if (h.lossT >= 0) {
      end = Math.min(end, h.lossT);
    }
    Proc p = proc(h.proc);
    if (p.killedT >= 0) {
      end = Math.min(end, p.killedT);
    }
    return end;
  }

  /**
   * For each {@code LOSE_REPLIES} fault, the requests its target process began while the replies
   * were muted (from the {@code MUTE} event, else the fault's start, to the cut at its end): each
   * sent a create that the server applied and whose reply the client never got, so it had to find
   * its node by attempt id after reconnecting. Counted as {@code loseReplies.createsInFlight}, and
   * the faults with at least one as {@code loseReplies.faultsWithACreate}.
   */
  private void countLostCreateReplies() {
    Map<String, Long> muted = new HashMap<>();
    for (Event e : faults) {
      if (!"LOSE_REPLIES".equals(e.get("kind"))) {
        continue;
      }
      String target = e.get("target");
      if (e.ev().equals("FAULT_START")) {
        muted.put(target, e.t());
      } else {
        Long from = muted.remove(target);
        if (from == null) {
          continue;
        }
        // the last mute up to the cut, if it came after the fault's start (mutes are in time order)
        long since =
            mutes.getOrDefault(target, List.of()).stream()
                .filter(t -> t <= e.t())
                .reduce(from, Math::max);
        long n =
            handles.values().stream()
                .filter(h -> target.equals(h.proc) && h.requestT >= since && h.requestT < e.t())
                .count();
        counters.merge("loseReplies.createsInFlight", n, Long::sum);
        if (n > 0) {
          count("loseReplies.faultsWithACreate");
        }
      }
    }
  }

  // ---------------------------------------------------------------- fencing

  private void checkFencing() {
    Map<String, Long> all = new HashMap<>();
    Map<String, Long> writer = new HashMap<>();
    for (Event e : storeEvents) {
      String key = e.get("key");
      String side = e.get("side");
      long token = e.getLong("token", -1);
      long a = all.getOrDefault(key, Long.MIN_VALUE);
      long w = writer.getOrDefault(key, Long.MIN_VALUE);
      boolean accepted = e.ev().equals("STORE_ACCEPT");
      boolean allowed =
          switch (side) {
            case "M", "W" -> token >= a;
            case "R" -> token >= w;
            default -> true;
          };
      if (accepted && !allowed) {
        violation(
            "FENCING",
            "store accepted "
                + e.get("h")
                + " token "
                + token
                + " on "
                + key
                + " after accepting "
                + (side.equals("R") ? w : a)
                + " at "
                + rel(e.t()));
      }
      if (accepted) {
        all.put(key, Math.max(a, token));
        if (side.equals("M") || side.equals("W")) {
          writer.put(key, Math.max(w, token));
        }
      } else {
        count("store.staleRejected");
        Handle h = handles.get(e.get("h"));
        long began = h == null ? Long.MAX_VALUE : lossBegan(h);
        if (began > e.t()) {
          violation(
              "FENCING",
              "store rejected "
                  + e.get("h")
                  + " (token "
                  + token
                  + ", "
                  + e.get("phase")
                  + ") at "
                  + rel(e.t())
                  + (began == Long.MAX_VALUE
                      ? " though its handle was never lost"
                      : " though its loss began only at " + rel(began))
                  + ": a higher token wrote while it held");
        }
      }
    }
    // grant order equals token order, except for a holder whose loss began before its grant was
    // logged (a process paused between acquire() returning and logging it)
    Map<String, long[]> max = new HashMap<>(); // dir -> {max any, max exclusive}
    List<Handle> granted = new ArrayList<>();
    for (Handle h : handles.values()) {
      if (h.granted() && h.side != Side.SEMAPHORE) {
        granted.add(h);
      }
    }
    granted.sort(Comparator.comparingLong(x -> x.grantT));
    for (Handle h : granted) {
      long[] m =
          max.computeIfAbsent(h.side.dir(), k -> new long[] {Long.MIN_VALUE, Long.MIN_VALUE});
      boolean exclusive = h.side.exclusive();
      long bound = exclusive ? m[0] : m[1];
      if (h.token <= bound && lossBegan(h) <= h.grantT) {
        count("grants.loggedAfterLoss");
      } else if (h.token <= bound) {
        violation(
            "FENCING",
            h.h
                + " granted at "
                + rel(h.grantT)
                + " with token "
                + h.token
                + " not above "
                + bound
                + " of an earlier conflicting holder");
      }
      m[0] = Math.max(m[0], h.token);
      if (exclusive) {
        m[1] = Math.max(m[1], h.token);
      }
    }
  }

  // ---------------------------------------------------------- guarded writes

  /**
   * GUARDED: no guarded write ({@code LockHandle#transaction()}, logged as {@code ZWRITE})
   * committed outside its writer's hold. The ZooKeeper store node of a lock is written only by its
   * exclusive holders, and each committed write carries the zxid at which the ensemble applied it
   * ({@code mzxid}), the one order every grant and deletion is in. So, per lock: (1) a write is
   * applied after its writer's node was created ({@code mzxid > czxid}); (2) in zxid order the
   * writers' tokens never go down: a write of an older holder applied after a newer holder wrote
   * was committed after the older hold ended (the newer was granted only after the older node's
   * deletion). A refused write ({@code ok=false}) is counted, not judged: refusing is always safe.
   */
  private void checkGuardedWrites() {
    Map<String, List<Event>> byKey = new HashMap<>();
    for (Event e : guardedWrites) {
      if ("true".equals(e.get("ok"))) {
        count("zstore.committed");
        byKey.computeIfAbsent(e.get("key"), k -> new ArrayList<>()).add(e);
      } else {
        count("zstore.refused");
      }
    }
    for (Map.Entry<String, List<Event>> k : byKey.entrySet()) {
      List<Event> writes = new ArrayList<>(k.getValue());
      writes.sort(Comparator.comparingLong(e -> e.getLong("mzxid", -1)));
      long maxToken = Long.MIN_VALUE;
      String maxBy = null;
      for (Event e : writes) {
        long mzxid = e.getLong("mzxid", -1);
        long token = e.getLong("token", -1);
        long czxid = e.getLong("czxid", token);
        if (mzxid <= czxid) {
          violation(
              "GUARDED",
              e.get("h")
                  + " committed a guarded write to "
                  + k.getKey()
                  + " at zxid "
                  + mzxid
                  + ", not after its node's creation at "
                  + czxid);
        }
        if (token < maxToken) {
          violation(
              "GUARDED",
              e.get("h")
                  + " (token "
                  + token
                  + ") committed a guarded write to "
                  + k.getKey()
                  + " at zxid "
                  + mzxid
                  + ", after "
                  + maxBy
                  + " (token "
                  + maxToken
                  + ") had written: outside its hold");
        }
        if (token > maxToken) {
          maxToken = token;
          maxBy = e.get("h");
        }
      }
    }
  }

  // -------------------------------------------------------------- exclusion

  private void checkExclusion() {
    Map<String, List<Handle>> byDir = new HashMap<>();
    for (Handle h : handles.values()) {
      if (h.granted()) {
        byDir.computeIfAbsent(h.side.dir(), k -> new ArrayList<>()).add(h);
      }
    }
    for (List<Handle> list : byDir.values()) {
      list.sort(Comparator.comparingLong(x -> x.grantT));
      List<Handle> active = new ArrayList<>();
      for (Handle b : list) {
        active.removeIf(a -> end(a) <= b.grantT);
        if (b.side == Side.SEMAPHORE) {
          int over = active.size() + 1 - Side.SEMAPHORE_PERMITS;
          List<String> why = new ArrayList<>();
          long stale = 0;
          for (Handle a : active) {
            String w = unexcused(a, b);
            if (w == null) {
              stale++;
            } else {
              why.add(a.h + ": " + w);
            }
          }
          if (stale < over) { // stale >= 0: only a lease over the permits is judged
            violation(
                "EXCLUSION",
                b.h
                    + " is lease "
                    + (active.size() + 1)
                    + " of "
                    + Side.SEMAPHORE_PERMITS
                    + " at "
                    + rel(b.grantT)
                    + " ("
                    + String.join("; ", why)
                    + ")");
          } else if (over > 0) {
            count("overlaps.excusedByExpiry");
          }
        } else {
          for (Handle a : active) {
            if (!a.side.conflictsWith(b.side)) {
              continue;
            }
            Handle older = a.token <= b.token ? a : b; // a token tie: the earlier grant, a
            Handle newer = older == a ? b : a;
            String why = unexcused(older, newer);
            if (why == null) {
              count("overlaps.excusedByExpiry");
              delay("overlap.excused", Math.min(end(a), end(b)) - b.grantT);
            } else {
              violation(
                  "EXCLUSION",
                  newer.h
                      + " ("
                      + newer.side
                      + ", token "
                      + newer.token
                      + ") granted at "
                      + rel(newer.grantT)
                      + " while "
                      + older.h
                      + " ("
                      + older.side
                      + ", token "
                      + older.token
                      + ", granted "
                      + rel(older.grantT)
                      + ") held until "
                      + rel(end(older))
                      + ": "
                      + why);
            }
          }
        }
        active.add(b);
      }
    }
  }

  /**
   * Null if the overlap of {@code older} (the lower token) with {@code newer} is the expected
   * paused-holder case, else why not: older's session must have expired, through a fault that began
   * before newer's grant; and if older's process was connected when a fault on it began, newer must
   * come at least a third of the session timeout after (the server heard from the client at most a
   * third of the timeout before the fault, pings being that frequent, and expires a session only
   * after a full timeout of silence).
   */
  private String unexcused(Handle older, Handle newer) {
    if (!expired(older)) {
      return "its session never expired";
    }
    long[] cause = cause(older);
    if (cause == null) {
      count("overlaps.expiredWithoutFault");
      return null;
    }
    if (newer.grantT < cause[0]) {
      return "granted before the fault that expired the older holder's session began ("
          + rel(cause[0])
          + ")";
    }
    long third = config.sessionTimeout().toNanos() / 3;
    if (cause[2] == 1
        && connectedAt(proc(older.proc), cause[0])
        && newer.grantT < cause[0] + third) {
      return "granted "
          + TimeUnit.NANOSECONDS.toMillis(newer.grantT - cause[0])
          + " ms after the fault on the older holder's connected process began ("
          + rel(cause[0])
          + "), sooner than its session can expire";
    }
    return toldTooLate(older, newer);
  }

  /**
   * Null if {@code older}'s process could not be told of its loss before {@code newer}'s grant,
   * else why it should have been: a running holder must hear of its loss (lost() completes) before
   * the ensemble can expire its session, hence before anyone else is granted (issue 12). Only a
   * process that was stopped (SIGSTOP) at the newer grant, or resumed less than {@link #GRACE}
   * before it, could not run the library's own session deadline.
   */
  private String toldTooLate(Handle older, Handle newer) {
    for (long[] w : proc(older.proc).pauseWindows) {
      if (w[0] <= newer.grantT && w[1] + GRACE >= newer.grantT) {
        return null;
      }
    }
    String told =
        older.lossT == end(older) // end() is never negative: equal only if it was told
            ? "told of its loss only at " + rel(older.lossT)
            : "never told of its loss and still held until " + rel(end(older));
    return "its running holder was "
        + told
        + ", after another was granted (a holder must hear of its loss before the ensemble can"
        + " expire its session)";
  }

  /**
   * The fault that cost {@code h}'s session, as {start, end, 1 for a fault on h's process or 0 for
   * an ensemble fault}: the one that began last before the session's connection went down for the
   * last time (its process reported SUSPENDED) before its process heard of the expiry (or before it
   * heard, if no suspension was reported); null if h's session did not expire or no fault came
   * before.
   */
  private long[] cause(Handle h) {
    Proc p = proc(h.proc);
    long heard = expiryHeard(h);
    if (heard < 0) {
      return null;
    }
    long t = heard;
    String state = null;
    long stateT = -1;
    for (Event e : p.sessionEvents) {
      if (e.t() > heard) {
        break;
      }
      if (!"LOST".equals(e.get("state"))
          && (h.session == null || h.session.equals(e.get("session")))) {
        state = e.get("state");
        stateT = e.t();
      }
    }
    if ("SUSPENDED".equals(state)) {
      t = stateT;
    }
    long[] client = lastFaultBefore(p, t);
    long[] zk = null;
    for (long[] w : zkFaults) {
      if (w[0] <= t) {
        zk = w;
      }
    }
    if (client == null && zk == null) {
      return null;
    }
    if (zk == null || client != null && client[0] >= zk[0]) {
      return new long[] {client[0], client[1], 1};
    }
    return new long[] {zk[0], zk[1], 0};
  }

  /** Whether the last session event of {@code p} before {@code t} was CONNECTED. */
  private static boolean connectedAt(Proc p, long t) {
    String state = null;
    for (Event e : p.sessionEvents) {
      if (e.t() <= t) {
        state = e.get("state");
      }
    }
    return "CONNECTED".equals(state);
  }

  // --------------------------------------------------------------- liveness

  private void checkLiveness() {
    long grace = GRACE;
    for (Handle h : handles.values()) {
      Proc p = proc(h.proc);
      boolean killed = p.killedT >= 0;
      if (h.outcome == null && !killed) {
        violation("LIVENESS", h.h + " requested at " + rel(h.requestT) + " never ended");
      }
      if (!h.granted()) {
        continue;
      }
      if (h.releaseDoneT < 0 && !killed) {
        violation(
            "LIVENESS",
            h.h
                + " granted at "
                + rel(h.grantT)
                + " never finished its release ("
                + h.releaseStartT
                + ")");
      }
      if (h.lossT >= 0 && !"SESSION_EXPIRED".equals(h.lossReason)) {
        violation(
            "LIVENESS",
            h.h
                + " lost for reason "
                + h.lossReason
                + " at "
                + rel(h.lossT)
                + ", but nobody deletes nodes or closes early in this soak");
      }
      if (h.lossT >= 0
          && !killed
          && h.lossSession != null
          && !p.sessionLostT.containsKey(h.lossSession)) {
        violation(
            "LIVENESS",
            h.h
                + " reported lost by expiry of session "
                + h.lossSession
                + " that its process never reported LOST");
      }
      Long lostT = h.session == null ? null : p.sessionLostT.get(h.session);
      if (lostT != null && h.heldAtRelease && h.releaseStartT > lostT + grace) {
        violation(
            "LIVENESS",
            h.h
                + " still said isHeld() at "
                + rel(h.releaseStartT)
                + ", after its process heard session "
                + h.session
                + " expired ("
                + rel(lostT)
                + ")");
      }
      if (lostT != null
          && h.lossT < 0
          && (h.releaseStartT < 0 || h.releaseStartT > lostT + grace)) {
        if (!killed) {
          violation(
              "LIVENESS",
              h.h
                  + " (token "
                  + h.token
                  + ") was held when its session "
                  + h.session
                  + " expired (reported "
                  + rel(lostT)
                  + ") but lost() never completed");
        }
      }
      if (h.lossT >= 0) {
        long[] fault = lastFaultBefore(p, h.lossT);
        if (fault != null && fault[1] != Long.MAX_VALUE) {
          delay("loss.afterFaultEnd", h.lossT - fault[1]);
        } else {
          count("losses.withoutClientFault");
        }
        if (lostT != null) {
          delay("loss.afterSessionLost", h.lossT - lostT);
        }
      }
      long[] cause = cause(h);
      if (lostT != null
          && cause != null
          && h.lossT < 0
          && h.releaseStartT >= cause[0]
          && h.releaseStartT <= lostT + grace) {
        // released after the fault began but before the process heard its session had expired
        count("releasesInDoubt");
      }
    }
    checkHandover();
  }

  private static long[] lastFaultBefore(Proc p, long t) {
    long[] best = null;
    for (long[] w : p.faultWindows) {
      if (w[0] <= t) {
        best = w;
      }
    }
    return best;
  }

  /**
   * After a holder dies (its process is killed, or it is paused or cut off and its session
   * expires), the lock must not stay stuck: within {@code limit} = session timeout + bound someone
   * else is granted it, or someone else holds it (a live holder ahead in the queue may rightly keep
   * a waiter waiting). The deadline moves on while other faults keep happening: each client fault
   * that starts before the deadline sets it to that moment + limit (a paused or killed waiter ahead
   * in the queue blocks until its own session expires), and each ensemble fault that starts before
   * the deadline sets it to the fault's end + limit, even if it ends after the deadline (an
   * election delays every grant and every expiry). A violation needs a witness: another, unfaulted
   * client that requested the lock more than a second before the deadline and still waited at it.
   */
  private void checkHandover() {
    long limit = config.sessionTimeout().toNanos() + config.handoverBound().toNanos();
    // times that restart the clock: {the time, the fault's start (the anchor counts if it began
    // before the deadline)}
    List<long[]> anchors = new ArrayList<>();
    Map<String, Long> openZk = new HashMap<>();
    for (Event e : faults) {
      boolean zk = e.get("target").startsWith("zk");
      if (e.ev().equals("FAULT_START")) {
        if (zk) {
          openZk.put(e.get("target"), e.t());
        } else {
          anchors.add(new long[] {e.t(), e.t()});
        }
      } else if (zk) {
        Long began = openZk.remove(e.get("target"));
        anchors.add(new long[] {e.t(), began == null ? e.t() : began});
      }
    }
    // in time order already: faults are, and each anchor is its fault event's time (an anchor
    // skipped because its fault began after the deadline then stood is covered by any later one
    // that moves the deadline past that beginning: it ends no earlier)
    Map<String, List<Handle>> byDir = new HashMap<>();
    for (Handle h : handles.values()) {
      if (h.side != null && h.side != Side.SEMAPHORE && h.requestT >= 0) {
        byDir.computeIfAbsent(h.side.dir(), k -> new ArrayList<>()).add(h);
      }
    }
    for (Handle dead : handles.values()) {
      if (!dead.granted() || dead.side == Side.SEMAPHORE) {
        continue;
      }
      Proc p = proc(dead.proc);
      long death = -1;
      if (p.killedT >= 0 && dead.releaseStartT < 0 && dead.lossT < 0) {
        death = p.killedT;
      } else if (expired(dead)) {
        long[] cause = cause(dead);
        if (cause != null && cause[2] == 1 && cause[0] >= dead.grantT && end(dead) >= cause[0]) {
          death = cause[0]; // cut off or paused while holding, and its session expired
        }
      }
      if (death < 0) {
        continue;
      }
      long deadline = death + limit;
      for (long[] a : anchors) {
        // an anchor at or before the death moves nothing: it is at most death + limit
        if (a[1] <= deadline) {
          deadline = Math.max(deadline, a[0] + limit);
        }
      }
      long firstGrant = Long.MAX_VALUE; // progress: any grant in the lock after the death
      long handover = Long.MAX_VALUE; // to a request that was already waiting at the death
      Handle busy = null; // a live holder still holding at the deadline: the queue may wait on it
      Handle waiter = null; // a witness: an unfaulted client still waiting at the deadline
      for (Handle w : byDir.get(dead.side.dir())) {
        if (w.proc.equals(dead.proc)) {
          continue;
        }
        if (w.granted() && w.grantT > death) {
          firstGrant = Math.min(firstGrant, w.grantT);
          if (w.requestT < death) {
            handover = Math.min(handover, w.grantT);
          }
        }
        if (w.granted() && w.grantT <= deadline && end(w) >= deadline) {
          busy = w;
        }
        if (w.requestT < deadline - TimeUnit.SECONDS.toNanos(1)
            && w.endOfWaitT() > deadline
            && !faulted(w.proc, w.requestT, deadline)) {
          waiter = w;
        }
      }
      count("handover.checked");
      if (handover <= deadline) {
        delay("handover", handover - death);
      }
      if (firstGrant > deadline && busy == null && waiter != null) {
        violation(
            "LIVENESS",
            "holder "
                + dead.h
                + " died at "
                + rel(death)
                + "; "
                + waiter.h
                + " waited from "
                + rel(waiter.requestT)
                + " but nothing in "
                + dead.side.dir()
                + " was granted by "
                + rel(deadline)
                + " and nobody else held it");
      } else if (waiter == null) {
        count("handover.noWaiter");
      }
    }
  }

  private boolean faulted(String procName, long from, long to) {
    Proc p = proc(procName);
    if (p.killedT >= 0 && p.killedT <= to) {
      return true;
    }
    for (long[] w : p.faultWindows) {
      if (w[0] <= to && w[1] >= from) {
        return true;
      }
    }
    return false;
  }

  private void checkProcesses() {
    for (Proc p : procs.values()) {
      if (p.killedT >= 0) {
        count("processes.killed");
        continue;
      }
      if (p.hung) {
        violation("LIVENESS", p.proc + " did not exit after close (killed)");
      } else if (p.exitCode == null || p.exitCode != 0 || !p.closed) {
        violation(
            "LIVENESS",
            p.proc + " did not close cleanly (exit " + p.exitCode + ", closed " + p.closed + ")");
      }
    }
  }

  // ----------------------------------------------------------------- report

  /**
   * LATCH: nobody passes a latch before its count reached zero. A pass ({@code LATCH_PASS}, logged
   * after {@code await} returned true) needs at least {@code count} count-downs on that latch
   * logged before it ({@code LATCH_COUNTDOWN} is logged before {@code countDown()} is called, so
   * every count-down that can have taken effect before the pass is counted, even one whose process
   * was killed before it returned; none is applied twice).
   */
  private void checkLatches() {
    Map<String, Long> started = new HashMap<>();
    for (Event e : latchEvents) { // in time order
      String latch = e.get("latch");
      if (e.ev().equals("LATCH_COUNTDOWN")) {
        started.merge(latch, 1L, Long::sum);
        count("latch.countDowns");
        continue;
      }
      count("latch.passes");
      long count = e.getLong("count", 0);
      long before = started.getOrDefault(latch, 0L);
      if (before < count) {
        violation(
            "LATCH",
            e.get("proc")
                + " "
                + e.get("h")
                + " passed "
                + latch
                + " (count "
                + count
                + ") at "
                + rel(e.t())
                + " after only "
                + before
                + " count-downs had begun");
      }
    }
  }

  /**
   * SIGNAL: no signal is lost. A waiter W logs {@code COND_AWAIT} while it holds the lock, then
   * awaits with a time-out; a holder S logs {@code COND_SIGNAL_ALL} before {@code signalAll()} and
   * {@code COND_SIGNAL_DONE} once it returned. If S's signal began after W's await began, S held
   * the lock after W released it (exclusion), and W's waiter node is made before that release: so
   * the signal found W's node. If the signal was done before W's time-out ran out, W cannot have
   * withdrawn its node first, and its wake-up ({@code COND_WOKEN}) must say signalled. The rule
   * leaves out every pair that a fault could blur (a client fault on W's or S's process, a server
   * fault, or a session event other than CONNECTED of either, from a session timeout before W's
   * await to its wake-up): a session expiry during the wait is a spurious wake-up the JDK allows,
   * and a lost holder may overlap the next one. Those are counted as {@code signal.unchecked}.
   */
  private void checkSignals() {
    Map<String, Event> awaits = new HashMap<>();
    List<Event[]> waits = new ArrayList<>();
    Map<String, Event> signalStarts = new HashMap<>();
    List<Event[]> signals = new ArrayList<>();
    for (Event e : condEvents) {
      switch (e.ev()) {
        case "COND_AWAIT" -> awaits.put(e.get("h"), e);
        case "COND_WOKEN" -> {
          Event a = awaits.remove(e.get("h"));
          if (a != null) {
            waits.add(new Event[] {a, e});
            count("cond.wakeups." + ("true".equals(e.get("signalled")) ? "signalled" : "timeout"));
          }
        }
        case "COND_SIGNAL_ALL" -> signalStarts.put(e.get("h"), e);
        case "COND_SIGNAL_DONE" -> {
          Event s = signalStarts.remove(e.get("h"));
          if (s != null) {
            signals.add(new Event[] {s, e});
            count("cond.signalAlls");
          }
        }
        default -> throw new IllegalStateException(e.ev());
      }
    }
    for (Event[] w : waits) {
      Event await = w[0];
      Event woken = w[1];
      long deadline = await.t() + TimeUnit.MILLISECONDS.toNanos(await.getLong("timeoutMs", 0));
      for (Event[] s : signals) {
        if (!await.get("cond").equals(s[0].get("cond"))
            || s[0].t() <= await.t()
            || s[1].t() >= deadline) {
          continue;
        }
        long from = await.t() - config.sessionTimeout().toNanos() - GRACE;
        long to = woken.t() + GRACE;
        if (blurred(await.get("proc"), from, to) || blurred(s[0].get("proc"), from, to)) {
          count("signal.unchecked");
          continue;
        }
        count("signal.checked");
        if (!"true".equals(woken.get("signalled"))) {
          violation(
              "SIGNAL",
              s[0].get("proc")
                  + " "
                  + s[0].get("h")
                  + " signalled all of "
                  + s[0].get("cond")
                  + " at "
                  + rel(s[0].t())
                  + "-"
                  + rel(s[1].t())
                  + ", but "
                  + await.get("proc")
                  + " "
                  + await.get("h")
                  + ", waiting since "
                  + rel(await.t())
                  + " until "
                  + rel(deadline)
                  + ", woke at "
                  + rel(woken.t())
                  + " not signalled");
        }
      }
    }
  }

  /** Whether a fault or a session event can have touched {@code proc} within [from, to]. */
  private boolean blurred(String proc, long from, long to) {
    for (long[] z : zkFaults) {
      if (z[0] <= to && z[1] >= from) {
        return true;
      }
    }
    Proc p = proc(proc);
    for (long[] f : p.faultWindows) {
      if (f[0] <= to && f[1] >= from) {
        return true;
      }
    }
    for (Event e : p.sessionEvents) {
      if (!"CONNECTED".equals(e.get("state")) && e.t() >= from && e.t() <= to) {
        return true;
      }
    }
    return p.killStartT >= 0 && p.killStartT <= to;
  }

  private Report report() {
    counters.put("violations", (long) violations.size());
    Map<String, List<Long>> d = new TreeMap<>(delays);
    StringBuilder s = new StringBuilder();
    s.append("zklock soak: seed ")
        .append(config.seed())
        .append(", ")
        .append(config.duration().toSeconds())
        .append(" s of faults, ")
        .append(config.clients())
        .append(" client processes x ")
        .append(config.workers())
        .append(" workers, session timeout ")
        .append(config.sessionTimeout().toMillis())
        .append(" ms\n");
    counters.forEach((k, v) -> s.append(String.format("  %-34s %d%n", k, v)));
    d.forEach(
        (k, v) -> {
          List<Long> x = new ArrayList<>(v);
          x.sort(null);
          s.append(
              String.format(
                  "  %-34s n=%d min=%d p50=%d p99=%d max=%d ms%n",
                  "delay." + k,
                  x.size(),
                  x.get(0),
                  x.get(x.size() / 2),
                  x.get((int) (x.size() * 0.99)), // < size: n * 0.99 < n
                  x.get(x.size() - 1)));
        });
    s.append("  violations: ").append(violations.size()).append('\n');
    for (String v : violations.subList(0, Math.min(50, violations.size()))) {
      s.append("    ").append(v).append('\n');
    }
    return new Report(List.copyOf(violations), Map.copyOf(counters), d, s.toString());
  }
}
