package io.zklock.cli;

import io.zklock.cli.DemoCoordinator.Write;
import io.zklock.cli.DemoReport.DeadTime;
import io.zklock.cli.DemoReport.Fault;
import io.zklock.cli.DemoReport.Interval;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The first screen of the demo's report: the whole run and every fault on one screen 1,400 px wide,
 * and a zoom into one fault at a time.
 *
 * <p>The overview's time axis is compressed where nothing but normal operation happens: the
 * stretches around the faults, a killed holder's dead time and a paused holder's loss get the
 * width, and long quiet stretches between them a fifth of their share ({@link #COMPRESSION}), drawn
 * as grey bands. Faults are numbered markers laid out in lanes, so that markers of faults a few
 * milliseconds apart do not overlap. A killed holder's dead time (from the kill until its session
 * expired and the next holder was granted) is a hatched span labelled "dead holder". The layout is
 * computed here as data ({@link #markers()}, {@link #segments()}, {@link #deadSpans()}), so that
 * tests check it without a browser.
 */
final class DemoTimeline {
  /** The width of the screen the overview must fit. */
  static final int SCREEN_WIDTH = 1400;

  /** The page's margin on each side (CSS {@code body} margin). */
  static final int PAGE_MARGIN = 24;

  /** The overview's width: the screen, less the page's margins and a scrollbar. */
  static final int OVERVIEW_WIDTH = SCREEN_WIDTH - 2 * PAGE_MARGIN - 20;

  /** Room for the lock names at the left of a chart. */
  static final int LABEL_WIDTH = 92;

  /** Room at the right of a chart, so that a marker at the very end stays inside. */
  static final int RIGHT_PAD = 16;

  static final double MARKER_RADIUS = 9;
  static final int LANE_HEIGHT = 22;
  static final int ROW_HEIGHT = 34;

  /** Quiet time gets this many times less width per second than the time around the faults. */
  static final double COMPRESSION = 5;

  /** Time either side of a fault drawn at the full rate, in microseconds. */
  static final long FOCUS_PAD = 750_000;

  /** A quiet stretch shorter than this is not compressed (microseconds). */
  static final long MIN_QUIET = 1_500_000;

  /** A fault's zoom shows this much time either side of it (microseconds). */
  static final long ZOOM_HALF = 1_000_000;

  /**
   * A fault within {@link #CLUSTER} of another is zoomed into closer, this much either side, so
   * that faults milliseconds apart are told apart (microseconds).
   */
  static final long ZOOM_HALF_CLUSTER = 300_000;

  static final long CLUSTER = 150_000;

  /** The zoom's width in pixels. */
  static final int DETAIL_WIDTH = 820;

  /** A stretch of the run and where it is drawn; compressed stretches are quiet. */
  record Segment(long from, long to, double x1, double x2, boolean compressed) {
    double pxPerSecond() {
      return (x2 - x1) / Math.max(1e-9, (to - from) / 1e6);
    }
  }

  /** A fault's numbered marker: its time's x, the lane it sits in, its circle's centre. */
  record Marker(int number, long micros, String label, double x, int lane, double cx, double cy) {
    double left() {
      return cx - MARKER_RADIUS;
    }

    double right() {
      return cx + MARKER_RADIUS;
    }

    double top() {
      return cy - MARKER_RADIUS;
    }

    double bottom() {
      return cy + MARKER_RADIUS;
    }

    boolean overlaps(Marker o) {
      return left() < o.right() && o.left() < right() && top() < o.bottom() && o.top() < bottom();
    }
  }

  /** A dead holder's span as drawn on the overview. */
  record Span(DeadTime dead, double x1, double x2) {}

  private final DemoReport report;
  private final List<String> locks;
  private final Map<String, String> colors;
  private final List<Segment> segments;
  private final List<Marker> markers;
  private final int lanes;

  DemoTimeline(DemoReport report, List<String> locks, Map<String, String> colors) {
    this.report = report;
    this.locks = locks;
    this.colors = colors;
    this.segments =
        scale(
            report.startMicros,
            report.endMicros,
            focus(report),
            OVERVIEW_WIDTH - LABEL_WIDTH - RIGHT_PAD);
    List<Marker> laid = layOut(report.faults, this::x);
    this.lanes = laid.stream().mapToInt(Marker::lane).max().orElse(-1) + 1;
    List<Marker> placed = new ArrayList<>();
    for (Marker m : laid) {
      double cy = laneY(m.lane(), lanes);
      placed.add(new Marker(m.number(), m.micros(), m.label(), m.x(), m.lane(), m.cx(), cy));
    }
    this.markers = List.copyOf(placed);
  }

  List<Segment> segments() {
    return segments;
  }

  List<Marker> markers() {
    return markers;
  }

  List<Span> deadSpans() {
    List<Span> out = new ArrayList<>();
    for (DeadTime d : report.deadTimes) {
      out.add(new Span(d, x(d.from()), x(d.to())));
    }
    return out;
  }

  // ------------------------------------------------------------------ the compressed axis

  /** The stretches that tell the story: around each fault, dead times, losses, the failover. */
  private static List<long[]> focus(DemoReport r) {
    List<long[]> focus = new ArrayList<>();
    for (Fault f : r.faults) {
      focus.add(new long[] {f.micros() - FOCUS_PAD, f.micros() + FOCUS_PAD});
    }
    for (DeadTime d : r.deadTimes) {
      focus.add(new long[] {d.from() - FOCUS_PAD / 2, d.to() + FOCUS_PAD / 2});
    }
    for (Interval i : r.intervals) {
      if (i.endedBy().equals("lost")) {
        focus.add(new long[] {i.start() - FOCUS_PAD / 2, i.end() + FOCUS_PAD / 2});
      }
    }
    if (r.failoverFrom() < r.failoverTo()) {
      focus.add(new long[] {r.failoverFrom(), r.failoverTo()});
    }
    return focus;
  }

  /**
   * The segments of {@code [start, end]}: the {@code focus} stretches (merged, clipped) at the full
   * rate, the quiet stretches between them of at least {@link #MIN_QUIET} compressed {@link
   * #COMPRESSION} times, all together {@code width} pixels wide.
   */
  static List<Segment> scale(long start, long end, List<long[]> focus, double width) {
    long span = Math.max(1, end - start);
    List<long[]> merged = new ArrayList<>();
    focus.stream()
        .map(f -> new long[] {Math.max(start, f[0]), Math.min(end, f[1])})
        .filter(f -> f[0] < f[1])
        .sorted(Comparator.comparingLong((long[] f) -> f[0]))
        .forEach(
            f -> {
              long[] last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
              if (last != null && f[0] - last[1] < MIN_QUIET) {
                last[1] = Math.max(last[1], f[1]);
              } else {
                merged.add(f);
              }
            });
    // stretches: [from, to, compressed?]
    List<long[]> parts = new ArrayList<>();
    long t = start;
    for (long[] f : merged) {
      if (f[0] > t) {
        parts.add(new long[] {t, f[0], 1});
      }
      parts.add(new long[] {f[0], f[1], 0});
      t = f[1];
    }
    if (t < end) {
      parts.add(new long[] {t, end, 1});
    }
    if (merged.isEmpty()) {
      parts.clear();
      parts.add(new long[] {start, start + span, 0}); // nothing to tell apart: linear
    }
    // a short quiet stretch at either end is not worth a band: draw it at the full rate
    for (long[] p : parts) {
      if (p[2] == 1 && p[1] - p[0] < MIN_QUIET) {
        p[2] = 0;
      }
    }
    double weights = 0;
    for (long[] p : parts) {
      weights += (p[1] - p[0]) / (p[2] == 1 ? COMPRESSION : 1);
    }
    List<Segment> out = new ArrayList<>();
    double x = 0;
    for (long[] p : parts) {
      double w = width * ((p[1] - p[0]) / (p[2] == 1 ? COMPRESSION : 1)) / weights;
      out.add(new Segment(p[0], p[1], x, x + w, p[2] == 1));
      x += w;
    }
    return out;
  }

  /** The overview's x of {@code micros} (clamped to the run), lock names included. */
  double x(long micros) {
    Segment last = segments.get(segments.size() - 1);
    if (micros >= last.to()) {
      return LABEL_WIDTH + last.x2();
    }
    for (Segment s : segments) {
      if (micros < s.to()) {
        if (micros <= s.from()) {
          return LABEL_WIDTH + s.x1();
        }
        return LABEL_WIDTH
            + s.x1()
            + (s.x2() - s.x1()) * (micros - s.from()) / (double) (s.to() - s.from());
      }
    }
    return LABEL_WIDTH + last.x2();
  }

  // ------------------------------------------------------------------ markers in lanes

  /** Numbers the faults in time order and puts each marker in the first lane where it fits. */
  static List<Marker> layOut(List<Fault> faults, java.util.function.LongToDoubleFunction x) {
    List<Double> laneEnds = new ArrayList<>();
    List<Marker> out = new ArrayList<>();
    int n = 0;
    for (Fault f : faults) {
      n++;
      double at = x.applyAsDouble(f.micros());
      int lane = 0;
      while (lane < laneEnds.size() && laneEnds.get(lane) + 2 > at - MARKER_RADIUS) {
        lane++;
      }
      if (lane == laneEnds.size()) {
        laneEnds.add(at + MARKER_RADIUS);
      } else {
        laneEnds.set(lane, at + MARKER_RADIUS);
      }
      // a provisional centre, one lane a row; callers stack the lanes from the chart up
      out.add(
          new Marker(
              n, f.micros(), f.label(), at, lane, at, 8 + MARKER_RADIUS + lane * LANE_HEIGHT));
    }
    return out;
  }

  /** The y of a marker's centre in {@code lane} of {@code lanes}: lane 0 lowest, above the rows. */
  private static double laneY(int lane, int lanes) {
    return 8 + MARKER_RADIUS + (Math.max(lanes, lane + 1) - 1 - lane) * LANE_HEIGHT;
  }

  // ------------------------------------------------------------------ rendering

  /** The overview, the zoom panels and the fault list, with the script that links them. */
  String html() {
    int chartTop = 8 + Math.max(1, lanes) * LANE_HEIGHT + 4;
    boolean failover = report.failoverFrom() < report.failoverTo();
    int chartBottom = chartTop + ROW_HEIGHT * locks.size() + (failover ? ENSEMBLE_ROW : 0);
    int height = chartBottom + 40;
    StringBuilder svg = new StringBuilder();
    svg.append(
        String.format(
            Locale.ROOT,
            "<svg id='overview' xmlns='http://www.w3.org/2000/svg' width='%d' height='%d'"
                + " font-family='sans-serif' font-size='12'>%n",
            OVERVIEW_WIDTH,
            height));
    svg.append(PATTERNS);
    // quiet stretches: grey bands, broken axis
    for (Segment s : segments) {
      if (!s.compressed()) {
        continue;
      }
      double x1 = LABEL_WIDTH + s.x1();
      double w = s.x2() - s.x1();
      svg.append(
          String.format(
              Locale.ROOT,
              "<rect class='quiet' x='%.1f' y='%d' width='%.1f' height='%d' fill='#f1f1f1'>"
                  + "<title>%s to %s: normal operation, time compressed %d times</title></rect>%n",
              x1,
              chartTop - 2,
              w,
              chartBottom - chartTop + 4,
              report.at(s.from()).strip(),
              report.at(s.to()).strip(),
              (int) COMPRESSION));
      String label = w >= 150 ? "normal operation, " + (int) COMPRESSION + "× compressed" : null;
      if (label == null && w >= 40) {
        label = (int) COMPRESSION + "× compressed";
      }
      if (label != null) {
        svg.append(
            String.format(
                Locale.ROOT,
                "<text x='%.1f' y='%d' text-anchor='middle' fill='#888' font-size='10'>%s</text>%n",
                x1 + w / 2,
                chartBottom + 30,
                label));
      }
      for (double bx : new double[] {x1, x1 + w}) {
        svg.append(
            String.format(
                Locale.ROOT,
                "<path d='M%.1f %d l-3 6 m6 -6 l-3 6' stroke='#999' fill='none'/>%n",
                bx,
                chartBottom + 1));
      }
    }
    // the zoom's window on the overview
    svg.append(
        String.format(
            Locale.ROOT,
            "<rect id='zoomwin' x='0' y='%d' width='0' height='%d' fill='#2a6fdb' fill-opacity='0.10'"
                + " stroke='#2a6fdb' stroke-opacity='0.6'/>%n",
            chartTop - 3,
            chartBottom - chartTop + 6));
    svg.append(rows(chartTop, LABEL_WIDTH, OVERVIEW_WIDTH - RIGHT_PAD));
    svg.append(bars(this::x, chartTop, Long.MIN_VALUE, Long.MAX_VALUE, false));
    if (failover) {
      svg.append(
          failover(this::x, chartTop + ROW_HEIGHT * locks.size(), Long.MIN_VALUE, Long.MAX_VALUE));
    }
    svg.append(axis(chartBottom));
    for (Marker m : markers) {
      svg.append(leaderLine(m, m.cy(), chartBottom));
    }
    for (Marker m : markers) {
      svg.append(marker(m, m.cy(), true));
    }
    svg.append("</svg>\n");

    StringBuilder zooms = new StringBuilder();
    StringBuilder windows = new StringBuilder("[");
    for (Marker m : markers) {
      boolean clustered =
          markers.stream().anyMatch(o -> o != m && Math.abs(o.micros() - m.micros()) < CLUSTER);
      long half = clustered ? ZOOM_HALF_CLUSTER : ZOOM_HALF;
      long from = Math.max(report.startMicros, m.micros() - half);
      long to = Math.min(report.endMicros, Math.max(from + 1, m.micros() + half));
      zooms.append(zoom(m, from, to));
      if (windows.length() > 1) {
        windows.append(',');
      }
      double wx = x(from);
      windows.append(String.format(Locale.ROOT, "[%.1f,%.1f]", wx, Math.max(2, x(to) - wx)));
    }
    windows.append(']');

    StringBuilder list = new StringBuilder("<ol class='faults'>");
    for (Marker m : markers) {
      list.append("<li data-fault='")
          .append(m.number())
          .append("'>")
          .append(report.at(m.micros()))
          .append(" ")
          .append(DemoReport.escape(m.label()))
          .append("</li>");
    }
    list.append("</ol>\n");

    return "<div class='overview'>"
        + svg
        + "</div>\n<div class='below'><div class='zooms'>"
        + (markers.isEmpty() ? "<p>No faults were injected.</p>" : zooms)
        + "</div>"
        + list
        + "</div>\n<script>\nconst ZOOM="
        + windows
        + ";\n"
        + SCRIPT
        + "</script>\n";
  }

  /** The height of the row that shows the ensemble's leader failover. */
  static final int ENSEMBLE_ROW = 24;

  /** The ZooKeeper leader's failover, in a row of its own under the locks. */
  private String failover(java.util.function.LongToDoubleFunction x, int y, long from, long to) {
    long a = Math.max(from, report.failoverFrom());
    long b = Math.min(to, report.failoverTo());
    if (a >= b) {
      return "";
    }
    double x1 = x.applyAsDouble(a);
    double x2 = x.applyAsDouble(b);
    String label =
        String.format(
            Locale.ROOT,
            "leader failover %.1f s",
            (report.failoverTo() - report.failoverFrom()) / 1e6);
    return String.format(
            Locale.ROOT,
            "<text x='4' y='%d' fill='#555'>ZooKeeper</text><rect class='failover' x='%.2f'"
                + " y='%d' width='%.2f' height='14' fill='#eceaf7' stroke='#6a5acd'><title>the"
                + " ZooKeeper leader was SIGKILLed at %s; the ensemble served on with two servers"
                + " and a new leader, and the killed server rejoined at %s</title></rect>%n",
            y + 16,
            x1,
            y + 5,
            Math.max(2, x2 - x1),
            report.at(report.failoverFrom()).strip(),
            report.at(report.failoverTo()).strip())
        + (x2 - x1 >= 5.4 * label.length()
            ? String.format(
                Locale.ROOT,
                "<text x='%.1f' y='%d' font-size='10.5' fill='#3f3380' text-anchor='middle'"
                    + " pointer-events='none'>%s</text>%n",
                (x1 + x2) / 2,
                y + 16,
                label)
            : x2 - x1 >= 50
                ? String.format(
                    Locale.ROOT,
                    "<text x='%.1f' y='%d' font-size='10.5' fill='#3f3380' text-anchor='middle'"
                        + " pointer-events='none'>failover</text>%n",
                    (x1 + x2) / 2,
                    y + 16)
                : "");
  }

  /** Lock names and the rows' separators. */
  private String rows(int top, double x1, double x2) {
    StringBuilder sb = new StringBuilder();
    for (int r = 0; r < locks.size(); r++) {
      int y = top + r * ROW_HEIGHT;
      sb.append(
          String.format(
              Locale.ROOT,
              "<text x='4' y='%d'>%s</text><line x1='%.1f' y1='%d' x2='%.1f' y2='%d'"
                  + " stroke='#e4e4e4'/>%n",
              y + ROW_HEIGHT / 2 + 4,
              DemoReport.escape(locks.get(r)),
              x1,
              y + ROW_HEIGHT,
              x2,
              y + ROW_HEIGHT));
    }
    return sb.toString();
  }

  /**
   * Holdings, dead holders, paused holders and rejected writes between {@code from} and {@code to},
   * at {@code x}; with {@code labels}, holdings wide enough carry their worker.
   */
  private String bars(
      java.util.function.LongToDoubleFunction x, int top, long from, long to, boolean labels) {
    StringBuilder sb = new StringBuilder();
    for (Interval i : report.intervals) {
      if (i.end() < from || i.start() > to) {
        continue;
      }
      int r = locks.indexOf(i.lock());
      int y = top + r * ROW_HEIGHT + 6;
      double x1 = x.applyAsDouble(Math.max(from, i.start()));
      double x2 = x.applyAsDouble(Math.min(to, i.end()));
      boolean lost = i.endedBy().equals("lost");
      boolean killed = i.endedBy().equals("killed");
      String tip =
          String.format(
              Locale.ROOT,
              "%s holds %s, token %d, %s to %s (%s)",
              DemoReport.escape(i.worker()),
              DemoReport.escape(i.lock()),
              i.token(),
              report.at(i.start()),
              report.at(i.end()),
              i.endedBy());
      if (lost) {
        // a paused holder: it believes it holds until its handle reports the loss
        sb.append(
            String.format(
                Locale.ROOT,
                "<rect class='paused' x='%.2f' y='%d' width='%.2f' height='9' fill='url(#paused)'"
                    + " stroke='#d9822b'><title>%s: paused, believed it held</title></rect>%n",
                x1,
                y + ROW_HEIGHT - 17,
                Math.max(1, x2 - x1),
                tip));
        if (x2 - x1 >= 170) {
          sb.append(
              String.format(
                  Locale.ROOT,
                  "<text x='%.1f' y='%d' font-size='10' fill='#8a4b00'>%s paused: believes it"
                      + " holds</text>%n",
                  x1 + 4,
                  y + ROW_HEIGHT - 20,
                  DemoReport.escape(DemoReport.shortName(i.worker()))));
        }
        continue;
      }
      sb.append(
          String.format(
              Locale.ROOT,
              "<rect x='%.2f' y='%d' width='%.2f' height='%d' fill='%s'%s><title>%s</title></rect>%n",
              x1,
              y,
              Math.max(killed ? 2 : 0.8, x2 - x1),
              ROW_HEIGHT - 17,
              colors.get(i.worker()),
              killed ? " stroke='#c00' stroke-width='1.5'" : "",
              tip));
      if (labels && x2 - x1 >= DemoReport.LABEL_MIN_PX) {
        sb.append(
            String.format(
                Locale.ROOT,
                "<text x='%.2f' y='%d' font-size='10' fill='#fff' text-anchor='middle'"
                    + " pointer-events='none'>%s</text>%n",
                (x1 + x2) / 2,
                y + (ROW_HEIGHT - 17) / 2 + 4,
                DemoReport.escape(DemoReport.shortName(i.worker()))));
      }
    }
    for (DeadTime d : report.deadTimes) {
      if (d.to() < from || d.from() > to) {
        continue;
      }
      int r = locks.indexOf(d.lock());
      int y = top + r * ROW_HEIGHT + 6;
      double x1 = x.applyAsDouble(Math.max(from, d.from()));
      double x2 = x.applyAsDouble(Math.min(to, d.to()));
      String label =
          String.format(
              Locale.ROOT,
              "dead holder %s · %.1f s",
              DemoReport.shortName(d.worker()),
              (d.to() - d.from()) / 1e6);
      sb.append(
          String.format(
              Locale.ROOT,
              "<rect class='dead' x='%.2f' y='%d' width='%.2f' height='%d' fill='url(#dead)'"
                  + " stroke='#c00' stroke-width='1'><title>dead holder: %s was SIGKILLed at %s"
                  + " holding %s; its session still held the lock until it expired and %s was"
                  + " granted at %s</title></rect>%n",
              x1,
              y,
              Math.max(2, x2 - x1),
              ROW_HEIGHT - 17,
              DemoReport.escape(d.worker()),
              report.at(d.from()).strip(),
              DemoReport.escape(d.lock()),
              DemoReport.escape(d.next()),
              report.at(d.to()).strip()));
      if (x2 - x1 >= 6.5 * label.length()) {
        sb.append(
            String.format(
                Locale.ROOT,
                "<text x='%.1f' y='%d' font-size='11' font-weight='bold' fill='#7a0000'"
                    + " text-anchor='middle' pointer-events='none' paint-order='stroke'"
                    + " stroke='#fff' stroke-width='3'>%s</text>%n",
                (x1 + x2) / 2,
                y + (ROW_HEIGHT - 17) / 2 + 4,
                DemoReport.escape(label)));
      }
    }
    for (Write w : report.writes) {
      if (w.accepted() || w.micros() < from || w.micros() > to) {
        continue;
      }
      int r = locks.indexOf(w.lock());
      double wx = x.applyAsDouble(w.micros());
      int y = top + r * ROW_HEIGHT + ROW_HEIGHT / 2;
      sb.append(
          String.format(
              Locale.ROOT,
              "<text x='%.1f' y='%d' fill='#c00' font-weight='bold' font-size='15'"
                  + " text-anchor='middle' stroke='#fff' stroke-width='3' paint-order='stroke'>✗"
                  + "<title>stale write by %s with token %d rejected at"
                  + " %s</title></text>%n",
              wx,
              y + 5,
              DemoReport.escape(w.worker()),
              w.token(),
              report.at(w.micros())));
    }
    return sb.toString();
  }

  /** Ticks at round seconds, at least 60 px apart, each stretch labelled on its own. */
  private String axis(int y) {
    StringBuilder sb = new StringBuilder();
    double lastX = -1e9;
    for (Segment s : segments) {
      double pxPerSecond = s.pxPerSecond();
      int step = 1;
      for (int candidate : new int[] {1, 2, 5, 10, 30, 60, 300}) {
        step = candidate;
        if (candidate * pxPerSecond >= 60) {
          break;
        }
      }
      long first = (long) Math.ceil((s.from() - report.startMicros) / 1e6 / step) * step;
      for (long sec = first; report.startMicros + sec * 1_000_000 <= s.to(); sec += step) {
        double tx = x(report.startMicros + sec * 1_000_000);
        if (tx - lastX < 44) {
          continue;
        }
        lastX = tx;
        sb.append(
            String.format(
                Locale.ROOT,
                "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#bbb'/><text x='%.1f' y='%d'"
                    + " text-anchor='middle' fill='#666'>%ds</text>%n",
                tx,
                y,
                tx,
                y + 5,
                tx,
                y + 17,
                sec));
      }
    }
    return sb.toString();
  }

  /** A marker's dashed line, from under its lane down through the rows. */
  private static String leaderLine(Marker m, double cy, int chartBottom) {
    return String.format(
        Locale.ROOT,
        "<line class='lead' x1='%.1f' y1='%.1f' x2='%.1f' y2='%d' stroke='#c00'"
            + " stroke-dasharray='4 3'/>%n",
        m.x(),
        cy + MARKER_RADIUS,
        m.x(),
        chartBottom);
  }

  /** A numbered marker in its lane (drawn after every leader line, so that none crosses it). */
  private String marker(Marker m, double cy, boolean linked) {
    return String.format(
        Locale.ROOT,
        "<g class='marker' data-fault='%d'%s><circle cx='%.1f' cy='%.1f' r='%.0f'"
            + " fill='#c00'/><text x='%.1f' y='%.1f' fill='#fff' font-size='11' font-weight='bold'"
            + " text-anchor='middle'>%d</text><title>%d. %s %s</title></g>%n",
        m.number(),
        linked ? " style='cursor:pointer'" : "",
        m.cx(),
        cy,
        MARKER_RADIUS,
        m.cx(),
        cy + 4,
        m.number(),
        m.number(),
        report.at(m.micros()).strip(),
        DemoReport.escape(m.label()));
  }

  /** The zoom into fault {@code m}: {@code [from, to]} at a linear scale, holdings labelled. */
  private String zoom(Marker focus, long from, long to) {
    double left = LABEL_WIDTH;
    double width = DETAIL_WIDTH - LABEL_WIDTH - RIGHT_PAD;
    java.util.function.LongToDoubleFunction zx =
        t -> left + width * (Math.max(from, Math.min(to, t)) - from) / (double) (to - from);
    List<Fault> inside = new ArrayList<>();
    List<Integer> numbers = new ArrayList<>();
    for (Marker m : markers) {
      if (m.micros() >= from && m.micros() <= to) {
        inside.add(new Fault(m.micros(), m.label()));
        numbers.add(m.number());
      }
    }
    List<Marker> laid = layOut(inside, zx);
    int zoomLanes = laid.stream().mapToInt(Marker::lane).max().orElse(0) + 1;
    int chartTop = 8 + zoomLanes * LANE_HEIGHT + 4;
    boolean failover = report.failoverFrom() < to && report.failoverTo() > from;
    int chartBottom = chartTop + ROW_HEIGHT * locks.size() + (failover ? ENSEMBLE_ROW : 0);
    StringBuilder svg = new StringBuilder();
    svg.append(
        String.format(
            Locale.ROOT,
            "<div class='zoom' data-fault='%d' style='display:%s'><div class='zoomtitle'>"
                + "<b>%d.</b> %s %s <span class='dim'>(zoom: %s to %s)</span></div>"
                + "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d'"
                + " font-family='sans-serif' font-size='12'>%n",
            focus.number(),
            focus.number() == 1 ? "block" : "none",
            focus.number(),
            report.at(focus.micros()).strip(),
            DemoReport.escape(focus.label()),
            report.at(from).strip(),
            report.at(to).strip(),
            DETAIL_WIDTH,
            chartBottom + 26));
    svg.append(PATTERNS);
    svg.append(rows(chartTop, left, left + width));
    svg.append(bars(zx, chartTop, from, to, true));
    if (failover) {
      svg.append(failover(zx, chartTop + ROW_HEIGHT * locks.size(), from, to));
    }
    // ticks every 0.2 s (or 0.5 s)
    double seconds = (to - from) / 1e6;
    double step = 0.5;
    for (double candidate : new double[] {0.05, 0.1, 0.2, 0.5}) {
      if (width / seconds * candidate >= 60) {
        step = candidate;
        break;
      }
    }
    double firstTick = Math.ceil((from - report.startMicros) / 1e6 / step) * step;
    for (double s = firstTick; report.startMicros + s * 1e6 <= to; s += step) {
      double tx = zx.applyAsDouble(report.startMicros + Math.round(s * 1e6));
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#bbb'/><text x='%.1f' y='%d'"
                  + " text-anchor='middle' fill='#666'>%s</text>%n",
              tx,
              chartBottom,
              tx,
              chartBottom + 5,
              tx,
              chartBottom + 17,
              String.format(Locale.ROOT, step < 0.1 ? "%.2fs" : "%.1fs", s)));
    }
    StringBuilder lines = new StringBuilder();
    StringBuilder circles = new StringBuilder();
    for (int k = 0; k < laid.size(); k++) {
      Marker m = laid.get(k);
      Marker numbered =
          new Marker(numbers.get(k), m.micros(), m.label(), m.x(), m.lane(), m.cx(), m.cy());
      double cy = 8 + MARKER_RADIUS + (zoomLanes - 1 - m.lane()) * LANE_HEIGHT;
      lines.append(leaderLine(numbered, cy, chartBottom));
      circles.append(marker(numbered, cy, false));
    }
    svg.append(lines).append(circles);
    svg.append("</svg></div>\n");
    return svg.toString();
  }

  /** Hatching for a dead holder (red on pale red) and a paused one (orange). */
  private static final String PATTERNS =
      "<defs><pattern id='dead' width='6' height='6' patternUnits='userSpaceOnUse'"
          + " patternTransform='rotate(45)'><rect width='6' height='6' fill='#fde2e2'/>"
          + "<line x1='0' y1='0' x2='0' y2='6' stroke='#c00' stroke-width='2'/></pattern>"
          + "<pattern id='paused' width='5' height='5' patternUnits='userSpaceOnUse'"
          + " patternTransform='rotate(-45)'><rect width='5' height='5' fill='#fff1e0'/>"
          + "<line x1='0' y1='0' x2='0' y2='5' stroke='#d9822b' stroke-width='1.5'/></pattern>"
          + "</defs>\n";

  /** Hover or click on a marker or a line of the list: zoom into that fault. */
  private static final String SCRIPT =
      String.join(
          "\n",
          "function zoomTo(n) {",
          "  document.querySelectorAll('.zoom').forEach(z =>",
          "    z.style.display = z.dataset.fault === String(n) ? 'block' : 'none');",
          "  document.querySelectorAll('.marker, .faults li').forEach(e =>",
          "    e.classList.toggle('on', e.dataset.fault === String(n)));",
          "  const w = document.getElementById('zoomwin');",
          "  if (w && ZOOM[n - 1]) {",
          "    w.setAttribute('x', ZOOM[n - 1][0]); w.setAttribute('width', ZOOM[n - 1][1]);",
          "  }",
          "}",
          "document.querySelectorAll('.marker, .faults li').forEach(e => {",
          "  e.addEventListener('mouseenter', () => zoomTo(Number(e.dataset.fault)));",
          "  e.addEventListener('click', () => zoomTo(Number(e.dataset.fault)));",
          "});",
          "if (ZOOM.length) zoomTo(1);",
          "");
}
