package io.zklock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness's peers on a tiny configuration (a class of its own so that it runs beside {@link
 * BenchSmokeTest} in the other test fork).
 *
 * <p>Three minutes a test, not the build's default minute: a whole run starts servers (ZooKeeper
 * with fsync on, redis-server, etcd) and measures every scenario, 20 to 60 s on a loaded machine.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class BenchPeersSmokeTest {

  /**
   * The peers on their real servers, when redis-server and etcd are installed: the servers start,
   * every peer completes cycles and handoffs, the fenced and etcd locks hand out increasing tokens
   * and the plain RLock none. Where a server is absent, the run says how to install it.
   */
  @Test
  void peers_onTheirOwnServers_measuredOrSkippedWithTheInstallHint(@TempDir Path dir)
      throws Exception {
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
              "--scenarios",
              "uncontended,contended-10",
              "--impls",
              "zklock,redisson-fair,redisson-fenced,redisson-rlock,etcd"
            });
    // the loss scenario waits two session lengths for a holder that is never told (Redisson's):
    // the fenced lock, the plain RLock and etcd cover both answers of its token column
    BenchConfig lossConfig =
        BenchConfig.parse(
            new String[] {
              "--quick",
              "--reps",
              "1",
              "--scenarios",
              "loss",
              "--impls",
              "zklock,redisson-fenced,redisson-rlock,etcd"
            });

    Report report = BenchMain.execute(config, out);
    Report lossReport = BenchMain.execute(lossConfig, out);

    String printed = bytes.toString(StandardCharsets.UTF_8);
    assertThat(report).as("the run produced a report; output:%n%s", printed).isNotNull();
    assertThat(lossReport).as("the loss run produced a report; output:%n%s", printed).isNotNull();
    boolean redis = PeerServer.onPath("redis-server").isPresent();
    boolean etcd = PeerServer.onPath("etcd").isPresent();
    if (!redis) {
      assertThat(printed).contains("apt-get install -y redis-server");
    }
    if (!etcd) {
      assertThat(printed).contains("apt-get install -y etcd-server");
    }
    for (Impl impl : Scenarios.PEERS) {
      boolean installed = impl.server == Impl.Server.REDIS ? redis : etcd;
      for (String scenario : new String[] {"uncontended", "contended-10"}) {
        Result r = report.results.get(scenario);
        if (!installed) {
          assertThat(r.has(impl)).as("%s/%s skipped", scenario, impl).isFalse();
          continue;
        }
        assertThat(r.notes.get(impl)).as("%s/%s; output:%n%s", scenario, impl, printed).isNull();
        assertThat(r.list(impl).get(0).ops()).as("%s/%s did some", scenario, impl).isPositive();
      }
      if (installed && impl != Impl.REDISSON_FAIR) {
        double fenced =
            lossReport.results.get("loss").list(impl).get(0).extra().get(LossScenario.FENCING);
        assertThat(fenced)
            .as("%s: a token with every grant, strictly increasing", impl)
            .isEqualTo(impl == Impl.REDISSON_FENCED || impl == Impl.ETCD ? 1.0 : 0.0);
      }
    }
  }
}
