package io.zklock.sim;

import io.zklock.LockLostException;
import io.zklock.ZkLockException;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.Predicate;

/**
 * EXCEPTIONS: every exception the workload's calls may meet, as zklock's documentation names it,
 * with its reason and where it is documented. A call that throws anything not matched here (or
 * matched, but without its cause: an interrupt nobody sent, a cancel nobody made) fails the run.
 */
final class Documented {
  private Documented() {}

  /** The calls of the workload, as the table names them. */
  enum Call {
    /** {@code acquire()}, {@code tryAcquire(timeout)}: blocking waits. */
    WAIT,
    /** {@code acquireAsync()} joined by the caller. */
    ASYNC_WAIT,
    /** {@code tryAcquire()}: never waits. */
    TRY,
    /** {@code GuardedTransaction#commit()}. */
    COMMIT,
    /** {@code release()}, {@code close()}, {@code releaseAsync()}: nothing documented. */
    RELEASE,
    /** {@code DistributedCondition#await}, {@code signalAll}. */
    CONDITION,
    /** A recipe on a name that stores another recipe's state (the latch, barrier, semaphore). */
    RECIPE_ON_A_SHARED_NAME,
    /** The coordination recipes' own calls (latch, barrier, double barrier). */
    COORDINATION
  }

  /** One documented exception: for which call, of which type, when, why, and where it says so. */
  record Entry(
      String name,
      Call call,
      Class<? extends Throwable> type,
      Predicate<Throwable> when,
      String reason,
      String where) {}

  static final List<Entry> TABLE =
      List.of(
          new Entry(
              "interrupted",
              Call.WAIT,
              InterruptedException.class,
              e -> true,
              "the calling thread was interrupted while it waited; the request is withdrawn",
              "DistributedLock#acquire, #tryAcquire(Duration); DistributedSemaphore#acquire"),
          new Entry(
              "interrupted",
              Call.ASYNC_WAIT,
              InterruptedException.class,
              e -> true,
              "the caller's own wait for the future was interrupted",
              "Future#get (the caller's join, not zklock's)"),
          new Entry(
              "cancelled",
              Call.ASYNC_WAIT,
              CancellationException.class,
              e -> true,
              "the caller cancelled the future; the request is withdrawn",
              "DistributedLock#acquireAsync"),
          new Entry(
              "notConnected",
              Call.TRY,
              ZkLockException.class,
              Documented::aboutTheConnection,
              "without a connection tryAcquire() cannot tell whether the lock is free, and never"
                  + " waits, not for a connection either",
              "DistributedLock#tryAcquire(), DistributedSemaphore#tryAcquire()"),
          new Entry(
              "lost",
              Call.COMMIT,
              LockLostException.class,
              e -> true,
              "the grant is gone (lost or ran out): nothing was committed",
              "GuardedTransaction#commit"),
          new Entry(
              "inDoubt",
              Call.COMMIT,
              ZkLockException.class,
              Documented::aboutTheConnection,
              "the connection was lost while the commit was in flight: it may or may not have been"
                  + " applied",
              "GuardedTransaction#commit"),
          new Entry(
              "lost",
              Call.CONDITION,
              LockLostException.class,
              e -> true,
              "the lock held around the wait or the signal was lost",
              "DistributedCondition#await, #signalAll"),
          new Entry(
              "callersMistake",
              Call.RECIPE_ON_A_SHARED_NAME,
              ZkLockException.class,
              e -> e.getCause() instanceof IllegalArgumentException,
              "the name stores another recipe's state (or another count): the caller's mistake,"
                  + " refused without writing over it",
              "ZkLocks#semaphore, #countDownLatch, #doubleBarrier; DistributedSemaphore#acquire"));

  /** The entry that documents {@code e} thrown by {@code call}, or null: undocumented. */
  static Entry match(Call call, Throwable e) {
    for (Entry d : TABLE) {
      if (d.call() == call && d.type().isInstance(e) && d.when().test(e)) {
        return d;
      }
    }
    return null;
  }

  private static boolean aboutTheConnection(Throwable e) {
    String m = String.valueOf(e.getMessage());
    return m.contains("not connected") || m.contains("connection");
  }
}
