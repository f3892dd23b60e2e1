package io.zklock.bench;

import java.util.List;
import java.util.Map;

/**
 * A target of issues 6, 15 and 32 and how to read it from a run. {@link #scenario} is a result key:
 * the scenario's name, with "@1ms" for the regime with a 1 ms round trip.
 */
abstract class Target {
  /**
   * Watch events per acquisition allowed at any number of waiters. A waiter that watches its
   * predecessor and, to learn early whether the predecessor holds, the predecessor's predecessor is
   * notified at most twice per acquisition; one deletion fires at most two watches (its successor's
   * and the one after). The look-ahead (issue 15) fires two for exclusive waiters.
   */
  static final double WATCH_EVENTS_BOUND = 2.0;

  /** How far a window's events per acquisition may exceed a bound by its edges alone (1%). */
  static final double WINDOW_EDGE_ALLOWANCE = 1.01;

  final String scenario;
  final String text;
  Impl vs; // for ratio targets: the denominator
  double goal = Double.NaN; // for ratio targets: the least ratio

  Target(String scenario, String text) {
    this.scenario = scenario;
    this.text = text;
  }

  /** The measured figure, NaN if the run did not measure it. */
  abstract double measured(Map<String, Result> results);

  abstract boolean met(double measured);

  abstract String format(double measured);

  /**
   * For a ratio target: the same ratio for {@code floor} in place of zklock, from the same windows
   * (NaN when this is no ratio target, the floor is the denominator, or the run did not measure
   * it). The fair-queue floor and raw ZooKeeper bound what any ZooKeeper lock could reach in the
   * run: a target that the floor misses too is out of reach on this machine, whatever the lock
   * does.
   */
  double floorRatio(Map<String, Result> results, Impl floor) {
    Result r = results.get(scenario);
    if (vs == null || vs == floor || r == null) {
      return Double.NaN;
    }
    return Result.median(r.pairedRatios(floor, vs, Window::value));
  }

  /** zklock's rate / {@code vs}'s rate (median of same-repetition ratios) at least {@code min}. */
  static Target ratio(String scenario, Impl vs, double min, String text) {
    return ratio(Impl.ZKLOCK, scenario, vs, min, text);
  }

  /**
   * {@code who}'s rate / {@code vs}'s rate at least {@code min}: a target about a way of running
   * zklock (batched) judges that row.
   */
  static Target ratio(Impl who, String scenario, Impl vs, double min, String text) {
    Target t =
        new Target(scenario, text) {
          @Override
          double measured(Map<String, Result> results) {
            Result r = results.get(scenario);
            return r == null ? Double.NaN : Result.median(r.pairedRatios(who, vs, Window::value));
          }

          @Override
          boolean met(double m) {
            return m >= min;
          }

          @Override
          String format(double m) {
            return String.format("%.2fx %s", m, vs.label);
          }
        };
    t.vs = vs;
    t.goal = min;
    return t;
  }

  /** zklock's watch events per acquisition at most {@code max}; naive's shown beside it. */
  static Target watchEvents(String scenario, double max, String text) {
    return new Target(scenario, text) {
      @Override
      double measured(Map<String, Result> results) {
        Result r = results.get(scenario);
        return r == null
            ? Double.NaN
            : Result.median(r.values(Impl.ZKLOCK, Window::watchEventsPerOp));
      }

      /**
       * Within the bound, allowing 1% for the window's edges: a window counts the events of the
       * acquisitions it sees finish, and also those of acquisitions under way when it closes (a
       * waiter's look-ahead fires before its grant), about one per session per window.
       */
      @Override
      boolean met(double m) {
        return m <= max * WINDOW_EDGE_ALLOWANCE;
      }

      @Override
      String format(double m) {
        return String.format("%.2f events/acq", m);
      }
    };
  }

  /** {@code who}'s requests per operation (the server's packets received) below {@code max}. */
  static Target requestsBelow(Impl who, String scenario, double max, String text) {
    return new Target(scenario, text) {
      @Override
      double measured(Map<String, Result> results) {
        Result r = results.get(scenario);
        return r == null || !r.has(who)
            ? Double.NaN
            : Result.median(r.values(who, Window::requestsPerOp));
      }

      @Override
      boolean met(double m) {
        return m < max;
      }

      @Override
      String format(double m) {
        return String.format("%.2f req/acq", m);
      }
    };
  }

  /** An extra figure of zklock's window at most {@code max}. */
  static Target extraAtMost(String scenario, String key, double max, String text) {
    return new Target(scenario, text) {
      @Override
      double measured(Map<String, Result> results) {
        Result r = results.get(scenario);
        if (r == null || !r.has(Impl.ZKLOCK)) {
          return Double.NaN;
        }
        return Result.median(r.values(Impl.ZKLOCK, w -> w.extra().getOrDefault(key, Double.NaN)));
      }

      @Override
      boolean met(double m) {
        return m <= max;
      }

      @Override
      String format(double m) {
        return Report.num(m) + " " + key;
      }
    };
  }

  /**
   * The async scenario's handoff rate over its first handoffs, against zklock's rate with 10
   * sessions on one lock in the same regime (median over that scenario's windows).
   */
  static Target drainVsContended(String asyncKey, String contendedKey, double min, String text) {
    Target t =
        new Target(asyncKey, text) {
          @Override
          double measured(Map<String, Result> results) {
            Result a = results.get(asyncKey);
            Result c = results.get(contendedKey);
            if (a == null || c == null || !a.has(Impl.ZKLOCK) || !c.has(Impl.ZKLOCK)) {
              return Double.NaN;
            }
            double drain =
                Result.median(
                    a.values(
                        Impl.ZKLOCK,
                        w ->
                            w.extra().entrySet().stream()
                                .filter(e -> e.getKey().startsWith("drain handoffs/s"))
                                .mapToDouble(Map.Entry::getValue)
                                .findFirst()
                                .orElse(Double.NaN)));
            return drain / Result.median(c.values(Impl.ZKLOCK, Window::value));
          }

          @Override
          boolean met(double m) {
            return m >= min;
          }

          @Override
          String format(double m) {
            return String.format("%.2fx zklock's %s rate", m, contendedKey);
          }
        };
    t.goal = min;
    return t;
  }

  static List<Target> all() {
    List<Target> t = new java.util.ArrayList<>();
    String ms = "@1ms";
    // issue 32: the production regime (fsync on, 1 ms round trip), against what teams pick
    t.add(
        ratio(
            "contended-10" + ms,
            Impl.CURATOR,
            1.6,
            "1 ms RTT, 10 sessions, handoffs/s: >= 1.6x Curator"));
    t.add(
        ratio(
            "contended-10" + ms,
            Impl.FLOOR,
            0.9,
            "1 ms RTT, 10 sessions, handoffs/s: >= 0.9x the fair-queue floor"));
    t.add(
        ratio(
            "contended-10" + ms,
            Impl.REDISSON_FAIR,
            1.5,
            "1 ms RTT, 10 sessions, handoffs/s: >= 1.5x Redisson's fair RLock"));
    t.add(
        ratio(
            "contended-10" + ms,
            Impl.ETCD,
            1.5,
            "1 ms RTT, 10 sessions, handoffs/s: >= 1.5x etcd's lock"));
    t.add(
        ratio(
            "uncontended" + ms,
            Impl.CURATOR,
            1.4,
            "1 ms RTT, uncontended acquire+release(): >= 1.4x Curator"));
    t.add(
        ratio(
            "uncontended" + ms,
            Impl.ETCD,
            1.0,
            "1 ms RTT, uncontended acquire+release(): >= 1.0x etcd's lock"));
    t.add(
        ratio(
            "uncontended" + ms,
            Impl.REDISSON_FAIR,
            0.7,
            "1 ms RTT, uncontended acquire+release(): >= 0.7x Redisson's fair RLock"));
    t.add(
        ratio(
            "uncontended-async" + ms,
            Impl.CURATOR,
            2.5,
            "1 ms RTT, uncontended acquire+releaseAsync(): >= 2.5x Curator's release()"));
    // issue 32: per-entity locks, both regimes
    for (String regime : List.of("", ms)) {
      String in = regime.isEmpty() ? "no added latency" : "1 ms RTT";
      t.add(
          ratio(
              "distinct-1000" + regime,
              Impl.RAW,
              0.6,
              in + ", 1,000 locks, 8x4 threads: >= 0.6x raw create+delete"));
      t.add(
          ratio(
              "distinct-1000" + regime,
              Impl.CURATOR,
              1.5,
              in + ", 1,000 locks, 8x4 threads: >= 1.5x Curator"));
    }
    // per-entity locks from many threads of one client: their requests go out in batches, so
    // these judge the batched row (zklock-batched)
    t.add(
        ratio(
            Impl.ZKLOCK_BATCHED,
            "distinct-1000-one",
            Impl.CURATOR,
            2.0,
            "no added latency, 1,000 locks, one client x 32 threads, batched: >= 2.0x Curator"));
    t.add(
        ratio(
            Impl.ZKLOCK_BATCHED,
            "distinct-1000-one" + ms,
            Impl.CURATOR,
            1.5,
            "1 ms RTT, 1,000 locks, one client x 32 threads, batched: >= 1.5x Curator"));
    t.add(
        ratio(
            Impl.ZKLOCK_BATCHED,
            "distinct-1000-one",
            Impl.REDISSON,
            1.0,
            "no added latency, 1,000 locks, one client x 32 threads, batched: >= 1.0x Redisson's"
                + " RLock"));
    t.add(
        requestsBelow(
            Impl.ZKLOCK_BATCHED,
            "distinct-1000-one",
            1.0,
            "1,000 locks, one client x 32 threads, batched: < 1.0 server packets per"
                + " acquisition"));
    // issue 32: cohorts against Redisson's plain RLock, 8 threads of one JVM
    t.add(
        ratio(
            "cohort-1x8",
            Impl.REDISSON,
            3.0,
            "8 threads of one session, one lock: >= 3x Redisson's RLock"));
    // issues 15 and 32: with no added latency (CPU-bound server), never behind Curator
    for (String scenario :
        List.of(
            "contended-10",
            "uncontended",
            "uncontended-async",
            "contended-50",
            "rw-90",
            "semaphore-5",
            "cohort-1x8")) {
      t.add(
          ratio(
              scenario, Impl.CURATOR, 1.0, "no added latency, " + scenario + ": >= 1.0x Curator"));
    }
    for (String regime : List.of("", ms)) {
      String in = regime.isEmpty() ? "" : " (1 ms RTT)";
      t.add(
          extraAtMost(
              "async-waiters" + regime,
              "queue seconds",
              3,
              "pending acquireAsync(): all queued in <= 3 s" + in));
      t.add(
          drainVsContended(
              "async-waiters" + regime,
              "contended-10" + regime,
              0.8,
              "pending acquireAsync(): first 1,000 handoffs >= 0.8x the 10-session rate" + in));
      t.add(
          watchEvents(
              "contended-50" + regime,
              WATCH_EVENTS_BOUND,
              "watch events per acquisition, 50 sessions: <= " + WATCH_EVENTS_BOUND + in));
      t.add(
          watchEvents(
              "herd" + regime,
              WATCH_EVENTS_BOUND,
              "watch events per acquisition, herd sessions: <= " + WATCH_EVENTS_BOUND + in));
    }
    // issue 6, no added latency
    t.add(ratio("contended-50", Impl.CURATOR, 1.6, "50 sessions, handoffs/s: >= 1.6x Curator"));
    t.add(ratio("rw-90", Impl.CURATOR, 1.5, "read-write 90% reads, 10 sessions: >= 1.5x Curator"));
    t.add(
        extraAtMost(
            "async-waiters",
            "library threads",
            16,
            "pending acquireAsync(): <= 16 library threads (heap per waiter reported)"));
    return t;
  }
}
