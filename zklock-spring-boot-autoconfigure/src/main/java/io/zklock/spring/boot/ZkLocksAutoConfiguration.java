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
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of zklock: a {@link ZkLocks} bean (unless the application has one of its own)
 * where there are {@link ZkLocksConnectionDetails}: from the {@code zklock.*} properties when
 * {@code zklock.connect-string} is set, or a bean of the application's or of Spring Boot's
 * {@code @ServiceConnection}. Its builder is shaped by the properties, then by every {@link
 * ZkLocksBuilderCustomizer} bean. The {@link ZkLocksLifecycle} closes every {@code ZkLocks} bean
 * when the context stops and opens it again when it starts. The health contributor, {@link
 * ZkLocksMetricsAutoConfiguration}, {@link ZkLockRegistryAutoConfiguration}, {@link
 * ZkLockProviderAutoConfiguration} and {@link ZkLocksEndpointAutoConfiguration} come after it. And,
 * with Actuator, the {@code zklock.*} secrets are masked in its {@code configprops} and {@code env}
 * endpoints, whatever their {@code show-values} says.
 */
@AutoConfiguration(afterName = "org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration")
@ConditionalOnClass(ZkLocks.class)
@EnableConfigurationProperties(ZkLockProperties.class)
public class ZkLocksAutoConfiguration {

  /** The connection details of the {@code zklock.*} properties, unless there are others. */
  @Bean
  @ConditionalOnMissingBean(ZkLocksConnectionDetails.class)
  @ConditionalOnProperty("zklock.connect-string")
  ZkLocksConnectionDetails zkLocksConnectionDetails(
      ZkLockProperties properties, ObjectProvider<SslBundles> sslBundles) {
    return new PropertiesZkLocksConnectionDetails(properties, sslBundles.getIfAvailable());
  }

  /**
   * The files of the SSL bundle's stores handed to ZooKeeper (see {@link SslBundleTls}), deleted
   * when the context closes.
   */
  @Bean
  @ConditionalOnMissingBean(ZkLocks.class)
  SslBundleTls zkLocksSslBundleTls() {
    return new SslBundleTls();
  }

  /**
   * The ZkLocks of the connection details, the properties and the customizers; connects at startup
   * (fails it if unreachable), unless {@code zklock.connect-in-background}. Closed by {@link
   * ZkLocksLifecycle} when the context stops, else when the context destroys it.
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBean(ZkLocksConnectionDetails.class)
  @SuppressWarnings("deprecation") // ZkLocksDecorator, still applied after the customizers
  public ZkLocks zkLocks(
      ZkLockProperties properties,
      ZkLocksConnectionDetails connection,
      SslBundleTls sslBundleTls,
      ObjectProvider<ZkLocksBuilderCustomizer> customizers,
      ObjectProvider<ZkLocksDecorator> decorators) {
    ZkLocks.Builder builder = builder(properties, connection, sslBundleTls);
    customizers.orderedStream().forEach(c -> c.customize(builder));
    ZkLocks locks = builder.build();
    for (ZkLocksDecorator d : (Iterable<ZkLocksDecorator>) decorators.orderedStream()::iterator) {
      locks = d.decorate(locks);
    }
    return locks;
  }

  /**
   * Closes every ZkLocks bean when the context stops, and opens it again when it starts ({@link
   * ZkLocksLifecycle#PHASE}). Static: a lifecycle bean, made early and apart from this
   * configuration.
   */
  @Bean
  @ConditionalOnMissingBean
  public static ZkLocksLifecycle zkLocksLifecycle(ConfigurableListableBeanFactory beanFactory) {
    return new ZkLocksLifecycle(beanFactory);
  }

  /** Masks zklock's secrets in Actuator's {@code configprops} and {@code env} endpoints. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.SanitizingFunction")
  static class Secrets {
    @Bean
    static ZkLocksSecrets zklockSecretsSanitizingFunction() {
      return new ZkLocksSecrets();
    }
  }

  static ZkLocks.Builder builder(
      ZkLockProperties p, ZkLocksConnectionDetails connection, SslBundleTls sslBundleTls) {
    ZkLocks.Builder b =
        ZkLocks.builder(connection.getConnectString())
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
    ZkLockProperties.Auth auth = p.getAuth();
    String user = connection.getUsername();
    String password = connection.getPassword();
    if (user != null || password != null) {
      if (user == null || password == null) {
        throw new IllegalArgumentException(
            "set both zklock.auth.username and zklock.auth.password (the password is not shown)");
      }
      if (auth.getDigest() != null || auth.getDigestFile() != null) {
        throw new IllegalArgumentException(
            "set zklock.auth.username and zklock.auth.password, or zklock.auth.digest-file, not"
                + " both");
      }
      b.digest(user, password);
    } else {
      String digest = digest(auth);
      if (digest != null) {
        b.authorization("digest", digest.getBytes(StandardCharsets.UTF_8));
      }
    }
    ZkLockProperties.Tls tls = p.getTls();
    SslBundle bundle = connection.getSslBundle();
    if (bundle != null) {
      if (tls.getTrustStore() != null || tls.getKeyStore() != null) {
        throw new IllegalArgumentException(
            "set zklock.ssl.bundle or zklock.tls.trust-store (and key-store), not both");
      }
      b.tls(sslBundleTls.tlsConfig(bundle, p.getSsl().isHostnameVerification()));
    } else if (tls.getTrustStore() != null) {
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
