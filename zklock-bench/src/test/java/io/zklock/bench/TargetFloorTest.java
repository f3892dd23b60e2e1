package io.zklock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A ratio target is reported beside the same ratio for the two ZooKeeper floors of its run, so a
 * reader sees whether any ZooKeeper lock could have met it there.
 */
class TargetFloorTest {

  private static Result uncontendedAt1ms(Map<Impl, double[]> rates) {
    Scenario s =
        new Scenario(
            "uncontended", "test", "acq/s", true, List.copyOf(rates.keySet()), Impl.CURATOR) {
          @Override
          Window measure(Impl impl, Env env) {
            throw new UnsupportedOperationException();
          }
        };
    Result r = new Result(s, "1ms", 2);
    rates.forEach(
        (impl, v) -> {
          for (int i = 0; i < v.length; i++) {
            r.windows.get(impl)[i] = Window.of(v[i], 100, 3, 0);
          }
        });
    return r;
  }

  private static Target target(String scenario, Impl vs) {
    return Target.all().stream()
        .filter(t -> t.scenario.equals(scenario) && t.vs == vs)
        .findFirst()
        .orElseThrow();
  }

  @Test
  void aTargetTheFloorsMissTooIsMarkedBelow_andTheRatiosAreSameRepetitionMedians() {
    Result r =
        uncontendedAt1ms(
            new java.util.LinkedHashMap<>(
                Map.of(
                    Impl.ZKLOCK, new double[] {200, 180},
                    Impl.FLOOR, new double[] {190, 200},
                    Impl.RAW, new double[] {210, 240},
                    Impl.REDISSON_FAIR, new double[] {300, 300})));
    Map<String, Result> results = Map.of(r.key(), r);
    Target vsRedisson = target("uncontended@1ms", Impl.REDISSON_FAIR);

    assertThat(vsRedisson.floorRatio(results, Impl.FLOOR))
        .isEqualTo((190 / 300.0 + 200 / 300.0) / 2);
    assertThat(vsRedisson.floorRatio(results, Impl.RAW)).isEqualTo(0.75);

    Report report = new Report(results, List.of(vsRedisson), Map.of(), Map.of());
    assertThat(report.targetRows())
        .singleElement()
        .satisfies(
            row ->
                assertThat(row)
                    .containsExactly(
                        vsRedisson.text,
                        "0.63x redisson-fair",
                        "MISSED",
                        "0.65x (below)",
                        "0.75x"));
  }

  @Test
  void aTargetAgainstAFloorItself_orNotMeasured_hasNoFloorRatio() {
    Result r =
        uncontendedAt1ms(
            new java.util.LinkedHashMap<>(
                Map.of(
                    Impl.ZKLOCK, new double[] {200, 180}, Impl.CURATOR, new double[] {100, 100})));
    Map<String, Result> results = Map.of(r.key(), r);
    Target vsCurator = target("uncontended@1ms", Impl.CURATOR);
    assertThat(vsCurator.floorRatio(results, Impl.FLOOR)).isNaN();
    assertThat(Report.floorCell(Double.NaN, vsCurator)).isEqualTo("-");
    assertThat(Report.floorCell(1.5, vsCurator)).isEqualTo("1.50x");
  }
}
