package io.zklock.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The terminal tables, the JSON file and the SVG chart of one run. */
final class Report {
  final Map<String, Result> results;

  /** The results, each scenario's regimes next to each other (no added latency first). */
  final List<Result> ordered;

  final List<Target> targets;
  final Map<String, String> machine;
  final Map<String, double[]> anatomy;

  Report(
      Map<String, Result> results,
      List<Target> targets,
      Map<String, String> machine,
      Map<String, double[]> anatomy) {
    this.results = results;
    this.ordered = sideBySideOrder(results);
    this.targets = targets;
    this.machine = machine;
    this.anatomy = anatomy;
  }

  private static List<Result> sideBySideOrder(Map<String, Result> results) {
    Map<String, List<Result>> byScenario = new java.util.LinkedHashMap<>();
    for (Result r : results.values()) {
      byScenario.computeIfAbsent(r.scenario.name, k -> new ArrayList<>()).add(r);
    }
    List<Result> out = new ArrayList<>();
    byScenario.values().forEach(out::addAll);
    return out;
  }

  /** The regimes measured, in run order ("" = no added latency). */
  List<String> regimes() {
    List<String> out = new ArrayList<>();
    for (Result r : results.values()) {
      if (!out.contains(r.regime)) {
        out.add(r.regime);
      }
    }
    return out;
  }

  /** "no added latency", "1ms RTT", "3 servers, 1ms RTT" (ZooKeeper standalone unless said). */
  static String regimeLabel(String regime) {
    String servers = "";
    String rtt = "no added latency";
    for (String part : regime.split(",")) {
      if (part.endsWith("srv")) {
        servers = part.substring(0, part.length() - 3) + " servers, ";
      } else if (!part.isEmpty()) {
        rtt = part + " RTT";
      }
    }
    return servers + rtt;
  }

  /**
   * One row per scenario and implementation, a column pair (ratio to the baseline, requests per
   * operation) per regime: the two regimes side by side.
   */
  List<String[]> sideBySideRows() {
    List<String[]> rows = new ArrayList<>();
    List<String> regimes = regimes();
    Map<String, Map<String, Result>> byScenario = new java.util.LinkedHashMap<>();
    for (Result r : ordered) {
      byScenario.computeIfAbsent(r.scenario.name, k -> new java.util.HashMap<>()).put(r.regime, r);
    }
    for (var e : byScenario.entrySet()) {
      Scenario s = e.getValue().values().iterator().next().scenario;
      if (s.baseline == null) {
        continue;
      }
      for (Impl impl : s.impls) {
        List<String> row = new ArrayList<>(List.of(s.name, impl.label));
        for (String regime : regimes) {
          Result r = e.getValue().get(regime);
          if (r == null || !r.has(impl)) {
            row.add("-");
            row.add("-");
            continue;
          }
          double[] v = r.values(impl, Window::value);
          double[] rat = r.pairedRatios(impl, s.baseline, Window::value);
          row.add(num(Result.median(v)) + " (" + ratio(Result.median(rat)) + ")");
          row.add(num(Result.median(r.values(impl, Window::requestsPerOp))));
        }
        rows.add(row.toArray(String[]::new));
      }
    }
    return rows;
  }

  String[] sideBySideHeader() {
    List<String> h = new ArrayList<>(List.of("scenario", "impl"));
    for (String regime : regimes()) {
      h.add(regimeLabel(regime) + ": median (vs baseline)");
      h.add("req/op");
    }
    return h.toArray(String[]::new);
  }

  static String num(double v) {
    if (Double.isNaN(v)) {
      return "-";
    }
    double a = Math.abs(v);
    if (a >= 1000) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    if (a >= 100) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    if (a >= 10) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    return String.format(Locale.ROOT, "%.2f", v);
  }

  static String ratio(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2fx", v);
  }

  /** Rows of the results table, one per scenario and implementation. */
  List<String[]> rows() {
    List<String[]> rows = new ArrayList<>();
    for (Result r : ordered) {
      Scenario s = r.scenario;
      for (Impl impl : s.impls) {
        String note = r.notes.get(impl);
        if (!r.has(impl)) {
          rows.add(
              new String[] {
                r.key(), impl.label, "skipped", note == null ? "" : note, "", "", "", "", ""
              });
          continue;
        }
        double[] v = r.values(impl, Window::value);
        double[] rat =
            s.baseline == null ? new double[0] : r.pairedRatios(impl, s.baseline, Window::value);
        rows.add(
            new String[] {
              r.key(),
              impl.label,
              num(Result.median(v)) + " " + s.unit,
              num(Result.min(v)) + ".." + num(Result.max(v)),
              s.baseline == null
                  ? ""
                  : ratio(Result.median(rat))
                      + " ("
                      + ratio(Result.min(rat))
                      + ".."
                      + ratio(Result.max(rat))
                      + ")",
              num(Result.median(r.values(impl, Window::requestsPerOp))),
              num(Result.median(r.values(impl, Window::watchEventsPerOp))),
              num(Result.median(r.values(impl, Window::fsyncsPerOp))),
              String.valueOf(v.length)
            });
      }
    }
    return rows;
  }

  static final String[] HEADER = {
    "scenario",
    "impl",
    "median",
    "spread (min..max)",
    "vs baseline (same-rep ratios)",
    "req/op",
    "watch ev/op",
    "fsync/op",
    "n"
  };

  List<String[]> targetRows() {
    List<String[]> rows = new ArrayList<>();
    for (Target t : targets) {
      if (!results.containsKey(t.scenario)) {
        continue;
      }
      double m = t.measured(results);
      rows.add(
          new String[] {
            t.text,
            Double.isNaN(m) ? "not measured" : t.format(m),
            Double.isNaN(m) ? "-" : t.met(m) ? "MET" : "MISSED",
            floorCell(t.floorRatio(results, Impl.FLOOR), t),
            floorCell(t.floorRatio(results, Impl.RAW), t)
          });
    }
    return rows;
  }

  /** What the target's goal would say of a floor's ratio: "1.21x (below)" when it misses it too. */
  static String floorCell(double ratio, Target t) {
    if (Double.isNaN(ratio)) {
      return "-";
    }
    return String.format(Locale.ROOT, "%.2fx", ratio) + (ratio < t.goal ? " (below)" : "");
  }

  static final String[] TARGET_HEADER = {
    "target", "measured", "met?", "fair-queue floor, same ratio", "raw ZooKeeper, same ratio"
  };

  void printTables(PrintStream out) {
    out.println();
    out.println("Results (baseline: " + baselines() + ")");
    print(out, HEADER, rows());
    if (regimes().size() > 1) {
      out.println();
      out.println("Side by side (median rate, median of same-repetition ratios to the baseline)");
      print(out, sideBySideHeader(), sideBySideRows());
    }
    List<String[]> trade = tradeRows();
    if (!trade.isEmpty()) {
      out.println();
      out.println(
          "Against what teams pick instead (fsync "
              + machine.getOrDefault("fsync", "?")
              + " for ZooKeeper and etcd; redis-server in memory; 'zklock vs it': median of"
              + " same-repetition ratios)");
      print(out, TRADE_HEADER, trade);
      out.println(TRUNCATED_FSYNC + machine.getOrDefault("disk", "not measured (fsync off)"));
    }
    for (Result r : ordered) {
      for (Impl impl : r.scenario.impls) {
        for (Window w : r.list(impl)) {
          if (!w.extra().isEmpty() && r.scenario.baseline == null) {
            out.println();
            out.println(r.key() + " (" + impl.label + "):");
            w.extra().forEach((k, v) -> out.println("  " + k + ": " + num(v)));
          }
        }
      }
    }
    out.println();
    out.println("Targets (issues 6, 15 and 32)");
    print(out, TARGET_HEADER, targetRows());
  }

  static final String TRUNCATED_FSYNC =
      "≥: ZooKeeper times each fsync in whole milliseconds, dropping the fraction, so its mean is a"
          + " lower bound. This disk, timed by the bench: ";

  static final String[] TRADE_HEADER = {
    "regime",
    "library",
    "contended-10 handoffs/s",
    "zklock vs it",
    "uncontended acq/s",
    "zklock vs it",
    "fsync/op",
    "mean fsync ms",
    "fencing token",
    "holder told of loss (partition that never heals)"
  };

  /**
   * One row per lock library and regime: the two headline rates with zklock's ratio to each, and
   * what users trade for speed (fsyncs per uncontended cycle as counted by the server, fencing
   * token and loss as measured by the loss scenario of the same server regime).
   */
  List<String[]> tradeRows() {
    List<String[]> rows = new ArrayList<>();
    for (String regime : regimes()) {
      Result contended = results.get(Result.key("contended-10", regime));
      Result uncontended = results.get(Result.key("uncontended", regime));
      if (contended == null && uncontended == null) {
        continue;
      }
      Result loss = results.get(Result.key("loss", serversPart(regime)));
      for (Impl impl : Scenarios.LIBRARIES) {
        boolean any =
            (contended != null && contended.has(impl))
                || (uncontended != null && uncontended.has(impl));
        if (!any) {
          continue;
        }
        rows.add(
            new String[] {
              regimeLabel(regime),
              impl.label,
              rate(contended, impl),
              impl == Impl.ZKLOCK ? "" : vs(contended, impl),
              rate(uncontended, impl),
              impl == Impl.ZKLOCK ? "" : vs(uncontended, impl),
              uncontended == null || !uncontended.has(impl)
                  ? "-"
                  : num(Result.median(uncontended.values(impl, Window::fsyncsPerOp))),
              fsyncMillis(uncontended, impl),
              fencing(loss, impl),
              told(loss, impl)
            });
      }
    }
    return rows;
  }

  /**
   * The window's mean fsync as the server counted it. ZooKeeper counts whole milliseconds and drops
   * the fraction, so its mean is a lower bound: "≥0.02" (the run's header has the disk's own).
   */
  private static String fsyncMillis(Result uncontended, Impl impl) {
    String v = num(extra(uncontended, impl, Window.FSYNC_MS));
    return impl.server == Impl.Server.ZOOKEEPER && !v.equals("-") ? "≥" + v : v;
  }

  /** "3srv" of "3srv,1ms"; "" of "1ms". */
  static String serversPart(String regime) {
    for (String part : regime.split(",")) {
      if (part.endsWith("srv")) {
        return part;
      }
    }
    return "";
  }

  private static String rate(Result r, Impl impl) {
    return r == null || !r.has(impl) ? "-" : num(Result.median(r.values(impl, Window::value)));
  }

  private static String vs(Result r, Impl impl) {
    if (r == null || !r.has(impl) || !r.has(Impl.ZKLOCK)) {
      return "-";
    }
    return ratio(Result.median(r.pairedRatios(Impl.ZKLOCK, impl, Window::value)));
  }

  static double extra(Result r, Impl impl, String key) {
    if (r == null || !r.has(impl)) {
      return Double.NaN;
    }
    return Result.median(r.values(impl, w -> w.extra().getOrDefault(key, Double.NaN)));
  }

  private static String fencing(Result loss, Impl impl) {
    double f = extra(loss, impl, LossScenario.FENCING);
    return Double.isNaN(f) ? "-" : f > 0 ? "yes" : "no";
  }

  private static String told(Result loss, Impl impl) {
    if (loss == null || !loss.has(impl)) {
      return "-";
    }
    double toldMs = extra(loss, impl, LossScenario.TOLD_MS);
    double grantedMs = extra(loss, impl, LossScenario.GRANTED_MS);
    String granted =
        Double.isNaN(grantedMs)
            ? "other never granted"
            : "other granted at " + num(grantedMs) + " ms";
    if (Double.isNaN(toldMs)) {
      return "never (" + granted + ")";
    }
    boolean before = Double.isNaN(grantedMs) || toldMs < grantedMs;
    return (before ? "before" : "after") + " (told at " + num(toldMs) + " ms, " + granted + ")";
  }

  private String baselines() {
    List<String> b = new ArrayList<>();
    for (Result r : results.values()) {
      String entry =
          r.scenario.baseline == null ? null : r.scenario.name + "=" + r.scenario.baseline.label;
      if (entry != null && !b.contains(entry)) {
        b.add(entry);
      }
    }
    return String.join(", ", b);
  }

  static void print(PrintStream out, String[] header, List<String[]> rows) {
    int[] width = new int[header.length];
    for (int i = 0; i < header.length; i++) {
      width[i] = header[i].length();
    }
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        width[i] = Math.max(width[i], row[i].length());
      }
    }
    StringBuilder sep = new StringBuilder("|");
    for (int w : width) {
      sep.append("-".repeat(w + 2)).append('|');
    }
    out.println(line(header, width));
    out.println(sep);
    for (String[] row : rows) {
      out.println(line(row, width));
    }
  }

  private static String line(String[] cells, int[] width) {
    StringBuilder sb = new StringBuilder("|");
    for (int i = 0; i < cells.length; i++) {
      sb.append(' ').append(cells[i]).append(" ".repeat(width[i] - cells[i].length())).append(" |");
    }
    return sb.toString();
  }

  /** The markdown tables, for docs/benchmarks.md. */
  String markdown() {
    var bytes = new java.io.ByteArrayOutputStream();
    PrintStream ps = new PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8);
    print(ps, HEADER, rows());
    ps.println();
    if (regimes().size() > 1) {
      print(ps, sideBySideHeader(), sideBySideRows());
      ps.println();
    }
    List<String[]> trade = tradeRows();
    if (!trade.isEmpty()) {
      print(ps, TRADE_HEADER, trade);
      ps.println(TRUNCATED_FSYNC + machine.getOrDefault("disk", "not measured (fsync off)"));
      ps.println();
    }
    print(ps, TARGET_HEADER, targetRows());
    return bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
  }

  // ------------------------------------------------------------------ JSON

  static String q(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        default -> {
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    return sb.append('"').toString();
  }

  static String n(double v) {
    return Double.isNaN(v) || Double.isInfinite(v) ? "null" : String.format(Locale.ROOT, "%.6g", v);
  }

  /** The scenario's title, and for distinct-1000* with {@code --names} not 1,000, the count. */
  private String title(Scenario s) {
    String names = machine.get("distinct names");
    return names != null && s.name.startsWith("distinct-1000")
        ? s.title + " [" + names + "]"
        : s.title;
  }

  String json() {
    StringBuilder sb = new StringBuilder("{\n  \"machine\": {");
    String sep = "";
    for (var e : machine.entrySet()) {
      sb.append(sep).append("\n    ").append(q(e.getKey())).append(": ").append(q(e.getValue()));
      sep = ",";
    }
    sb.append("\n  },\n  \"scenarios\": [");
    sep = "";
    for (Result r : ordered) {
      Scenario s = r.scenario;
      sb.append(sep).append("\n    {\"name\": ").append(q(s.name));
      sb.append(", \"key\": ").append(q(r.key()));
      sb.append(", \"rtt\": ").append(q(r.rtt()));
      sb.append(", \"servers\": ").append(r.servers());
      sb.append(", \"fsync\": ").append(q(machine.getOrDefault("fsync", "?")));
      sb.append(", \"title\": ").append(q(title(s)));
      sb.append(", \"unit\": ").append(q(s.unit));
      sb.append(", \"higherIsBetter\": ").append(s.higherIsBetter);
      sb.append(", \"baseline\": ").append(s.baseline == null ? "null" : q(s.baseline.label));
      sb.append(", \"seconds\": ").append(n(r.seconds));
      sb.append(", \"impls\": [");
      String sep2 = "";
      for (Impl impl : s.impls) {
        sb.append(sep2).append("\n      {\"impl\": ").append(q(impl.label));
        if (r.notes.containsKey(impl)) {
          sb.append(", \"note\": ").append(q(r.notes.get(impl)));
        }
        double[] v = r.values(impl, Window::value);
        sb.append(", \"median\": ").append(n(Result.median(v)));
        sb.append(", \"min\": ").append(n(Result.min(v)));
        sb.append(", \"max\": ").append(n(Result.max(v)));
        if (s.baseline != null) {
          double[] rat = r.pairedRatios(impl, s.baseline, Window::value);
          sb.append(", \"ratioMedian\": ").append(n(Result.median(rat)));
          sb.append(", \"ratioMin\": ").append(n(Result.min(rat)));
          sb.append(", \"ratioMax\": ").append(n(Result.max(rat)));
        }
        sb.append(", \"windows\": [");
        String sep3 = "";
        for (Window w : r.list(impl)) {
          sb.append(sep3).append("{\"value\": ").append(n(w.value()));
          sb.append(", \"ops\": ").append(w.ops());
          sb.append(", \"requestsPerOp\": ").append(n(w.requestsPerOp()));
          sb.append(", \"watchEventsPerOp\": ").append(n(w.watchEventsPerOp()));
          sb.append(", \"fsyncsPerOp\": ").append(n(w.fsyncsPerOp()));
          for (var e : w.extra().entrySet()) {
            sb.append(", ").append(q(e.getKey())).append(": ").append(n(e.getValue()));
          }
          sb.append('}');
          sep3 = ", ";
        }
        sb.append("]}");
        sep2 = ",";
      }
      sb.append("\n    ]}");
      sep = ",";
    }
    sb.append("\n  ],\n  \"anatomy\": [");
    sep = "";
    for (var e : anatomy.entrySet()) {
      sb.append(sep).append("\n    {\"pattern\": ").append(q(e.getKey().trim()));
      sb.append(", \"cyclesPerSecond\": ").append(n(e.getValue()[0]));
      sb.append(", \"requestsPerOp\": ").append(n(e.getValue()[1]));
      sb.append(", \"watchEventsPerOp\": ").append(n(e.getValue()[2]));
      if (e.getValue().length > 3) {
        sb.append(", \"roundTripsEstimate\": ").append(n(e.getValue()[3]));
      }
      sb.append('}');
      sep = ",";
    }
    sb.append("\n  ],\n  \"targets\": [");
    sep = "";
    for (Target t : targets) {
      if (!results.containsKey(t.scenario)) {
        continue;
      }
      double m = t.measured(results);
      sb.append(sep).append("\n    {\"target\": ").append(q(t.text));
      sb.append(", \"scenario\": ").append(q(t.scenario));
      sb.append(", \"measured\": ").append(n(m));
      sb.append(", \"met\": ").append(Double.isNaN(m) ? "null" : String.valueOf(t.met(m)));
      sb.append(", \"fairQueueFloorRatio\": ").append(n(t.floorRatio(results, Impl.FLOOR)));
      sb.append(", \"rawZooKeeperRatio\": ").append(n(t.floorRatio(results, Impl.RAW)));
      sb.append('}');
      sep = ",";
    }
    sb.append("\n  ]\n}\n");
    return sb.toString();
  }

  // ------------------------------------------------------------------ SVG

  private static final Map<Impl, String> COLOR =
      Map.of(
          Impl.ZKLOCK, "#2b6cb0",
          Impl.CURATOR, "#dd6b20",
          Impl.NAIVE, "#a0aec0",
          Impl.RAW, "#38a169",
          Impl.FLOOR, "#805ad5",
          Impl.FAST_FLOOR, "#553c9a",
          Impl.REDISSON_FAIR, "#e53e3e",
          Impl.REDISSON_FENCED, "#c05621",
          Impl.REDISSON, "#f56565",
          Impl.ETCD, "#319795");

  /**
   * Two panels: each throughput scenario's median same-repetition ratio to its baseline (whiskers:
   * min..max), and watch events per acquisition on a log scale.
   */
  String svg() {
    int left = 250;
    int barW = 420;
    int barH = 12;
    StringBuilder body = new StringBuilder();
    int y = 66;
    double scaleMax = 3.0;
    body.append(text(10, 40, "Throughput relative to the scenario's baseline (= 1.0)", 13, "bold"));
    body.append(
        text(10, 54, "bars: median of same-repetition ratios; whiskers: min..max", 11, "italic"));
    for (Result r : ordered) {
      Scenario s = r.scenario;
      if (!s.higherIsBetter || s.baseline == null) {
        continue;
      }
      body.append(
          text(
              10,
              y + 12,
              s.name + ", " + regimeLabel(r.regime) + " (vs " + s.baseline.label + ")",
              12,
              "bold"));
      y += 18;
      for (Impl impl : s.impls) {
        double[] rat = r.pairedRatios(impl, s.baseline, Window::value);
        body.append(text(30, y + barH - 2, impl.label, 11, "normal"));
        if (rat.length > 0) {
          double m = Result.median(rat);
          int w = (int) Math.round(Math.min(m, scaleMax) / scaleMax * barW);
          body.append(
              String.format(
                  Locale.ROOT,
                  "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>",
                  left,
                  y,
                  Math.max(w, 1),
                  barH,
                  COLOR.get(impl)));
          int x0 = left + (int) Math.round(Math.min(Result.min(rat), scaleMax) / scaleMax * barW);
          int x1 = left + (int) Math.round(Math.min(Result.max(rat), scaleMax) / scaleMax * barW);
          body.append(
              String.format(
                  Locale.ROOT,
                  "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>",
                  x0,
                  y + barH / 2,
                  x1,
                  y + barH / 2));
          body.append(
              text(
                  left + Math.max(w, x1 - left) + 6,
                  y + barH - 2,
                  String.format(Locale.ROOT, "%.2fx", m),
                  11,
                  "normal"));
        } else {
          body.append(text(left, y + barH - 2, "skipped", 11, "italic"));
        }
        y += barH + 4;
      }
      for (Target t : targets) {
        if (t.scenario.equals(r.key()) && t.vs == s.baseline && !Double.isNaN(t.goal)) {
          int gx = left + (int) Math.round(t.goal / scaleMax * barW);
          body.append(
              String.format(
                  Locale.ROOT,
                  "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#c53030\""
                      + " stroke-dasharray=\"3,2\"/>",
                  gx,
                  y - s.impls.size() * (barH + 4) - 2,
                  gx,
                  y));
        }
      }
      y += 8;
    }
    // axis
    for (int i = 0; i <= 6; i++) {
      double v = i * 0.5;
      int x = left + (int) Math.round(v / scaleMax * barW);
      body.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ccc\"/>",
              x,
              y,
              x,
              y + 5));
      body.append(text(x - 8, y + 17, String.format(Locale.ROOT, "%.1f", v), 10, "normal"));
    }
    body.append(
        text(
            left,
            y + 32,
            "red dashes: the issue's target against this baseline (ratios above 3.0 are cut)",
            10,
            "italic"));
    y += 60;

    body.append(
        text(10, y, "Watch events per acquisition (server-counted, log scale)", 13, "bold"));
    y += 12;
    double logMax = 3; // 1000
    for (Result r : ordered) {
      Scenario s = r.scenario;
      if (!s.name.startsWith("contended") && !s.name.equals("herd")) {
        continue;
      }
      String label =
          (s.name.equals("herd")
                  ? "herd (" + (int) median(r, Impl.ZKLOCK, "sessions") + " sessions)"
                  : s.name)
              + ", "
              + regimeLabel(r.regime);
      body.append(text(10, y + 12, label, 12, "bold"));
      y += 18;
      for (Impl impl : s.impls) {
        body.append(text(30, y + barH - 2, impl.label, 11, "normal"));
        double[] ev = r.values(impl, Window::watchEventsPerOp);
        if (ev.length > 0) {
          double m = Result.median(ev);
          double lg = Math.log10(Math.max(m, 0.1)) + 1; // 0.1 -> 0
          int w = (int) Math.round(Math.min(lg, logMax + 1) / (logMax + 1) * barW);
          body.append(
              String.format(
                  Locale.ROOT,
                  "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>",
                  left,
                  y,
                  Math.max(w, 1),
                  barH,
                  COLOR.get(impl)));
          body.append(text(left + w + 6, y + barH - 2, num(m), 11, "normal"));
        }
        y += barH + 4;
      }
      y += 8;
    }
    y += 10;
    int height = y;
    return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"760\" height=\""
        + height
        + "\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"
        + text(10, 20, "zklock benchmarks: " + machine.getOrDefault("date", ""), 15, "bold")
        + body
        + "</svg>\n";
  }

  private static double median(Result r, Impl impl, String key) {
    return Result.median(r.values(impl, w -> w.extra().getOrDefault(key, Double.NaN)));
  }

  private static String text(int x, int y, String s, int size, String style) {
    String weight = style.equals("bold") ? " font-weight=\"bold\"" : "";
    String italic = style.equals("italic") ? " font-style=\"italic\"" : "";
    return String.format(
        Locale.ROOT,
        "<text x=\"%d\" y=\"%d\" font-size=\"%d\"%s%s>%s</text>%n",
        x,
        y,
        size,
        weight,
        italic,
        s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"));
  }

  void write(Path json, Path svg) throws IOException {
    if (json != null) {
      mkdirs(json);
      Files.writeString(json, json());
    }
    if (svg != null) {
      mkdirs(svg);
      Files.writeString(svg, svg());
    }
  }

  private static void mkdirs(Path p) throws IOException {
    Path parent = p.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
  }
}
