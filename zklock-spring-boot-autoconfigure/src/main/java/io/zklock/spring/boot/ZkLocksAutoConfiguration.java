package io.zklock.spring.boot;

import io.zklock.TlsConfig;
import io.zklock.ZkLocks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of zklock: a {@link ZkLocks} bean from the {@code zklock.*} properties (when
 * {@code zklock.connect-string} is set and the application has none of its own), its builder shaped
 * by every {@link ZkLocksBuilderCustomizer} bean; and the {@link ZkLocksLifecycle} that closes
 * every {@code ZkLocks} bean on a graceful shutdown. The health contributor and the adapters found
 * on the classpath are configured after it: the starter's health contributor, {@link
 * ZkLocksMetricsAutoConfiguration}, {@link ZkLockRegistryAutoConfiguration}, {@link
 * ZkLockProviderAutoConfiguration}.
 */
@AutoConfiguration
@ConditionalOnClass(ZkLocks.class)
@EnableConfigurationProperties(ZkLockProperties.class)
public class ZkLocksAutoConfiguration {

  /**
   * The ZkLocks of the properties and customizers; connects at startup (fails it if unreachable),
   * unless {@code zklock.connect-in-background}. Closed by {@link ZkLocksLifecycle} on a graceful
   * shutdown, else when the context destroys it.
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnProperty("zklock.connect-string")
  @SuppressWarnings("deprecation") // ZkLocksDecorator, still applied after the customizers
  public ZkLocks zkLocks(
      ZkLockProperties properties,
      ObjectProvider<ZkLocksBuilderCustomizer> customizers,
      ObjectProvider<ZkLocksDecorator> decorators) {
    ZkLocks.Builder builder = builder(properties);
    customizers.orderedStream().forEach(c -> c.customize(builder));
    ZkLocks locks = builder.build();
    for (ZkLocksDecorator d : (Iterable<ZkLocksDecorator>) decorators.orderedStream()::iterator) {
      locks = d.decorate(locks);
    }
    return locks;
  }

  /**
   * Closes every ZkLocks bean in its phase of a graceful shutdown ({@link ZkLocksLifecycle#PHASE}).
   * Static: a lifecycle bean, made early and apart from this configuration.
   */
  @Bean
  @ConditionalOnMissingBean
  public static ZkLocksLifecycle zkLocksLifecycle(ConfigurableListableBeanFactory beanFactory) {
    return new ZkLocksLifecycle(beanFactory);
  }

  static ZkLocks.Builder builder(ZkLockProperties p) {
    ZkLocks.Builder b =
        ZkLocks.builder(p.getConnectString())
            .namespace(p.getNamespace())
            .sessionTimeout(p.getSessionTimeout())
            .connectTimeout(p.getConnectTimeout())
            .suspensionPolicy(p.getSuspensionPolicy());
    if (p.isConnectInBackground()) {
      b.connectInBackground();
    }
    if (p.getClientName() != null) {
      b.clientName(p.getClientName());
    }
    String digest = digest(p.getAuth());
    if (digest != null) {
      b.authorization("digest", digest.getBytes(StandardCharsets.UTF_8));
    }
    ZkLockProperties.Tls tls = p.getTls();
    if (tls.getTrustStore() != null) {
      TlsConfig.Builder t =
          TlsConfig.builder()
              .trustStore(tls.getTrustStore(), chars(tls.getTrustStorePassword()))
              .hostnameVerification(tls.isHostnameVerification());
      if (tls.getTrustStoreType() != null) {
        t.trustStoreType(tls.getTrustStoreType());
      }
      if (tls.getKeyStore() != null) {
        t.keyStore(tls.getKeyStore(), chars(tls.getKeyStorePassword()));
      }
      if (tls.getKeyStoreType() != null) {
        t.keyStoreType(tls.getKeyStoreType());
      }
      b.tls(t.build());
    } else if (tls.getKeyStore() != null) {
      throw new IllegalArgumentException(
          "zklock.tls.key-store is set without zklock.tls.trust-store: TLS needs a trust store");
    }
    return b;
  }

  private static String digest(ZkLockProperties.Auth auth) {
    if (auth.getDigest() != null && auth.getDigestFile() != null) {
      throw new IllegalArgumentException(
          "set zklock.auth.digest or zklock.auth.digest-file, not both");
    }
    String digest = auth.getDigest();
    if (auth.getDigestFile() != null) {
      try {
        digest = Files.readString(auth.getDigestFile(), StandardCharsets.UTF_8).trim();
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot read zklock.auth.digest-file " + auth.getDigestFile(), e);
      }
    }
    if (digest != null && (digest.indexOf(':') <= 0)) {
      throw new IllegalArgumentException(
          "the zklock digest must be user:password (the password is not shown)"
              + (auth.getDigestFile() != null ? ", in " + auth.getDigestFile() : ""));
    }
    return digest;
  }

  private static char[] chars(String s) {
    return s == null ? null : s.toCharArray();
  }
}
