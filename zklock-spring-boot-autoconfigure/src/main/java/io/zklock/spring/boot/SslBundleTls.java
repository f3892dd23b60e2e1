package io.zklock.spring.boot;

import io.zklock.TlsConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.Collections;
import java.util.Comparator;
import java.util.stream.Stream;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundleKey;
import org.springframework.boot.ssl.SslStoreBundle;

/**
 * An {@link SslBundle} as zklock's {@link TlsConfig}. ZooKeeper's client reads its key and trust
 * material from files only (at each connection), so the bundle's stores, whatever they were made
 * from (JKS, PKCS12, PEM), are written as PKCS12 files with a password of their own into a
 * directory that only this process's user may read, deleted when the context closes. The bundle's
 * protocol and cipher options are not applied (ZooKeeper takes those from its own system
 * properties, {@code zookeeper.ssl.enabledProtocols} and {@code zookeeper.ssl.ciphersuites}).
 */
class SslBundleTls implements DisposableBean {
  private Path dir;

  /** The TLS configuration of {@code bundle}'s stores. */
  synchronized TlsConfig tlsConfig(SslBundle bundle, boolean hostnameVerification) {
    SslStoreBundle stores = bundle.getStores();
    if (stores.getTrustStore() == null) {
      throw new IllegalArgumentException(
          "the SSL bundle for zklock has no trust store: TLS to ZooKeeper needs one");
    }
    try {
      if (dir == null) {
        dir = privateDirectory();
      }
      char[] password = randomPassword();
      String n = Integer.toString(dir.toFile().list().length);
      Path trust = dir.resolve("trust-" + n + ".p12");
      write(copy(stores.getTrustStore(), null, null, password), trust, password);
      TlsConfig.Builder t =
          TlsConfig.builder()
              .trustStore(trust, password)
              .trustStoreType("PKCS12")
              .hostnameVerification(hostnameVerification);
      if (stores.getKeyStore() != null) {
        SslBundleKey key = bundle.getKey();
        String keyPassword =
            key.getPassword() != null ? key.getPassword() : stores.getKeyStorePassword();
        Path keys = dir.resolve("key-" + n + ".p12");
        KeyStore copy =
            copy(
                stores.getKeyStore(),
                key.getAlias(),
                keyPassword == null ? new char[0] : keyPassword.toCharArray(),
                password);
        write(copy, keys, password);
        t.keyStore(keys, password).keyStoreType("PKCS12");
      }
      return t.build();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot hand the SSL bundle's stores to ZooKeeper", e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot read the SSL bundle's stores for ZooKeeper", e);
    }
  }

  /** A PKCS12 copy of {@code source}: its certificates, and its keys (or only {@code alias}'s). */
  private static KeyStore copy(KeyStore source, String alias, char[] keyPassword, char[] password)
      throws GeneralSecurityException, IOException {
    KeyStore out = KeyStore.getInstance("PKCS12");
    out.load(null, null);
    for (String a : Collections.list(source.aliases())) {
      if (source.isKeyEntry(a)) {
        if (keyPassword == null || (alias != null && !alias.equals(a))) {
          continue;
        }
        Key key = source.getKey(a, keyPassword);
        Certificate[] chain = source.getCertificateChain(a);
        out.setKeyEntry(a, key, password, chain);
      } else if (source.isCertificateEntry(a)) {
        out.setCertificateEntry(a, source.getCertificate(a));
      }
    }
    return out;
  }

  private static void write(KeyStore store, Path file, char[] password)
      throws GeneralSecurityException, IOException {
    try (OutputStream out = Files.newOutputStream(file)) {
      store.store(out, password);
    }
    file.toFile().deleteOnExit(); // should the context not close
  }

  private static Path privateDirectory() throws IOException {
    Path dir =
        FileSystems.getDefault().supportedFileAttributeViews().contains("posix")
            ? Files.createTempDirectory(
                "zklock-tls-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")))
            : Files.createTempDirectory("zklock-tls-");
    dir.toFile().deleteOnExit();
    return dir;
  }

  private static char[] randomPassword() {
    byte[] b = new byte[24];
    new SecureRandom().nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b).toCharArray();
  }

  /** The directory of the files, or null before the first. */
  synchronized Path directory() {
    return dir;
  }

  /** Deletes the files. */
  @Override
  public synchronized void destroy() throws IOException {
    if (dir == null) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
    dir = null;
  }
}
