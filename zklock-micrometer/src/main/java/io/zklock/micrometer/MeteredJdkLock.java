package io.zklock.micrometer;

import io.micrometer.core.instrument.Tags;
import io.zklock.LockLostException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * zklock's {@link Lock} view (thread-reentrant), timed: a thread's first acquisition is a request
 * (pending, then one outcome), its last {@code unlock()} ends the hold. The view hides its handle,
 * so a loss is counted when the owning thread's {@code unlock()} reports it ({@link
 * LockLostException}), not when it happens.
 */
final class MeteredJdkLock implements Lock {
  private final Lock delegate;
  private final Meters meters;
  private final Tags tags;
  private final Map<Thread, long[]> holds = new ConcurrentHashMap<>(); // {depth, grantedAt}

  MeteredJdkLock(Lock delegate, Meters meters, Tags tags) {
    this.delegate = delegate;
    this.meters = meters;
    this.tags = tags;
  }

  @Override
  public void lock() {
    if (reenter()) {
      delegate.lock();
      return;
    }
    long start = begin();
    try {
      delegate.lock();
    } catch (RuntimeException | Error e) {
      end(start, Meters.Outcome.FAILED);
      throw e;
    }
    granted(start);
  }

  @Override
  public void lockInterruptibly() throws InterruptedException {
    if (reenter()) {
      delegate.lockInterruptibly();
      return;
    }
    long start = begin();
    try {
      delegate.lockInterruptibly();
    } catch (InterruptedException e) {
      end(start, Meters.Outcome.CANCELLED);
      throw e;
    } catch (RuntimeException | Error e) {
      end(start, Meters.Outcome.FAILED);
      throw e;
    }
    granted(start);
  }

  @Override
  public boolean tryLock() {
    if (reenter()) {
      return delegate.tryLock();
    }
    long start = begin();
    boolean locked;
    try {
      locked = delegate.tryLock();
    } catch (RuntimeException | Error e) {
      end(start, Meters.Outcome.FAILED);
      throw e;
    }
    return outcome(start, locked);
  }

  @Override
  public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
    if (reenter()) {
      return delegate.tryLock(time, unit);
    }
    long start = begin();
    boolean locked;
    try {
      locked = delegate.tryLock(time, unit);
    } catch (InterruptedException e) {
      end(start, Meters.Outcome.CANCELLED);
      throw e;
    } catch (RuntimeException | Error e) {
      end(start, Meters.Outcome.FAILED);
      throw e;
    }
    return outcome(start, locked);
  }

  @Override
  public void unlock() {
    long[] hold = holds.get(Thread.currentThread());
    if (hold == null || --hold[0] > 0) {
      delegate.unlock(); // not ours to count (it throws), or a nested hold
      return;
    }
    holds.remove(Thread.currentThread());
    meters.held.decrementAndGet();
    long nanos = meters.clock.monotonicTime() - hold[1];
    try {
      delegate.unlock();
    } catch (LockLostException e) {
      meters.holdEnded(tags, e.reason(), nanos);
      throw e;
    }
    meters.holdEnded(tags, null, nanos);
  }

  @Override
  public Condition newCondition() {
    return delegate.newCondition();
  }

  // a thread that already holds the view: the delegate only counts, no request is made
  private boolean reenter() {
    long[] hold = holds.get(Thread.currentThread());
    if (hold == null) {
      return false;
    }
    hold[0]++;
    return true;
  }

  private long begin() {
    meters.pending.incrementAndGet();
    return meters.clock.monotonicTime();
  }

  private void end(long start, Meters.Outcome outcome) {
    meters.pending.decrementAndGet();
    meters.requestEnded(tags, outcome, meters.clock.monotonicTime() - start);
  }

  private void granted(long start) {
    end(start, Meters.Outcome.GRANTED);
    meters.held.incrementAndGet();
    holds.put(Thread.currentThread(), new long[] {1, meters.clock.monotonicTime()});
  }

  private boolean outcome(long start, boolean locked) {
    if (locked) {
      granted(start);
    } else {
      end(start, Meters.Outcome.TIMEOUT);
    }
    return locked;
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
