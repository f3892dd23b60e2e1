package io.zklock.internal.engine;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler for scenarios of several threads: whatever is scheduled waits, delay or not, until a
 * thread calls {@link #runQueued()} (the scenario's "scheduler thread"); or forever, if none does
 * (a deadline that never comes). Thread-safe, never blocks; the delays are the code's business,
 * judged by its own clock when a task runs.
 */
public final class ManualTasks extends AbstractExecutorService implements ScheduledExecutorService {
  private final ConcurrentLinkedQueue<Task<?>> queue = new ConcurrentLinkedQueue<>();
  private volatile boolean shutdown;

  private static final class Task<V> extends FutureTask<V> implements ScheduledFuture<V> {
    Task(Callable<V> c) {
      super(c);
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return 0;
    }

    @Override
    public int compareTo(Delayed o) {
      return 0;
    }
  }

  /** Runs the tasks queued, and those they queue, until none is left; returns how many ran. */
  public int runQueued() {
    int n = 0;
    for (Task<?> t = queue.poll(); t != null; t = queue.poll()) {
      t.run();
      n++;
    }
    return n;
  }

  /**
   * Tasks waiting, cancelled ones excepted. A plain loop, not a stream: inside a scenario the model
   * checker instruments every class a call uses, and a stream is some thirty of them.
   */
  public int queued() {
    int n = 0;
    for (Task<?> t : queue) {
      if (!t.isCancelled()) {
        n++;
      }
    }
    return n;
  }

  private <V> Task<V> add(Callable<V> c) {
    Task<V> t = new Task<>(c);
    queue.add(t);
    return t;
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    return add(
        () -> {
          command.run();
          return null;
        });
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    return add(callable);
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(
      Runnable command, long initialDelay, long period, TimeUnit unit) {
    throw new UnsupportedOperationException("no periodic task in a scenario");
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(
      Runnable command, long initialDelay, long delay, TimeUnit unit) {
    throw new UnsupportedOperationException("no periodic task in a scenario");
  }

  @Override
  public void execute(Runnable command) {
    schedule(command, 0, TimeUnit.NANOSECONDS);
  }

  @Override
  public void shutdown() {
    shutdown = true;
  }

  @Override
  public List<Runnable> shutdownNow() {
    shutdown = true;
    return List.of();
  }

  @Override
  public boolean isShutdown() {
    return shutdown;
  }

  @Override
  public boolean isTerminated() {
    return shutdown && queue.isEmpty();
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return isTerminated();
  }
}
