package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.internal.ZkLocksFactory;
import io.zklock.internal.zk.LibraryThreads;
import io.zklock.internal.zk.Platform;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Delayed;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The time of one instance, held by a test: a clock that moves only in {@link #pass}, and an
 * executor that holds back its timers of exactly the timeout (a request's deadline, which the still
 * clock makes exactly the timeout away) until {@link #pass} moves the clock on by the timeout and
 * runs them. Every other task and timer runs as on the library's own executor.
 */
final class HeldTime {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final long timeoutNanos;
  private final List<Held> held = new CopyOnWriteArrayList<>();
  private volatile ScheduledExecutorService executor;

  HeldTime(Duration timeout) {
    this.timeoutNanos = timeout.toNanos();
  }

  /** An instance on the test's server and namespace whose time this holds. */
  ZkLocks build(ZkTestSupport test) {
    return build(test, null);
  }

  /** The same, telling {@code listener} (unless null) its events. */
  ZkLocks build(ZkTestSupport test, LockEventListener listener) {
    ZkLocksFactory f = new ZkLocksFactory(ZkTestSupport.server.connectString());
    f.namespace(test.namespace);
    f.sessionTimeout(Duration.ofSeconds(10));
    f.connectTimeout(Duration.ofSeconds(10));
    if (listener != null) {
      f.eventListener(listener);
    }
    Platform system = Platform.SYSTEM;
    return f.build(
        new Platform(
            now::get,
            system.wallClock(),
            system.connector(),
            () -> executor = new Holding(LibraryThreads.newExecutor()),
            system.background(),
            system.ids()));
  }

  /** Moves the clock on by the timeout and runs the timers held (those not cancelled). */
  void pass() {
    assertThat(held).as("a timer of the timeout was scheduled").isNotEmpty();
    now.addAndGet(timeoutNanos);
    for (Held h : held) {
      executor.execute(h);
    }
  }

  private static final class Held extends FutureTask<Object> implements ScheduledFuture<Object> {
    Held(Runnable task) {
      super(task, null);
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return 0;
    }

    @Override
    public int compareTo(Delayed o) {
      return Long.compare(0, o.getDelay(TimeUnit.NANOSECONDS));
    }
  }

  private final class Holding extends AbstractExecutorService implements ScheduledExecutorService {
    private final ScheduledExecutorService pool;

    Holding(ScheduledExecutorService pool) {
      this.pool = pool;
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
      if (unit.toNanos(delay) == timeoutNanos) {
        Held h = new Held(command);
        held.add(h);
        return h;
      }
      return pool.schedule(command, delay, unit);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
      return pool.schedule(callable, delay, unit);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(
        Runnable command, long initialDelay, long period, TimeUnit unit) {
      return pool.scheduleAtFixedRate(command, initialDelay, period, unit);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(
        Runnable command, long initialDelay, long delay, TimeUnit unit) {
      return pool.scheduleWithFixedDelay(command, initialDelay, delay, unit);
    }

    @Override
    public void execute(Runnable command) {
      pool.execute(command);
    }

    @Override
    public void shutdown() {
      pool.shutdown();
    }

    @Override
    public List<Runnable> shutdownNow() {
      return pool.shutdownNow();
    }

    @Override
    public boolean isShutdown() {
      return pool.isShutdown();
    }

    @Override
    public boolean isTerminated() {
      return pool.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
      return pool.awaitTermination(timeout, unit);
    }
  }
}
