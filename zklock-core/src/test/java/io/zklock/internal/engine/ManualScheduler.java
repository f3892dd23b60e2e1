package io.zklock.internal.engine;

import io.zklock.internal.rules.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A fake clock and the scheduler that runs on it: a scheduled task runs when the test advances the
 * clock to its due time ({@link #advance}), on the test's thread, in due order (first scheduled
 * first among equals). Nothing runs by itself and nothing sleeps.
 */
public final class ManualScheduler extends AbstractExecutorService
    implements ScheduledExecutorService {

  /** The fake clock: nanoseconds that move only when the test says. */
  public static final class FakeClock implements Clock {
    private long now = 1_000_000_000L;

    @Override
    public long nanoTime() {
      return now;
    }
  }

  private final FakeClock clock;
  private final PriorityQueue<Task<?>> tasks = new PriorityQueue<>();
  private long seq;

  public ManualScheduler(FakeClock clock) {
    this.clock = clock;
  }

  FakeClock clock() {
    return clock;
  }

  /** Moves the clock on by {@code d}, running every task due by then (and those they schedule). */
  public void advance(Duration d) {
    advanceNanos(d.toNanos());
  }

  void advanceNanos(long nanos) {
    long target = clock.now + nanos;
    if (target < clock.now) {
      throw new IllegalArgumentException("the clock would overflow: " + nanos);
    }
    while (true) {
      Task<?> t = tasks.peek();
      if (t == null || t.due > target) {
        break;
      }
      tasks.poll();
      if (t.due > clock.now) {
        clock.now = t.due;
      }
      t.run();
    }
    clock.now = target;
  }

  /** Runs the tasks due now. */
  void runDue() {
    advanceNanos(0);
  }

  /** The number of tasks scheduled and not cancelled. */
  int scheduled() {
    return tasks.size();
  }

  private <V> Task<V> add(Callable<V> c, long delayNanos, long period) {
    long d = Math.max(0, delayNanos);
    long due = clock.now + d < clock.now ? Long.MAX_VALUE : clock.now + d; // saturates
    Task<V> t = new Task<>(c, due, period, seq++);
    tasks.add(t);
    return t;
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    return add(
        () -> {
          command.run();
          return null;
        },
        unit.toNanos(delay),
        0);
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    return add(callable, unit.toNanos(delay), 0);
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(
      Runnable command, long initialDelay, long period, TimeUnit unit) {
    return scheduleWithFixedDelay(command, initialDelay, period, unit);
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(
      Runnable command, long initialDelay, long delay, TimeUnit unit) {
    return add(
        () -> {
          command.run();
          return null;
        },
        unit.toNanos(initialDelay),
        Math.max(1, unit.toNanos(delay)));
  }

  /** Runs {@code command} at the next {@link #advance} (or {@link #runDue}). */
  @Override
  public void execute(Runnable command) {
    schedule(command, 0, TimeUnit.NANOSECONDS);
  }

  @Override
  public void shutdown() {}

  @Override
  public List<Runnable> shutdownNow() {
    tasks.clear();
    return new ArrayList<>();
  }

  @Override
  public boolean isShutdown() {
    return false;
  }

  @Override
  public boolean isTerminated() {
    return false;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return false;
  }

  private final class Task<V> implements ScheduledFuture<V> {
    private final Callable<V> body;
    private final long period;
    private final long order;
    private long due;
    private boolean cancelled;
    private boolean done;
    private V value;
    private Throwable failure;

    Task(Callable<V> body, long due, long period, long order) {
      this.body = body;
      this.due = due;
      this.period = period;
      this.order = order;
    }

    void run() {
      try {
        value = body.call();
      } catch (Exception e) {
        failure = e;
        done = true;
        throw new IllegalStateException("a scheduled task threw", e);
      }
      if (period > 0 && !cancelled) {
        due = clock.now + period;
        tasks.add(this);
      } else {
        done = true;
      }
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(due - clock.now, TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed o) {
      Task<?> t = (Task<?>) o;
      int c = Long.compare(due, t.due);
      return c != 0 ? c : Long.compare(order, t.order);
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      if (done || cancelled) {
        return false;
      }
      cancelled = true;
      tasks.remove(this);
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
        throw new IllegalStateException(
            "not run yet; advance the clock (this scheduler never blocks)");
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
}
