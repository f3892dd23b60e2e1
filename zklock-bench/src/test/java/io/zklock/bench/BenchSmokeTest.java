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
    assertThat(printed).contains("Targets (issue 6)");
    assertThat(Files.readString(json)).contains("\"scenarios\"").contains("\"targets\"");
    assertThat(Files.readString(svg)).startsWith("<svg").endsWith("</svg>\n");
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
