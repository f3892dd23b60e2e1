package io.zklock.testkit;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HexFormat;
import org.apache.zookeeper.client.ZKClientConfig;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Throw-away TLS material for tests: a self-signed CA, a server certificate and a client
 * certificate (both signed by the CA, both with subject alternative names {@code 127.0.0.1} and
 * {@code localhost}), written as PKCS12 key stores plus a PKCS12 trust store holding the CA, all
 * protected by one random password, in a temporary directory that {@link #close()} deletes.
 *
 * <pre>{@code
 * try (TestCertificates certs = TestCertificates.generate();
 *     EmbeddedZooKeeper zk = EmbeddedZooKeeper.standalone().tls(certs).start()) {
 *   ZooKeeper client = new ZooKeeper(zk.secureConnectString(), 2000, e -> {}, certs.clientConfig());
 * }
 * }</pre>
 *
 * <p>Keys are EC P-256, certificates are valid from one hour ago for one day.
 */
public final class TestCertificates implements AutoCloseable {
  private static final String SIGNATURE = "SHA256withECDSA";

  private final Path dir;
  private final String password;
  private final Path serverKeyStore;
  private final Path clientKeyStore;
  private final Path trustStore;
  private final X509Certificate caCertificate;

  private TestCertificates(
      Path dir,
      String password,
      Path serverKeyStore,
      Path clientKeyStore,
      Path trustStore,
      X509Certificate ca) {
    this.dir = dir;
    this.password = password;
    this.serverKeyStore = serverKeyStore;
    this.clientKeyStore = clientKeyStore;
    this.trustStore = trustStore;
    this.caCertificate = ca;
  }

  /**
   * Generates a new CA, server and client certificate in a new temporary directory.
   *
   * @throws IllegalStateException if the JDK lacks EC or PKCS12 support
   * @throws UncheckedIOException if the files cannot be written
   */
  public static TestCertificates generate() {
    Path dir = Files2.tempDir("zklock-certs-");
    try {
      byte[] pw = new byte[12];
      new SecureRandom().nextBytes(pw);
      String password = HexFormat.of().formatHex(pw);

      KeyPair caKeys = newKeyPair();
      X500Name caName = new X500Name("CN=zklock test CA");
      X509Certificate ca = sign(caName, caKeys, caName, caKeys.getPublic(), true, null);

      KeyPair serverKeys = newKeyPair();
      X509Certificate server =
          sign(
              caName,
              caKeys,
              new X500Name("CN=localhost"),
              serverKeys.getPublic(),
              false,
              KeyPurposeId.id_kp_serverAuth);
      KeyPair clientKeys = newKeyPair();
      X509Certificate client =
          sign(
              caName,
              caKeys,
              new X500Name("CN=zklock test client"),
              clientKeys.getPublic(),
              false,
              KeyPurposeId.id_kp_clientAuth);

      Path serverStore = dir.resolve("server.p12");
      Path clientStore = dir.resolve("client.p12");
      Path trust = dir.resolve("truststore.p12");
      writeKeyStore(serverStore, password, "server", serverKeys.getPrivate(), server, ca);
      writeKeyStore(clientStore, password, "client", clientKeys.getPrivate(), client, ca);
      KeyStore ts = KeyStore.getInstance("PKCS12");
      ts.load(null, null);
      ts.setCertificateEntry("ca", ca);
      store(ts, trust, password);
      return new TestCertificates(dir, password, serverStore, clientStore, trust, ca);
    } catch (GeneralSecurityException | OperatorCreationException e) {
      Files2.deleteQuietly(dir);
      throw new IllegalStateException("cannot generate test certificates", e);
    } catch (IOException e) {
      Files2.deleteQuietly(dir);
      throw new UncheckedIOException("cannot write test certificates to " + dir, e);
    }
  }

  /** The PKCS12 key store with the server's key and certificate chain. */
  public Path serverKeyStore() {
    return serverKeyStore;
  }

  /** The PKCS12 key store with the client's key and certificate chain. */
  public Path clientKeyStore() {
    return clientKeyStore;
  }

  /** The PKCS12 trust store holding the CA certificate (trusted by server and client). */
  public Path trustStore() {
    return trustStore;
  }

  /** The password of all three stores and of the keys in them. */
  public String password() {
    return password;
  }

  /** The CA certificate. */
  public X509Certificate caCertificate() {
    return caCertificate;
  }

  /**
   * A client configuration that connects over TLS with the client certificate: {@code
   * zookeeper.client.secure=true}, the Netty client socket, and the key and trust stores.
   */
  public ZKClientConfig clientConfig() {
    ZKClientConfig config = new ZKClientConfig();
    config.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
    config.setProperty(
        ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, "org.apache.zookeeper.ClientCnxnSocketNetty");
    config.setProperty("zookeeper.ssl.keyStore.location", clientKeyStore.toString());
    config.setProperty("zookeeper.ssl.keyStore.password", password);
    config.setProperty("zookeeper.ssl.keyStore.type", "PKCS12");
    config.setProperty("zookeeper.ssl.trustStore.location", trustStore.toString());
    config.setProperty("zookeeper.ssl.trustStore.password", password);
    config.setProperty("zookeeper.ssl.trustStore.type", "PKCS12");
    return config;
  }

  /** Deletes the temporary directory. Idempotent. */
  @Override
  public void close() {
    Files2.deleteQuietly(dir);
  }

  /** Sets the JVM-wide {@code zookeeper.ssl.*} properties that ZooKeeper's TLS server reads. */
  void applyServerSystemProperties() {
    System.setProperty("zookeeper.ssl.keyStore.location", serverKeyStore.toString());
    System.setProperty("zookeeper.ssl.keyStore.password", password);
    System.setProperty("zookeeper.ssl.keyStore.type", "PKCS12");
    System.setProperty("zookeeper.ssl.trustStore.location", trustStore.toString());
    System.setProperty("zookeeper.ssl.trustStore.password", password);
    System.setProperty("zookeeper.ssl.trustStore.type", "PKCS12");
  }

  private static KeyPair newKeyPair() throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    return generator.generateKeyPair();
  }

  private static X509Certificate sign(
      X500Name issuer,
      KeyPair issuerKeys,
      X500Name subject,
      java.security.PublicKey subjectKey,
      boolean isCa,
      KeyPurposeId purpose)
      throws GeneralSecurityException, OperatorCreationException, IOException {
    Instant now = Instant.now();
    X509v3CertificateBuilder builder =
        new JcaX509v3CertificateBuilder(
            issuer,
            new BigInteger(64, new SecureRandom()).abs().add(BigInteger.ONE),
            Date.from(now.minus(Duration.ofHours(1))),
            Date.from(now.plus(Duration.ofDays(1))),
            subject,
            subjectKey);
    JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
    builder.addExtension(
        Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(subjectKey));
    builder.addExtension(
        Extension.authorityKeyIdentifier,
        false,
        ext.createAuthorityKeyIdentifier(issuerKeys.getPublic()));
    if (isCa) {
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      builder.addExtension(
          Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    } else {
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      builder.addExtension(
          Extension.keyUsage,
          true,
          new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement));
      builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
      builder.addExtension(
          Extension.subjectAlternativeName,
          false,
          new GeneralNames(
              new GeneralName[] {
                new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                new GeneralName(GeneralName.dNSName, "localhost")
              }));
    }
    return new JcaX509CertificateConverter()
        .getCertificate(
            builder.build(new JcaContentSignerBuilder(SIGNATURE).build(issuerKeys.getPrivate())));
  }

  private static void writeKeyStore(
      Path file,
      String password,
      String alias,
      PrivateKey key,
      X509Certificate cert,
      X509Certificate ca)
      throws GeneralSecurityException, IOException {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    ks.setKeyEntry(alias, key, password.toCharArray(), new Certificate[] {cert, ca});
    store(ks, file, password);
  }

  private static void store(KeyStore ks, Path file, String password)
      throws GeneralSecurityException, IOException {
    try (OutputStream out = Files.newOutputStream(file)) {
      ks.store(out, password.toCharArray());
    }
  }
}
