package io.zklock.internal.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The release requests a holder heard ({@code ZkLocks#requestRelease}: a change of its node's data,
 * seen by its own-node watch) and the actions its owner registered with {@code
 * LockHandle#onReleaseRequested}. The first request runs every action once, on the library's
 * executor; an action registered later runs at once. Thread-safe.
 */
final class ReleaseRequests {
  private static final Logger log = LoggerFactory.getLogger(ReleaseRequests.class);

  // guarded by this
  private final List<Runnable> actions = new ArrayList<>();
  private boolean requested;

  /** Registers {@code action}; runs it on {@code executor} at once if a request was heard. */
  void add(Runnable action, Executor executor) {
    Objects.requireNonNull(action, "action");
    synchronized (this) {
      if (!requested) {
        actions.add(action);
        return;
      }
    }
    executor.execute(() -> run(action));
  }

  /** A request was heard: runs the actions, the first time only. */
  void requested(Executor executor) {
    List<Runnable> toRun;
    synchronized (this) {
      if (requested) {
        return;
      }
      requested = true;
      toRun = List.copyOf(actions);
      actions.clear();
    }
    for (Runnable r : toRun) {
      executor.execute(() -> run(r));
    }
  }

  synchronized boolean isRequested() {
    return requested;
  }

  private static void run(Runnable action) {
    try {
      action.run();
    } catch (RuntimeException e) {
      log.warn("release-request action {} threw; ignored", action, e);
    }
  }
}
