package io.zklock.bench;

import java.util.List;
import java.util.Map;

/** A target of issue 6 and how to read it from a run. */
abstract class Target {
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

  /** zklock's rate / {@code vs}'s rate (median of same-repetition ratios) at least {@code min}. */
  static Target ratio(String scenario, Impl vs, double min, String text) {
    Target t =
        new Target(scenario, text) {
          @Override
          double measured(Map<String, Result> results) {
            Result r = results.get(scenario);
            return r == null
                ? Double.NaN
                : Result.median(r.pairedRatios(Impl.ZKLOCK, vs, Window::value));
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

      @Override
      boolean met(double m) {
        return m <= max;
      }

      @Override
      String format(double m) {
        return String.format("%.2f events/acq", m);
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
        return String.format("%.0f %s", m, key);
      }
    };
  }

  static List<Target> all() {
    return List.of(
        ratio("uncontended", Impl.CURATOR, 1.1, "uncontended acquire+release(): >= 1.1x Curator"),
        ratio(
            "uncontended-async",
            Impl.CURATOR,
            1.8,
            "uncontended acquire+releaseAsync(): >= 1.8x Curator's (sync) rate"),
        ratio("contended-10", Impl.CURATOR, 1.6, "10 sessions, handoffs/s: >= 1.6x Curator"),
        ratio("contended-10", Impl.RAW, 0.85, "10 sessions, handoffs/s: >= 0.85x ping-pong floor"),
        ratio("contended-50", Impl.CURATOR, 1.6, "50 sessions, handoffs/s: >= 1.6x Curator"),
        ratio("contended-50", Impl.RAW, 0.85, "50 sessions, handoffs/s: >= 0.85x ping-pong floor"),
        watchEvents("contended-50", 1.0, "watch events per acquisition, 50 sessions: <= 1.0"),
        watchEvents("herd", 1.0, "watch events per acquisition, herd sessions: <= 1.0"),
        ratio(
            "distinct-1000", Impl.RAW, 0.9, "1,000 locks, 8x4 threads: >= 0.9x raw create+delete"),
        ratio("rw-90", Impl.CURATOR, 1.5, "read-write 90% reads, 10 sessions: >= 1.5x Curator"),
        extraAtMost(
            "async-waiters",
            "library threads",
            16,
            "pending acquireAsync(): <= 16 library threads (heap per waiter reported)"));
  }
}
