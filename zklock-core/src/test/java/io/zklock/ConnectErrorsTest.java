package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.zklock.testkit.EmbeddedZooKeeper;
import io.zklock.testkit.TestCertificates;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.time.Duration;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Connection errors say their cause: {@link ZkLocks.Builder#build()} fails with a message naming
 * what went wrong and the underlying exception attached, not only "no server answered"; and the
 * session timeout the ensemble granted is reported.
 */
class ConnectErrorsTest {
  private static final Duration CONNECT_TIMEOUT = Duration.ofMillis(1500);

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
        .hasMessageContaining("no server answered")
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
