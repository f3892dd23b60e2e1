package io.zklock.internal.recipe;

import io.zklock.LockHandle;
import io.zklock.internal.engine.Observation;
import io.zklock.internal.rules.Clock;
import io.zklock.internal.rules.WallClock;
import java.util.Date;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * The {@link Condition} of a thread view ({@link ReentrantView}), on the same waiters as its lock's
 * {@link ConditionImpl}: {@code await} releases every hold of the calling thread (its waiter node
 * made first), waits, and takes the lock and the same number of holds again before it returns or
 * throws, as {@link java.util.concurrent.locks.ReentrantLock}'s condition does.
 */
final class ViewCondition implements Condition {
  private final ReentrantView view;
  private final ConditionImpl cond;

  ViewCondition(ReentrantView view, ConditionImpl cond) {
    this.view = view;
    this.cond = cond;
  }

  private void checkHeld() {
    if (!view.isHeldByCurrentThread()) {
      throw new IllegalMonitorStateException("the current thread does not hold " + view);
    }
  }

  /** Waits; returns whether woken before the time-out (negative {@code nanos}: none). */
  private boolean await(long nanos, boolean interruptible) throws InterruptedException {
    checkHeld();
    if (interruptible && Thread.interrupted()) {
      throw new InterruptedException();
    }
    LockHandle held = view.handle();
    Observation o = cond.observe();
    int holds;
    boolean woken;
    InterruptedException interrupted = null;
    try {
      ConditionImpl.Waiter w = cond.enqueue(held);
      holds = view.holdCount();
      try {
        for (int i = 0; i < holds; i++) {
          view.unlock(); // the last one releases the distributed lock
        }
      } catch (RuntimeException e) {
        cond.signalledBeforeWithdrawal(w);
        throw e;
      }
      try {
        woken = cond.waitForSignal(w, nanos, interruptible);
      } catch (InterruptedException e) {
        woken = cond.signalledBeforeWithdrawal(w);
        if (!woken) {
          interrupted = e;
        }
      }
    } catch (RuntimeException | Error e) {
      Observation.waitThrew(o, e, held.fencingToken());
      throw e;
    }
    if (interrupted != null) {
      Observation.waitThrew(o, interrupted, 0L);
    } else {
      Observation.waited(o, woken);
    }
    for (int i = 0; i < holds; i++) {
      view.lock(); // the first acquires again (a new token); an interrupt is kept for later
    }
    if (interrupted != null) {
      Thread.interrupted();
      throw interrupted;
    }
    return woken;
  }

  @Override
  public void await() throws InterruptedException {
    await(-1L, true);
  }

  @Override
  public void awaitUninterruptibly() {
    boolean interrupted = Thread.interrupted();
    try {
      await(-1L, false);
    } catch (InterruptedException e) {
      interrupted = true;
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public long awaitNanos(long nanosTimeout) throws InterruptedException {
    long start = Clock.SYSTEM.nanoTime();
    boolean woken = await(Math.max(0L, nanosTimeout), true);
    long left = nanosTimeout - (Clock.SYSTEM.nanoTime() - start);
    return woken ? Math.max(1L, left) : Math.min(0L, left);
  }

  @Override
  public boolean await(long time, TimeUnit unit) throws InterruptedException {
    return await(Math.max(0L, unit.toNanos(time)), true);
  }

  @Override
  public boolean awaitUntil(Date deadline) throws InterruptedException {
    long millis = deadline.getTime() - WallClock.SYSTEM.millis();
    return await(TimeUnit.MILLISECONDS.toNanos(Math.max(0L, millis)), true);
  }

  @Override
  public void signal() {
    checkHeld();
    cond.signal(view.handle());
  }

  @Override
  public void signalAll() {
    checkHeld();
    cond.signalAll(view.handle());
  }

  @Override
  public String toString() {
    return "Condition[" + cond.dir() + "]";
  }
}
