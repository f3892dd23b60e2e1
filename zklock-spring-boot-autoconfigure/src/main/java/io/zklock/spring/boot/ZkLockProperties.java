package io.zklock.spring.boot;

import io.zklock.SuspensionPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;

/**
 * The {@code zklock.*} properties of the auto-configured {@link io.zklock.ZkLocks}.
 *
 * <pre>
 * zklock.connect-string=zk1:2181,zk2:2181,zk3:2181
 * zklock.namespace=/zklock
 * zklock.session-timeout=15s
 * zklock.connect-in-background=false
 * zklock.client-name=orders-worker-1
 * zklock.auth.username=orders-service                   # digest login: user and password
 * zklock.auth.password=${ZK_PASSWORD}
 * zklock.ssl.bundle=zookeeper                            # TLS from a Spring Boot SSL bundle
 * </pre>
 */
@ConfigurationProperties("zklock")
public class ZkLockProperties {
  /** ZooKeeper's connect string, host:port[,host:port...][/chroot]; no ZkLocks bean without it. */
  private String connectString;

  /** The parent znode of every lock. */
  private String namespace = "/zklock";

  /** The session timeout asked of the ensemble. */
  private Duration sessionTimeout = Duration.ofSeconds(15);

  /**
   * How long startup waits for the first connection; with connect-in-background, how long each
   * request made before it waits for it.
   */
  private Duration connectTimeout = Duration.ofSeconds(10);

  /**
   * Whether startup goes on without waiting for ZooKeeper: the ZkLocks bean connects in the
   * background, and requests made before the first connection wait for it up to connect-timeout. A
   * wrong connect string or TLS setup then shows only in the log and in timed-out requests.
   */
  private boolean connectInBackground = false;

  /** The name shown by `zklock ls` for this client's locks; default host:pid. */
  private String clientName;

  /** What held locks do while the connection is suspended. */
  private SuspensionPolicy suspensionPolicy = SuspensionPolicy.WAIT_FOR_EXPIRY;

  private final Auth auth = new Auth();
  private final Ssl ssl = new Ssl();
  private final Tls tls = new Tls();
  private final Metrics metrics = new Metrics();
  private final Integration integration = new Integration();
  private final Shedlock shedlock = new Shedlock();

  /**
   * Digest authentication: nodes are then created readable by all, writable by this identity. Its
   * password is never shown by Actuator's configprops and env endpoints.
   */
  public static class Auth {
    /** The digest login's user name; with password. */
    private String username;

    /** The digest login's password; with username. */
    private String password;

    /** user:password in one value. Prefer username and password, or digest-file. */
    private String digest;

    /** A file whose content (trimmed) is user:password, outside the environment. */
    private Path digestFile;

    public String getUsername() {
      return username;
    }

    public void setUsername(String username) {
      this.username = username;
    }

    public String getPassword() {
      return password;
    }

    public void setPassword(String password) {
      this.password = password;
    }

    @DeprecatedConfigurationProperty(
        replacement = "zklock.auth.password",
        reason = "user and password in one value; zklock.auth.username and zklock.auth.password")
    public String getDigest() {
      return digest;
    }

    public void setDigest(String digest) {
      this.digest = digest;
    }

    public Path getDigestFile() {
      return digestFile;
    }

    public void setDigestFile(Path digestFile) {
      this.digestFile = digestFile;
    }
  }

  /**
   * TLS to the servers' secure client port from a Spring Boot SSL bundle ({@code spring.ssl.*}).
   */
  public static class Ssl {
    /**
     * The SSL bundle of TLS to ZooKeeper (its trust store, and key store for client certificates).
     */
    private String bundle;

    /** Whether a server certificate must name the host connected to. */
    private boolean hostnameVerification = true;

    public String getBundle() {
      return bundle;
    }

    public void setBundle(String bundle) {
      this.bundle = bundle;
    }

    public boolean isHostnameVerification() {
      return hostnameVerification;
    }

    public void setHostnameVerification(boolean hostnameVerification) {
      this.hostnameVerification = hostnameVerification;
    }
  }

  /**
   * TLS to the servers' secure client port from store files; on when a trust store is given. {@code
   * zklock.ssl.bundle} does the same with Spring Boot's SSL bundles.
   */
  public static class Tls {
    /** Trust store (JKS, PKCS12 or PEM) of the certificates that sign the servers'. */
    private Path trustStore;

    /** Password of the trust store, if it has one. */
    private String trustStorePassword;

    /** Trust store type; by default taken from the file extension. */
    private String trustStoreType;

    /** The client's key store, for servers that require client certificates. */
    private Path keyStore;

    /** Password of the key store and of its key. */
    private String keyStorePassword;

    /** Key store type; by default taken from the file extension. */
    private String keyStoreType;

    /** Whether a server certificate must name the host connected to. */
    private boolean hostnameVerification = true;

    public Path getTrustStore() {
      return trustStore;
    }

    public void setTrustStore(Path trustStore) {
      this.trustStore = trustStore;
    }

    public String getTrustStorePassword() {
      return trustStorePassword;
    }

    public void setTrustStorePassword(String trustStorePassword) {
      this.trustStorePassword = trustStorePassword;
    }

    public String getTrustStoreType() {
      return trustStoreType;
    }

    public void setTrustStoreType(String trustStoreType) {
      this.trustStoreType = trustStoreType;
    }

    public Path getKeyStore() {
      return keyStore;
    }

    public void setKeyStore(Path keyStore) {
      this.keyStore = keyStore;
    }

    public String getKeyStorePassword() {
      return keyStorePassword;
    }

    public void setKeyStorePassword(String keyStorePassword) {
      this.keyStorePassword = keyStorePassword;
    }

    public String getKeyStoreType() {
      return keyStoreType;
    }

    public void setKeyStoreType(String keyStoreType) {
      this.keyStoreType = keyStoreType;
    }

    public boolean isHostnameVerification() {
      return hostnameVerification;
    }

    public void setHostnameVerification(boolean hostnameVerification) {
      this.hostnameVerification = hostnameVerification;
    }
  }

  /** zklock-micrometer, when it and Micrometer are on the classpath. */
  public static class Metrics {
    /** Whether the ZkLocks bean is measured. */
    private boolean enabled = true;

    /** Lock names that get their own "lock" tag; every other name is tagged "other". */
    private List<String> lockNames = new ArrayList<>();

    /** Tag up to this many distinct lock names, first come (in addition to lock-names). */
    private int maxLockNames = 0;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public List<String> getLockNames() {
      return lockNames;
    }

    public void setLockNames(List<String> lockNames) {
      this.lockNames = lockNames;
    }

    public int getMaxLockNames() {
      return maxLockNames;
    }

    public void setMaxLockNames(int maxLockNames) {
      this.maxLockNames = maxLockNames;
    }
  }

  /** zklock-spring-integration, when on the classpath. */
  public static class Integration {
    /** Prefix of the registry's lock names (prefix/key); empty for the key alone. */
    private String prefix = "";

    /**
     * How many locks the registry's cache keeps; when full, the least recently obtained unlocked
     * locks are forgotten (Spring's JDBC and Redis registries keep 100,000 too).
     */
    private int cacheCapacity = 100_000;

    /**
     * Time to live of the registry's holds (a zklock lease; see ZkLockRegistry#setTimeToLive): a
     * hold neither unlocked nor renewed within it is released by zklock. Unset: no time to live.
     */
    private Duration timeToLive;

    public String getPrefix() {
      return prefix;
    }

    public void setPrefix(String prefix) {
      this.prefix = prefix;
    }

    public int getCacheCapacity() {
      return cacheCapacity;
    }

    public void setCacheCapacity(int cacheCapacity) {
      this.cacheCapacity = cacheCapacity;
    }

    public Duration getTimeToLive() {
      return timeToLive;
    }

    public void setTimeToLive(Duration timeToLive) {
      this.timeToLive = timeToLive;
    }
  }

  /** zklock-shedlock, when on the classpath. */
  public static class Shedlock {
    /** Prefix of ShedLock's lock names (prefix/name); empty for the name alone. */
    private String prefix = "shedlock";

    public String getPrefix() {
      return prefix;
    }

    public void setPrefix(String prefix) {
      this.prefix = prefix;
    }
  }

  public String getConnectString() {
    return connectString;
  }

  public void setConnectString(String connectString) {
    this.connectString = connectString;
  }

  public String getNamespace() {
    return namespace;
  }

  public void setNamespace(String namespace) {
    this.namespace = namespace;
  }

  public Duration getSessionTimeout() {
    return sessionTimeout;
  }

  public void setSessionTimeout(Duration sessionTimeout) {
    this.sessionTimeout = sessionTimeout;
  }

  public Duration getConnectTimeout() {
    return connectTimeout;
  }

  public void setConnectTimeout(Duration connectTimeout) {
    this.connectTimeout = connectTimeout;
  }

  public boolean isConnectInBackground() {
    return connectInBackground;
  }

  public void setConnectInBackground(boolean connectInBackground) {
    this.connectInBackground = connectInBackground;
  }

  public String getClientName() {
    return clientName;
  }

  public void setClientName(String clientName) {
    this.clientName = clientName;
  }

  public SuspensionPolicy getSuspensionPolicy() {
    return suspensionPolicy;
  }

  public void setSuspensionPolicy(SuspensionPolicy suspensionPolicy) {
    this.suspensionPolicy = suspensionPolicy;
  }

  public Auth getAuth() {
    return auth;
  }

  public Ssl getSsl() {
    return ssl;
  }

  public Tls getTls() {
    return tls;
  }

  public Metrics getMetrics() {
    return metrics;
  }

  public Integration getIntegration() {
    return integration;
  }

  public Shedlock getShedlock() {
    return shedlock;
  }
}
