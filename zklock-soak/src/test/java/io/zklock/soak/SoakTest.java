package io.zklock.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The fault-injection soak (issue 7). Short run: two minutes of faults inside {@code ./mvnw
 * verify}. Long run: {@code -Dsoak.minutes=30}. The seed is printed; {@code -Dsoak.seed=<n>}
 * replays a schedule.
 */
class SoakTest {

  /** Past its minutes of faults, a run starts, quiesces and checks within this. */
  private static final Duration OVERHEAD = Duration.ofMinutes(10);

  @Test
  // The run's own bound is soak.minutes (2 by default) plus OVERHEAD, enforced below; this ceiling
  // only keeps the build's default per-test time-out from cutting a long run (-Dsoak.minutes=N).
  @Timeout(value = 12, unit = TimeUnit.HOURS)
  void soak_faultSchedule_noViolationsAndEnoughWorkAndFaults() throws Exception {
    int minutes = Integer.getInteger("soak.minutes", 0);
    Duration duration = minutes > 0 ? Duration.ofMinutes(minutes) : Duration.ofMinutes(2);
    long seed = Long.getLong("soak.seed", System.currentTimeMillis() % 1_000_000);
    Path workDir = Path.of("target", "soak", "seed-" + seed).toAbsolutePath();
    SoakRun.deleteRecursively(workDir);
    System.out.println(
        "zklock soak: seed "
            + seed
            + ", "
            + duration
            + ", batching "
            + (Boolean.getBoolean("io.zklock.batching") ? "on" : "off")
            + ", logs in "
            + workDir);

    SoakConfig config = SoakConfig.defaults(seed, duration, workDir);
    String only = System.getProperty("soak.faults", "");
    if (!only.isBlank()) {
      config =
          config.withFaults(
              java.util.Arrays.stream(only.split(","))
                  .map(String::trim)
                  .map(Fault::valueOf)
                  .toList());
    }
    SoakConfig run = config;
    Checker.Report report =
        Assertions.assertTimeoutPreemptively(
            duration.plus(OVERHEAD),
            () -> new SoakRun(run).run(),
            () -> "soak run of " + duration + " (seed " + seed + ", logs in " + workDir + ")");

    System.out.println(report.summary());
    assertThat(report.violations())
        .as("violations (seed %d, logs in %s):%n%s", seed, workDir, report.summary())
        .isEmpty();
    long seconds = duration.toSeconds();
    assertThat(report.counter("grants"))
        .as("granted acquisitions (at least one a second)")
        .isGreaterThanOrEqualTo(seconds);
    for (Side side : Side.values()) {
      if (report.counter("unsupported." + side) > 0) {
        continue;
      }
      assertThat(report.counter("grants." + side))
          .as("grants of %s (at least one per 10 s)", side)
          .isGreaterThanOrEqualTo(seconds / 10);
    }
    assertThat(report.counter("zstore.committed"))
        .as("guarded writes committed to the ZooKeeper store nodes (GUARDED rule)")
        .isGreaterThanOrEqualTo(seconds / 10);
    assertThat(report.counter("latch.passes")).as("latches passed (LATCH rule)").isPositive();
    assertThat(report.counter("signal.checked"))
        .as("signalAll/waiter pairs checked (SIGNAL rule)")
        .isPositive();
    assertThat(report.counter("faults.total"))
        .as("faults injected (at least one per 12 s)")
        .isGreaterThanOrEqualTo(seconds / 12);
    for (Fault kind : config.faults()) {
      assertThat(report.counter("faults." + kind)).as("faults of kind %s", kind).isPositive();
    }
    if (config.faults().size() < Fault.values().length) {
      return; // a run narrowed to some fault kinds (-Dsoak.faults) measures them, no more
    }
    assertThat(report.counter("losses.SESSION_EXPIRED"))
        .as("locks lost to session expiry and reported to their holders")
        .isPositive();
    assertThat(report.counter("handover.checked")).as("handovers after a holder died").isPositive();
  }
}
