package io.zklock.internal.zk;

import io.zklock.internal.rules.Clock;
import io.zklock.internal.rules.RandomIds;
import io.zklock.internal.rules.WallClock;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/**
 * What one {@code ZkLocks} takes from its surroundings: its clock, its clients of the ensemble, its
 * threads, and the randomness of its node names. {@link #SYSTEM} is the JVM's and ZooKeeper's own;
 * a simulation gives its own, so that the real code runs unchanged on simulated time, simulated
 * threads and a simulated ensemble.
 *
 * @param clock the monotonic clock every timeout and deadline is measured on
 * @param wallClock the wall clock, for what is only displayed (a lock-delay's mark)
 * @param connector opens the clients of the ensemble
 * @param executor makes the instance's executor: callers' futures complete there, timers run there
 * @param background runs work that may block (closing a client whose server does not answer) off
 *     the caller's thread
 * @param ids the random ids of node names
 */
public record Platform(
    Clock clock,
    WallClock wallClock,
    ZkConnector connector,
    Supplier<ScheduledExecutorService> executor,
    Background background,
    RandomIds ids) {

  /** Runs {@code work}, which may block, away from the calling thread. */
  @FunctionalInterface
  public interface Background {
    void run(String name, Runnable work);
  }

  /** A daemon thread of its own per piece of work, named {@code name}. */
  public static final Background THREADS =
      (name, work) -> {
        Thread t = new Thread(work, name);
        t.setDaemon(true);
        t.start();
      };

  /** The JVM's clock and threads, ZooKeeper's client, secure random ids. */
  public static final Platform SYSTEM =
      new Platform(
          Clock.SYSTEM,
          WallClock.SYSTEM,
          ZkConnector.LIVE,
          LibraryThreads::newExecutor,
          THREADS,
          RandomIds.SECURE);

  /** This platform with another clock (tests that move the time themselves). */
  public Platform withClock(Clock c) {
    return new Platform(c, wallClock, connector, executor, background, ids);
  }
}
