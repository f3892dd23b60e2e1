package io.zklock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.LockHandle;
import io.zklock.SessionState;
import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import io.zklock.testkit.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Where the auto-configured ZkLocks connects, in Spring Boot's ways: connection details (a bean of
 * the application's, as a test's server gives them), the digest login as a user name and a
 * password, TLS from an SSL bundle.
 */
class ZkLocksConnectionTest {
  private static TestCertificates certs;
  private static EmbeddedZooKeeper zk;

  private final ApplicationContextRunner runner = ZkLocksAutoConfigurationTest.RUNNER;

  @BeforeAll
  static void startServer() {
    certs = TestCertificates.generate();
    zk = EmbeddedZooKeeper.standalone().tls(certs).start();
  }

  @AfterAll
  static void stopServer() {
    zk.close();
    certs.close();
  }

  @Test
  void connectionDetailsBean_noConnectString_connectsThere() {
    runner
        .withBean(ZkLocksConnectionDetails.class, () -> zk::connectString)
        .withPropertyValues("zklock.namespace=/details")
        .run(
            ctx -> {
              ZkLocks locks = ctx.getBean(ZkLocks.class);
              assertThat(locks.sessionState()).isEqualTo(SessionState.CONNECTED);
              try (LockHandle h = locks.mutex("job").acquire()) {
                assertThat(h.path()).startsWith("/details/job/");
              }
            });
  }

  @Test
  void connectionDetailsBean_winsOverTheConnectString() {
    runner
        .withPropertyValues("zklock.connect-string=127.0.0.1:1") // nothing listens there
        .withBean(ZkLocksConnectionDetails.class, () -> zk::connectString)
        .run(
            ctx ->
                assertThat(ctx.getBean(ZkLocks.class).sessionState())
                    .isEqualTo(SessionState.CONNECTED));
  }

  @Test
  void neitherDetailsNorConnectString_noZkLocks() {
    runner.run(
        ctx -> {
          assertThat(ctx).doesNotHaveBean(ZkLocksConnectionDetails.class);
          assertThat(ctx).doesNotHaveBean(ZkLocks.class);
        });
  }

  @Test
  void usernameAndPassword_theDigestLogin_ownsTheLockNodes() throws Exception {
    runner
        .withPropertyValues(
            "zklock.connect-string=" + zk.connectString(),
            "zklock.namespace=/user-password",
            "zklock.auth.username=carol",
            "zklock.auth.password=s3cret")
        .run(ctx -> assertNodeOwnedBy(ctx.getBean(ZkLocks.class), "carol"));
  }

  @Test
  void passwordWithoutUsername_failsStartupWithoutShowingIt() {
    runner
        .withPropertyValues(
            "zklock.connect-string=" + zk.connectString(), "zklock.auth.password=s3cret")
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("zklock.auth.username")
                    .hasMessageNotContaining("s3cret"));
  }

  @Test
  void sslBundle_connectsToTheSecurePort_andItsFilesAreGoneWithTheContext() {
    AtomicReference<Path> files = new AtomicReference<>();
    runner
        .withConfiguration(
            AutoConfigurations.of(
                org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration.class))
        .withPropertyValues(
            "zklock.connect-string=" + zk.secureConnectString(),
            "zklock.namespace=/bundle",
            "zklock.ssl.bundle=zookeeper",
            "spring.ssl.bundle.jks.zookeeper.truststore.location=file:" + certs.trustStore(),
            "spring.ssl.bundle.jks.zookeeper.truststore.password=" + certs.password(),
            "spring.ssl.bundle.jks.zookeeper.keystore.location=file:" + certs.clientKeyStore(),
            "spring.ssl.bundle.jks.zookeeper.keystore.password=" + certs.password())
        .run(
            ctx -> {
              ZkLocks locks = ctx.getBean(ZkLocks.class);
              assertThat(locks.sessionState()).isEqualTo(SessionState.CONNECTED);
              locks.mutex("secure").acquire().release();
              files.set(ctx.getBean(SslBundleTls.class).directory());
              assertThat(files.get()).isDirectoryContaining(p -> p.toString().endsWith(".p12"));
              assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(files.get())))
                  .as("only this process's user may read the stores' copies")
                  .isEqualTo("rwx------");
            });
    assertThat(files.get()).as("deleted with the context").doesNotExist();
  }

  @Test
  void sslBundleAndTlsStores_both_failStartupSayingSo() {
    runner
        .withConfiguration(
            AutoConfigurations.of(
                org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration.class))
        .withPropertyValues(
            "zklock.connect-string=" + zk.secureConnectString(),
            "zklock.ssl.bundle=zookeeper",
            "spring.ssl.bundle.jks.zookeeper.truststore.location=file:" + certs.trustStore(),
            "spring.ssl.bundle.jks.zookeeper.truststore.password=" + certs.password(),
            "zklock.tls.trust-store=" + certs.trustStore())
        .run(ctx -> assertThat(ctx).getFailure().rootCause().hasMessageContaining("not both"));
  }

  private static void assertNodeOwnedBy(ZkLocks locks, String user) throws Exception {
    try (LockHandle h = locks.mutex("secret").acquire()) {
      ZooKeeper raw = new ZooKeeper(zk.connectString(), 10_000, e -> {});
      try {
        List<ACL> acl = raw.getACL(h.path(), new Stat());
        assertThat(acl)
            .anySatisfy(
                a -> {
                  assertThat(a.getId().getScheme()).isEqualTo("digest");
                  assertThat(a.getId().getId()).startsWith(user + ":");
                });
      } finally {
        raw.close();
      }
    }
  }
}
