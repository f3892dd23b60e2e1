package io.zklock.sim;

import io.zklock.internal.zk.Blocking;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;

/**
 * A user thread of a simulated process: a real Java thread that calls the API's blocking methods,
 * run one at a time with the world's own thread. It runs only when the world hands it the baton and
 * gives it back when it waits ({@link Blocking}'s waits: a future that is not done, or {@link
 * #sleep}); a wait ends when its future completes (an event of the world, a thread-delay later),
 * when the world interrupts the thread, or at the end of a sleep. So its steps are part of the
 * world's order, and a run replays.
 */
final class SimActor implements Blocking.Waiter {
  /** Thrown into an actor's waits when its run is over: unwinds the thread. */
  static final class Abandoned extends Error {
    private static final long serialVersionUID = 1L;

    Abandoned() {
      super("the simulated run is over", null, false, false);
    }
  }

  /** What an actor does, on its own thread. */
  interface Body {
    void run(SimActor self) throws Exception;
  }

  final String name;
  final SimProcess process;

  /** An interrupt the workload scheduled for the call in progress (cancelled after it). */
  Sim.Ev pendingInterrupt;

  private final Sim sim;
  private final Thread thread;
  private final Semaphore go = new Semaphore(0);
  private final Semaphore back;
  private boolean running; // holds the baton
  private boolean waiting; // parked in a wait
  private boolean interruptible; // the wait it is parked in ends on an interrupt
  private long waitToken; // which wait a wake-up is for
  private boolean abandoned;
  private volatile boolean unwound; // woken by the watch of a descheduled holder: the run is over
  private boolean finished;
  private Throwable failure;
  private final java.util.function.BiConsumer<SimActor, Throwable> onFailure;

  SimActor(
      Sim sim,
      SimProcess process,
      String name,
      Semaphore back,
      Body body,
      java.util.function.BiConsumer<SimActor, Throwable> onFailure) {
    this.sim = sim;
    this.process = process;
    this.name = name;
    this.back = back;
    this.onFailure = onFailure;
    this.thread =
        new Thread(
            () -> {
              go.acquireUninterruptibly();
              Blocking.install(this);
              CURRENT.set(this);
              try {
                if (!abandoned) {
                  body.run(this);
                }
              } catch (Abandoned a) {
                // the run is over
              } catch (Throwable t) {
                failure = t;
              } finally {
                Blocking.uninstall();
                finished = true;
                running = false;
                if (!unwound) {
                  back.release();
                } // else: nobody waits for this thread, the run starts again
              }
            },
            "sim-" + name);
    thread.setDaemon(true);
    sim.actorThreads.add(thread);
    thread.start();
  }

  /** Starts the body at the world's current time (plus a thread's start-up delay). */
  void start() {
    waiting = true;
    long token = ++waitToken;
    sim.after(process.threadDelay(), process, "start " + name, () -> wake(token));
  }

  /** Where its thread stands now (for a run whose threads do not finish). */
  String where() {
    StringBuilder b = new StringBuilder(name);
    for (StackTraceElement e : thread.getStackTrace()) {
      if (e.getClassName().startsWith("io.zklock")
          && !e.getClassName().startsWith("io.zklock.sim")) {
        b.append("\n      at ").append(e);
      } else if (e.getClassName().startsWith("io.zklock.sim.Workload")
          || e.getClassName().startsWith("io.zklock.sim.Coordination")) {
        b.append("\n      at ").append(e);
        break;
      }
    }
    return b.toString();
  }

  boolean finished() {
    return finished;
  }

  boolean waiting() {
    return waiting && !finished;
  }

  /** Runs the actor until it waits again or ends; called by the world's thread. */
  private void wake(long token) {
    if (finished || !waiting || token != waitToken) {
      return; // a wake-up for a wait that ended otherwise
    }
    waiting = false;
    running = true;
    go.release();
    back.acquireUninterruptibly();
    if (finished && failure != null) {
      Throwable f = failure;
      failure = null;
      onFailure.accept(this, f);
    }
  }

  /** Interrupts the thread; a wait that is interruptible ends with InterruptedException. */
  void interrupt() {
    if (finished) {
      return;
    }
    thread.interrupt();
    if (waiting && interruptible) {
      long token = waitToken;
      sim.after(process.threadDelay(), process, "interrupted " + name, () -> wake(token));
    }
  }

  /** Ends the thread: any wait throws {@link Abandoned}. */
  void abandon() {
    abandoned = true;
    if (!finished && !unwound) {
      waiting = false;
      go.release();
      back.acquireUninterruptibly();
    }
  }

  // ------------------------------------------------------------------ on the actor's own thread

  /** Gives the baton back and parks until woken; then checks why. */
  private void park() {
    if (unwound) {
      throw new Abandoned(); // unwinding: no wait, nobody would end it
    }
    running = false;
    waiting = true;
    back.release();
    go.acquireUninterruptibly();
    waiting = false;
    running = true;
    if (abandoned || unwound) {
      throw new Abandoned();
    }
  }

  @Override
  public void await(CompletableFuture<?> f, boolean interruptible, long timeoutNanos)
      throws InterruptedException {
    long deadline = timeoutNanos < 0 ? Long.MAX_VALUE : sim.now() + process.simDelay(timeoutNanos);
    while (!f.isDone()) {
      if (interruptible && Thread.interrupted()) {
        throw new InterruptedException("interrupted by the simulation");
      }
      if (sim.now() >= deadline) {
        return; // timed out
      }
      long token = ++waitToken;
      f.whenComplete(
          (v, e) -> sim.after(process.threadDelay(), process, "wake " + name, () -> wake(token)));
      if (deadline != Long.MAX_VALUE) {
        sim.at(deadline, process, "timeout " + name, () -> wake(token));
      }
      this.interruptible = interruptible;
      park();
      this.interruptible = false;
    }
  }

  private static final ThreadLocal<SimActor> CURRENT = new ThreadLocal<>();

  /** The actor whose thread this is, or null (the world's own thread). */
  static SimActor current() {
    return CURRENT.get();
  }

  private static final java.lang.management.ThreadMXBean THREADS =
      java.lang.management.ManagementFactory.getThreadMXBean();

  /**
   * The OS takes the processor away from this thread for a while, as it can at any instruction:
   * here, right after the library handed a request to ZooKeeper's client, so that what that request
   * leads to (its reply, an event on ZooKeeper's thread, a timer) may run before this thread's next
   * statement.
   *
   * <p>Also while it holds a monitor (or a lock), as a real thread can be: the world runs on, and
   * as long as nothing needs what this thread holds, that is an interleaving the JVM can produce.
   * If another thread of the world then needs it (it blocks on it: {@link HolderWatch} sees it),
   * the real JVM would run this thread until it lets go, while the other waits; one thread at a
   * time cannot play that out, so the run starts again from its seed without this preemption
   * ({@link Sim.Contended}). Every interleaving a run shows is one the JVM could produce.
   */
  void preempt(long nanos) {
    if (!isCurrent()) {
      return;
    }
    if (!holdsMonitor()) {
      long token = ++waitToken;
      sim.after(nanos, process, "preempted " + name, () -> wake(token));
      park();
      return;
    }
    if (!process.preemptHolding) {
      return;
    }
    int index = sim.preemptsHolding++;
    if (sim.preemptedHolding != null) {
      return;
    }
    if (sim.noPreemptHolding.contains(index)) {
      process.trace(name + " not descheduled here: another thread needed its monitor meanwhile");
      return;
    }
    if (index >= sim.preemptHoldingBelow) {
      return; // the run started again too often: no holder descheduled from here on
    }
    sim.preemptedHolding = this;
    process.trace(name + " descheduled for " + Trace.fmt(nanos) + " s, holding a monitor");
    long token = ++waitToken;
    sim.after(nanos, process, "preempted " + name + " (holding a monitor)", () -> wake(token));
    HolderWatch.watch(this, index);
    try {
      park();
    } finally {
      HolderWatch.unwatch(this);
      sim.preemptedHolding = null;
    }
  }

  /** The thread of this actor. */
  Thread thread() {
    return thread;
  }

  /** The world's simulation. */
  Sim sim() {
    return sim;
  }

  /**
   * Called by {@link HolderWatch} when another thread blocks on what this descheduled thread holds:
   * the run is over (it starts again without this preemption); this thread unwinds, letting go.
   */
  void unwindForContention(int index) {
    // the world's thread is blocked meanwhile: the trace is this thread's to write
    process.trace(
        name + " holds a monitor another thread now waits for: this interleaving ends here");
    unwound = true;
    sim.contended = index;
    go.release();
  }

  private boolean holdsMonitor() {
    java.lang.management.ThreadInfo[] info =
        THREADS.getThreadInfo(new long[] {thread.getId()}, true, false);
    return info.length > 0
        && info[0] != null
        && (info[0].getLockedMonitors().length > 0 || info[0].getLockedSynchronizers().length > 0);
  }

  /** Sleeps {@code nanos} of the process's clock (not interruptible). */
  void sleep(long nanos) {
    long token = ++waitToken;
    sim.after(process.simDelay(nanos), process, "wake " + name, () -> wake(token));
    park();
  }

  /** Whether the calling thread is this actor's (checks that a step runs where it should). */
  boolean isCurrent() {
    return Thread.currentThread() == thread;
  }
}
