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
    this.clock = this::nanoTime;
    // its own stream: preemption's choices do not shift the process's other ones
    this.preempts = new SplittableRandom(sim.seed * 31 + name.hashCode());
    this.preemptPercent =
        Boolean.getBoolean("sim.noPreempt") || preempts.nextInt(4) == 0 ? 0 : preempts.nextInt(40);
    // from a stream of its own too: the draws above and after stay as they were
    this.preemptHolding =
        preemptPercent > 0 && new SplittableRandom(sim.seed * 37 + name.hashCode()).nextInt(4) == 0;
    this.taskPreempts = new SplittableRandom(sim.seed * 41 + name.hashCode());
    this.taskPreemptPercent =
        Boolean.getBoolean("sim.noPreempt") || taskPreempts.nextInt(4) == 0
            ? 0
            : 1 + taskPreempts.nextInt(TASK_PREEMPT_PERCENT_MAX);
  }

  /** The most often a pool thread is descheduled after a ZooKeeper call (percent). */
  static final int TASK_PREEMPT_PERCENT_MAX = 30;

  private static final java.lang.management.ThreadMXBean THREADS =
      java.lang.management.ManagementFactory.getThreadMXBean();

  /**
   * Called right after a library task handed a call to ZooKeeper's client (a request, or the
   * client's close, which the library hands to a thread of its own): now and then the pool's thread
   * loses the processor there, for microseconds to tens of milliseconds, as on a loaded machine;
   * the rest of the world runs meanwhile ({@link SimPool#deschedule}), so what that call leads to
   * (its reply, a server's commit, another client's grant) may come before the task's next
   * statement.
   *
   * <p>Only on a pool's task of this process, one task at a time, and only while its thread holds
   * no monitor: the world's thread runs the other events meanwhile, and would enter such a monitor
   * as its holder (Java's monitors are reentrant). Without one, every event run meanwhile is one
   * another thread of a real JVM could run while this one waits for a processor.
   */
  void maybeDeschedule(String after) {
    maybeDeschedule(after, taskPreemptPercent);
  }

  /**
   * Called right after a library task started a thread ({@code Platform}'s background work, such as
   * closing a ZooKeeper client): the new thread is woken, and on a loaded machine it often takes
   * the starter's processor, so the starter is descheduled there more often than after a call (one
   * in two, in the processes whose pool threads lose the processor at all).
   */
  void maybeDescheduleAfterStarting(String thread) {
    if (taskPreemptPercent > 0) {
      maybeDeschedule("starting thread " + thread, THREAD_START_PREEMPT_PERCENT);
    }
  }

  /** How often (percent) a pool thread loses the processor right after it started a thread. */
  static final int THREAD_START_PREEMPT_PERCENT = 50;

  private void maybeDeschedule(String after, int percent) {
    SimPool pool = sim.runningPool;
    if (pool == null
        || percent == 0
        || sim.taskDescheduled
        || !pool.of(this)
        || Thread.currentThread() != sim.worldThread) {
      return;
    }
    if (taskPreempts.nextInt(100) >= percent) {
      return;
    }
    long nanos = Sim.between(taskPreempts, 2_000, 3 * Sim.MS) * (1 + taskPreempts.nextInt(10));
    if (holdsMonitor(Thread.currentThread())) {
      return;
    }
    trace("a library thread descheduled for " + Trace.fmt(nanos) + " s after " + after);
    pool.deschedule(nanos);
  }

  /**
   * Whether {@code t} holds a monitor. Not the locks of {@code java.util.concurrent}: asking for
   * those walks the heap (milliseconds each time), and the library holds none across a ZooKeeper
   * call (its only one is inside an {@code ArrayBlockingQueue}'s own methods).
   */
  private static boolean holdsMonitor(Thread t) {
    java.lang.management.ThreadInfo[] info =
        THREADS.getThreadInfo(new long[] {t.getId()}, true, false);
    return info.length > 0 && info[0] != null && info[0].getLockedMonitors().length > 0;
  }

  /**
   * How often (percent) a thread of the library's pool loses the processor right after the task it
   * runs made a ZooKeeper call (0 in one process of four): see {@link #maybeDeschedule}.
   */
  final int taskPreemptPercent;

  /**
   * The draws of those descheduling: a stream of its own, the process's others stay as they were.
   */
  private final SplittableRandom taskPreempts;

  /**
   * Reads of the clock at one simulated instant that only a task running without end makes: the
   * simulation runs a library task to its end before time moves, so a loop inside one (a request
   * handed the same refused connection again and again) would keep the run at that instant for
   * ever; its reads of the clock name it instead (PROGRESS).
   */
  static final int SPIN_READS = 1_000_000;

  private long readsAt = -1;
  private int reads;

  private long nanoTime() {
    long t = sim.now();
    if (t != readsAt) {
      readsAt = t;
      reads = 0;
    } else if (++reads == SPIN_READS) {
      SimFailure f =
          new SimFailure(
              "PROGRESS",
              name
                  + " read its clock "
                  + SPIN_READS
                  + " times at "
                  + Trace.fmt(t)
                  + " with no time passing: a task of the library runs without end");
      sim.fail(f); // recorded with the world: the library may catch what is thrown here
      throw f;
    }
    return clockBase + (long) (t * rate);
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
