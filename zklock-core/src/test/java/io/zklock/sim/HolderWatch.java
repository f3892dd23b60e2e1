package io.zklock.sim;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Watches the world's threads while a user thread is descheduled holding a monitor or a lock
 * ({@link SimActor#preempt}). If the thread running meanwhile (the world's, or another user thread)
 * blocks on what the descheduled one holds, a real JVM would let the holder run until it lets go;
 * the simulation, one thread at a time, cannot, so the watch ends the run (the holder unwinds) and
 * the run starts again from its seed without that preemption. That a thread blocks there is decided
 * by the run alone (the holder cannot let go while descheduled), so the outcome does not depend on
 * when this watch looks: a run replays.
 *
 * <p>One daemon thread for the JVM; it polls only while a holder is descheduled.
 */
final class HolderWatch {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private static final Object LOCK = new Object();
  private static SimActor watched; // guarded by LOCK
  private static int index;
  private static Thread watcher;

  private HolderWatch() {}

  /** Starts watching for contention on what {@code holder} holds (preemption {@code i}). */
  static void watch(SimActor holder, int i) {
    synchronized (LOCK) {
      watched = holder;
      index = i;
      if (watcher == null) {
        watcher = new Thread(HolderWatch::loop, "sim-holder-watch");
        watcher.setDaemon(true);
        watcher.start();
      } else {
        LockSupport.unpark(watcher);
      }
    }
  }

  /** Stops watching {@code holder} (it runs again). */
  static void unwatch(SimActor holder) {
    synchronized (LOCK) {
      if (watched == holder) {
        watched = null;
      }
    }
  }

  private static void loop() {
    while (true) {
      SimActor h;
      int i;
      synchronized (LOCK) {
        h = watched;
        i = index;
      }
      if (h == null) {
        LockSupport.parkNanos(1_000_000L);
        continue;
      }
      if (blockedOn(h)) {
        synchronized (LOCK) {
          if (watched != h) {
            continue; // it ran again meanwhile: nobody was blocked on it for good
          }
          watched = null;
        }
        h.unwindForContention(i);
        continue;
      }
      LockSupport.parkNanos(50_000L);
    }
  }

  /** Whether a thread of {@code h}'s world is blocked on a monitor or lock that {@code h} holds. */
  private static boolean blockedOn(SimActor h) {
    Sim sim = h.sim();
    long holder = h.thread().getId();
    List<Long> ids = new ArrayList<>();
    Thread world = sim.worldThread;
    if (world != null) {
      ids.add(world.getId());
    }
    for (Thread t : sim.actorThreads) {
      if (t != h.thread()) {
        ids.add(t.getId());
      }
    }
    long[] a = new long[ids.size()];
    for (int k = 0; k < a.length; k++) {
      a[k] = ids.get(k);
    }
    for (ThreadInfo info : THREADS.getThreadInfo(a, false, false)) {
      if (info != null && info.getLockOwnerId() == holder) {
        return true;
      }
    }
    return false;
  }
}
