package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

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

  // ------------------------------------------------------------------ the first screen (issue 24)

  /**
   * A run shaped like the recorded one of docs/cli.md: 35.8 s, five workers taking turns on three
   * locks with 20-60 ms holds, and its nine faults at their times: worker-2 SIGKILLed at 6.14 s
   * holding ledger-0 (dead until worker-6's grant at 9.22 s), worker-1 SIGSTOPped at 13.14 s
   * holding ledger-2 (a new holder at 16.2 s, its stale write rejected at 16.29 s, its loss told at
   * 17.58 s), the ZooKeeper leader killed at 21.97 s (back at 25.10 s).
   */
  static DemoReport recordedLikeRun() {
    List<Event> events = new java.util.ArrayList<>();
    List<Write> writes = new java.util.ArrayList<>();
    java.util.Random random = new java.util.Random(24);
    long end = 35_800_000;
    long killAt = 6_140_000;
    long expiredGrant = 9_220_000;
    long stopAt = 13_140_000;
    long newHolder = 16_200_000;
    long token = 4_294_967_300L;
    String[] locks = {"ledger-0", "ledger-1", "ledger-2"};
    for (int l = 0; l < locks.length; l++) {
      String lock = locks[l];
      long t = 50_000 + l * 7_000;
      int turn = l;
      while (t < end - 100_000) {
        String worker = "worker-" + (turn++ % 5 + 1);
        if (lock.equals("ledger-0") && t < killAt && t + 80_000 > killAt) {
          // worker-2 is granted ledger-0 and SIGKILLed at once: dead until its session expires
          events.add(new Event(killAt - 1_000, "worker-2", "GRANT", lock, ++token, ""));
          t = expiredGrant;
          worker = "worker-6";
        } else if (lock.equals("ledger-2") && t < stopAt && t + 80_000 > stopAt) {
          // worker-1 is granted ledger-2 and SIGSTOPped: it believes it holds until 17.58 s
          long paused = ++token;
          events.add(new Event(stopAt - 1_000, "worker-1", "GRANT", lock, paused, ""));
          events.add(new Event(17_580_000, "worker-1", "LOST", lock, paused, "SESSION_EXPIRED"));
          writes.add(new Write(16_290_000, "worker-1", lock, paused, false));
          t = newHolder;
          worker = "worker-3";
        }
        long hold = 20_000 + random.nextInt(40_000);
        long tok = ++token;
        events.add(new Event(t, worker, "GRANT", lock, tok, ""));
        writes.add(new Write(t + hold / 2, worker, lock, tok, true));
        events.add(new Event(t + hold, worker, "RELEASE", lock, tok, ""));
        t += hold + 3_000 + random.nextInt(4_000);
      }
    }
    List<DemoReport.Fault> faults =
        List.of(
            new DemoReport.Fault(killAt, "SIGKILL worker-2 holding ledger-0 (token 4294967737)"),
            new DemoReport.Fault(
                expiredGrant, "ledger-0 granted to worker-6 3.1s after the kill (session expiry)"),
            new DemoReport.Fault(
                stopAt,
                "SIGSTOP worker-1 holding ledger-2 for longer than its 3.0s session timeout"),
            new DemoReport.Fault(
                16_250_000, "ledger accepted token 4294968223 on ledger-2 from a new holder"),
            new DemoReport.Fault(
                16_290_000,
                "worker-1's late write with token 4294968192 was REJECTED by the ledger"),
            new DemoReport.Fault(17_580_000, "worker-1's handle reported the loss of ledger-2"),
            new DemoReport.Fault(21_970_000, "leader (server 2) SIGKILLed"),
            new DemoReport.Fault(
                23_030_000, "new leader: server 1 after 1.1s; restarting server 2"),
            new DemoReport.Fault(25_100_000, "server 2 rejoined the ensemble"));
    return new DemoReport(
        events,
        writes,
        faults,
        Map.of("worker-2", killAt),
        0,
        end,
        800L,
        "5 workers (6 started in all), 3 locks, session timeout 3.0s, 3-server ensemble",
        21_970_000,
        25_100_000);
  }

  private static DemoTimeline timeline(DemoReport r) {
    java.util.Map<String, String> colors = new java.util.HashMap<>();
    java.util.Set<String> locks = new java.util.TreeSet<>();
    for (DemoReport.Interval i : r.intervals) {
      colors.put(i.worker(), "#888");
      locks.add(i.lock());
    }
    return new DemoTimeline(r, List.copyOf(locks), colors);
  }

  @Test
  void firstScreen_everyFaultMarker_isInsideA1400pxScreen_andNoTwoOverlap() {
    DemoReport r = recordedLikeRun();
    DemoTimeline t = timeline(r);

    assertThat(DemoTimeline.OVERVIEW_WIDTH + 2 * DemoTimeline.PAGE_MARGIN)
        .as("the overview and the page's margins fit the screen")
        .isLessThanOrEqualTo(DemoTimeline.SCREEN_WIDTH);
    assertThat(t.markers()).as("one marker per fault").hasSize(9);
    for (DemoTimeline.Marker m : t.markers()) {
      assertThat(m.left())
          .as("marker %d (%s)", m.number(), m.label())
          .isGreaterThanOrEqualTo(DemoTimeline.LABEL_WIDTH - DemoTimeline.MARKER_RADIUS);
      assertThat(m.right())
          .as("marker %d", m.number())
          .isLessThanOrEqualTo(DemoTimeline.OVERVIEW_WIDTH);
    }
    for (DemoTimeline.Marker a : t.markers()) {
      for (DemoTimeline.Marker b : t.markers()) {
        if (a != b) {
          assertThat(a.overlaps(b))
              .as("markers %d and %d overlap", a.number(), b.number())
              .isFalse();
        }
      }
    }
    assertThat(t.markers().stream().mapToInt(DemoTimeline.Marker::lane).max().orElseThrow())
        .as("faults 4 and 5, 40 ms apart, take two lanes")
        .isPositive();
  }

  @Test
  void firstScreen_markersInLanes_evenForFaultsAtTheSameMicrosecond() {
    List<DemoReport.Fault> burst = new java.util.ArrayList<>();
    for (int i = 0; i < 6; i++) {
      burst.add(new DemoReport.Fault(5_000_000 + i * 10, "fault " + i));
    }
    List<DemoTimeline.Marker> laid = DemoTimeline.layOut(burst, t -> 100 + t / 1e6);

    for (int i = 0; i < laid.size(); i++) {
      for (int j = i + 1; j < laid.size(); j++) {
        assertThat(laid.get(i).lane()).as("%d and %d", i, j).isNotEqualTo(laid.get(j).lane());
      }
    }
  }

  @Test
  void firstScreen_killedHolder_hasItsDeadTime_drawnWideAndLabelled() {
    DemoReport r = recordedLikeRun();
    DemoTimeline t = timeline(r);

    assertThat(r.deadTimes)
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.worker()).isEqualTo("worker-2");
              assertThat(d.lock()).isEqualTo("ledger-0");
              assertThat(d.from()).isEqualTo(6_140_000);
              assertThat(d.to()).as("until the next grant").isEqualTo(9_220_000);
              assertThat(d.next()).isEqualTo("worker-6");
            });
    DemoTimeline.Span dead = t.deadSpans().get(0);
    assertThat(dead.x2() - dead.x1())
        .as("3.1 s of dead time is a span on the first screen, not a sub-pixel bar")
        .isGreaterThan(100);
    String html = r.html();
    assertThat(html).contains("class='dead'", "dead holder w2 · 3.1 s", "url(#dead)");
  }

  @Test
  void firstScreen_quietTime_isCompressed_theFaultsGetTheWidth() {
    DemoTimeline t = timeline(recordedLikeRun());

    List<DemoTimeline.Segment> quiet =
        t.segments().stream().filter(DemoTimeline.Segment::compressed).toList();
    List<DemoTimeline.Segment> busy = t.segments().stream().filter(s -> !s.compressed()).toList();
    assertThat(quiet).as("the stretches between the faults").isNotEmpty();
    assertThat(busy).isNotEmpty();
    double quietRate = quiet.get(0).pxPerSecond();
    for (DemoTimeline.Segment s : busy) {
      assertThat(s.pxPerSecond() / quietRate).isCloseTo(DemoTimeline.COMPRESSION, within(0.01));
    }
    DemoTimeline.Segment last = t.segments().get(t.segments().size() - 1);
    assertThat(DemoTimeline.LABEL_WIDTH + last.x2())
        .as("the whole run fits")
        .isCloseTo(DemoTimeline.OVERVIEW_WIDTH - DemoTimeline.RIGHT_PAD, within(0.5));
    for (DemoTimeline.Segment s : t.segments()) {
      assertThat(s.x2()).isGreaterThan(s.x1());
    }
  }

  @Test
  void firstScreen_eachFault_hasAZoom_reachedByHoverOrClick() {
    String html = recordedLikeRun().html();

    for (int n = 1; n <= 9; n++) {
      assertThat(html)
          .contains("<div class='zoom' data-fault='" + n + "'")
          .contains("<g class='marker' data-fault='" + n + "'")
          .contains("<li data-fault='" + n + "'>");
    }
    assertThat(html).contains("addEventListener('mouseenter'", "addEventListener('click'");
    assertThat(html).contains(">w").as("the zoom labels its holdings with their workers");
  }
}
