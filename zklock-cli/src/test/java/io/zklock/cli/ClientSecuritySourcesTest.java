package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.zookeeper.client.ZKClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the secrets come from, in which order, and that none is ever shown. */
class ClientSecuritySourcesTest {
  @TempDir Path dir;

  private Path file(String name, String content) throws Exception {
    Path f = dir.resolve(name);
    Files.writeString(f, content);
    return f;
  }

  @Test
  void digest_precedence_optionFile_thenEnvFile_thenEnv_thenConfiguration() throws Exception {
    Path option = file("option", "opt:pw1\n");
    Path envFile = file("envfile", "envfile:pw2\n");
    Path config = file("c.properties", "zklock.digest=conf:pw4\n");
    Map<String, String> env =
        Map.of("ZKLOCK_DIGEST_FILE", envFile.toString(), "ZKLOCK_DIGEST", "env:pw3");

    assertThat(ClientSecurity.load(config, option, env).toString()).contains("user 'opt'");
    assertThat(ClientSecurity.load(config, null, env).toString()).contains("user 'envfile'");
    assertThat(ClientSecurity.load(config, null, Map.of("ZKLOCK_DIGEST", "env:pw3")).toString())
        .contains("user 'env'");
    assertThat(ClientSecurity.load(config, null, Map.of()).toString()).contains("user 'conf'");
    assertThat(ClientSecurity.load(null, null, Map.of()).authenticated()).isFalse();
  }

  @Test
  void description_namesFilesAndUser_neverAPassword() throws Exception {
    Path trust = file("trust.p12", "not really a store");
    Path pw = file("pw", "keystore-secret\n");
    Path config =
        file(
            "c.properties",
            "zookeeper.client.secure=true\n"
                + "zookeeper.ssl.trustStore.location="
                + trust
                + "\nzookeeper.ssl.trustStore.password=truststore-secret\n"
                + "zookeeper.ssl.keyStore.location="
                + trust
                + "\nzookeeper.ssl.keyStore.passwordPath="
                + pw
                + "\nzklock.digest=ops:digest-secret\n");

    ClientSecurity s = ClientSecurity.load(config, null, Map.of());

    assertThat(s.tls()).isTrue();
    assertThat(s.toString())
        .contains("TLS (trust store " + trust, "digest user 'ops'")
        .doesNotContain("secret");
    ZKClientConfig zk = s.clientConfig();
    assertThat(zk.getProperty(ZKClientConfig.SECURE_CLIENT)).isEqualTo("true");
    assertThat(zk.getProperty("zookeeper.ssl.keyStore.password"))
        .as("passwordPath is read")
        .isEqualTo("keystore-secret");
  }

  @Test
  void secureWithoutTrustStore_isAUsageError() throws Exception {
    Path config = file("c.properties", "zookeeper.client.secure=true\n");

    assertThatThrownBy(() -> ClientSecurity.load(config, null, Map.of()))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("needs zookeeper.ssl.trustStore.location");
  }

  @Test
  void sslPropertiesWithoutSecure_doNotTurnTlsOn() throws Exception {
    Path trust = file("trust.p12", "x");
    Path config = file("c.properties", "zookeeper.ssl.trustStore.location=" + trust + "\n");

    assertThat(ClientSecurity.load(config, null, Map.of()).tls()).isFalse();
  }

  @Test
  void unreadableDigestFile_isAUsageError_namingTheFile() {
    Path missing = dir.resolve("nope");

    assertThatThrownBy(() -> ClientSecurity.load(null, missing, Map.of()))
        .isInstanceOf(CliException.class)
        .hasMessageContaining(missing.toString());
  }
}
