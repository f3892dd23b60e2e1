package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.testkit.ServerFreePhase;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 12, case 2: no grant on a dead node. A request waiting behind a holder of its own session
 * hears of the holder's node deletion when the session expires; that deletion is no handoff. Each
 * kind runs its trials in a fresh JVM (a cold JVM is where the race showed), with its own server.
 */
@Tag(ServerFreePhase.SERVER_TAG) // each trial JVM starts its own server
class SameSessionExpiryTest {

  @ParameterizedTest(name = "{0}: {1} trials")
  @CsvSource({"mutex, 50", "read, 10", "write, 10", "semaphore, 10", "simple, 10"})
  void sameSessionWaiter_sessionExpires_isGrantedOnlyOnALiveNodeOfTheNewSession(
      String kind, int trials) throws Exception {
    Process p =
        new ProcessBuilder(SameSessionExpiryTrials.command(kind, trials))
            .redirectError(Redirect.DISCARD)
            .start();
    List<String> out = new ArrayList<>();
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        out.add(line);
      }
    }
    boolean ended = p.waitFor(240, TimeUnit.SECONDS);
    if (!ended) {
      p.destroyForcibly();
    }
    assertThat(ended).as("the trials ended").isTrue();
    assertThat(out)
        .as("trials where the waiter was handed a dead lock, or none")
        .filteredOn(l -> l.startsWith("BAD"))
        .isEmpty();
    assertThat(out).as("summary").contains("RESULT " + kind + " " + trials + " 0");
    assertThat(p.exitValue()).isZero();
  }
}
