package io.zklock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.SanitizableData;

/** Which keys {@link ZkLocksSecrets} masks, in the forms Spring Boot's endpoints show them. */
class ZkLocksSecretsTest {

  private static Object shown(String key) {
    return new ZkLocksSecrets().apply(new SanitizableData(null, key, "s3cret")).getValue();
  }

  @Test
  void zklocksPasswordsAndDigest_masked_inEveryRelaxedForm() {
    for (String key :
        new String[] {
          "zklock.auth.password",
          "zklock.auth.digest",
          "zklock.tls.trust-store-password",
          "zklock.tls.key-store-password",
          "ZKLOCK_AUTH_PASSWORD",
          "ZKLOCK_AUTH_DIGEST",
          "ZKLOCK_TLS_TRUSTSTOREPASSWORD",
          "zklock.tls.keyStorePassword"
        }) {
      assertThat(shown(key)).as(key).isEqualTo(SanitizableData.SANITIZED_VALUE);
    }
  }

  @Test
  void otherKeys_shownAsTheyAre() {
    for (String key :
        new String[] {
          "zklock.auth.username",
          "zklock.auth.digest-file",
          "zklock.connect-string",
          "spring.datasource.password"
        }) {
      assertThat(shown(key)).as(key).isEqualTo("s3cret");
    }
  }
}
