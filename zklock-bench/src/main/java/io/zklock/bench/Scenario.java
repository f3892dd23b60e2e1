package io.zklock.bench;

import java.util.List;

/**
 * One benchmark scenario: the same code for every implementation it lists. {@link #measure} runs
 * one window (fresh sessions, warm-up, measurement, teardown) of one implementation.
 */
abstract class Scenario {
  final String name;
  final String title;
  final String unit;
  final boolean higherIsBetter;
  final List<Impl> impls;
  final Impl baseline;

  Scenario(
      String name,
      String title,
      String unit,
      boolean higherIsBetter,
      List<Impl> impls,
      Impl baseline) {
    this.name = name;
    this.title = title;
    this.unit = unit;
    this.higherIsBetter = higherIsBetter;
    this.impls = impls;
    this.baseline = baseline;
  }

  /** Repetitions of this scenario (heavy ones may run fewer than the configured count). */
  int reps(BenchConfig config) {
    return config.reps;
  }

  /** Whether to run one unrecorded round of every implementation first (JIT, directories). */
  boolean warmRound() {
    return true;
  }

  /**
   * Whether the full run measures this scenario again with added latency. Scenarios whose figure is
   * a count (watch events, threads, heap) or that the server's CPU bounds say the same in both
   * regimes; {@code --scenarios} runs them in every regime anyway.
   */
  boolean inLatencyRegime() {
    return true;
  }

  /**
   * Whether the scenario runs in a regime with added latency at all (false: once per server regime,
   * directly connected, even when {@code --scenarios} names it).
   */
  boolean anyLatency() {
    return true;
  }

  abstract Window measure(Impl impl, Env env) throws Exception;
}
