package io.zklock.sim;

import io.zklock.internal.zk.Blocking;
import io.zklock.internal.zk.LibraryThreads;
import java.util.concurrent.CompletableFuture;

/**
 * How a library task waits when it blocks ({@link Blocking#get}): the simulation's tasks run on the
 * world's thread, so the world runs on, event by event, until the future is done or the timeout has
 * passed in simulated time, as the rest of the world would while a real pool thread is blocked.
 * Without it the world's thread would wait in real time for what only it can bring.
 */
final class WorldWaiter implements Blocking.Waiter {
  private final Sim sim;

  private static final ThreadLocal<Integer> DEPTH = ThreadLocal.withInitial(() -> 0);

  WorldWaiter(Sim sim) {
    this.sim = sim;
  }

  /** Runs a library task with this way of waiting (a task that blocks may run others meanwhile). */
  static void around(Sim sim, Runnable task) {
    int depth = DEPTH.get();
    DEPTH.set(depth + 1);
    Blocking.install(new WorldWaiter(sim));
    try {
      task.run();
    } finally {
      DEPTH.set(depth);
      if (depth == 0) {
        Blocking.uninstall();
      } else {
        Blocking.install(new WorldWaiter(sim)); // the task this one ran inside still waits so
      }
    }
  }

  /**
   * Runs {@code events} (the world's other events, while a library task's thread is descheduled:
   * {@link SimPool#deschedule}) as the world's thread runs events outside any library task: no way
   * of waiting installed, not a library thread ({@link LibraryThreads#onLibraryThread()}); the
   * task's own are put back after. The events run there are other threads' in a real JVM, and would
   * otherwise see the descheduled task's thread-locals.
   */
  static void outsideTask(Sim sim, Runnable events) {
    int depth = DEPTH.get();
    boolean library = LIBRARY_THREAD.get();
    DEPTH.set(0);
    LIBRARY_THREAD.set(false);
    Blocking.uninstall();
    try {
      events.run();
    } finally {
      DEPTH.set(depth);
      LIBRARY_THREAD.set(library);
      if (depth > 0) {
        Blocking.install(new WorldWaiter(sim));
      }
    }
  }

  /** {@link LibraryThreads}' flag of its own threads (private there: the simulation sets it). */
  private static final ThreadLocal<Boolean> LIBRARY_THREAD = libraryThreadFlag();

  @SuppressWarnings("unchecked")
  private static ThreadLocal<Boolean> libraryThreadFlag() {
    try {
      java.lang.reflect.Field f = LibraryThreads.class.getDeclaredField("LIBRARY_THREAD");
      f.setAccessible(true);
      return (ThreadLocal<Boolean>) f.get(null);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("LibraryThreads has no LIBRARY_THREAD flag", e);
    }
  }

  @Override
  public void await(CompletableFuture<?> f, boolean interruptible, long timeoutNanos) {
    long until = timeoutNanos < 0 ? Long.MAX_VALUE : sim.now() + timeoutNanos;
    while (!f.isDone() && sim.nextTime() <= until) {
      sim.step();
    }
    if (!f.isDone() && until != Long.MAX_VALUE) {
      sim.runUntil(until);
    }
    if (!f.isDone() && until == Long.MAX_VALUE) {
      throw new SimFailure(
          "PROGRESS", "a library task waits for ever for a future nothing will complete");
    }
  }
}
