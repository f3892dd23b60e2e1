package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoCommandTest {

  @Test
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
        .contains("was REJECTED by the ledger; its handle reported the loss")
        .contains("SIGKILL worker-")
        .contains("SIGSTOP worker-")
        .contains("rejoined the ensemble")
        .containsPattern("handoff latency +p50 [0-9.]+ ms, p99 [0-9.]+ ms")
        .containsPattern("watch events +[0-9.]+ per acquisition");
    String page = Files.readString(html, StandardCharsets.UTF_8);
    assertThat(page).contains("<svg", "ledger-0", "SIGSTOP", "stale write by");
  }
}
