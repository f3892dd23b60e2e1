package io.zklock.internal.engine;

import io.zklock.internal.rules.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Actions that run a fixed delay after they were added, on one timer for all of them: each runs
 * between {@code delay} and {@code delay + slack} after its {@link #add}, on the scheduler's
 * thread, unless cancelled first.
 *
 * <p>Made for a step that most requests never reach: the holder's own-node watch, set only once a
 * hold has lasted {@code delay}. A timer of its own per grant, scheduled at the grant and cancelled
 * at the release, wakes the scheduler's thread at both, on the grant's critical path; here a steady
 * stream of grants wakes it at most once per {@code slack}, and a cancel only clears a field.
 */
final class Later {
  private static final Logger log = LoggerFactory.getLogger(Later.class);

  private final ScheduledExecutorService scheduler;
  private final Clock clock;
  private final long delayNanos;
  private final long slackNanos;

  // guarded by this: the actions in the order added, which is the order due, and whether a sweep
  // is scheduled
  private final ArrayDeque<Entry> queue = new ArrayDeque<>();
  private boolean armed;

  /** One action added: {@link #cancel()} it, and it never runs. */
  static final class Entry {
    private final long due;
    private volatile Runnable action; // null once run or cancelled: nothing of it is kept

    private Entry(long due, Runnable action) {
      this.due = due;
      this.action = action;
    }

    /** The action will not run (unless it is running now). */
    void cancel() {
      action = null;
    }
  }

  Later(ScheduledExecutorService scheduler, Clock clock, long delayNanos, long slackNanos) {
    if (delayNanos <= 0 || slackNanos <= 0) {
      throw new IllegalArgumentException("delay and slack must be positive");
    }
    this.scheduler = scheduler;
    this.clock = clock;
    this.delayNanos = delayNanos;
    this.slackNanos = slackNanos;
  }

  /** Runs {@code action} between delay and delay + slack from now, unless cancelled before. */
  Entry add(Runnable action) {
    if (scheduler.isShutdown()) {
      return new Entry(0L, null); // the instance is closing: nothing delayed is left to do
    }
    Entry e;
    synchronized (this) { // due times read in the order queued: the queue is in due order
      e = new Entry(clock.nanoTime() + delayNanos, action);
      queue.add(e);
      if (armed) {
        return e;
      }
      armed = true;
    }
    schedule(delayNanos);
    return e;
  }

  private void sweep() {
    List<Runnable> due = new ArrayList<>();
    long next;
    synchronized (this) {
      long now = clock.nanoTime();
      for (Entry e = queue.peek(); e != null && e.due - now <= 0; e = queue.peek()) {
        queue.poll();
        Runnable action = e.action;
        if (action != null) {
          e.action = null;
          due.add(action);
        }
      }
      Entry head = queue.peek();
      armed = head != null;
      // the next sweep no sooner than slack from now: one wake-up takes every action due by then
      next = head == null ? -1 : Math.max(head.due - now, slackNanos);
    }
    if (next >= 0) {
      schedule(next);
    }
    for (Runnable action : due) {
      try {
        action.run();
      } catch (RuntimeException x) {
        log.error("a delayed step failed; the others run", x);
      }
    }
  }

  private void schedule(long inNanos) {
    // the library's executor runs a refused task on the calling thread: after its shutdown a sweep
    // would run at once and schedule itself again, without end
    if (!scheduler.isShutdown()) {
      try {
        scheduler.schedule(this::sweep, inNanos, TimeUnit.NANOSECONDS);
        return;
      } catch (RejectedExecutionException e) {
        // shut down meanwhile
      }
    }
    // the instance is closing: its requests end with it, and nothing delayed is left to do
    synchronized (this) {
      queue.clear();
    }
  }

  /** The actions waiting, cancelled ones included until their time comes; for tests. */
  synchronized int size() {
    return queue.size();
  }
}
