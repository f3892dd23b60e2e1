package io.zklock.bench;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zklock.LockEventListener;
import io.zklock.micrometer.ZkLockMetrics;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import jdk.jfr.Recording;

/**
 * {@code --observe}: what issue 27's observation costs when everything listens. Every zklock
 * session of the run reports to one {@link ZkLockMetrics} bound to a {@link SimpleMeterRegistry},
 * and a JDK Flight Recorder recording has zklock's events on with no threshold, so every wait and
 * every hold is recorded. Run the same scenarios with and without it, alternated, and compare
 * zklock's ratio to a baseline measured in the same run (Curator, whose work neither touches).
 */
final class Observed {
  private static final List<String> EVENTS =
      List.of(
          "io.zklock.LockWait",
          "io.zklock.LockHold",
          "io.zklock.LockLost",
          "io.zklock.SessionState");

  private static volatile ZkLockMetrics metrics;
  private static SimpleMeterRegistry registry;
  private static Recording recording;

  private Observed() {}

  /** Starts the meters and the recording; the zklock clients made after it listen. */
  static synchronized void start() {
    if (metrics != null) {
      return;
    }
    registry = new SimpleMeterRegistry();
    ZkLockMetrics m = ZkLockMetrics.create();
    m.bindTo(registry);
    recording = new Recording();
    recording.setName("zklock-bench-observe");
    recording.setToDisk(false);
    for (String event : EVENTS) {
      recording.enable(event).withThreshold(Duration.ZERO);
    }
    recording.start();
    metrics = m;
  }

  /** The listener the zklock clients add, when {@code --observe} is on. */
  static Optional<LockEventListener> listener() {
    return Optional.ofNullable(metrics);
  }

  /** What the meters counted, for the run's header: proof that they listened. */
  static synchronized String summary() {
    if (registry == null) {
      return "";
    }
    return "observed: "
        + waitsTimed()
        + " lock waits timed by Micrometer, JFR recording '"
        + recording.getName()
        + "' "
        + recording.getState();
  }

  /** How many lock waits the meters have timed so far. */
  static synchronized long waitsTimed() {
    return registry == null
        ? 0
        : registry.find("zklock.lock.wait").timers().stream().mapToLong(t -> t.count()).sum();
  }

  /** Stops the recording; clients made afterwards no longer listen. */
  static synchronized void stop() {
    if (recording != null) {
      recording.close();
      recording = null;
    }
    metrics = null;
    registry = null;
  }
}
