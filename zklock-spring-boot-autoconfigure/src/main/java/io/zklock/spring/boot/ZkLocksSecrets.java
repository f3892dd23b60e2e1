package io.zklock.spring.boot;

import java.util.Locale;
import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;

/**
 * Masks zklock's secrets wherever Actuator shows properties ({@code configprops}, {@code env}),
 * even with {@code management.endpoint.*.show-values=always}: every {@code zklock.*} key that ends
 * in {@code password} ({@code zklock.auth.password}, the TLS stores' passwords) or is a digest
 * ({@code zklock.auth.digest}, user and password in one value), in any of Spring Boot's relaxed
 * forms ({@code ZKLOCK_AUTH_PASSWORD} in the environment, say).
 */
class ZkLocksSecrets implements SanitizingFunction {

  @Override
  public SanitizableData apply(SanitizableData data) {
    return isSecret(data.getKey()) ? data.withSanitizedValue() : data;
  }

  static boolean isSecret(String key) {
    String k = key.toLowerCase(Locale.ROOT).replace("-", "").replace('_', '.');
    return k.startsWith("zklock.") && (k.endsWith("password") || k.endsWith(".digest"));
  }
}
