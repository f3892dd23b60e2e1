package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zklock.testkit.EmbeddedZooKeeper;
import io.zklock.testkit.ServerFreePhase;
import io.zklock.testkit.TestCertificates;
import java.io.File;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * TLS to the ensemble, against an embedded server with a secure port and generated certificates.
 */
@Tag(ServerFreePhase.SERVER_TAG)
class TlsTest {
  private static TestCertificates certs;
  private static EmbeddedZooKeeper zk;

  @BeforeAll
  static void start() {
    certs = TestCertificates.generate();
    zk = EmbeddedZooKeeper.standalone().tls(certs).start();
  }

  @AfterAll
  static void stop() {
    zk.close();
    certs.close();
  }

  private TlsConfig tls() {
    return TlsConfig.builder()
        .trustStore(certs.trustStore(), certs.password().toCharArray())
        .keyStore(certs.clientKeyStore(), certs.password().toCharArray())
        .build();
  }

  @Test
  void tls_connectsAndLocks() throws Exception {
    try (ZkLocks locks =
        ZkLocks.builder(zk.secureConnectString()).tls(tls()).namespace("/tls").build()) {
      assertThat(locks.sessionState()).isEqualTo(SessionState.CONNECTED);
      try (LockHandle h = locks.mutex("secure").acquire()) {
        assertThat(h.isHeld()).isTrue();
        assertThat(h.fencingToken()).isPositive();
      }
    }
  }

  /**
   * What zklock brings for TLS and nothing more: ZooKeeper's dependency on Netty's native libraries
   * is left out (BoringSSL, epoll), so its Netty socket runs on Java NIO with the JDK's TLS.
   */
  @Test
  void tls_withoutNettysNativeLibraries_runsOnJavaNioAndTheJdksTls() throws Exception {
    String paths =
        System.getProperty("java.class.path")
            + File.pathSeparator
            + System.getProperty("jdk.module.path", "");
    assertThat(paths)
        .as("the test's class and module path: what zklock-core brings")
        .doesNotContain("netty-tcnative")
        .doesNotContain("netty-transport-native-epoll")
        .contains("netty-transport-classes-epoll");
    assertThat(isAvailable("io.netty.handler.ssl.OpenSsl")).as("OpenSSL (BoringSSL)").isFalse();
    assertThat(isAvailable("io.netty.channel.epoll.Epoll")).as("native epoll").isFalse();

    try (ZkLocks locks =
        ZkLocks.builder(zk.secureConnectString()).tls(tls()).namespace("/tls-jdk").build()) {
      try (LockHandle h = locks.mutex("secure").acquire()) {
        assertThat(h.isHeld()).isTrue();
      }
    }
  }

  private static boolean isAvailable(String nettyClass) throws Exception {
    return (Boolean) Class.forName(nettyClass).getMethod("isAvailable").invoke(null);
  }

  @Test
  void clientCertificateAndDigest_aSecondClientOfTheSameIdentities_queuesInTheTreeTheFirstMade()
      throws Exception {
    // Given a client with a certificate and a digest login: the server gives its session two
    // identities (x509 from the certificate, digest), and the namespace it creates carries both
    try (ZkLocks first =
        ZkLocks.builder(zk.secureConnectString())
            .tls(tls())
            .digest("svc", "secret")
            .namespace("/tls-auth")
            .build()) {
      first.mutex("m").acquire().release();
    }

    // When another process of the same identities comes: it learns the x509 identity from the
    // server (whoAmI), so it finds the namespace its own and queues there
    try (ZkLocks second =
        ZkLocks.builder(zk.secureConnectString())
            .tls(tls())
            .digest("svc", "secret")
            .namespace("/tls-auth")
            .build()) {
      assertThat(second.mutex("m").tryAcquire()).hasValueSatisfying(LockHandle::release);
    }
  }

  /**
   * The connect probe finds for certain that the port speaks TLS and fails the build at once, well
   * before the connect timeout. The timeout is long so that a loaded machine, where a first TLS
   * handshake can take seconds, cannot end the build before the probe has named the cause (with 2 s
   * it did once, in a clean-clone run under a load of 14).
   */
  @Test
  void plainClient_onTheSecurePort_failsToConnectWithAClearMessage() {
    assertThatThrownBy(
            () ->
                ZkLocks.builder(zk.secureConnectString())
                    .connectTimeout(Duration.ofSeconds(30))
                    .build())
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining(zk.secureConnectString())
        .hasMessageContaining("speaks TLS");
  }

  @Test
  void tlsConfig_withoutTrustStore_isRejected() {
    assertThatThrownBy(() -> TlsConfig.builder().build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("trust store");
    assertThatThrownBy(
            () ->
                TlsConfig.builder()
                    .trustStore(java.nio.file.Path.of("/no/such/store.p12"), new char[0]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("/no/such/store.p12");
  }
}
