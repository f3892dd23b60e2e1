package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.testkit.EmbeddedZooKeeper;
import io.zklock.testkit.TestCertificates;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Commands against the testkit's TLS server and a digest-protected namespace, as separate processes
 * (a TLS server sets JVM-wide properties here; the commands must not depend on them). Secrets come
 * from files and the environment and never show in the output.
 */
class SecureEnsembleTest {
  static final String USER = "ops";
  static final String PASSWORD = "s3cret-Pa55";

  static TestCertificates certs;
  static EmbeddedZooKeeper zk;

  @TempDir static Path shared;
  @TempDir Path dir;

  @BeforeAll
  @SuppressWarnings("try")
  static void start() throws Exception {
    certs = TestCertificates.generate();
    zk = EmbeddedZooKeeper.standalone().tls(certs).start();
    try (ZooKeeper admin = new ZooKeeper(zk.connectString(), 10_000, e -> {})) {
      admin.addAuthInfo("digest", (USER + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8));
      List<ACL> acl = new ArrayList<>(ZooDefs.Ids.CREATOR_ALL_ACL);
      acl.addAll(ZooDefs.Ids.READ_ACL_UNSAFE);
      admin.create("/secure", new byte[0], acl, CreateMode.PERSISTENT);
    }
  }

  @AfterAll
  static void stop() {
    zk.close();
    certs.close();
  }

  private Path clientConfiguration(boolean withKeyStore) throws Exception {
    Path passwordFile = dir.resolve("keystore.password");
    Files.writeString(passwordFile, certs.password() + "\n");
    StringBuilder p = new StringBuilder();
    p.append("zookeeper.client.secure=true\n");
    p.append("zookeeper.ssl.trustStore.location=").append(certs.trustStore()).append('\n');
    p.append("zookeeper.ssl.trustStore.password=").append(certs.password()).append('\n');
    if (withKeyStore) {
      p.append("zookeeper.ssl.keyStore.location=").append(certs.clientKeyStore()).append('\n');
      p.append("zookeeper.ssl.keyStore.passwordPath=").append(passwordFile).append('\n');
    }
    Path file = dir.resolve("client.properties");
    Files.writeString(file, p.toString());
    return file;
  }

  /**
   * How a zklock JVM is told to connect where the test checks that it connects over TLS. A JVM's
   * first TLS handshake is CPU work (0.9-1.2 s measured, beside the 0.8-0.95 s a cold zklock JVM
   * takes to start and connect), so its wall time is set by the share of the CPU other builds
   * leave: 2-4 s at load average 28, more than the tool's default 10 s connect timeout at 34-42.
   * This test is about the handshake's outcome, not its speed: the tool may wait longer than the
   * test itself (whose time-out stays the net for a hang), and ZooKeeper's client, whose connect
   * attempt lasts the session timeout, does not give a slow handshake up at 15 s and begin another.
   */
  private static String[] connectOverTls() {
    return new String[] {
      "--connect", zk.secureConnectString(), "--connect-timeout", "10m", "--session-timeout", "40s"
    };
  }

  private static String[] concat(String[] a, String... b) {
    String[] r = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }

  private static void assertNoSecret(Cli.Result r) {
    assertThat(r.out() + r.err())
        .as("no secret is echoed: " + r)
        .doesNotContain(PASSWORD)
        .doesNotContain(certs.password());
  }

  // Two cold JVMs, each connecting with its first TLS handshake: about 4 s of CPU (see
  // connectOverTls). The verify loop beside other builds gave a test's JVMs about 5% of a core
  // (ExecReleaseRequestTest: some 10 s of CPU in 192 s), at which these take 80 s, past the default
  // time-out of 60 s; three minutes leave more than twice that.
  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void tls_lsAndExec_withAClientConfigurationFile() throws Exception {
    Path config = clientConfiguration(true);

    Cli.Result exec =
        ZklockProcess.run(
            dir,
            Map.of(),
            concat(
                new String[] {"exec", "--client-configuration", config.toString()},
                concat(connectOverTls(), "tls-job", "--", "sh", "-c", "echo token=$ZKLOCK_TOKEN")));
    Cli.Result ls =
        ZklockProcess.run(
            dir,
            Map.of(),
            concat(
                new String[] {"ls", "-v", "--client-configuration", config.toString()},
                connectOverTls()));

    assertThat(exec.exitCode()).as(exec.toString()).isZero();
    assertThat(exec.out()).containsPattern("token=\\d+");
    assertThat(ls.exitCode()).as(ls.toString()).isZero();
    assertThat(ls.out()).contains("TLS (trust store " + certs.trustStore());
    assertNoSecret(exec);
    assertNoSecret(ls);
  }

  @Test
  void tls_clientConfigurationFromTheEnvironment() throws Exception {
    Path config = clientConfiguration(true);

    Cli.Result r =
        ZklockProcess.run(
            dir,
            Map.of("ZKLOCK_CLIENT_CONFIGURATION", config.toString()),
            concat(concat(new String[] {"exec"}, connectOverTls()), "tls-env", "--", "true"));

    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertNoSecret(r);
  }

  @Test
  void tls_withoutConfiguration_cannotConnect_oneLine() throws Exception {
    Cli.Result r =
        ZklockProcess.run(
            dir, Map.of(), "ls", "--connect", zk.secureConnectString(), "--connect-timeout", "2s");

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.CANNOT_CONNECT);
    assertThat(r.err().strip().lines()).as(r.toString()).hasSize(1);
  }

  @Test
  void tls_serverRequiresAClientCertificate_withoutKeyStore_cannotConnect() throws Exception {
    Path config = clientConfiguration(false);

    Cli.Result r =
        ZklockProcess.run(
            dir,
            Map.of(),
            "exec",
            "--client-configuration",
            config.toString(),
            "--connect",
            zk.secureConnectString(),
            "--connect-timeout",
            "2s",
            "x",
            "--",
            "true");

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.CANNOT_CONNECT);
    assertNoSecret(r);
  }

  @Test
  void digest_fromTheEnvironment_queuesInTheProtectedNamespace() throws Exception {
    Cli.Result r =
        ZklockProcess.run(
            dir,
            Map.of("ZKLOCK_DIGEST", USER + ":" + PASSWORD),
            "exec",
            "--connect",
            zk.connectString(),
            "-n",
            "/secure",
            "digest-env",
            "--",
            "sh",
            "-c",
            "echo token=$ZKLOCK_TOKEN");

    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out()).containsPattern("token=\\d+");
    assertNoSecret(r);
  }

  @Test
  void digest_fromAFile_inProcess_andLsVerboseNamesTheUserOnly() throws Exception {
    Path digest = dir.resolve("digest");
    Files.writeString(digest, USER + ":" + PASSWORD + "\n");

    Cli.Result exec =
        Cli.run(
            "exec",
            "--connect",
            zk.connectString(),
            "-n",
            "/secure",
            "--digest-file",
            digest.toString(),
            "digest-file",
            "--",
            "true");
    Cli.Result ls =
        Cli.run(
            "ls",
            "-v",
            "--connect",
            zk.connectString(),
            "-n",
            "/secure",
            "--digest-file",
            digest.toString());

    assertThat(exec.exitCode()).as(exec.toString()).isZero();
    assertThat(ls.exitCode()).as(ls.toString()).isZero();
    assertThat(ls.out()).contains("digest user 'ops' (from " + digest + ")");
    assertNoSecret(exec);
    assertNoSecret(ls);
  }

  @Test
  void digest_missing_isRefusedByTheNamespace_oneLine() throws Exception {
    Cli.Result r =
        ZklockProcess.run(
            dir,
            Map.of(),
            "exec",
            "--connect",
            zk.connectString(),
            "-n",
            "/secure",
            "x",
            "--",
            "touch",
            dir.resolve("ran").toString());

    assertThat(r.exitCode()).as(r.toString()).isNotZero();
    assertThat(r.err().strip().lines()).as(r.toString()).hasSize(1);
    assertThat(r.err()).startsWith("zklock: ");
    assertThat(dir.resolve("ran")).doesNotExist();
  }

  @Test
  void digest_wrongPassword_isRefused_withoutEchoingIt() throws Exception {
    Cli.Result r =
        ZklockProcess.run(
            dir,
            Map.of("ZKLOCK_DIGEST", USER + ":wrong-" + PASSWORD),
            "exec",
            "--connect",
            zk.connectString(),
            "-n",
            "/secure",
            "x",
            "--",
            "true");

    assertThat(r.exitCode()).as(r.toString()).isNotZero();
    assertNoSecret(r);
  }

  @Test
  void digest_malformed_isAUsageError_withoutEchoingTheValue() throws Exception {
    Cli.Result r =
        ZklockProcess.run(
            dir, Map.of("ZKLOCK_DIGEST", PASSWORD), "ls", "--connect", zk.connectString());

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("$ZKLOCK_DIGEST must be user:password");
    assertNoSecret(r);
  }

  @Test
  void clientConfiguration_unknownProperty_isAUsageError() throws Exception {
    Path config = dir.resolve("typo.properties");
    Files.writeString(config, "zookeeper.ssl.trustStore.locaton=/x\n");

    Cli.Result r =
        Cli.run("ls", "--connect", zk.connectString(), "--client-configuration", config.toString());

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("unknown property 'zookeeper.ssl.trustStore.locaton'");
  }

  @Test
  void release_inTheProtectedNamespace_needsTheIdentity() throws Exception {
    Path digest = dir.resolve("digest");
    Files.writeString(digest, USER + ":" + PASSWORD + "\n");
    try (io.zklock.ZkLocks holder =
        io.zklock.ZkLocks.builder(zk.connectString())
            .namespace("/secure")
            .digest(USER, PASSWORD)
            .build()) {
      io.zklock.LockHandle held = holder.mutex("stuck").acquire();

      Cli.Result anonymous =
          Cli.run("release", "--yes", "-c", zk.connectString(), "-n", "/secure", "stuck");
      assertThat(held.isHeld()).as("an anonymous client cannot take it").isTrue();
      Cli.Result ops =
          Cli.run(
              "release",
              "--yes",
              "-c",
              zk.connectString(),
              "-n",
              "/secure",
              "--digest-file",
              digest.toString(),
              "stuck");

      assertThat(anonymous.exitCode()).as(anonymous.toString()).isNotZero();
      assertThat(anonymous.err().strip().lines().reduce((a, b) -> b).orElseThrow())
          .as(anonymous.toString())
          .startsWith("zklock: cannot release lock 'stuck'")
          .contains("not authorized");
      assertThat(ops.exitCode()).as(ops.toString()).isZero();
      held.lost().get(10, java.util.concurrent.TimeUnit.SECONDS);
      assertNoSecret(ops);
    }
  }
}
