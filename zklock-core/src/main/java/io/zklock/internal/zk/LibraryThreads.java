package io.zklock.internal.zk;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The library's own threads: the executor of one {@code ZkLocks} (user-visible futures complete
 * there, timers run there), and how code tells that it runs on one of them.
 */
public final class LibraryThreads {
  /**
   * Threads of the library's executor; with ZooKeeper's two, a ZkLocks uses four threads in all.
   */
  public static final int THREADS = 2;

  private static final AtomicInteger INSTANCES = new AtomicInteger();

  /** Set on the library's own threads, which must not wait for work queued on them. */
  private static final ThreadLocal<Boolean> LIBRARY_THREAD = ThreadLocal.withInitial(() -> false);

  private LibraryThreads() {}

  /**
   * A new executor for one instance: {@link #THREADS} daemon threads named {@code
   * zklock-<instance>-<n>}; a task refused after shutdown runs on the caller's thread.
   */
  public static ScheduledThreadPoolExecutor newExecutor() {
    int instance = INSTANCES.incrementAndGet();
    AtomicInteger threads = new AtomicInteger();
    ThreadFactory tf =
        r -> {
          Thread t =
              new Thread(
                  () -> {
                    LIBRARY_THREAD.set(true);
                    r.run();
                  },
                  "zklock-" + instance + "-" + threads.incrementAndGet());
          t.setDaemon(true);
          return t;
        };
    ScheduledThreadPoolExecutor pool =
        new ScheduledThreadPoolExecutor(THREADS, tf, (r, ex) -> r.run());
    pool.setRemoveOnCancelPolicy(true);
    return pool;
  }

  /**
   * Runs {@code task} as the library's own threads run theirs: {@link #onLibraryThread()} is true
   * meanwhile (the executor of a simulation, whose tasks all run on one thread).
   */
  public static void runAsLibraryThread(Runnable task) {
    boolean was = LIBRARY_THREAD.get();
    LIBRARY_THREAD.set(true);
    try {
      task.run();
    } finally {
      LIBRARY_THREAD.set(was);
    }
  }

  /** Whether the calling thread is one of the library's executor threads (of any instance). */
  public static boolean onLibraryThread() {
    return LIBRARY_THREAD.get();
  }
}
