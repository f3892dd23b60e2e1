package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.zklock.testkit.EmbeddedZooKeeper;
import io.zklock.testkit.ServerFreePhase;
import io.zklock.testkit.TestCertificates;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.time.Duration;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Connection errors say their cause: {@link ZkLocks.Builder#build()} fails with a message naming
 * what went wrong and the underlying exception attached, not only "no server answered"; and the
 * session timeout the ensemble granted is reported.
 */
@Tag(ServerFreePhase.SERVER_TAG)
class ConnectErrorsTest {
  /**
   * The default: the failures below are certain to persist, so build() gives up without waiting it
   * out; the first TLS handshake of a JVM on a loaded machine can take seconds.
   */
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

  private static TestCertificates certs;
  private static EmbeddedZooKeeper zk;

  @BeforeAll
  static void start() {
    certs = TestCertificates.generate();
    zk =
        EmbeddedZooKeeper.standalone()
            .tls(certs)
            .tickTime(Duration.ofMillis(100))
            .minSessionTimeout(Duration.ofSeconds(1))
            .maxSessionTimeout(Duration.ofSeconds(10))
            .start();
  }

  @AfterAll
  static void stop() {
    zk.close();
    certs.close();
  }

  private static char[] password() {
    return certs.password().toCharArray();
  }

  private static ZkLocks.Builder builder(String connectString) {
    return ZkLocks.builder(connectString).connectTimeout(CONNECT_TIMEOUT);
  }

  @Test
  void unknownHost_namesTheHost_withUnknownHostExceptionAttached() {
    String cs = "no-such-host.invalid:2181";
    assertThatThrownBy(() -> builder(cs).build())
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining(cs)
        .hasMessageContaining("unknown host 'no-such-host.invalid'")
        .hasRootCauseInstanceOf(UnknownHostException.class);
  }

  @Test
  void connectionRefused_saysSo_withConnectExceptionAttached() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    String cs = "127.0.0.1:" + port;
    assertThatThrownBy(() -> builder(cs).build())
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining(cs)
        .hasMessageContaining("connection refused")
        .hasCauseInstanceOf(ConnectException.class);
  }

  // ------------------------------------------------ failing fast (issue 24), and never late

  /** A generous bound for "at once": far under the 10 s connect timeout, far over a hiccup. */
  private static final Duration AT_ONCE = Duration.ofSeconds(3);

  private static int closedPort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort(); // closed again: nothing listens there
    }
  }

  /** How long {@code build()} took to fail, with the failure checked by {@code check}. */
  private static Duration timeToFail(
      ZkLocks.Builder builder, java.util.function.Consumer<Throwable> check) {
    long start = System.nanoTime();
    Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(builder::build);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(thrown).as("build() must fail").isInstanceOf(ZkLockException.class);
    check.accept(thrown);
    return took;
  }

  @RepeatedTest(3)
  void noHostResolves_failsAtOnce_namingEveryHost() {
    String cs = "no-such-host.invalid:2181,nor-this-one.invalid:2181";
    Duration took =
        timeToFail(
            ZkLocks.builder(cs).connectTimeout(Duration.ofSeconds(10)),
            e ->
                assertThat(e)
                    .hasMessageContaining(cs)
                    .hasMessageContaining("unknown host 'no-such-host.invalid'")
                    .hasMessageContaining("unknown host 'nor-this-one.invalid'")
                    .hasRootCauseInstanceOf(UnknownHostException.class));
    assertThat(took).as("an unresolvable host fails at once, not after 10 s").isLessThan(AT_ONCE);
  }

  @RepeatedTest(3)
  void everyServerRefuses_failsAtOnce_namingEveryServer() throws Exception {
    String a = "127.0.0.1:" + closedPort();
    String b = "127.0.0.1:" + closedPort();
    Duration took =
        timeToFail(
            ZkLocks.builder(a + "," + b).connectTimeout(Duration.ofSeconds(10)),
            e ->
                assertThat(e)
                    .hasMessageContaining("connection refused by " + a)
                    .hasMessageContaining("connection refused by " + b)
                    .hasCauseInstanceOf(ConnectException.class));
    assertThat(took)
        .as("refused by every server fails at once, not after 10 s")
        .isLessThan(AT_ONCE);
  }

  @RepeatedTest(3)
  void oneHostUnresolvable_theOtherRefuses_failsAtOnce() throws Exception {
    String refused = "127.0.0.1:" + closedPort();
    Duration took =
        timeToFail(
            ZkLocks.builder("no-such-host.invalid:2181," + refused)
                .connectTimeout(Duration.ofSeconds(10)),
            e ->
                assertThat(e)
                    .hasMessageContaining("unknown host 'no-such-host.invalid'")
                    .hasMessageContaining("connection refused by " + refused));
    assertThat(took).isLessThan(AT_ONCE);
  }

  @RepeatedTest(3)
  void oneServerRefuses_anotherServes_connects() throws Exception {
    String cs = "127.0.0.1:" + closedPort() + "," + zk.connectString();
    try (ZkLocks locks = ZkLocks.builder(cs).connectTimeout(Duration.ofSeconds(10)).build()) {
      assertThat(locks.negotiatedSessionTimeout()).isPositive();
    }
  }

  @Test
  void silentServer_failsAtTheConnectTimeout_notLater() throws Exception {
    Duration timeout = Duration.ofSeconds(2);
    // a listening socket that never accepts: connections complete in its backlog, nothing answers
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      String cs = "127.0.0.1:" + silent.getLocalPort();
      for (int trial = 0; trial < 2; trial++) {
        Duration took =
            timeToFail(
                ZkLocks.builder(cs).connectTimeout(timeout),
                e ->
                    assertThat(e)
                        .hasMessageContaining(cs)
                        .hasMessageContaining("no server answered"));
        assertThat(took)
            .as("trial %d: waits out the connect timeout, as a slow server may still answer", trial)
            .isGreaterThanOrEqualTo(timeout)
            // the bound tells "at the connect timeout" from a second round of it or the session
            // timeout (15 s); it is twice the timeout, not a tight margin, because closing the
            // client is part of the time and took 1.4 s beyond the timeout at load 20
            .as("trial %d: and fails by its end, not at a second one", trial)
            .isLessThan(timeout.multipliedBy(2));
      }
    }
  }

  @Test
  void tlsKeyStore_wrongPassword_namesTheKeyStore_withTheCauseAttached() {
    TlsConfig tls =
        TlsConfig.builder()
            .trustStore(certs.trustStore(), password())
            .keyStore(certs.clientKeyStore(), "not-the-password".toCharArray())
            .build();
    assertThatThrownBy(() -> builder(zk.secureConnectString()).tls(tls).build())
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("cannot load the TLS key store " + certs.clientKeyStore())
        .hasMessageContaining("password")
        .cause()
        .isNotNull();
  }

  @Test
  void tlsServerCertificate_untrusted_saysSo_withTheHandshakeFailureAttached() {
    try (TestCertificates strangers = TestCertificates.generate()) {
      TlsConfig tls =
          TlsConfig.builder()
              .trustStore(strangers.trustStore(), strangers.password().toCharArray())
              .keyStore(certs.clientKeyStore(), password())
              .build();
      assertThatThrownBy(() -> builder(zk.secureConnectString()).tls(tls).build())
          .isInstanceOf(ZkLockException.class)
          .hasMessageContaining("TLS handshake with " + zk.secureConnectString() + " failed")
          .hasMessageContaining("certificate is not trusted")
          .hasCauseInstanceOf(SSLException.class);
    }
  }

  @Test
  void plainClient_onATlsPort_isToldTheServerSpeaksTls() {
    assertThatThrownBy(() -> builder(zk.secureConnectString()).build())
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining(zk.secureConnectString() + " speaks TLS")
        .hasCauseInstanceOf(SSLException.class);
  }

  @Test
  void tlsClient_onAPlainPort_isToldTheHandshakeFailed() {
    TlsConfig tls =
        TlsConfig.builder()
            .trustStore(certs.trustStore(), password())
            .keyStore(certs.clientKeyStore(), password())
            .build();
    assertThatThrownBy(() -> builder(zk.connectString()).tls(tls).build())
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("TLS handshake with " + zk.connectString() + " failed")
        .cause()
        .isNotNull();
  }

  @Test
  void sessionTimeout_clampedByTheEnsemble_isExposed_andLoggedWithBothValues() {
    Logger sessionLog = (Logger) LoggerFactory.getLogger("io.zklock.internal.zk.Session");
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    sessionLog.addAppender(appender);
    try {
      // Given a server that accepts 1 s to 10 s, a client asking for 30 s gets 10 s
      try (ZkLocks locks =
          builder(zk.connectString()).sessionTimeout(Duration.ofSeconds(30)).build()) {
        assertThat(locks.negotiatedSessionTimeout()).isEqualTo(Duration.ofSeconds(10));
      }
      assertThat(appender.list)
          .anySatisfy(
              e -> {
                assertThat(e.getLevel()).isEqualTo(Level.WARN);
                assertThat(e.getFormattedMessage()).contains("10000 ms").contains("30000 ms");
              });
      // and one asking for what the server accepts gets it, without a warning
      appender.list.clear();
      try (ZkLocks locks =
          builder(zk.connectString()).sessionTimeout(Duration.ofSeconds(5)).build()) {
        assertThat(locks.negotiatedSessionTimeout()).isEqualTo(Duration.ofSeconds(5));
      }
      assertThat(appender.list).noneMatch(e -> e.getFormattedMessage().contains("granted"));
    } finally {
      sessionLog.detachAppender(appender);
    }
  }
}
