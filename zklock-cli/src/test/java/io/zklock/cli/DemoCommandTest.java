package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class DemoCommandTest {

  // The demo starts six JVMs (three ZooKeeper servers, three workers) before its 12 s run and the
  // fault schedule's end: 16-23 s in CI runs. Beside other builds (load 15-20 on two cores)
  // the starts alone took 40 s of the default minute (the ensemble's quorum 18 s, the workers'
  // hellos 22 s) and the test timed out with the run under way and nothing wrong. The command
  // bounds its own waits (quorum 60 s, workers 2 min, the run its duration + 3 min) and ends by
  // itself; three minutes are three times the minute that loaded run went past.
  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void shortDemo_withAllFaults_ledgerConsistent_staleWriteRejected_lossReported(@TempDir Path dir)
      throws Exception {
    Path html = dir.resolve("timeline.html");

    Cli.Result r =
        Cli.run(
            "demo",
            "--duration",
            "12s",
            "--workers",
            "3",
            "--progress",
            "plain",
            "--report",
            html.toString());

    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out())
        .as(r.toString())
        .contains("ledger check       CONSISTENT")
        .containsPattern("[1-9][0-9]* stale write\\(s\\) rejected")
        .contains("was REJECTED by the ledger")
        .containsPattern("worker-\\d+'s handle reported the loss of ledger-\\d")
        .contains("SIGKILL worker-")
        .contains("SIGSTOP worker-")
        .contains("rejoined the ensemble")
        .containsPattern("handoff latency +p50 [0-9.]+ ms, p99 [0-9.]+ ms")
        .containsPattern("watch events +[0-9.]+ per acquisition");
    String page = Files.readString(html, StandardCharsets.UTF_8);
    assertThat(page).contains("<svg", "ledger-0", "SIGSTOP", "stale write by");
    java.util.regex.Matcher line =
        java.util.regex.Pattern.compile(
                "(\\d+\\.\\d\\d)s  (worker-\\d+)'s late write with token (\\d+) was REJECTED")
            .matcher(r.out());
    assertThat(line.find()).as(r.out()).isTrue();
    assertThat(page)
        .as("the timeline's tooltip gives the report's time for the stale write")
        .containsPattern(
            "stale write by "
                + line.group(2)
                + " with token "
                + line.group(3)
                + " rejected at +"
                + java.util.regex.Pattern.quote(line.group(1))
                + "s");
  }
}
