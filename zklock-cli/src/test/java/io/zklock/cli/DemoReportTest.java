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

  @Test
  void lateWrite_theReportLineAndTheTimelineGiveTheSameTime() {
    // the paused holder's write is rejected at 15.80 s; its handle reports the loss at 17.06 s
    List<Event> events =
        List.of(
            new Event(1_000_000, "worker-1", "GRANT", "L", 5, ""),
            new Event(5_000_000, "worker-2", "GRANT", "L", 7, ""),
            new Event(6_000_000, "worker-2", "RELEASE", "L", 7, ""),
            new Event(17_060_000, "worker-1", "LOST", "L", 5, ""));
    List<Write> writes =
        List.of(
            new Write(5_500_000, "worker-2", "L", 7, true),
            new Write(15_800_000, "worker-1", "L", 5, false));
    List<DemoReport.Fault> faults = new java.util.ArrayList<>();
    faults.add(new DemoReport.Fault(18_000_000, "recorded last, happened last"));
    faults.addAll(DemoCommand.lateWriteFaults(writes, events, "worker-1", "L", 5));

    DemoReport r =
        new DemoReport(
            events,
            writes,
            faults,
            Map.of(),
            0,
            20_000_000,
            42L,
            "test",
            Long.MAX_VALUE,
            Long.MIN_VALUE);

    String text = r.text(null);
    String html = r.html();
    assertThat(text)
        .contains(" 15.80s  worker-1's late write with token 5 was REJECTED by the ledger")
        .contains(" 17.06s  worker-1's handle reported the loss of L (token 5)");
    assertThat(html)
        .contains("stale write by worker-1 with token 5 rejected at  15.80s")
        .contains(" 15.80s worker-1&#39;s late write with token 5 was REJECTED by the ledger");
    assertThat(text.indexOf("15.80s"))
        .as("faults in time order")
        .isLessThan(text.indexOf("17.06s"));
    assertThat(text.indexOf("17.06s")).isLessThan(text.indexOf("18.00s"));
  }

  @Test
  void timeline_normalHoldsCarryTheirWorker_readableWithoutHovering() {
    List<Event> events = new java.util.ArrayList<>();
    List<Write> writes = new java.util.ArrayList<>();
    long t = 0;
    for (int i = 0; i < 300; i++) { // 30 s of 40 ms holds, three workers taking turns
      String w = "worker-" + (i % 3 + 1);
      events.add(new Event(t, w, "GRANT", "L", 10 + i, ""));
      writes.add(new Write(t + 10_000, w, "L", 10 + i, true));
      events.add(new Event(t + 40_000, w, "RELEASE", "L", 10 + i, ""));
      t += 100_000;
    }
    DemoReport r =
        new DemoReport(
            events, writes, List.of(), Map.of(), 0, t, 42L, "test", Long.MAX_VALUE, Long.MIN_VALUE);

    String html = r.html();
    assertThat(r.chartWidth())
        .as("a 40 ms hold is wide enough for its label")
        .isGreaterThanOrEqualTo((int) (DemoReport.LABEL_MIN_PX * t / 40_000));
    assertThat(html).contains(">w1</text>", ">w2</text>", ">w3</text>", "overflow-x:auto");
    assertThat(html.split(">w[123]</text>", -1)).as("every holding labelled").hasSize(301);
  }
}
