package io.zklock;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * TLS to the ensemble, through ZooKeeper's client-side TLS (Netty socket, secure client port). Key
 * and trust stores are files (JKS, PKCS12 or PEM; the type is taken from the file extension by
 * ZooKeeper unless given).
 *
 * <pre>{@code
 * TlsConfig tls = TlsConfig.builder()
 *     .trustStore(Path.of("truststore.p12"), "secret".toCharArray())
 *     .keyStore(Path.of("client.p12"), "secret".toCharArray())   // for mutual TLS
 *     .build();
 * }</pre>
 */
public final class TlsConfig {
  private final Path keyStore;
  private final char[] keyStorePassword;
  private final String keyStoreType;
  private final Path trustStore;
  private final char[] trustStorePassword;
  private final String trustStoreType;
  private final boolean hostnameVerification;

  private TlsConfig(Builder b) {
    this.keyStore = b.keyStore;
    this.keyStorePassword = b.keyStorePassword;
    this.keyStoreType = b.keyStoreType;
    this.trustStore = b.trustStore;
    this.trustStorePassword = b.trustStorePassword;
    this.trustStoreType = b.trustStoreType;
    this.hostnameVerification = b.hostnameVerification;
  }

  /** Starts building a TLS configuration. */
  public static Builder builder() {
    return new Builder();
  }

  /** The client key store, or null when the servers do not ask for client certificates. */
  public Path keyStore() {
    return keyStore;
  }

  /** A copy of the key store password, or null. */
  public char[] keyStorePassword() {
    return keyStorePassword == null ? null : keyStorePassword.clone();
  }

  /** The key store type, or null to let ZooKeeper infer it from the file name. */
  public String keyStoreType() {
    return keyStoreType;
  }

  /** The trust store holding the certificates that sign the servers' certificates. */
  public Path trustStore() {
    return trustStore;
  }

  /** A copy of the trust store password, or null. */
  public char[] trustStorePassword() {
    return trustStorePassword == null ? null : trustStorePassword.clone();
  }

  /** The trust store type, or null to let ZooKeeper infer it from the file name. */
  public String trustStoreType() {
    return trustStoreType;
  }

  /** Whether a server certificate must name the host connected to. */
  public boolean hostnameVerification() {
    return hostnameVerification;
  }

  /** Builds a {@link TlsConfig}; a trust store is required. */
  public static final class Builder {
    private Path keyStore;
    private char[] keyStorePassword;
    private String keyStoreType;
    private Path trustStore;
    private char[] trustStorePassword;
    private String trustStoreType;
    private boolean hostnameVerification = true;

    private Builder() {}

    /** The client's own key and certificate, for servers that require client authentication. */
    public Builder keyStore(Path path, char[] password) {
      this.keyStore = readable(path, "key store");
      this.keyStorePassword = password == null ? null : password.clone();
      return this;
    }

    /** The certificates the client trusts to sign the servers' certificates. */
    public Builder trustStore(Path path, char[] password) {
      this.trustStore = readable(path, "trust store");
      this.trustStorePassword = password == null ? null : password.clone();
      return this;
    }

    /** The key store's type (JKS, PKCS12, PEM); by default taken from the file extension. */
    public Builder keyStoreType(String type) {
      this.keyStoreType = Objects.requireNonNull(type, "type");
      return this;
    }

    /** The trust store's type (JKS, PKCS12, PEM); by default taken from the file extension. */
    public Builder trustStoreType(String type) {
      this.trustStoreType = Objects.requireNonNull(type, "type");
      return this;
    }

    /** Whether to check that a server's certificate names its host (default {@code true}). */
    public Builder hostnameVerification(boolean verify) {
      this.hostnameVerification = verify;
      return this;
    }

    /**
     * Builds the configuration.
     *
     * @throws IllegalArgumentException if no trust store was given
     */
    public TlsConfig build() {
      if (trustStore == null) {
        throw new IllegalArgumentException(
            "TLS needs a trust store: call trustStore(path, password)");
      }
      return new TlsConfig(this);
    }

    private static Path readable(Path path, String what) {
      Objects.requireNonNull(path, what);
      if (!Files.isReadable(path)) {
        throw new IllegalArgumentException(what + " is not a readable file: " + path);
      }
      return path;
    }
  }
}
