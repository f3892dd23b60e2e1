package io.zklock.cli;

import io.zklock.ZkLocks;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/** The options of every command that talks to a ZooKeeper server. */
final class ConnectionOptions {
  static final String DEFAULT_CONNECT = "127.0.0.1:2181";

  @Option(
      names = {"-c", "--connect"},
      paramLabel = "HOSTS",
      defaultValue = "${env:ZKLOCK_CONNECT:-" + DEFAULT_CONNECT + "}",
      description =
          "ZooKeeper connect string, host:port[,host:port...][/chroot]"
              + " (default: $ZKLOCK_CONNECT or ${DEFAULT-VALUE}).")
  String connect;

  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "PATH",
      defaultValue = "/zklock",
      description = "Parent znode of the locks (default: ${DEFAULT-VALUE}).")
  String namespace;

  @Option(
      names = "--connect-timeout",
      paramLabel = "DURATION",
      defaultValue = "10s",
      converter = Durations.class,
      description = "How long to try to reach a server (default: ${DEFAULT-VALUE}).")
  Duration connectTimeout;

  @Option(
      names = "--session-timeout",
      paramLabel = "DURATION",
      defaultValue = "15s",
      converter = Durations.class,
      description =
          "ZooKeeper session timeout: how long after losing contact the server gives the lock"
              + " away (default: ${DEFAULT-VALUE}).")
  Duration sessionTimeout;

  @Option(
      names = "--client-configuration",
      paramLabel = "FILE",
      defaultValue = "${env:" + ClientSecurity.ENV_CLIENT_CONFIGURATION + "}",
      description =
          "ZooKeeper client properties: TLS (zookeeper.client.secure, zookeeper.ssl.*) and"
              + " zklock.digest[.path] (default: $"
              + ClientSecurity.ENV_CLIENT_CONFIGURATION
              + ").")
  Path clientConfiguration;

  @Option(
      names = "--digest-file",
      paramLabel = "FILE",
      description =
          "Authenticate with the digest user:password on the first line of FILE (or set $"
              + ClientSecurity.ENV_DIGEST_FILE
              + ", or $"
              + ClientSecurity.ENV_DIGEST
              + "=user:password). Never on the command line.")
  Path digestFile;

  private ClientSecurity security;

  /** The authentication and TLS settings (read once). */
  ClientSecurity security() {
    if (security == null) {
      security = ClientSecurity.load(clientConfiguration, digestFile, System.getenv());
    }
    return security;
  }

  /** Connects, mapping a failure to connect to a one-line error with its exit code. */
  ZkLocks connect(String clientName) {
    return connect(clientName, false);
  }

  /**
   * Builds a client that connects in the background ({@code connectInBackground}): unlike {@link
   * #connect}, it creates nothing, not even the namespace; its first request fails with a {@link
   * io.zklock.ZkLockException} if no server answers within the connect timeout.
   */
  ZkLocks connectInBackground(String clientName) {
    return connect(clientName, true);
  }

  private ZkLocks connect(String clientName, boolean background) {
    ConnectString.check(connect);
    ZkLocks.Builder builder;
    try {
      builder =
          ZkLocks.builder(connect)
              .namespace(namespace)
              .connectTimeout(connectTimeout)
              .sessionTimeout(sessionTimeout);
      if (clientName != null) {
        builder.clientName(clientName);
      }
      security().apply(builder);
      if (background) {
        builder.connectInBackground();
      }
    } catch (IllegalArgumentException e) {
      throw new CliException(ExitCodes.USAGE, e.getMessage(), e);
    }
    return Errors.connecting(builder::build);
  }
}
