package io.zklock.consumers;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.LockHandle;
import io.zklock.SessionState;
import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import io.zklock.testkit.TestCertificates;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Boot application of this line with Actuator and zklock's starter, as an application
 * runs it (auto-configuration, a web server, Actuator's HTTP endpoints), asked from outside: the
 * meters it lists and counts (one set, whichever of metrics and observations make them; every
 * ZkLocks bean's), what its configprops and env endpoints show of zklock's secrets with {@code
 * show-values=always}, and TLS from an SSL bundle on what the application resolves.
 */
class BootApplicationTest {
  private static EmbeddedZooKeeper zk;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void startServer() {
    zk = EmbeddedZooKeeper.standalone().start();
  }

  @AfterAll
  static void stopServer() {
    zk.close();
  }

  /** An application with the starter's ZkLocks, from properties. */
  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class StarterApp {}

  /** An application that defines its own two ZkLocks beans. */
  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class OwnBeansApp {
    @Bean(destroyMethod = "close")
    ZkLocks ordersLocks() {
      return ZkLocks.builder(zk.connectString()).clientName("orders").build();
    }

    @Bean(destroyMethod = "close")
    ZkLocks billingLocks() {
      return ZkLocks.builder(zk.connectString()).clientName("billing").build();
    }
  }

  private static ConfigurableApplicationContext start(Class<?> app, String... args) {
    String[] all = new String[args.length + 3];
    all[0] = "--server.port=0";
    all[1] = "--management.endpoints.web.exposure.include=*";
    all[2] = "--spring.main.banner-mode=off";
    System.arraycopy(args, 0, all, 3, args.length);
    return new SpringApplicationBuilder(app).run(all);
  }

  private static String base(ConfigurableApplicationContext app) {
    return "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port");
  }

  @Test
  void metricsAndObservations_bothOn_oneSetOfMeters_eachWaitCountedOnce() throws Exception {
    try (ConfigurableApplicationContext app =
        start(
            StarterApp.class,
            "--zklock.connect-string=" + zk.connectString(),
            "--zklock.metrics.lock-names=orders")) {
      ZkLocks locks = app.getBean(ZkLocks.class);
      for (int i = 0; i < 3; i++) {
        locks.mutex("orders").acquire().release();
      }
      locks.mutex("reports/2026-11-28").acquire().release(); // a name not listed for a tag
      String base = base(app);

      assertThat(zklockMeterNames(base))
          .as("the zklock meters /actuator/metrics lists: one set, one vocabulary")
          .containsExactlyInAnyOrder(
              "zklock.lock.wait",
              "zklock.lock.wait.active",
              "zklock.lock.hold",
              "zklock.lock.hold.active",
              "zklock.session.state");
      assertThat(count(base, "zklock.lock.wait", "lock:orders", "outcome:granted"))
          .as("three waits, counted once each")
          .isEqualTo(3.0);
      assertThat(count(base, "zklock.lock.hold", "lock:orders", "end:released")).isEqualTo(3.0);
      assertThat(count(base, "zklock.lock.wait", "lock:other", "outcome:granted"))
          .as("the lock name's cardinality guard: an unlisted name is tagged 'other'")
          .isEqualTo(1.0);
      assertThat(get(base + "/actuator/metrics/zklock.lock.wait")).doesNotContain("reports/");
    }
  }

  @Test
  void theApplicationsOwnZkLocksBeans_areMeasured_eachSessionNamedByItsBean() throws Exception {
    try (ConfigurableApplicationContext app = start(OwnBeansApp.class)) {
      app.getBean("ordersLocks", ZkLocks.class).mutex("a").acquire().release();
      try (LockHandle h = app.getBean("billingLocks", ZkLocks.class).mutex("b").acquire()) {
        String base = base(app);
        assertThat(count(base, "zklock.lock.wait", "outcome:granted"))
            .as("both beans' grants")
            .isEqualTo(2.0);
        assertThat(value(base, "zklock.session.state", "client:ordersLocks", "state:connected"))
            .isEqualTo(1.0);
        assertThat(value(base, "zklock.session.state", "client:billingLocks", "state:connected"))
            .isEqualTo(1.0);
        assertThat(h.isHeld()).isTrue();
      }
    }
  }

  @Test
  void configpropsAndEnv_showValuesAlways_showNoZklockSecret() throws Exception {
    try (ConfigurableApplicationContext app =
        start(
            StarterApp.class,
            "--zklock.connect-string=" + zk.connectString(),
            "--zklock.namespace=/secrets",
            "--zklock.auth.username=alice",
            "--zklock.auth.password=s3cret-password",
            "--zklock.tls.trust-store-password=s3cret-store",
            "--management.endpoint.configprops.show-values=always",
            "--management.endpoint.env.show-values=always")) {
      String base = base(app);
      String configprops = get(base + "/actuator/configprops");
      String env = get(base + "/actuator/env");
      String zklockEnv = get(base + "/actuator/env/zklock.auth.password");

      assertThat(configprops)
          .as("configprops shows values (show-values=always)")
          .contains("\"alice\"")
          .doesNotContain("s3cret");
      assertThat(env).contains("alice").doesNotContain("s3cret");
      assertThat(zklockEnv).doesNotContain("s3cret");
    }
  }

  /**
   * The case as it was reported: the digest login in one {@code user:password} value, which Spring
   * Boot's own sanitizer does not recognise by its name.
   */
  @Test
  void deprecatedDigest_showValuesAlways_shownNowhere() throws Exception {
    try (ConfigurableApplicationContext app =
        start(
            StarterApp.class,
            "--zklock.connect-string=" + zk.connectString(),
            "--zklock.namespace=/digest",
            "--zklock.auth.digest=alice:s3cret",
            "--management.endpoint.configprops.show-values=always",
            "--management.endpoint.env.show-values=always")) {
      String base = base(app);
      assertThat(get(base + "/actuator/configprops"))
          .contains("\"/digest\"")
          .doesNotContain("s3cret");
      assertThat(get(base + "/actuator/env")).contains("/digest").doesNotContain("s3cret");
      assertThat(get(base + "/actuator/env/zklock.auth.digest")).doesNotContain("s3cret");
    }
  }

  /**
   * TLS on what this application resolves, Netty's native libraries left out: the starter's
   * ZkLocks connects to a server's secure port with an SSL bundle's stores, on Java NIO and the
   * JDK's TLS, with the Netty this line brings.
   */
  @Test
  void tls_fromAnSslBundle_withoutNettysNativeLibraries_connectsAndLocks() throws Exception {
    assertThat(isAvailable("io.netty.handler.ssl.OpenSsl")).as("OpenSSL (BoringSSL)").isFalse();
    assertThat(isAvailable("io.netty.channel.epoll.Epoll")).as("native epoll").isFalse();
    try (TestCertificates certs = TestCertificates.generate();
        EmbeddedZooKeeper secure = EmbeddedZooKeeper.standalone().tls(certs).start();
        ConfigurableApplicationContext app =
            start(
                StarterApp.class,
                "--zklock.connect-string=" + secure.secureConnectString(),
                "--zklock.namespace=/tls",
                "--zklock.ssl.bundle=zookeeper",
                "--spring.ssl.bundle.jks.zookeeper.truststore.location=file:"
                    + certs.trustStore(),
                "--spring.ssl.bundle.jks.zookeeper.truststore.password=" + certs.password(),
                "--spring.ssl.bundle.jks.zookeeper.keystore.location=file:"
                    + certs.clientKeyStore(),
                "--spring.ssl.bundle.jks.zookeeper.keystore.password=" + certs.password())) {
      ZkLocks locks = app.getBean(ZkLocks.class);
      assertThat(locks.sessionState()).isEqualTo(SessionState.CONNECTED);
      try (LockHandle h = locks.mutex("secure").acquire()) {
        assertThat(h.isHeld()).isTrue();
      }
    }
  }

  private static boolean isAvailable(String nettyClass) throws Exception {
    return (Boolean) Class.forName(nettyClass).getMethod("isAvailable").invoke(null);
  }

  // ------------------------------------------------------------------ Actuator over HTTP

  private Set<String> zklockMeterNames(String base) throws Exception {
    Set<String> names = new TreeSet<>();
    Matcher m = Pattern.compile("\"(zklock[^\"]*)\"").matcher(get(base + "/actuator/metrics"));
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }

  private double count(String base, String meter, String... tags) throws Exception {
    return statistic(base, meter, "COUNT", tags);
  }

  private double value(String base, String meter, String... tags) throws Exception {
    return statistic(base, meter, "VALUE", tags);
  }

  private double statistic(String base, String meter, String statistic, String... tags)
      throws Exception {
    StringBuilder url = new StringBuilder(base + "/actuator/metrics/" + meter);
    for (int i = 0; i < tags.length; i++) {
      url.append(i == 0 ? '?' : '&')
          .append("tag=")
          .append(URLEncoder.encode(tags[i], StandardCharsets.UTF_8));
    }
    String body = get(url.toString());
    Matcher m =
        Pattern.compile(
                "\"statistic\"\\s*:\\s*\""
                    + statistic
                    + "\"\\s*,\\s*\"value\"\\s*:\\s*([0-9.Ee+-]+)")
            .matcher(body);
    assertThat(m.find()).as("%s of %s in %s", statistic, url, body).isTrue();
    return Double.parseDouble(m.group(1));
  }

  private String get(String url) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as("%s: %s", url, r.body()).isEqualTo(200);
    return r.body();
  }
}
