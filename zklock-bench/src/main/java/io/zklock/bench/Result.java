package io.zklock.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** The windows of one scenario, by implementation and repetition, and their summaries. */
final class Result {
  final Scenario scenario;

  /** "" with no added latency, else the round trip every session was behind ("1ms"). */
  final String regime;

  final int reps;
  final Map<Impl, Window[]> windows = new EnumMap<>(Impl.class);
  final Map<Impl, String> notes = new EnumMap<>(Impl.class);
  double seconds;

  Result(Scenario scenario, String regime, int reps) {
    this.scenario = scenario;
    this.regime = regime;
    this.reps = reps;
    for (Impl i : scenario.impls) {
      windows.put(i, new Window[reps]);
    }
  }

  /** The scenario's name, with "@" and the regime when latency was added: "contended-10@1ms". */
  String key() {
    return key(scenario.name, regime);
  }

  /** ZooKeeper's server count in this regime (1: standalone). */
  int servers() {
    for (String part : regime.split(",")) {
      if (part.endsWith("srv")) {
        return Integer.parseInt(part.substring(0, part.length() - 3));
      }
    }
    return 1;
  }

  /** The added round trip ("0", "1ms"). */
  String rtt() {
    for (String part : regime.split(",")) {
      if (!part.isEmpty() && !part.endsWith("srv")) {
        return part;
      }
    }
    return "0";
  }

  static String key(String scenario, String regime) {
    return regime.isEmpty() ? scenario : scenario + "@" + regime;
  }

  boolean has(Impl impl) {
    return values(impl, Window::value).length > 0;
  }

  List<Window> list(Impl impl) {
    List<Window> out = new ArrayList<>();
    for (Window w : windows.getOrDefault(impl, new Window[0])) {
      if (w != null) {
        out.add(w);
      }
    }
    return out;
  }

  double[] values(Impl impl, java.util.function.ToDoubleFunction<Window> f) {
    return list(impl).stream().mapToDouble(f).toArray();
  }

  /** Ratios value(impl)/value(vs) of the windows measured side by side in the same repetition. */
  double[] pairedRatios(Impl impl, Impl vs, java.util.function.ToDoubleFunction<Window> f) {
    Window[] a = windows.get(impl);
    Window[] b = windows.get(vs);
    if (a == null || b == null) {
      return new double[0];
    }
    List<Double> r = new ArrayList<>();
    for (int i = 0; i < reps; i++) {
      if (a[i] != null && b[i] != null && f.applyAsDouble(b[i]) != 0) {
        r.add(f.applyAsDouble(a[i]) / f.applyAsDouble(b[i]));
      }
    }
    return r.stream().mapToDouble(Double::doubleValue).toArray();
  }

  static double median(double[] v) {
    if (v.length == 0) {
      return Double.NaN;
    }
    double[] s = v.clone();
    Arrays.sort(s);
    int m = s.length / 2;
    return s.length % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2;
  }

  static double min(double[] v) {
    return Arrays.stream(v).min().orElse(Double.NaN);
  }

  static double max(double[] v) {
    return Arrays.stream(v).max().orElse(Double.NaN);
  }
}
