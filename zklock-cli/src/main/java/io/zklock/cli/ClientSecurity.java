package io.zklock.cli;

import io.zklock.TlsConfig;
import io.zklock.ZkLocks;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;

/**
 * How a command authenticates to the ensemble and whether it speaks TLS, gathered from a client
 * configuration file, a digest file and the environment, never from argv (where {@code ps} would
 * show a password). Its {@link #toString()} names files and users, never a password.
 *
 * <p>The client configuration file is a Java properties file with ZooKeeper's own client property
 * names (so one file serves {@code zkCli.sh -client-configuration} and {@code zklock}):
 *
 * <ul>
 *   <li>{@code zookeeper.client.secure=true}: TLS (the servers' secure client port);
 *   <li>{@code zookeeper.ssl.trustStore.location}, {@code .password} or {@code .passwordPath},
 *       {@code .type}; the same for {@code zookeeper.ssl.keyStore.*} (mutual TLS);
 *   <li>{@code zookeeper.ssl.hostnameVerification} (default true);
 *   <li>zklock's own: {@code zklock.digest=user:password} or {@code zklock.digest.path=FILE}.
 * </ul>
 */
final class ClientSecurity {
  static final String ENV_CLIENT_CONFIGURATION = "ZKLOCK_CLIENT_CONFIGURATION";
  static final String ENV_DIGEST = "ZKLOCK_DIGEST";
  static final String ENV_DIGEST_FILE = "ZKLOCK_DIGEST_FILE";

  private static final String SECURE = "zookeeper.client.secure";
  private static final String SSL = "zookeeper.ssl.";
  private static final String DIGEST = "zklock.digest";
  private static final String DIGEST_PATH = "zklock.digest.path";
  private static final Set<String> KNOWN =
      Set.of(
          SECURE,
          SSL + "trustStore.location",
          SSL + "trustStore.password",
          SSL + "trustStore.passwordPath",
          SSL + "trustStore.type",
          SSL + "keyStore.location",
          SSL + "keyStore.password",
          SSL + "keyStore.passwordPath",
          SSL + "keyStore.type",
          SSL + "hostnameVerification",
          DIGEST,
          DIGEST_PATH);

  /** A store and its password (which may be null). */
  record Store(Path path, char[] password, String type) {}

  private final String digestUser;
  private final String digestPassword;
  private final String digestSource;
  private final Store trustStore;
  private final Store keyStore;
  private final boolean hostnameVerification;
  private final Path configuration;

  private ClientSecurity(
      String digestUser,
      String digestPassword,
      String digestSource,
      Store trustStore,
      Store keyStore,
      boolean hostnameVerification,
      Path configuration) {
    this.digestUser = digestUser;
    this.digestPassword = digestPassword;
    this.digestSource = digestSource;
    this.trustStore = trustStore;
    this.keyStore = keyStore;
    this.hostnameVerification = hostnameVerification;
    this.configuration = configuration;
  }

  static ClientSecurity none() {
    return new ClientSecurity(null, null, null, null, null, true, null);
  }

  /**
   * Reads the settings: {@code digestFile} (or, when null, {@code $ZKLOCK_DIGEST_FILE}, then {@code
   * $ZKLOCK_DIGEST}) wins over the configuration file's digest.
   *
   * @throws CliException with exit code 2 naming the file or variable at fault (never a secret)
   */
  static ClientSecurity load(Path configurationFile, Path digestFile, Map<String, String> env) {
    Properties p = new Properties();
    if (configurationFile != null) {
      try (InputStream in = Files.newInputStream(configurationFile)) {
        p.load(in);
      } catch (IOException | IllegalArgumentException e) {
        throw usage(
            "cannot read the client configuration "
                + configurationFile
                + ": "
                + e.getClass().getSimpleName());
      }
      for (String key : p.stringPropertyNames()) {
        if ((key.startsWith("zklock.") || key.startsWith(SSL)) && !KNOWN.contains(key)) {
          throw usage(
              "unknown property '"
                  + key
                  + "' in the client configuration "
                  + configurationFile
                  + " (docs/cli.md lists the known ones)");
        }
      }
    }
    String user = null;
    String password = null;
    String source = null;
    String digest = null;
    if (digestFile != null) {
      digest = firstLine(digestFile, "digest file");
      source = digestFile.toString();
    } else if (nonEmpty(env.get(ENV_DIGEST_FILE))) {
      Path f = Path.of(env.get(ENV_DIGEST_FILE));
      digest = firstLine(f, "digest file ($" + ENV_DIGEST_FILE + ")");
      source = f.toString();
    } else if (nonEmpty(env.get(ENV_DIGEST))) {
      digest = env.get(ENV_DIGEST);
      source = "$" + ENV_DIGEST;
    } else if (p.getProperty(DIGEST_PATH) != null) {
      Path f = Path.of(p.getProperty(DIGEST_PATH).strip());
      digest = firstLine(f, "digest file (" + DIGEST_PATH + ")");
      source = f.toString();
    } else if (p.getProperty(DIGEST) != null) {
      digest = p.getProperty(DIGEST).strip();
      source = DIGEST + " in " + configurationFile;
    }
    if (digest != null) {
      int colon = digest.indexOf(':');
      if (colon <= 0) { // never echo the value: it may be a password
        throw usage("the digest from " + source + " must be user:password");
      }
      user = digest.substring(0, colon);
      password = digest.substring(colon + 1);
    }
    Store trust = null;
    Store key = null;
    boolean verify = true;
    boolean secure = Boolean.parseBoolean(p.getProperty(SECURE, "false").strip());
    if (secure) {
      trust = store(p, "trustStore", configurationFile);
      if (trust == null) {
        throw usage(
            SECURE
                + "=true in "
                + configurationFile
                + " needs "
                + SSL
                + "trustStore.location (the certificates that sign the servers')");
      }
      key = store(p, "keyStore", configurationFile);
      verify = Boolean.parseBoolean(p.getProperty(SSL + "hostnameVerification", "true").strip());
    }
    return new ClientSecurity(user, password, source, trust, key, verify, configurationFile);
  }

  private static Store store(Properties p, String which, Path file) {
    String location = p.getProperty(SSL + which + ".location");
    if (location == null || location.isBlank()) {
      return null;
    }
    Path path = Path.of(location.strip());
    if (!Files.isReadable(path)) {
      throw usage(SSL + which + ".location in " + file + " is not a readable file: " + path);
    }
    char[] password = null;
    String pw = p.getProperty(SSL + which + ".password");
    String pwPath = p.getProperty(SSL + which + ".passwordPath");
    if (pwPath != null && !pwPath.isBlank()) {
      password = firstLine(Path.of(pwPath.strip()), SSL + which + ".passwordPath").toCharArray();
    } else if (pw != null) {
      password = pw.toCharArray();
    }
    String type = p.getProperty(SSL + which + ".type");
    return new Store(path, password, type == null || type.isBlank() ? null : type.strip());
  }

  private static String firstLine(Path file, String what) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      return lines.isEmpty() ? "" : lines.get(0).strip();
    } catch (IOException e) {
      throw usage("cannot read the " + what + " " + file + ": " + e.getClass().getSimpleName());
    }
  }

  private static boolean nonEmpty(String s) {
    return s != null && !s.isEmpty();
  }

  private static CliException usage(String message) {
    return new CliException(ExitCodes.USAGE, message);
  }

  boolean tls() {
    return trustStore != null;
  }

  boolean authenticated() {
    return digestUser != null;
  }

  /** Configures a {@link ZkLocks} builder: digest authentication and TLS. */
  void apply(ZkLocks.Builder builder) {
    if (digestUser != null) {
      builder.digest(digestUser, digestPassword);
    }
    if (trustStore != null) {
      TlsConfig.Builder tls =
          TlsConfig.builder()
              .trustStore(trustStore.path(), trustStore.password())
              .hostnameVerification(hostnameVerification);
      if (trustStore.type() != null) {
        tls.trustStoreType(trustStore.type());
      }
      if (keyStore != null) {
        tls.keyStore(keyStore.path(), keyStore.password());
        if (keyStore.type() != null) {
          tls.keyStoreType(keyStore.type());
        }
      }
      builder.tls(tls.build());
    }
  }

  /** The client configuration of a plain ZooKeeper client (for {@code ls}). */
  ZKClientConfig clientConfig() {
    ZKClientConfig c = new ZKClientConfig();
    if (trustStore != null) {
      c.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
      c.setProperty(
          ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET,
          "org.apache.zookeeper.ClientCnxnSocketNetty");
      set(c, "trustStore", trustStore);
      if (keyStore != null) {
        set(c, "keyStore", keyStore);
      }
      c.setProperty(SSL + "hostnameVerification", Boolean.toString(hostnameVerification));
    }
    return c;
  }

  private static void set(ZKClientConfig c, String which, Store s) {
    c.setProperty(SSL + which + ".location", s.path().toString());
    if (s.password() != null) {
      c.setProperty(SSL + which + ".password", new String(s.password()));
    }
    if (s.type() != null) {
      c.setProperty(SSL + which + ".type", s.type());
    }
  }

  /** Authenticates a plain ZooKeeper client. */
  void authenticate(ZooKeeper zk) {
    if (digestUser != null) {
      zk.addAuthInfo(
          "digest", (digestUser + ":" + digestPassword).getBytes(StandardCharsets.UTF_8));
    }
  }

  /** What is in use, for {@code --verbose}: files and the user, never a password. */
  @Override
  public String toString() {
    List<String> parts = new ArrayList<>();
    parts.add(
        trustStore == null
            ? "no TLS"
            : "TLS (trust store "
                + trustStore.path()
                + (keyStore == null ? "" : ", key store " + keyStore.path())
                + (hostnameVerification ? "" : ", no hostname verification")
                + ")");
    parts.add(
        digestUser == null
            ? "no authentication"
            : "digest user '" + digestUser + "' (from " + digestSource + ")");
    if (configuration != null) {
      parts.add("client configuration " + configuration);
    }
    return String.join(", ", parts);
  }
}
