package io.zklock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class TlsTest {
  /**
   * The session timeout of the TLS client here, which is also its connect timeout: it must cover
   * the first TLS handshake of this JVM, which loads and compiles the JSSE and Netty TLS code on
   * both sides (0.9-1.2 s of CPU, 2.4-4.1 s of wall time at a load average of 28 on two cores).
   * With 4 s, a client on a loaded machine gave up each handshake after 4.2 s ("have not heard from
   * server in 4200ms") and began another, and did not connect within the test's wait.
   */
  private static final int TLS_SESSION_TIMEOUT_MS = 30_000;

  /**
   * How long the first TLS handshakes of this JVM may take, server side and client side: their CPU
   * (above) at the share of two cores a load average of 55 leaves one thread (about 1/25 of one).
   * What these tests check is the outcome of a handshake, not its speed.
   */
  private static final int COLD_TLS_SECONDS = 40;

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

  @Test
  void generate_writesStoresThatOpenWithThePassword() throws Exception {
    java.security.KeyStore ks = java.security.KeyStore.getInstance("PKCS12");
    try (var in = java.nio.file.Files.newInputStream(certs.serverKeyStore())) {
      ks.load(in, certs.password().toCharArray());
    }
    java.security.cert.X509Certificate server =
        (java.security.cert.X509Certificate) ks.getCertificate("server");
    server.verify(certs.caCertificate().getPublicKey());
    assertThat(server.getSubjectAlternativeNames())
        .extracting(san -> String.valueOf(san.get(1)))
        .contains("127.0.0.1", "localhost");
  }

  @Test
  void secureClient_connectsOverTls() throws Exception {
    try (ZkClients.Recorded c =
        ZkClients.connect(
            zk.secureConnectString(),
            TLS_SESSION_TIMEOUT_MS,
            certs.clientConfig(),
            COLD_TLS_SECONDS)) {
      c.zk.create("/tls", "s".getBytes(), Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
      assertThat(c.zk.getData("/tls", false, null)).isEqualTo("s".getBytes());
    }
  }

  @Test
  void plainClient_onSecurePort_neverConnects() throws Exception {
    List<KeeperState> states = new CopyOnWriteArrayList<>();
    ZooKeeper plain = new ZooKeeper(zk.secureConnectString(), 4000, e -> states.add(e.getState()));
    try {
      // the server drops the non-TLS handshake: the client keeps trying and never connects (the
      // server's first refusal sets up its TLS code: see COLD_TLS_SECONDS)
      Awaitility.await("the secure port drops plain connections")
          .atMost(COLD_TLS_SECONDS, TimeUnit.SECONDS)
          .until(() -> zk.mntr().containsKey("zk_unsuccessful_handshake") && unsuccessful() > 0);
      assertThat(states).doesNotContain(KeeperState.SyncConnected);
      assertThat(plain.getState().isConnected()).isFalse();
    } finally {
      plain.close();
    }
  }

  @Test
  void plainPort_stillServesPlainClients() throws Exception {
    try (ZkClients.Recorded c = ZkClients.connect(zk.connectString(), 4000)) {
      assertThat(c.zk.exists("/", false)).isNotNull();
    }
  }

  private static long unsuccessful() {
    return Long.parseLong(zk.mntr().get("zk_unsuccessful_handshake"));
  }
}
