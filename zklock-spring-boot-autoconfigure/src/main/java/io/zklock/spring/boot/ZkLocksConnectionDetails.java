package io.zklock.spring.boot;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.ssl.SslBundle;

/**
 * Where the auto-configured {@link io.zklock.ZkLocks} connects, and as whom: Spring Boot's
 * connection details for ZooKeeper. By default they come from the {@code zklock.*} properties
 * ({@code zklock.connect-string}, {@code zklock.auth.username} and {@code password}, {@code
 * zklock.ssl.bundle}); a bean of this type replaces them, such as the one Spring Boot's
 * {@code @ServiceConnection} makes for a ZooKeeper test container, or one of your own for a server
 * your tests start themselves:
 *
 * <pre>{@code
 * @Bean(destroyMethod = "close") EmbeddedZooKeeper zooKeeper() {       // zklock-testkit
 *   return EmbeddedZooKeeper.standalone().start();
 * }
 * @Bean ZkLocksConnectionDetails zkLocksConnectionDetails(EmbeddedZooKeeper zk) {
 *   return zk::connectString;
 * }
 * }</pre>
 *
 * The other {@code zklock.*} properties (namespace, timeouts, metrics...) apply either way.
 */
@FunctionalInterface
public interface ZkLocksConnectionDetails extends ConnectionDetails {
  /** ZooKeeper's connect string, {@code host:port[,host:port...][/chroot]}. */
  String getConnectString();

  /** The digest login's user name, or null for none. */
  default String getUsername() {
    return null;
  }

  /** The digest login's password, or null for none. */
  default String getPassword() {
    return null;
  }

  /** The SSL bundle of TLS to the servers' secure client port, or null for a plain connection. */
  default SslBundle getSslBundle() {
    return null;
  }
}
