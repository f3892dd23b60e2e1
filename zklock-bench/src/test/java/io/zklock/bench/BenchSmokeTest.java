package io.zklock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the whole harness on a tiny configuration so it cannot rot: a row per scenario and
 * implementation, sane values, the files written. It never checks the targets: the benchmark does
 * not fail the build.
 */
class BenchSmokeTest {

  @Test
  void quickRun_tinyConfiguration_producesARowPerScenarioAndImplementation(@TempDir Path dir)
      throws Exception {
    Path json = dir.resolve("bench.json");
    Path svg = dir.resolve("bench.svg");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    BenchConfig config =
        BenchConfig.parse(
            new String[] {
              "--quick",
              "--reps",
              "1",
              "--seconds",
              "0.2",
              "--warmup",
              "0.05",
              "--herd",
              "12",
              "--waiters",
              "200",
              "--json",
              json.toString(),
              "--svg",
              svg.toString()
            });

    Report report = BenchMain.execute(config, out);

    String printed = bytes.toString(StandardCharsets.UTF_8);
    assertThat(report).as("the run produced a report; output:%n%s", printed).isNotNull();
    for (Scenario s : Scenarios.all()) {
      Result r = report.results.get(s.name);
      assertThat(r).as("scenario %s ran", s.name).isNotNull();
      for (Impl impl : s.impls) {
        String note = r.notes.get(impl);
        if (note != null && note.startsWith("not supported")) {
          continue; // e.g. zklock's semaphore before it lands
        }
        assertThat(note).as("%s/%s did not fail; output:%n%s", s.name, impl, printed).isNull();
        assertThat(r.list(impl)).as("%s/%s measured one window", s.name, impl).hasSize(1);
        Window w = r.list(impl).get(0);
        assertThat(w.value())
            .as("%s/%s value is a positive finite number", s.name, impl)
            .isPositive()
            .isFinite();
        assertThat(w.ops()).as("%s/%s did some operations", s.name, impl).isPositive();
      }
    }
    assertThat(report.anatomy).as("the anatomy profile ran").isNotEmpty();
    Window herdNaive = report.results.get("herd").list(Impl.NAIVE).get(0);
    Window herdZk = report.results.get("herd").list(Impl.ZKLOCK).get(0);
    assertThat(herdNaive.watchEventsPerOp())
        .as("the naive lock wakes the herd: more watch events per acquisition than zklock")
        .isGreaterThan(herdZk.watchEventsPerOp());
    assertThat(printed).contains("Targets (issues 6 and 15)");
    assertThat(Files.readString(json)).contains("\"scenarios\"").contains("\"targets\"");
    assertThat(Files.readString(svg)).startsWith("<svg").endsWith("</svg>\n");
  }

  /**
   * The latency mode: every session of every implementation behind the proxy, both regimes in one
   * report. The bound is the mechanism's: whatever the implementation, an uncontended acquire and
   * release needs an acknowledged create and an acknowledged delete, two round trips of at least 4
   * ms here (the proxy delays each direction by 2 ms and never less), so one thread completes at
   * most one cycle per 4 ms, plus the one in flight when the window opened.
   */
  @Test
  void rtt_everySessionBehindTheProxy_bothRegimesSideBySide(@TempDir Path dir) throws Exception {
    Path json = dir.resolve("bench.json");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    BenchConfig config =
        BenchConfig.parse(
            new String[] {
              "--quick",
              "--rtt",
              "0,4ms",
              "--reps",
              "1",
              "--seconds",
              "0.3",
              "--warmup",
              "0.05",
              "--scenarios",
              "uncontended,contended-10",
              "--json",
              json.toString()
            });

    Report report = BenchMain.execute(config, out);

    String printed = bytes.toString(StandardCharsets.UTF_8);
    assertThat(report).as("the run produced a report; output:%n%s", printed).isNotNull();
    assertThat(report.results.keySet())
        .containsExactly("uncontended", "contended-10", "uncontended@4ms", "contended-10@4ms");
    for (Result r : report.results.values()) {
      for (Impl impl : r.scenario.impls) {
        assertThat(r.notes.get(impl)).as("%s/%s; output:%n%s", r.key(), impl, printed).isNull();
        assertThat(r.list(impl)).as("%s/%s measured one window", r.key(), impl).hasSize(1);
        assertThat(r.list(impl).get(0).ops())
            .as("%s/%s did some operations", r.key(), impl)
            .isPositive();
      }
    }
    double seconds = config.measureSeconds;
    double bound = (seconds / 0.004 + 1) / seconds;
    for (Impl impl : Scenarios.ALL) {
      assertThat(report.results.get("uncontended@4ms").list(impl).get(0).value())
          .as("%s: at most one uncontended cycle per two 4 ms round trips", impl)
          .isLessThanOrEqualTo(bound);
    }
    assertThat(printed).contains("Side by side").contains("regime: 4ms round trip");
    assertThat(Files.readString(json))
        .contains("\"key\": \"contended-10@4ms\"")
        .contains("\"impl\": \"fair-floor\"");
  }

  @Test
  void parse_rtt_acceptsDurationsAndRejectsNonsense() {
    assertThat(BenchConfig.parse(new String[] {"--rtt", "1ms"}).rtts)
        .containsExactly(java.time.Duration.ofMillis(1));
    assertThat(BenchConfig.parse(new String[] {"--rtt", "0,500us"}).rtts)
        .containsExactly(java.time.Duration.ZERO, java.time.Duration.ofNanos(500_000));
    assertThat(BenchConfig.parse(new String[] {}).rtts)
        .as("the full run: both regimes")
        .containsExactly(java.time.Duration.ZERO, java.time.Duration.ofMillis(1));
    assertThat(BenchConfig.parse(new String[] {"--quick"}).rtts)
        .containsExactly(java.time.Duration.ZERO);
    assertThat(BenchConfig.parse(new String[] {"--rtt", "1ms", "--quick"}).rtts)
        .containsExactly(java.time.Duration.ofMillis(1));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int code =
        BenchMain.run(
            new String[] {"--rtt", "fast"}, new PrintStream(bytes, true, StandardCharsets.UTF_8));
    assertThat(code).isEqualTo(2);
    assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("--rtt").contains("'fast'");
  }

  @Test
  void run_unknownOption_returnsTwoAndPrintsUsage() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int code =
        BenchMain.run(
            new String[] {"--fast"}, new PrintStream(bytes, true, StandardCharsets.UTF_8));
    assertThat(code).isEqualTo(2);
    assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("unknown option").contains("usage");
  }
}
