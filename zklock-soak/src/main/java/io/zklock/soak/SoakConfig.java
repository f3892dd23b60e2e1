package io.zklock.soak;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The parameters of one soak run.
 *
 * @param seed seeds the fault schedule, the choice of targets and the workers' randomness
 * @param duration how long faults are injected (the run takes about a minute more)
 * @param clients client processes
 * @param workers worker threads per client process
 * @param sessionTimeout the session timeout every client asks for
 * @param tickTime the ensemble's tick (the session timeout must lie within 2-20 ticks)
 * @param acquireTimeout each request's {@code tryAcquire} timeout
 * @param handoverBound the slack allowed beyond the session timeout for a waiter to get a lock
 *     whose holder died
 * @param workDir where the logs go
 * @param faults the fault kinds of the schedule (all of them by default; {@code -Dsoak.faults=A,B}
 *     narrows a run to some kinds, to measure them)
 */
public record SoakConfig(
    long seed,
    Duration duration,
    int clients,
    int workers,
    Duration sessionTimeout,
    Duration tickTime,
    Duration acquireTimeout,
    Duration handoverBound,
    Path workDir,
    java.util.List<Fault> faults) {

  /** The defaults of the short and long runs, for {@code minutes} of faults. */
  public static SoakConfig defaults(long seed, Duration duration, Path workDir) {
    return new SoakConfig(
        seed,
        duration,
        3,
        3,
        Duration.ofSeconds(3),
        Duration.ofMillis(250),
        Duration.ofSeconds(10),
        Duration.ofSeconds(5),
        workDir,
        java.util.List.of(Fault.values()));
  }

  /** The same run with only the fault kinds {@code kinds}. */
  public SoakConfig withFaults(java.util.List<Fault> kinds) {
    if (kinds.isEmpty()) {
      throw new IllegalArgumentException("a soak needs at least one fault kind");
    }
    return new SoakConfig(
        seed,
        duration,
        clients,
        workers,
        sessionTimeout,
        tickTime,
        acquireTimeout,
        handoverBound,
        workDir,
        java.util.List.copyOf(kinds));
  }
}
