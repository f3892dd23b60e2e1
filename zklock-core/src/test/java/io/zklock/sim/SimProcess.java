package io.zklock.sim;

import io.zklock.internal.rules.Clock;
import java.util.SplittableRandom;

/**
 * One simulated client JVM: its monotonic clock (running at its own rate), its wall clock, its
 * threads (the library's pool, ZooKeeper's event threads) as events of the world, and GC pauses
 * that stop all of them while the clocks run on.
 */
public final class SimProcess implements Sim.Owner {
  final String name;
  final Sim sim;
  final SplittableRandom rnd;
  private final double rate;
  private final long clockBase;
  private final long wallBase;
  private long pausedUntil = Long.MIN_VALUE;

  /** How often (percent) a user thread loses the processor right after a ZooKeeper call. */
  int preemptPercent;

  final SplittableRandom preempts;

  /** The process's {@code System.nanoTime()}. */
  public final Clock clock;

  SimProcess(Sim sim, String name, SplittableRandom rnd, double rate) {
    this.sim = sim;
    this.name = name;
    this.rnd = rnd;
    this.rate = rate;
    this.clockBase = rnd.nextLong(1L << 40);
    this.wallBase = 1_700_000_000_000L + rnd.nextInt(10_000);
    this.clock = () -> clockBase + (long) (sim.now() * rate);
    // its own stream: preemption's choices do not shift the process's other ones
    this.preempts = new SplittableRandom(sim.seed * 31 + name.hashCode());
    this.preemptPercent =
        Boolean.getBoolean("sim.noPreempt") || preempts.nextInt(4) == 0 ? 0 : preempts.nextInt(40);
    // from a stream of its own too: the draws above and after stay as they were
    this.preemptHolding =
        preemptPercent > 0 && new SplittableRandom(sim.seed * 37 + name.hashCode()).nextInt(4) == 0;
  }

  /**
   * Whether a user thread of this process may also lose the processor while it holds a monitor (in
   * one process of four that preempt at all: each such preemption that another thread then needs
   * costs the run a new start, see {@link SimActor#preempt}).
   */
  final boolean preemptHolding;

  @Override
  public long pausedUntil() {
    return pausedUntil;
  }

  @Override
  public String name() {
    return name;
  }

  public boolean paused() {
    return pausedUntil > sim.now();
  }

  /**
   * A stop-the-world pause of {@code nanos} from now (GC): nothing of this process runs meanwhile.
   */
  public void pause(long nanos) {
    long from = Math.max(sim.now(), pausedUntil);
    pausedUntil = Math.max(pausedUntil, sim.now() + nanos);
    pauses.add(new long[] {from, pausedUntil});
    trace("paused for " + nanos / Sim.MS + " ms");
  }

  private final java.util.List<long[]> pauses = new java.util.ArrayList<>();

  /** Whether this process was paused at any time in [from, to]. */
  public boolean pausedWithin(long from, long to) {
    for (long[] p : pauses) {
      if (p[0] <= to && p[1] >= from) {
        return true;
      }
    }
    return false;
  }

  /** When its last pause ended (or MIN_VALUE). */
  public long resumedAt() {
    return pauses.isEmpty() ? Long.MIN_VALUE : pauses.get(pauses.size() - 1)[1];
  }

  long wallMillis() {
    return wallBase + (long) (sim.now() * rate / Sim.MS);
  }

  /** How long a delay of {@code clockNanos} on this process's clock takes in simulated time. */
  long simDelay(long clockNanos) {
    if (clockNanos <= 0) {
      return 0;
    }
    double d = clockNanos / rate;
    return d >= Long.MAX_VALUE / 2 ? Long.MAX_VALUE / 2 : (long) Math.ceil(d);
  }

  /** How long a thread of this process takes to get going: mostly microseconds, now and then ms. */
  long threadDelay() {
    int r = rnd.nextInt(100);
    if (r < 80) {
      return Sim.between(rnd, 2_000, 60_000);
    } else if (r < 98) {
      return Sim.between(rnd, 60_000, 2 * Sim.MS);
    }
    return Sim.between(rnd, 2 * Sim.MS, 30 * Sim.MS);
  }

  /** Told of an exception a task of this process threw (the checker's). */
  java.util.function.Consumer<Throwable> onUncaught = t -> {};

  void uncaught(Throwable t) {
    onUncaught.accept(t);
  }

  void trace(String what) {
    if (sim.trace.on()) {
      sim.trace.add(sim.now(), name, what);
    }
  }
}
