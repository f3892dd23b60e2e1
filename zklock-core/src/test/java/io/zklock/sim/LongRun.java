package io.zklock.sim;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * The simulation's long mode: consecutive seeds from a first one, for a given time, each focus in
 * turn, every other seed with its clients batching (unless {@code -Dio.zklock.batching} says all or
 * none). It prints a progress line now and then, every failure (shrunk, with the command that
 * replays it) as soon as it is found, and a summary at the end: the seeds run, the simulated time,
 * the simulated seconds per wall second, per focus and batched or not.
 *
 * <p>Through Maven ({@code SimulationTest#longRun}, {@code -Dsim.minutes=M [-Dsim.from=S]
 * [-Dsim.focus=F]}), or as a plain program on the test classpath, which holds no build slot for
 * hours: {@code java -cp ... io.zklock.sim.LongRun MINUTES [FIRST_SEED] [FOCUS]}.
 */
final class LongRun {
  /** What a long run found: how many seeds failed, and their reports. */
  record Outcome(long seeds, List<String> failures) {}

  private final double minutes;
  private final long first;
  private final Plan.Focus only;
  private final Boolean batching; // null: every other seed
  private final long progressNanos;
  private final PrintStream out;

  LongRun(
      double minutes,
      long first,
      Plan.Focus only,
      Boolean batching,
      long progressNanos,
      PrintStream out) {
    this.minutes = minutes;
    this.first = first;
    this.only = only;
    this.batching = batching;
    this.progressNanos = progressNanos;
    this.out = out;
  }

  /** A long run as the system properties say ({@code sim.from}, {@code sim.focus}, ...). */
  static LongRun fromProperties(double minutes, PrintStream out) {
    String f = System.getProperty("sim.focus");
    String b = System.getProperty(io.zklock.internal.ZkLocksFactory.BATCHING_PROPERTY);
    return new LongRun(
        minutes,
        Long.getLong("sim.from", new java.util.SplittableRandom().nextLong(1L << 40)),
        f == null ? null : Plan.Focus.valueOf(f),
        b == null ? null : Boolean.parseBoolean(b),
        Long.getLong("sim.progressSeconds", 60) * 1_000_000_000L,
        out);
  }

  /** The plan of the {@code n}-th seed (from 0): each focus in turn, batched every other time. */
  Plan plan(long n) {
    long seed = first + n;
    Plan.Focus[] from = Plan.IMPLEMENTED;
    Plan.Focus focus = only != null ? only : from[(int) (n % from.length)];
    // every focus meets both settings: batching flips once per round of the focuses
    boolean batched = batching != null ? batching : ((only != null ? n : n / from.length) % 2) == 1;
    return Plan.of(seed, focus).batched(batched);
  }

  Outcome run() {
    long t0 = System.nanoTime();
    long end = t0 + (long) (minutes * 60e9);
    long nextProgress = t0 + progressNanos;
    List<String> failures = new ArrayList<>();
    Map<Plan.Focus, long[]> perFocus = new EnumMap<>(Plan.Focus.class); // seeds, sim ns, wall ns
    long[] plain = new long[3];
    long[] batched = new long[3];
    out.printf(
        "simulation long mode: %.1f min from seed %d, %s, %s%n",
        minutes,
        first,
        only == null ? "every focus in turn" : "focus " + only,
        batching == null
            ? "batched every other round"
            : batching ? "every run batched" : "no run batched");
    out.printf(
        "  a failure is printed when found, with the command that replays it; progress every %d"
            + " s%n",
        progressNanos / 1_000_000_000L);
    out.flush();
    long n = 0;
    while (System.nanoTime() < end) {
      Plan p = plan(n);
      SimRun.Result r = SimRun.run(p, 300, false);
      n++;
      long[] f = perFocus.computeIfAbsent(p.focus, k -> new long[3]);
      long[] b = p.batched ? batched : plain;
      for (long[] a : new long[][] {f, b}) {
        a[0]++;
        a[1] += r.simNanos();
        a[2] += r.wallNanos();
      }
      if (r.failed()) {
        out.printf(
            "FAILED: seed %d (%s%s): %s; shrinking%n",
            p.seed, p.focus, p.batched ? ", batched" : "", r.failure().getMessage());
        out.flush();
        String report = Report.failure(Shrinker.shrink(r, 200, 60_000_000_000L));
        failures.add(report);
        out.println(report);
      }
      long now = System.nanoTime();
      if (now >= nextProgress) {
        nextProgress = now + progressNanos;
        long sim = plain[1] + batched[1];
        out.printf(
            "  %.1f min: seeds %d..%d (%d, %d batched), %d failed, %.1f seeds/s, %.0f simulated s"
                + " (%.0f per wall s)%n",
            (now - t0) / 60e9,
            first,
            first + n - 1,
            n,
            batched[0],
            failures.size(),
            n / ((now - t0) / 1e9),
            sim / 1e9,
            sim / (double) (now - t0));
        out.flush();
      }
    }
    long wall = System.nanoTime() - t0;
    long sim = plain[1] + batched[1];
    out.printf(
        "simulation: seeds %d..%d (%d) in %.1f min, %d failed, %.1f seeds/s, %.0f simulated s,"
            + " %.0f simulated s per wall s%n",
        first,
        first + n - 1,
        n,
        wall / 60e9,
        failures.size(),
        n / (wall / 1e9),
        sim / 1e9,
        sim / (double) wall);
    out.printf("  %-18s %7s %10s %8s%n", "", "seeds", "sim s", "sim s/s");
    for (Map.Entry<Plan.Focus, long[]> e : perFocus.entrySet()) {
      line(e.getKey().name(), e.getValue());
    }
    line("not batched", plain);
    line("batched", batched);
    out.flush();
    return new Outcome(n, failures);
  }

  private void line(String what, long[] a) {
    out.printf(
        "  %-18s %7d %10.0f %8.0f%n", what, a[0], a[1] / 1e9, a[2] == 0 ? 0 : a[1] / (double) a[2]);
  }

  /**
   * {@code LongRun MINUTES [FIRST_SEED] [FOCUS]}: the long mode outside Maven (the library's log
   * quiet, as in the build). Exits 1 if a seed failed.
   */
  public static void main(String[] args) {
    if (args.length < 1) {
      System.err.println("usage: LongRun MINUTES [FIRST_SEED] [FOCUS]");
      System.exit(2);
    }
    if (args.length > 1) {
      System.setProperty("sim.from", args[1]);
    }
    if (args.length > 2) {
      System.setProperty("sim.focus", args[2]);
    }
    quietLibrary();
    Outcome o = fromProperties(Double.parseDouble(args[0]), System.out).run();
    System.exit(o.failures().isEmpty() ? 0 : 1);
  }

  /**
   * The library logs every simulated session loss as it would a real one: thousands of lines per
   * run that say nothing the trace does not. ERROR only, unless {@code -Dsim.log=true}.
   */
  static void quietLibrary() {
    if (!Boolean.getBoolean("sim.log")) {
      ((Logger) LoggerFactory.getLogger("io.zklock")).setLevel(Level.ERROR);
    }
  }
}
