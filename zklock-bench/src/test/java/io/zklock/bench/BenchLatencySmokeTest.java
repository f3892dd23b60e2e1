package io.zklock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness's latency mode on a tiny configuration (a class of its own so that it runs beside
 * {@link BenchSmokeTest} in the other test fork).
 *
 * <p>Three minutes a test, not the build's default minute: a whole run starts servers (ZooKeeper
 * with fsync on, redis-server, etcd) and measures every scenario, 20 to 60 s on a loaded machine.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class BenchLatencySmokeTest {

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
        if (Scenarios.PEERS.contains(impl) && !r.has(impl)) {
          assertThat(r.notes.get(impl)).as("%s/%s", r.key(), impl).startsWith("not supported");
          continue; // the peer's server is not installed
        }
        assertThat(r.notes.get(impl)).as("%s/%s; output:%n%s", r.key(), impl, printed).isNull();
        assertThat(r.list(impl)).as("%s/%s measured one window", r.key(), impl).hasSize(1);
        assertThat(r.list(impl).get(0).ops())
            .as("%s/%s did some operations", r.key(), impl)
            .isPositive();
      }
    }
    double seconds = config.measureSeconds;
    double bound = (seconds / 0.004 + 1) / seconds;
    for (Impl impl : Scenarios.WITH_PEERS) {
      Result r = report.results.get("uncontended@4ms");
      if (Scenarios.PEERS.contains(impl) && !r.has(impl)) {
        continue; // the peer's server is not installed
      }
      assertThat(r.list(impl).get(0).value())
          .as("%s: at most one uncontended cycle per two 4 ms round trips", impl)
          .isLessThanOrEqualTo(bound);
    }
    assertThat(printed).contains("Side by side").contains("regime: 4ms RTT");
    assertThat(Files.readString(json))
        .contains("\"key\": \"contended-10@4ms\"")
        .contains("\"impl\": \"fair-floor\"");
  }
}
