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
        ZkClients.connect(zk.secureConnectString(), 4000, certs.clientConfig())) {
      c.zk.create("/tls", "s".getBytes(), Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
      assertThat(c.zk.getData("/tls", false, null)).isEqualTo("s".getBytes());
    }
  }

  @Test
  void plainClient_onSecurePort_neverConnects() throws Exception {
    List<KeeperState> states = new CopyOnWriteArrayList<>();
    ZooKeeper plain = new ZooKeeper(zk.secureConnectString(), 4000, e -> states.add(e.getState()));
    try {
      // the server drops the non-TLS handshake: the client keeps trying and never connects
      Awaitility.await("the secure port drops plain connections")
          .atMost(10, TimeUnit.SECONDS)
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
