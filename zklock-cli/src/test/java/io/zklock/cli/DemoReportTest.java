package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.cli.DemoCoordinator.Event;
import io.zklock.cli.DemoCoordinator.Write;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The demo's verdict must be able to say "inconsistent": these feed it made-up runs. */
class DemoReportTest {

  private static Event ev(long t, String worker, String type, long token) {
    return new Event(t, worker, type, "L", token, "");
  }

  private static DemoReport report(List<Event> events, List<Write> writes) {
    return new DemoReport(
        events,
        writes,
        List.of(),
        Map.of(),
        0,
        10_000,
        42L,
        "test",
        Long.MAX_VALUE,
        Long.MIN_VALUE);
  }

  @Test
  void cleanHandoff_isConsistent_andMeasuresTheHandoff() {
    DemoReport r =
        report(
            List.of(
                ev(0, "a", "WAIT", 0),
                ev(10, "a", "GRANT", 5),
                ev(15, "b", "WAIT", 0),
                ev(100, "a", "RELEASE", 5),
                ev(1_100, "b", "GRANT", 7),
                ev(1_200, "b", "RELEASE", 7)),
            List.of(new Write(50, "a", "L", 5, true), new Write(1_150, "b", "L", 7, true)));

    assertThat(r.consistent()).as(r.violations.toString()).isTrue();
    assertThat(r.acquisitions).isEqualTo(2);
    assertThat(r.handoffsMicros).containsExactly(1_000L);
    assertThat(r.text(null)).contains("p50 1.00 ms", "CONSISTENT", "21.00 per acquisition");
  }

  @Test
  void acceptedWritesFromOverlappingHolders_areInconsistent() {
    // a was paused: it still wrote (accepted, token 5) after b had been granted token 7
    DemoReport r =
        report(
            List.of(
                ev(10, "a", "GRANT", 5),
                ev(500, "b", "GRANT", 7),
                ev(900, "a", "LOST", 5),
                ev(1_000, "b", "RELEASE", 7)),
            List.of(new Write(600, "a", "L", 5, true), new Write(700, "b", "L", 7, true)));

    assertThat(r.consistent()).isFalse();
    assertThat(r.violations).singleElement().asString().contains("overlapping holders");
    assertThat(r.text(null)).contains("INCONSISTENT");
  }

  @Test
  void tokensNotIncreasing_areInconsistent() {
    DemoReport r =
        report(
            List.of(
                ev(10, "a", "GRANT", 9),
                ev(20, "a", "RELEASE", 9),
                ev(30, "b", "GRANT", 7),
                ev(40, "b", "RELEASE", 7)),
            List.of(new Write(15, "a", "L", 9, true), new Write(35, "b", "L", 7, true)));

    assertThat(r.consistent()).isFalse();
    assertThat(r.violations).anyMatch(v -> v.contains("not increasing"));
  }

  @Test
  void rejectedStaleWrite_isCounted_andKeepsTheLedgerConsistent() {
    DemoReport r =
        report(
            List.of(
                ev(10, "a", "GRANT", 5),
                ev(500, "b", "GRANT", 7),
                ev(700, "b", "RELEASE", 7),
                ev(900, "a", "LOST", 5)),
            List.of(new Write(600, "b", "L", 7, true), new Write(800, "a", "L", 5, false)));

    assertThat(r.consistent()).isTrue();
    assertThat(r.rejected).isEqualTo(1);
    assertThat(r.losses).isEqualTo(1);
    assertThat(r.html()).contains("<svg", "stale write by a with token 5");
  }
}
