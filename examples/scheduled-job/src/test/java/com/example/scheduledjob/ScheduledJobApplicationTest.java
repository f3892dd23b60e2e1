package com.example.scheduledjob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.LockHandle;
import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The service on an embedded ZooKeeper: while another client holds the jobs' locks, neither job
 * runs; once it lets go, both run under their locks; the zklock health is UP and the zklock meters
 * count what happened, through Actuator's HTTP endpoints.
 */
class ScheduledJobApplicationTest {
  private final HttpClient http = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();

  @Test
  void jobsRunOnlyUnderTheirLocks_healthUp_metricsCount() throws Exception {
    try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.standalone().start();
        ZkLocks other = ZkLocks.builder(zk.connectString()).clientName("other-instance").build()) {
      // Given another instance holding both jobs' locks
      LockHandle report = other.simpleLock("shedlock/report").acquire();
      LockHandle settlement = other.mutex("settlement").acquire();

      try (ConfigurableApplicationContext app =
          new SpringApplicationBuilder(ScheduledJobApplication.class)
              .run(
                  "--zklock.connect-string=" + zk.connectString(),
                  "--example.report.every=100ms",
                  "--example.report.at-least=PT0S",
                  "--example.settlement.every=100ms",
                  "--server.port=0")) {
        String base = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port");
        ReportJob reportJob = app.getBean(ReportJob.class);
        Ledger ledger = app.getBean(Ledger.class);

        // When both jobs have found their lock busy, several ticks each
        await("the report job finds its lock busy three times")
            .atMost(Duration.ofSeconds(30))
            .until(() -> count(base, "shedlock/report", "busy") + count(base, "shedlock/report", "timeout") >= 3);
        await("the settlement job finds its lock busy three times")
            .atMost(Duration.ofSeconds(30))
            .until(() -> count(base, "settlement", "busy") + count(base, "settlement", "timeout") >= 3);
        // Then neither ran
        assertThat(reportJob.runs()).as("report runs while another instance holds it").isZero();
        assertThat(ledger.entries()).as("settlements while another instance holds it").isZero();

        // When the other instance lets go
        report.release();
        settlement.release();

        // Then both run, under their locks (ReportJob asserts ShedLock's lock; each grant counted)
        await("two runs of the report job")
            .atMost(Duration.ofSeconds(30))
            .until(() -> reportJob.runs() >= 2);
        await("two settlements").atMost(Duration.ofSeconds(30)).until(() -> ledger.entries() >= 2);
        assertThat(count(base, "shedlock/report", "granted"))
            .as("grants of shedlock/report")
            .isGreaterThanOrEqualTo(2);
        assertThat(count(base, "settlement", "granted"))
            .as("grants of settlement")
            .isGreaterThanOrEqualTo(2);

        // And Actuator's health shows the zklock session UP
        JsonNode health = get(base + "/actuator/health");
        assertThat(health.path("status").asText()).as("health: " + health).isEqualTo("UP");
        assertThat(health.path("components").path("zklock").path("status").asText())
            .as("the zklock indicator: " + health)
            .isEqualTo("UP");
      }
    }
  }

  /** A counter of Actuator's metrics endpoint, for one lock name; 0 before its first count. */
  /** How many requests of {@code lock} ended with {@code outcome}: the wait timer's count. */
  private double count(String base, String lock, String outcome) throws Exception {
    String meter = "zklock.lock.wait";
    String tags =
        "?tag="
            + URLEncoder.encode("lock:" + lock, StandardCharsets.UTF_8)
            + "&tag="
            + URLEncoder.encode("outcome:" + outcome, StandardCharsets.UTF_8);
    HttpResponse<String> r = send(base + "/actuator/metrics/" + meter + tags);
    if (r.statusCode() == 404) {
      return 0; // no such meter yet
    }
    assertThat(r.statusCode()).as(meter + ": " + r.body()).isEqualTo(200);
    for (JsonNode m : json.readTree(r.body()).path("measurements")) {
      if (m.path("statistic").asText().equals("COUNT")) {
        return m.path("value").asDouble();
      }
    }
    throw new AssertionError(meter + " has no COUNT: " + r.body());
  }

  private JsonNode get(String url) throws Exception {
    HttpResponse<String> r = send(url);
    assertThat(r.statusCode()).as(url + ": " + r.body()).isEqualTo(200);
    return json.readTree(r.body());
  }

  private HttpResponse<String> send(String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
