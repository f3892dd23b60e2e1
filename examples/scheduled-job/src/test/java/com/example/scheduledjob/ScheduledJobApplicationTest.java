package com.example.scheduledjob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.zklock.LockHandle;
import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import io.zklock.testkit.FaultProxy;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
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

  @Test
  void zooKeeperAway_eachJobLogsOneLinePerTick_noStackTrace_quietClient_endpointExposed()
      throws Exception {
    try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.standalone().start();
        FaultProxy proxy = FaultProxy.start(zk.connectString());
        ConfigurableApplicationContext app =
            new SpringApplicationBuilder(ScheduledJobApplication.class)
                .run(
                    "--zklock.connect-string=" + proxy.connectString(),
                    "--zklock.session-timeout=30s", // the outage stays shorter than the session
                    "--example.report.every=100ms",
                    "--example.report.at-least=PT0S",
                    "--example.settlement.every=100ms",
                    "--server.port=0")) {
      String base = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port");
      Ledger ledger = app.getBean(Ledger.class);
      await("a settlement").atMost(Duration.ofSeconds(30)).until(() -> ledger.entries() >= 1);
      JsonNode locks = get(base + "/actuator/zklock");
      assertThat(locks.path("sessionState").asText())
          .as("/actuator/zklock, exposed: " + locks)
          .isEqualTo("CONNECTED");
      assertThat(LoggerFactory.getLogger("org.apache.zookeeper.ZooKeeper").isInfoEnabled())
          .as("ZooKeeper's client environment (about 20 INFO lines at its first connection)")
          .isFalse();

      // When ZooKeeper is away
      Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
      ListAppender<ILoggingEvent> away = new ListAppender<>();
      away.start();
      root.addAppender(away);
      try {
        proxy.refuse();
        await("ticks while ZooKeeper is away")
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    count(away, "settlement skipped: ") >= 3
                        && count(away, "ShedLock 'report' not taken") >= 3);
        proxy.pass();
      } finally {
        root.detachAppender(away);
      }

      // Then each tick logged one line: no stack trace, no report of the scheduler's
      assertThat(away.list)
          .as("what was logged while ZooKeeper was away")
          .allSatisfy(
              e -> {
                assertThat(e.getThrowableProxy()).as(e.getFormattedMessage()).isNull();
                assertThat(e.getFormattedMessage())
                    .doesNotContain("Unexpected error occurred in scheduled task");
              });
      await("settling again once ZooKeeper is back")
          .atMost(Duration.ofSeconds(60))
          .until(() -> ledger.entries() >= 2);
    }
  }

  private static long count(ListAppender<ILoggingEvent> events, String text) {
    return List.copyOf(events.list).stream()
        .filter(e -> e.getFormattedMessage().contains(text))
        .count();
  }


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
