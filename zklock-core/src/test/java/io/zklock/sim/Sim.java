package io.zklock.sim;

import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * The simulated world: one thread, simulated time in nanoseconds, an ordered queue of events, and
 * every random choice drawn from streams split off one seed. Nothing here sleeps or reads the JVM's
 * time.
 *
 * <p>Each event belongs to an {@link Owner} (a client process, a server, the network): a paused
 * owner's events wait until it resumes, in the order they were due. Events due at the same instant
 * run in the order they were scheduled.
 */
public final class Sim {
  /** Who an event runs for; a paused owner runs nothing until it resumes. */
  public interface Owner {
    /** The instant until which this owner is paused, or a time in the past. */
    long pausedUntil();

    String name();
  }

  /** The owner of world-level events (faults, the workload's plan, the checker). */
  public static final Owner WORLD =
      new Owner() {
        @Override
        public long pausedUntil() {
          return Long.MIN_VALUE;
        }

        @Override
        public String name() {
          return "world";
        }
      };

  /** One scheduled event; {@link #cancel()} drops it. */
  public static final class Ev implements Comparable<Ev> {
    long time;
    final long seq;
    final Owner owner;
    final String what;
    final Runnable body;
    boolean cancelled;
    boolean done;

    Ev(long time, long seq, Owner owner, String what, Runnable body) {
      this.time = time;
      this.seq = seq;
      this.owner = owner;
      this.what = what;
      this.body = body;
    }

    public void cancel() {
      cancelled = true;
    }

    public boolean isDone() {
      return done || cancelled;
    }

    public long time() {
      return time;
    }

    @Override
    public int compareTo(Ev o) {
      int c = Long.compare(time, o.time);
      return c != 0 ? c : Long.compare(seq, o.seq);
    }

    @Override
    public String toString() {
      return what + "@" + Trace.fmt(time);
    }
  }

  public static final long MS = 1_000_000L;
  public static final long SEC = 1_000_000_000L;

  public final long seed;
  private final PriorityQueue<Ev> queue = new PriorityQueue<>();
  private long seq;
  private long now;
  private long steps;
  public final Trace trace;

  /**
   * The random streams: each subsystem draws from its own, so that one's choices do not shift
   * another's.
   */
  public final SplittableRandom net;

  public final SplittableRandom threads;
  public final SplittableRandom servers;
  public final SplittableRandom ids;
  private final SplittableRandom root;

  /** Called after every event (the checker's per-step checks). */
  private Consumer<Ev> afterStep = e -> {};

  private RuntimeException failure;

  /**
   * Thrown out of the world when a thread descheduled while holding a monitor (or lock) was found
   * to hold what another thread of the world then needed ({@link SimActor#preempt}): that
   * interleaving cannot go on one thread at a time, so the run starts again from its seed, without
   * that preemption ({@link #noPreemptHolding}). An Error, so that no library code catches it.
   */
  static final class Contended extends Error {
    private static final long serialVersionUID = 1L;
    final int index;

    Contended(int index) {
      super("preemption " + index + " met contention", null, false, false);
      this.index = index;
    }
  }

  /** The preemptions of threads holding a monitor, counted from 0 in the order they are drawn. */
  int preemptsHolding;

  /** Which of those are not taken (they met contention in an earlier attempt of this run). */
  java.util.Set<Integer> noPreemptHolding = java.util.Set.of();

  /** None from this one on (a run that met contention too often stops looking for it). */
  int preemptHoldingBelow = Integer.MAX_VALUE;

  /** The actor descheduled while holding a monitor now (at most one at a time), or null. */
  SimActor preemptedHolding;

  /** The preemption that met contention ({@link Contended}), or -1. */
  volatile int contended = -1;

  /**
   * The pool whose task the innermost event running now is (a library thread's task), or null: set
   * by {@link SimPool} around each task, cleared for every event a task's wait or descheduling runs
   * inside it.
   */
  SimPool runningPool;

  /** Whether a library task is descheduled now ({@link SimPool#deschedule}; one at a time). */
  boolean taskDescheduled;

  /** The threads of the world's user threads (the watch of a descheduled holder looks at them). */
  final java.util.List<Thread> actorThreads = new java.util.concurrent.CopyOnWriteArrayList<>();

  public Sim(long seed, Trace trace) {
    this.seed = seed;
    this.trace = trace;
    this.root = new SplittableRandom(seed);
    this.net = root.split();
    this.threads = root.split();
    this.servers = root.split();
    this.ids = root.split();
  }

  /** A new independent stream split off the seed (in the order asked for). */
  public SplittableRandom split() {
    return root.split();
  }

  public long now() {
    return now;
  }

  public long steps() {
    return steps;
  }

  public void afterStep(Consumer<Ev> hook) {
    this.afterStep = hook;
  }

  /** Runs {@code body} at {@code time} (not before now) for {@code owner}. */
  public Ev at(long time, Owner owner, String what, Runnable body) {
    if (contended >= 0) {
      // the run is over and starts again; a thread unwinding meanwhile schedules nothing
      Ev dead = new Ev(time, -1, owner, what, body);
      dead.cancelled = true;
      return dead;
    }
    Ev e = new Ev(Math.max(time, now), seq++, owner, what, body);
    queue.add(e);
    return e;
  }

  /** Runs {@code body} {@code delay} ns from now. */
  public Ev after(long delay, Owner owner, String what, Runnable body) {
    return at(now + Math.max(0, delay), owner, what, body);
  }

  /** The time of the next event, or Long.MAX_VALUE when none is left. */
  public long nextTime() {
    Ev e = queue.peek();
    while (e != null && e.cancelled) {
      queue.poll();
      e = queue.peek();
    }
    return e == null ? Long.MAX_VALUE : e.time;
  }

  /** The thread that runs the world's events (the watch of a descheduled holder looks at it). */
  volatile Thread worldThread;

  /** Runs one event; false if none is left. */
  public boolean step() {
    worldThread = Thread.currentThread();
    Ev e;
    while (true) {
      e = queue.poll();
      if (e == null) {
        return false;
      }
      if (e.cancelled) {
        continue;
      }
      long until = e.owner.pausedUntil();
      if (until > e.time) {
        e.time = until; // waits for its owner to resume; keeps its place among equals
        queue.add(e);
        continue;
      }
      break;
    }
    now = e.time;
    steps++;
    e.done = true;
    SimPool pool = runningPool;
    runningPool = null; // set by a pool's event for the task it runs
    try {
      e.body.run();
    } catch (SimFailure f) {
      throwIfContended();
      throw f;
    } catch (RuntimeException | Error x) {
      throwIfContended();
      throw new SimFailure(
          "CRASH", "an event threw: " + e.what + " of " + e.owner.name() + ": " + x, x);
    } finally {
      runningPool = pool;
    }
    throwIfContended();
    afterStep.accept(e);
    if (failure != null) {
      RuntimeException f = failure;
      failure = null;
      throw f;
    }
    return true;
  }

  private void throwIfContended() {
    int c = contended;
    if (c >= 0) {
      throw new Contended(c);
    }
  }

  /** Runs every event due up to {@code time}, then sets the clock to it. */
  public void runUntil(long time) {
    while (nextTime() <= time) {
      step();
    }
    if (time > now) {
      now = time;
    }
  }

  /** Fails the run after the current event (from code that must not throw into the library). */
  public void fail(SimFailure f) {
    if (contended >= 0) {
      return; // the run is over (it starts again); nothing found after that counts
    }
    if (failure == null) {
      failure = f;
    }
    if (firstFailure == null) {
      firstFailure = f;
    }
  }

  /**
   * The first failure recorded ({@link #fail}), before any contention: a run that then met
   * contention still failed, since everything up to the contention is an interleaving the JVM can
   * produce.
   */
  SimFailure firstFailure;

  // ------------------------------------------------------------------ random helpers

  /** Uniform in [lo, hi]. */
  public static long between(SplittableRandom r, long lo, long hi) {
    return hi <= lo ? lo : lo + r.nextLong(hi - lo + 1);
  }

  public static boolean chance(SplittableRandom r, double p) {
    return r.nextDouble() < p;
  }
}
