package io.zklock.sim;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The library's executor of one process, as {@code ScheduledThreadPoolExecutor} with {@code
 * threads} threads behaves when each task runs atomically: tasks start in the order they became
 * ready, at most {@code threads} at once, and each started task finishes at a random time, so a
 * task started after another may finish first, but never one that has not started. A delayed task
 * becomes ready at its time on the process's clock. After {@link #shutdown()} a new task runs at
 * once on the caller's thread (the library's pool's rejection policy); delayed tasks still run,
 * periodic ones stop.
 */
final class SimPool extends AbstractExecutorService implements ScheduledExecutorService {
  private final SimProcess process;
  private final Sim sim;
  private final int threads;
  private final ArrayDeque<Task<?>> ready = new ArrayDeque<>();
  private int running;
  private boolean shutdown;
  private final List<Task<?>> delayed = new ArrayList<>();
  private final java.util.function.Consumer<Runnable> around;

  /** {@code around}: runs every task (marks the world's thread as a library thread meanwhile). */
  SimPool(SimProcess process, int threads, java.util.function.Consumer<Runnable> around) {
    this.process = process;
    this.sim = process.sim;
    this.threads = threads;
    this.around = around;
  }

  private final class Task<V> implements ScheduledFuture<V>, Runnable {
    final Callable<V> body;
    final long period; // clock ns, 0: once
    long due; // sim time
    boolean cancelled;
    boolean done;
    V value;
    Throwable failure;
    Sim.Ev timer;

    Task(Callable<V> body, long period) {
      this.body = body;
      this.period = period;
    }

    @Override
    public void run() {
      try {
        value = body.call();
      } catch (Throwable t) {
        failure = t;
        done = true;
        if (t instanceof SimFailure f) {
          throw f;
        }
        // a task's exception is kept in its future, as the JDK's pool does; the library's own
        // tasks should not throw: the checker counts it
        process.trace("task threw " + t);
        process.uncaught(t);
        return;
      }
      if (period > 0 && !cancelled && !shutdown) {
        delay(this, process.simDelay(period));
      } else {
        done = true;
      }
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(Math.max(0, due - sim.now()), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed o) {
      return Long.compare(getDelay(TimeUnit.NANOSECONDS), o.getDelay(TimeUnit.NANOSECONDS));
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      if (done || cancelled) {
        return false;
      }
      cancelled = true;
      if (timer != null) {
        timer.cancel();
      }
      ready.remove(this);
      delayed.remove(this);
      return true;
    }

    @Override
    public boolean isCancelled() {
      return cancelled;
    }

    @Override
    public boolean isDone() {
      return done || cancelled;
    }

    @Override
    public V get() throws ExecutionException {
      if (!done) {
        throw new IllegalStateException("a simulated task was waited for before it ran");
      }
      if (failure != null) {
        throw new ExecutionException(failure);
      }
      return value;
    }

    @Override
    public V get(long timeout, TimeUnit unit) throws ExecutionException {
      return get();
    }
  }

  private void delay(Task<?> t, long simNanos) {
    t.due = sim.now() + simNanos;
    delayed.add(t);
    t.timer =
        sim.after(
            simNanos,
            process,
            "timer",
            () -> {
              delayed.remove(t);
              if (!t.cancelled) {
                ready.add(t);
                dispatch();
              }
            });
  }

  private void dispatch() {
    while (running < threads && !ready.isEmpty()) {
      Task<?> t = ready.poll();
      running++;
      sim.after(
          process.threadDelay(),
          process,
          "pool",
          () -> {
            running--;
            sim.runningPool = this;
            try {
              if (!t.cancelled) {
                around.accept(t);
              }
            } finally {
              sim.runningPool = null;
              dispatch();
            }
          });
    }
  }

  private <V> Task<V> submitTask(Callable<V> c, long delayClockNanos, long period) {
    Task<V> t = new Task<>(c, period);
    if (shutdown) {
      // rejected: the library's pool runs it on the caller's thread
      t.run();
      return t;
    }
    if (delayClockNanos <= 0) {
      t.due = sim.now();
      ready.add(t);
      dispatch();
    } else {
      delay(t, process.simDelay(delayClockNanos));
    }
    return t;
  }

  private static Callable<Void> callable(Runnable r) {
    return () -> {
      r.run();
      return null;
    };
  }

  @Override
  public void execute(Runnable command) {
    submitTask(callable(command), 0, 0);
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    return submitTask(callable(command), unit.toNanos(delay), 0);
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    return submitTask(callable, unit.toNanos(delay), 0);
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(
      Runnable command, long initialDelay, long period, TimeUnit unit) {
    return submitTask(
        callable(command), unit.toNanos(initialDelay), Math.max(1, unit.toNanos(period)));
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(
      Runnable command, long initialDelay, long delay, TimeUnit unit) {
    return submitTask(
        callable(command), unit.toNanos(initialDelay), Math.max(1, unit.toNanos(delay)));
  }

  @Override
  public void shutdown() {
    shutdown = true;
    for (Task<?> t : List.copyOf(delayed)) {
      if (t.period > 0) {
        t.cancel(false);
      }
    }
  }

  @Override
  public List<Runnable> shutdownNow() {
    shutdown = true;
    List<Runnable> left = new ArrayList<>(ready);
    ready.clear();
    for (Task<?> t : List.copyOf(delayed)) {
      t.cancel(false);
    }
    return left;
  }

  @Override
  public boolean isShutdown() {
    return shutdown;
  }

  @Override
  public boolean isTerminated() {
    return shutdown && ready.isEmpty() && running == 0 && delayed.isEmpty();
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return isTerminated();
  }

  /**
   * The thread running the current task loses the processor for {@code nanos} (see {@link
   * SimProcess#maybeDeschedule}): the world runs on meanwhile, event by event, as it does while a
   * task waits ({@link WorldWaiter}), and the task goes on where it stopped once that time has
   * passed (and its process is not paused). Its thread stays busy meanwhile: the pool's other
   * thread alone runs other tasks. A violation found meanwhile fails the run after this task's
   * event; a run that meets contention ({@link Sim.Contended}) ends there.
   */
  void deschedule(long nanos) {
    running++;
    sim.taskDescheduled = true;
    Sim.Ev resume = sim.after(nanos, process, "resumed", () -> {});
    try {
      WorldWaiter.outsideTask(
          sim,
          () -> {
            while (!resume.isDone() && sim.contended < 0) {
              sim.step();
            }
          });
    } catch (SimFailure f) {
      sim.fail(f); // thrown by the step that runs this task, once it returns
    } catch (Sim.Contended c) {
      // the run is over; the step that runs this task throws it again
    } finally {
      sim.taskDescheduled = false;
      running--;
    }
  }

  /** Whether this is the pool of {@code p}. */
  boolean of(SimProcess p) {
    return process == p;
  }

  /** Tasks ready or delayed (the checker's quiescence test). */
  int backlog() {
    return ready.size() + running + delayed.size();
  }
}
