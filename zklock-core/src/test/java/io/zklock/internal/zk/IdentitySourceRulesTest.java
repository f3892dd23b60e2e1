package io.zklock.internal.zk;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * When a guarding client asks the server who it is ({@code whoAmI}, ZooKeeper 3.7+) and when it
 * computes its identity itself: issue 23, a 3.5 or 3.6 server closes the connection on {@code
 * whoAmI}, so a client whose identity is known locally must never send it.
 */
class IdentitySourceRulesTest {
  private static SessionConfig.Auth auth(String scheme, String credentials) {
    return new SessionConfig.Auth(scheme, credentials.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void digestLoginsOnly_areComputedLocally_theServerIsNotAsked() {
    assertThat(Dirs.asksServer(List.of(auth("digest", "svc:secret")), false, false)).isFalse();
    assertThat(
            Dirs.asksServer(
                List.of(auth("digest", "svc:secret"), auth("digest", "ops:pw")), false, false))
        .isFalse();
  }

  @Test
  void anotherScheme_isNamedByTheServersProvider_theServerIsAsked() {
    assertThat(Dirs.asksServer(List.of(auth("custom", "token")), false, false)).isTrue();
    assertThat(
            Dirs.asksServer(
                List.of(auth("digest", "svc:secret"), auth("custom", "token")), false, false))
        .isTrue();
  }

  @Test
  void clientCertificate_orSaslLogin_addIdentitiesOnlyTheServerKnows() {
    assertThat(Dirs.asksServer(List.of(auth("digest", "svc:secret")), true, false))
        .as("a TLS client certificate: the server's x509 provider names it")
        .isTrue();
    assertThat(Dirs.asksServer(List.of(auth("digest", "svc:secret")), false, true))
        .as("a SASL login (Kerberos)")
        .isTrue();
  }
}
