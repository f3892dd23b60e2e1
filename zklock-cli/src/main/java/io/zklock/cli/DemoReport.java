package io.zklock.cli;

import io.zklock.cli.DemoCoordinator.Event;
import io.zklock.cli.DemoCoordinator.Write;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/** What a demo run showed: figures, the ledger's consistency check, a text and an HTML report. */
final class DemoReport {

  /** A fault the demo injected, at the demo's wall-clock time in microseconds. */
  record Fault(long micros, String label) {}

  /** Who held a lock from when to when, by the workers' own reports. */
  record Interval(String worker, String lock, long token, long start, long end, String endedBy) {}

  /**
   * A killed holder's dead time: from the kill until its session expired and {@code next} was
   * granted the lock ({@code to} is the end of the run, and {@code next} empty, if nobody was).
   */
  record DeadTime(String worker, String lock, long token, long from, long to, String next) {}

  final List<Event> events;
  final List<Write> writes;
  final List<Fault> faults;
  final long startMicros;
  final long endMicros;
  final Map<String, Long> killed;
  final Long watchEvents;
  final String setup;

  final List<Interval> intervals = new ArrayList<>();
  final List<DeadTime> deadTimes = new ArrayList<>();
  final List<Long> handoffsMicros = new ArrayList<>();
  final List<Long> failoverHandoffsMicros = new ArrayList<>();
  private final long failoverFrom;
  private final long failoverTo;
  final List<String> violations = new ArrayList<>();
  long acquisitions;
  long accepted;
  long rejected;
  long losses;

  DemoReport(
      List<Event> events,
      List<Write> writes,
      List<Fault> faults,
      Map<String, Long> killed,
      long startMicros,
      long endMicros,
      Long watchEvents,
      String setup,
      long failoverFrom,
      long failoverTo) {
    this.failoverFrom = failoverFrom;
    this.failoverTo = failoverTo;
    this.events = new ArrayList<>(events);
    this.events.sort(Comparator.comparingLong(Event::micros));
    this.writes = writes;
    // in time order: a line about an observed event carries that event's time, which may be
    // earlier than a fault recorded after it
    List<Fault> sorted = new ArrayList<>(faults);
    sorted.sort(Comparator.comparingLong(Fault::micros));
    this.faults = List.copyOf(sorted);
    this.killed = killed;
    // workers start before the demo's clock does: begin the timeline at the first event
    this.startMicros =
        this.events.isEmpty() ? startMicros : Math.min(startMicros, this.events.get(0).micros());
    this.endMicros = endMicros;
    this.watchEvents = watchEvents;
    this.setup = setup;
    analyse();
  }

  private static String key(String worker, String lock, long token) {
    return worker + " " + lock + " " + token;
  }

  private void analyse() {
    // holder intervals: GRANT until RELEASE or LOST (whichever the worker reported first), kill,
    // end
    Map<String, Event> open = new LinkedHashMap<>();
    for (Event e : events) {
      String k = key(e.worker(), e.lock(), e.token());
      switch (e.type()) {
        case "GRANT":
          acquisitions++;
          open.put(k, e);
          break;
        case "LOST":
          losses++;
          // fall through
        case "RELEASE":
          {
            Event g = open.remove(k);
            if (g != null) {
              intervals.add(
                  new Interval(
                      g.worker(),
                      g.lock(),
                      g.token(),
                      g.micros(),
                      e.micros(),
                      e.type().toLowerCase(Locale.ROOT)));
            }
            break;
          }
        default:
          break;
      }
    }
    for (Event g : open.values()) {
      Long k = killed.get(g.worker());
      intervals.add(
          new Interval(
              g.worker(),
              g.lock(),
              g.token(),
              g.micros(),
              k != null ? k : endMicros,
              k != null ? "killed" : "end"));
    }
    // a killed holder's session holds its lock until it expires: dead time, until the next grant
    for (Interval i : intervals) {
      if (!i.endedBy().equals("killed")) {
        continue;
      }
      Event next =
          events.stream()
              .filter(
                  e ->
                      e.type().equals("GRANT") && e.lock().equals(i.lock()) && e.micros() > i.end())
              .findFirst()
              .orElse(null);
      deadTimes.add(
          new DeadTime(
              i.worker(),
              i.lock(),
              i.token(),
              i.end(),
              next != null ? next.micros() : endMicros,
              next != null ? next.worker() : ""));
    }
    // handoff latency: a release by the current holder to the next grant, if the next holder was
    // already waiting when the release started
    Map<String, Long> currentToken = new HashMap<>();
    Map<String, Event> pendingRelease = new HashMap<>();
    Map<String, Long> waitingSince = new HashMap<>();
    for (Event e : events) {
      switch (e.type()) {
        case "WAIT":
          waitingSince.put(e.worker() + " " + e.lock(), e.micros());
          break;
        case "GIVEUP":
          waitingSince.remove(e.worker() + " " + e.lock());
          break;
        case "GRANT":
          {
            Event r = pendingRelease.remove(e.lock());
            Long w = waitingSince.remove(e.worker() + " " + e.lock());
            if (r != null && w != null && w <= r.micros()) {
              long latency = Math.max(0, e.micros() - r.micros());
              if (e.micros() >= failoverFrom && r.micros() <= failoverTo) {
                failoverHandoffsMicros.add(latency);
              } else {
                handoffsMicros.add(latency);
              }
            }
            currentToken.put(e.lock(), e.token());
            break;
          }
        case "RELEASE":
          if (Long.valueOf(e.token()).equals(currentToken.get(e.lock()))) {
            pendingRelease.put(e.lock(), e);
          }
          break;
        case "LOST":
          pendingRelease.remove(e.lock());
          break;
        default:
          break;
      }
    }
    handoffsMicros.sort(null);
    // the ledger's consistency
    Map<String, Long> lastToken = new HashMap<>();
    Map<String, List<Write>> acceptedByLock = new TreeMap<>();
    for (Write w : writes) {
      if (!w.accepted()) {
        rejected++;
        continue;
      }
      accepted++;
      Long last = lastToken.put(w.lock(), w.token());
      if (last != null && w.token() <= last) {
        violations.add(
            w.lock()
                + ": token "
                + w.token()
                + " accepted after token "
                + last
                + " (not increasing)");
      }
      acceptedByLock.computeIfAbsent(w.lock(), l -> new ArrayList<>()).add(w);
    }
    Map<String, Interval> byKey = new HashMap<>();
    for (Interval i : intervals) {
      byKey.put(key(i.worker(), i.lock(), i.token()), i);
    }
    for (List<Write> ws : acceptedByLock.values()) {
      ws.sort(Comparator.comparingLong(Write::token));
      for (int i = 0; i + 1 < ws.size(); i++) {
        Interval a = byKey.get(key(ws.get(i).worker(), ws.get(i).lock(), ws.get(i).token()));
        Interval b =
            byKey.get(key(ws.get(i + 1).worker(), ws.get(i + 1).lock(), ws.get(i + 1).token()));
        if (a == null || b == null) {
          violations.add(ws.get(i).lock() + ": an accepted write without a reported grant");
        } else if (a.end() > b.start()) {
          violations.add(
              String.format(
                  Locale.ROOT,
                  "%s: accepted writes from overlapping holders: %s (token %d, until %s) and %s"
                      + " (token %d, from %s)",
                  a.lock(),
                  a.worker(),
                  a.token(),
                  at(a.end()),
                  b.worker(),
                  b.token(),
                  at(b.start())));
        }
      }
    }
  }

  boolean consistent() {
    return violations.isEmpty();
  }

  long failoverFrom() {
    return failoverFrom;
  }

  long failoverTo() {
    return failoverTo;
  }

  /** {@code " 12.34s"}: the time of {@code micros} into the run. */
  String at(long micros) {
    return String.format(Locale.ROOT, "%6.2fs", (micros - startMicros) / 1e6);
  }

  static String millis(long micros) {
    return String.format(Locale.ROOT, "%.2f ms", micros / 1000.0);
  }

  private long percentile(double p) {
    if (handoffsMicros.isEmpty()) {
      return 0;
    }
    int rank = (int) Math.ceil(p * handoffsMicros.size());
    return handoffsMicros.get(Math.max(0, Math.min(handoffsMicros.size() - 1, rank - 1)));
  }

  double seconds() {
    return (endMicros - startMicros) / 1e6;
  }

  String text(String htmlPath) {
    StringBuilder sb = new StringBuilder();
    String f = "  %-18s %s%n";
    sb.append(String.format(Locale.ROOT, "%nzklock demo report%n"));
    sb.append(
        String.format(
            Locale.ROOT, f, "run", String.format(Locale.ROOT, "%.1fs, %s", seconds(), setup)));
    sb.append(
        String.format(
            Locale.ROOT,
            f,
            "acquisitions",
            String.format(
                Locale.ROOT,
                "%d (%.1f/s)",
                acquisitions,
                acquisitions / Math.max(seconds(), 1e-3))));
    sb.append(
        String.format(
            Locale.ROOT,
            f,
            "handoff latency",
            handoffsMicros.isEmpty()
                ? "n/a (no handoff to a waiting worker)"
                : "p50 "
                    + millis(percentile(0.50))
                    + ", p99 "
                    + millis(percentile(0.99))
                    + " (release -> next grant, "
                    + handoffsMicros.size()
                    + " handoffs to a waiting worker"
                    + (failoverHandoffsMicros.isEmpty()
                        ? ""
                        : "; not counted: "
                            + failoverHandoffsMicros.size()
                            + " during the leader failover, up to "
                            + millis(failoverHandoffsMicros.stream().max(Long::compare).orElse(0L)))
                    + ")"));
    sb.append(
        String.format(
            Locale.ROOT,
            f,
            "watch events",
            watchEvents == null
                ? "n/a (the servers' mntr was not readable)"
                : String.format(
                    Locale.ROOT,
                    "%.2f per acquisition (%d triggered, from the servers' mntr)",
                    watchEvents / (double) Math.max(1, acquisitions),
                    watchEvents)));
    sb.append(
        String.format(
            Locale.ROOT,
            f,
            "ledger writes",
            accepted + " accepted, " + rejected + " stale write(s) rejected"));
    sb.append(
        String.format(Locale.ROOT, f, "locks lost", losses + " loss(es) reported by lock handles"));
    for (int i = 0; i < faults.size(); i++) {
      Fault fault = faults.get(i);
      sb.append(
          String.format(
              Locale.ROOT, f, i == 0 ? "faults" : "", at(fault.micros()) + "  " + fault.label()));
    }
    if (consistent()) {
      sb.append(
          String.format(
              Locale.ROOT,
              f,
              "ledger check",
              "CONSISTENT: tokens strictly increasing per lock, no two accepted writes from"
                  + " overlapping holders"));
    } else {
      sb.append(String.format(Locale.ROOT, f, "ledger check", "INCONSISTENT:"));
      for (String v : violations) {
        sb.append(String.format(Locale.ROOT, f, "", v));
      }
    }
    if (htmlPath != null) {
      sb.append(String.format(Locale.ROOT, f, "timeline", htmlPath));
    }
    return sb.toString();
  }

  // ------------------------------------------------------------------ HTML

  String html() {
    TreeSet<String> lockNames = new TreeSet<>();
    TreeSet<String> workers = new TreeSet<>(Comparator.comparingInt(DemoReport::workerNumber));
    for (Interval i : intervals) {
      lockNames.add(i.lock());
      workers.add(i.worker());
    }
    Map<String, String> color = new HashMap<>();
    int n = 0;
    for (String w : workers) {
      color.put(w, "hsl(" + (n * 137 % 360) + ",65%,55%)");
      n++;
    }
    List<String> locks = new ArrayList<>(lockNames);
    int left = 90;
    int width = chartWidth();
    int rowH = 34;
    int top = 60;
    int height = top + rowH * locks.size() + 40;
    double span = Math.max(1, endMicros - startMicros);
    StringBuilder svg = new StringBuilder();
    svg.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' font-family='sans-serif'"
                + " font-size='12'>%n",
            left + width + 20,
            height));
    // time axis: a tick at least every 100 px
    double pxPerSecond = width / Math.max(seconds(), 1e-3);
    int step = 1;
    for (int candidate : new int[] {1, 2, 5, 10, 30, 60, 300}) {
      step = candidate;
      if (candidate * pxPerSecond >= 100) {
        break;
      }
    }
    for (int s = 0; s <= seconds(); s += step) {
      double x = left + width * (s * 1e6 / span);
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#ddd'/><text x='%.1f' y='%d'"
                  + " text-anchor='middle' fill='#666'>%ds</text>%n",
              x,
              top - 5,
              x,
              height - 30,
              x,
              height - 15,
              s));
    }
    for (int r = 0; r < locks.size(); r++) {
      int y = top + r * rowH;
      svg.append(
          String.format(
              Locale.ROOT,
              "<text x='5' y='%d'>%s</text>%n",
              y + rowH / 2 + 4,
              escape(locks.get(r))));
    }
    for (Interval i : intervals) {
      int r = locks.indexOf(i.lock());
      int y = top + r * rowH + 6;
      double x1 = left + width * ((i.start() - startMicros) / span);
      double x2 = left + width * ((i.end() - startMicros) / span);
      // a holding that ended in a loss or a kill: a thin outlined bar under the row, so that
      // the holders who took over stay visible
      boolean bad = !i.endedBy().equals("release") && !i.endedBy().equals("end");
      svg.append(
          String.format(
              Locale.ROOT,
              "<rect x='%.2f' y='%d' width='%.2f' height='%d' fill='%s'%s><title>%s holds %s,"
                  + " token %d, %s to %s (%s)</title></rect>%n",
              x1,
              bad ? y + rowH - 15 : y,
              Math.max(0.8, x2 - x1),
              bad ? 6 : rowH - 17,
              color.get(i.worker()),
              bad ? " stroke='#c00' stroke-width='1'" : "",
              escape(i.worker()),
              escape(i.lock()),
              i.token(),
              at(i.start()),
              at(i.end()),
              i.endedBy()));
      if (!bad && x2 - x1 >= LABEL_MIN_PX) { // readable without hovering: who held it
        svg.append(
            String.format(
                Locale.ROOT,
                "<text x='%.2f' y='%d' font-size='10' fill='#fff' text-anchor='middle'"
                    + " pointer-events='none'>%s</text>%n",
                (x1 + x2) / 2,
                y + (rowH - 17) / 2 + 4,
                escape(shortName(i.worker()))));
      }
    }
    for (Write w : writes) {
      if (!w.accepted()) {
        int r = locks.indexOf(w.lock());
        double x = left + width * ((w.micros() - startMicros) / span);
        int y = top + r * rowH + rowH / 2;
        svg.append(
            String.format(
                Locale.ROOT,
                "<text x='%.1f' y='%d' fill='#c00' font-weight='bold' text-anchor='middle'>✗<title>stale"
                    + " write by %s with token %d rejected at %s</title></text>%n",
                x,
                y + 5,
                escape(w.worker()),
                w.token(),
                at(w.micros())));
      }
    }
    for (DeadTime d : deadTimes) {
      int r = locks.indexOf(d.lock());
      double x1 = left + width * ((d.from() - startMicros) / span);
      double x2 = left + width * ((d.to() - startMicros) / span);
      svg.append(
          String.format(
              Locale.ROOT,
              "<rect x='%.2f' y='%d' width='%.2f' height='%d' fill='#fde2e2' stroke='#c00'"
                  + " stroke-dasharray='3 2'><title>dead holder: %s, killed at %s, its session"
                  + " held %s until %s</title></rect>%n",
              x1,
              top + r * rowH + 6,
              Math.max(2, x2 - x1),
              rowH - 17,
              escape(d.worker()),
              at(d.from()).strip(),
              escape(d.lock()),
              at(d.to()).strip()));
    }
    // numbered fault markers, in lanes so that faults a few milliseconds apart stay readable
    List<DemoTimeline.Marker> markers =
        DemoTimeline.layOut(faults, t -> left + width * ((t - startMicros) / span));
    for (DemoTimeline.Marker m : markers) {
      double cy = top - 14 - m.lane() * 14;
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%d' stroke='#c00' stroke-dasharray='4 3'/>"
                  + "<text x='%.1f' y='%.1f' fill='#c00' font-size='11' text-anchor='middle'>%d"
                  + "<title>%s</title></text>%n",
              m.x(),
              cy + 2,
              m.x(),
              height - 30,
              m.x(),
              cy,
              m.number(),
              escape(m.label())));
    }
    svg.append("</svg>\n");
    StringBuilder legend = new StringBuilder();
    for (String w : workers) {
      legend.append(
          String.format(
              Locale.ROOT,
              "<span class='key'><span class='swatch' style='background:%s'></span> %s</span>",
              color.get(w),
              escape(w)));
    }
    legend.append(
        "<span class='key'><span class='swatch' style='background:repeating-linear-gradient(45deg,"
            + "#c00 0 2px,#fde2e2 2px 6px);outline:1px solid #c00'></span> dead holder (killed;"
            + " its session still holds the lock)</span>");
    legend.append(
        "<span class='key'><span class='swatch' style='background:repeating-linear-gradient(-45deg,"
            + "#d9822b 0 1.5px,#fff1e0 1.5px 5px);outline:1px solid #d9822b'></span> paused holder"
            + " (believes it holds)</span>");
    legend.append("<span class='key'><b style='color:#c00'>✗</b> stale write rejected</span>");
    DemoTimeline overview = new DemoTimeline(this, locks, color);
    return "<!doctype html>\n<html><head><meta charset='utf-8'><title>zklock demo timeline</title>"
        + "<style>"
        + "body{font-family:sans-serif;margin:"
        + DemoTimeline.PAGE_MARGIN
        + "px;color:#222}"
        + "h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 6px}"
        + "p{margin:4px 0}.dim{color:#777}pre{background:#f6f6f6;padding:12px}"
        + ".key{display:inline-block;margin-right:14px;font-size:12px}"
        + ".swatch{display:inline-block;width:12px;height:12px;vertical-align:-1px}"
        + ".below{display:flex;gap:16px;align-items:flex-start}"
        + ".zoomtitle{font-size:13px;margin:2px 0 0 4px}"
        + ".faults{margin:0;padding-left:28px;font-size:12.5px;line-height:1.55;max-width:470px}"
        + ".faults li{cursor:pointer}.faults li.on{background:#eaf1fd}"
        + ".marker.on circle{stroke:#2a6fdb;stroke-width:3}"
        + "</style></head><body>\n<h1>zklock demo: who held which lock when</h1>\n"
        + "<p class='dim'>"
        + escape(String.format(Locale.ROOT, "%.1fs, %s", seconds(), setup))
        + ". One row per lock, one bar per holding. The numbered markers are the faults; hover"
        + " or click one (or a line of the list) to zoom into it. Grey bands: normal operation,"
        + " the time axis compressed "
        + (int) DemoTimeline.COMPRESSION
        + " times.</p>\n<p>"
        + legend
        + "</p>\n"
        + overview.html()
        + "<h2>The whole run at full resolution</h2>"
        + "<p class='dim'>Every holding labelled with its worker (w4 is worker-4); the chart"
        + " scrolls sideways; hover for the fencing token and times.</p>"
        + "<div style='overflow-x:auto'>"
        + svg
        + "</div>"
        + "<pre>"
        + escape(text(null))
        + "</pre>\n</body></html>\n";
  }

  /** Bars at least this wide carry their holder's short name. */
  static final double LABEL_MIN_PX = 16;

  private static final int MIN_WIDTH = 1100;
  private static final int MAX_WIDTH = 60_000;

  /**
   * The chart's width in pixels: wide enough that a typical holding (the median of those that ended
   * in a release) is {@link #LABEL_MIN_PX} wide and carries its label; the page scrolls sideways.
   * At least 1100 px, at most 60,000.
   */
  int chartWidth() {
    List<Long> holds = new ArrayList<>();
    for (Interval i : intervals) {
      if (i.endedBy().equals("release")) {
        holds.add(i.end() - i.start());
      }
    }
    if (holds.isEmpty()) {
      return MIN_WIDTH;
    }
    holds.sort(null);
    double median = Math.max(1, holds.get(holds.size() / 2));
    double span = Math.max(1, endMicros - startMicros);
    double wanted = (LABEL_MIN_PX + 2) * span / median;
    return (int) Math.max(MIN_WIDTH, Math.min(MAX_WIDTH, Math.ceil(wanted)));
  }

  /** {@code w4} for {@code worker-4}. */
  static String shortName(String worker) {
    String digits = worker.replaceAll("\\D", "");
    return digits.isEmpty() ? worker : "w" + digits;
  }

  private static int workerNumber(String worker) {
    String digits = worker.replaceAll("\\D", "");
    return digits.isEmpty() ? 0 : Integer.parseInt(digits);
  }

  static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;");
  }
}
