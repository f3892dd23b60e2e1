package io.zklock.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.server.ContainerManager;
import org.apache.zookeeper.server.DataNode;
import org.apache.zookeeper.server.DataTree;
import org.apache.zookeeper.server.NIOServerCnxnFactory;
import org.apache.zookeeper.server.Request;
import org.apache.zookeeper.server.RequestProcessor;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.apache.zookeeper.server.auth.ProviderRegistry;
import org.apache.zookeeper.server.auth.X509AuthenticationProvider;
import org.apache.zookeeper.server.command.FourLetterCommands;
import org.apache.zookeeper.server.persistence.FileTxnSnapLog;

/**
 * A standalone ZooKeeper server running inside this JVM on 127.0.0.1, for tests.
 *
 * <pre>{@code
 * try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.standalone().start()) {
 *   ZooKeeper client = new ZooKeeper(zk.connectString(), 2000, event -> {});
 *   ...
 *   zk.expireSession(client.getSessionId());
 * }
 * }</pre>
 *
 * <p>The server is assembled from ZooKeeper's own {@link ZooKeeperServer} and an NIO {@link
 * ServerCnxnFactory} (not {@code ZooKeeperServerMain}), so tests can reach its internals through
 * {@link #server()}. It listens on a free port and keeps its snapshots and transaction log in a
 * temporary directory that {@link #close()} deletes. No AdminServer is started.
 *
 * <p><b>JVM-wide settings.</b> ZooKeeper reads some settings from system properties. Starting a
 * server sets {@code zookeeper.4lw.commands.whitelist=*} (if unset) so that {@code mntr} works.
 * {@code zookeeper.forceSync} is set only for the moment the transaction log is created and then
 * restored. A TLS server (see {@link Builder#tls(TestCertificates)}) sets the {@code
 * zookeeper.ssl.*} key and trust store properties for as long as the JVM runs, because ZooKeeper's
 * Netty factory reads them on every new connection, and registers the {@code x509} authentication
 * provider ({@code zookeeper.authProvider.x509}): run one TLS configuration per JVM. ZooKeeper's
 * metrics ({@code ServerMetrics}) are static, so in-process servers in one JVM share counters.
 *
 * <p><b>Other ZooKeeper releases.</b> With {@link Builder#serverVersion(String)} the server is that
 * release (3.5 to 3.9), started in a child JVM from its own artifacts on Maven Central: to test
 * code against the servers its users run. The same methods work on it, except those that reach into
 * the server's internals ({@link #server()}, {@link #setChildSequence(String, int)}), and it has no
 * TLS port.
 *
 * <p>Thread-safety: the methods are safe to call from any thread; {@link #restart()} and {@link
 * #close()} are serialized.
 *
 * <p>For N-node ensembles see {@link #ensemble(int)}.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {
  private static final Object SYSTEM_PROPERTIES = new Object();
  private static final long DEFAULT_MAX_SESSION_TIMEOUT_MS = 60_000;

  private final Builder config;
  private final Path dataDir;
  private final boolean deleteDataDir;
  private int clientPort;
  private int secureClientPort;

  private TestZooKeeperServer zks;
  private final ConcurrentHashMap<Long, LongAdder> requests = new ConcurrentHashMap<>();
  private ServerCnxnFactory cnxnFactory;
  private ServerCnxnFactory secureCnxnFactory;
  private ContainerManager containerManager;
  private final ChildServer child;
  private boolean closed;

  private EmbeddedZooKeeper(Builder config) {
    this.config = config;
    this.deleteDataDir = config.dataDir == null;
    this.dataDir = config.dataDir != null ? config.dataDir : Files2.tempDir("zklock-zk-");
    this.secureClientPort = config.tls == null ? -1 : 0;
    if (config.serverVersion != null) {
      this.clientPort = config.clientPort != 0 ? config.clientPort : Ports.free();
      this.child =
          new ChildServer(
              config.serverVersion,
              dataDir,
              clientPort,
              childSettings(config),
              config.forceSync,
              config.containerCheckInterval.toMillis());
    } else {
      this.clientPort = config.clientPort;
      this.child = null;
    }
  }

  private static Map<String, String> childSettings(Builder config) {
    Map<String, String> settings = new java.util.LinkedHashMap<>();
    settings.put("tickTime", Long.toString(config.tickTime.toMillis()));
    if (config.minSessionTimeout != null) {
      settings.put("minSessionTimeout", Long.toString(config.minSessionTimeout.toMillis()));
    }
    settings.put(
        "maxSessionTimeout",
        Long.toString(
            config.maxSessionTimeout != null
                ? config.maxSessionTimeout.toMillis()
                : Math.max(20 * config.tickTime.toMillis(), DEFAULT_MAX_SESSION_TIMEOUT_MS)));
    settings.put("maxClientCnxns", Integer.toString(config.maxClientConnections));
    return settings;
  }

  /** A builder for a standalone in-process server. */
  public static Builder standalone() {
    return new Builder();
  }

  /**
   * A builder for an ensemble of {@code servers} ZooKeeper servers on 127.0.0.1, in this JVM or as
   * child processes.
   *
   * @throws IllegalArgumentException if {@code servers < 1}
   */
  public static ZooKeeperEnsemble.Builder ensemble(int servers) {
    return new ZooKeeperEnsemble.Builder(servers);
  }

  /** The connect string of the plain client port, {@code "127.0.0.1:<port>"}. */
  public String connectString() {
    return Ports.LOOPBACK + ":" + clientPort;
  }

  /** The plain client port. Stays the same across {@link #restart()}. */
  public int clientPort() {
    return clientPort;
  }

  /**
   * The connect string of the TLS client port.
   *
   * @throws IllegalStateException if the server was not built with {@link Builder#tls}
   */
  public String secureConnectString() {
    if (config.tls == null) {
      throw new IllegalStateException("this server has no TLS port; build it with tls(certs)");
    }
    return Ports.LOOPBACK + ":" + secureClientPort;
  }

  /** The directory holding snapshots and the transaction log. */
  public Path dataDir() {
    return dataDir;
  }

  /**
   * The ZooKeeper release this server runs: the one given to {@link Builder#serverVersion(String)},
   * or, in process, the version of the ZooKeeper on this JVM's class path (for example {@code
   * "3.9.4"}).
   */
  public String serverVersion() {
    if (child != null) {
      return config.serverVersion;
    }
    String full = org.apache.zookeeper.Version.getFullVersion();
    int end = 0;
    while (end < full.length()
        && (Character.isDigit(full.charAt(end)) || full.charAt(end) == '.')) {
      end++;
    }
    return full.substring(0, end);
  }

  /**
   * The log of a server in a child JVM ({@link Builder#serverVersion(String)}), which ZooKeeper
   * writes through slf4j-simple; empty for an in-process server, which logs through this JVM's
   * logging.
   */
  public Optional<Path> serverLog() {
    return child == null ? Optional.empty() : Optional.of(child.log());
  }

  /**
   * The running {@link ZooKeeperServer}, for tests that need its internals (session tracker, data
   * tree). A new instance after each {@link #restart()}.
   *
   * @throws IllegalStateException if the server is stopped
   * @throws UnsupportedOperationException if it runs in a child JVM ({@link
   *     Builder#serverVersion(String)})
   */
  public synchronized ZooKeeperServer server() {
    requireInProcess("server()");
    if (zks == null) {
      throw new IllegalStateException("server is not running");
    }
    return zks;
  }

  /**
   * How many requests the session {@code sessionId} has sent to this server, not counting pings and
   * {@code sync}s: what a client asks of ZooKeeper for its own work, without the keep-alives that
   * ZooKeeper's client and zklock's session send on their own clocks (a count of packets includes
   * those, so a test that counts a protocol's requests over a window would count any keep-alive
   * that falls into it). Counted across restarts of this server.
   *
   * @throws UnsupportedOperationException if the server runs in a child JVM ({@link
   *     Builder#serverVersion(String)})
   */
  public long requestsOf(long sessionId) {
    requireInProcess("requestsOf");
    LongAdder n = requests.get(sessionId);
    return n == null ? 0 : n.sum();
  }

  /**
   * Expires a client's session now, as if its timeout had elapsed: its ephemeral nodes are deleted,
   * its connection is closed, and the client receives {@code Expired} when it reconnects. Like
   * ZooKeeper's own expiry, it returns before the deletions are done.
   *
   * <p>A server in a child JVM ({@link Builder#serverVersion(String)}) is told through a control
   * port on 127.0.0.1, and closes the session as its expiry would ({@code
   * ZooKeeperServer#closeSession}).
   *
   * @throws java.io.UncheckedIOException if a server in a child JVM cannot be reached
   */
  public void expireSession(long sessionId) {
    if (child != null) {
      child.expire(sessionId);
      return;
    }
    server().expire(sessionId);
  }

  /**
   * Sets the child version counter ({@code cversion}) of {@code parentPath}. ZooKeeper names the
   * next sequential child of the parent with the suffix {@code String.format("%010d", cversion)},
   * so setting it near {@link Integer#MAX_VALUE} lets a test exercise the signed 32-bit wrap-around
   * ({@code ...2147483647} is followed by {@code -2147483648}).
   *
   * <p>Only the in-memory tree is changed (no transaction is logged), so the value does not survive
   * a {@link #restart()}. Call it while no create or delete under the parent is in flight. Lowering
   * the counter bypasses ZooKeeper's digest bookkeeping; the server may log a digest mismatch,
   * which is harmless here.
   *
   * @throws IllegalArgumentException if {@code parentPath} does not exist
   * @throws UnsupportedOperationException if the server runs in a child JVM ({@link
   *     Builder#serverVersion(String)})
   */
  public void setChildSequence(String parentPath, int cversion) {
    requireInProcess("setChildSequence");
    DataTree tree = server().getZKDatabase().getDataTree();
    DataNode node = tree.getNode(parentPath);
    if (node == null) {
      throw new IllegalArgumentException("no such znode: " + parentPath);
    }
    synchronized (node) {
      int current = node.stat.getCversion();
      if (cversion > current) {
        try {
          tree.setCversionPzxid(parentPath, cversion, node.stat.getPzxid());
        } catch (KeeperException.NoNodeException e) {
          throw new IllegalArgumentException("no such znode: " + parentPath, e);
        }
      } else {
        node.stat.setCversion(cversion);
      }
    }
  }

  /** The {@code mntr} four-letter word of this server, read over TCP. */
  public Map<String, String> mntr() {
    return FourLetterWords.mntr(Ports.LOOPBACK, clientPort);
  }

  /**
   * The number of watch events this server (and any other in-process server of this JVM, see the
   * class comment) has triggered so far: the sum of the {@code zk_sum_node_*_watch_count} values of
   * {@code mntr}.
   */
  public long watchEventsTriggered() {
    return FourLetterWords.watchEventsTriggered(mntr());
  }

  /**
   * Stops the server (as a crash would: clients are disconnected, sessions stay in the snapshot)
   * and starts it again on the same ports and data directory. Clients reconnect by themselves;
   * their sessions survive if they reconnect within their timeout.
   */
  public synchronized void restart() {
    checkOpen();
    stop();
    startServer();
  }

  /**
   * Stops the server, deletes everything it stored (every node and session), and starts it again
   * empty on the same ports: an ensemble wiped and rebuilt at the same address. Its transaction ids
   * start again from zero, so a client that saw a later one is refused ("Refusing session request
   * ... as it has seen zxid ...") and its session can never reconnect.
   */
  public synchronized void wipeAndRestart() {
    checkOpen();
    stop();
    Files2.deleteQuietly(dataDir);
    try {
      java.nio.file.Files.createDirectories(dataDir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot re-create " + dataDir, e);
    }
    startServer();
  }

  /** Stops the server and deletes its temporary data directory. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    stop();
    if (deleteDataDir) {
      Files2.deleteQuietly(dataDir);
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("closed");
    }
  }

  private void requireInProcess(String what) {
    if (child != null) {
      throw new UnsupportedOperationException(
          what
              + " needs an in-process server; this one runs ZooKeeper "
              + config.serverVersion
              + " in a child JVM");
    }
  }

  private synchronized EmbeddedZooKeeper startServer() {
    if (child != null) {
      child.start();
      return this;
    }
    try {
      synchronized (SYSTEM_PROPERTIES) {
        if (System.getProperty("zookeeper.4lw.commands.whitelist") == null) {
          System.setProperty("zookeeper.4lw.commands.whitelist", "*");
          FourLetterCommands.resetWhiteList();
        }
        if (config.tls != null) {
          config.tls.applyServerSystemProperties();
          // the TLS port authenticates clients by certificate through the "x509" provider
          String x509 = ProviderRegistry.AUTHPROVIDER_PROPERTY_PREFIX + "x509";
          System.setProperty(x509, X509AuthenticationProvider.class.getName());
          ProviderRegistry.addOrUpdateProvider(x509);
        }
      }
      FileTxnSnapLog txnLog = newTxnLog();
      int tickMs = (int) config.tickTime.toMillis();
      int min = config.minSessionTimeout != null ? (int) config.minSessionTimeout.toMillis() : -1;
      int max =
          config.maxSessionTimeout != null
              ? (int) config.maxSessionTimeout.toMillis()
              : (int) Math.max(20 * config.tickTime.toMillis(), DEFAULT_MAX_SESSION_TIMEOUT_MS);
      TestZooKeeperServer server = new TestZooKeeperServer(txnLog, tickMs, min, max, requests);
      txnLog.setServerStats(server.serverStats());

      ServerCnxnFactory plain = new NIOServerCnxnFactory();
      plain.configure(
          new InetSocketAddress(Ports.LOOPBACK, clientPort),
          config.maxClientConnections,
          -1,
          false);
      plain.startup(server);
      this.cnxnFactory = plain;
      this.zks = server;
      this.clientPort = plain.getLocalPort();

      if (config.tls != null) {
        ServerCnxnFactory secure = newNettyFactory();
        secure.configure(
            new InetSocketAddress(Ports.LOOPBACK, Math.max(secureClientPort, 0)),
            config.maxClientConnections,
            -1,
            true);
        secure.startup(server, false);
        this.secureCnxnFactory = secure;
        this.secureClientPort = secure.getLocalPort();
      }

      ContainerManager containers =
          new ContainerManager(
              server.getZKDatabase(),
              server.firstProcessor(),
              (int) config.containerCheckInterval.toMillis(),
              10_000,
              0);
      containers.start();
      this.containerManager = containers;
      return this;
    } catch (IOException e) {
      stop();
      throw new UncheckedIOException("cannot start ZooKeeper on " + connectString(), e);
    } catch (InterruptedException e) {
      stop();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting ZooKeeper", e);
    } catch (RuntimeException e) {
      stop();
      throw e;
    }
  }

  private FileTxnSnapLog newTxnLog() throws IOException {
    synchronized (SYSTEM_PROPERTIES) {
      String previous = System.getProperty("zookeeper.forceSync");
      System.setProperty("zookeeper.forceSync", config.forceSync ? "yes" : "no");
      try {
        return new FileTxnSnapLog(dataDir.toFile(), dataDir.toFile());
      } finally {
        restore("zookeeper.forceSync", previous);
      }
    }
  }

  private static ServerCnxnFactory newNettyFactory() throws IOException {
    synchronized (SYSTEM_PROPERTIES) {
      String key = ServerCnxnFactory.ZOOKEEPER_SERVER_CNXN_FACTORY;
      String previous = System.getProperty(key);
      System.setProperty(key, "org.apache.zookeeper.server.NettyServerCnxnFactory");
      try {
        return ServerCnxnFactory.createFactory();
      } finally {
        restore(key, previous);
      }
    }
  }

  private static void restore(String key, String previous) {
    if (previous == null) {
      System.clearProperty(key);
    } else {
      System.setProperty(key, previous);
    }
  }

  private void stop() {
    if (child != null) {
      if (closed) {
        child.close();
      } else {
        child.kill();
      }
      return;
    }
    if (containerManager != null) {
      containerManager.stop();
      containerManager = null;
    }
    if (cnxnFactory != null) {
      cnxnFactory.shutdown();
      cnxnFactory = null;
    }
    if (secureCnxnFactory != null) {
      secureCnxnFactory.shutdown();
      secureCnxnFactory = null;
    }
    if (zks != null) {
      zks.shutdown();
      try {
        zks.getTxnLogFactory().close();
      } catch (IOException ignored) {
        // closing a log on the way down
      }
      zks = null;
    }
  }

  /** Exposes the first request processor, which the container manager needs. */
  private static final class TestZooKeeperServer extends ZooKeeperServer {
    private final Map<Long, LongAdder> requests;

    TestZooKeeperServer(
        FileTxnSnapLog txnLog,
        int tickTime,
        int minSession,
        int maxSession,
        Map<Long, LongAdder> requests) {
      super(txnLog, tickTime, minSession, maxSession, -1, null, "");
      this.requests = requests;
    }

    @Override
    public void submitRequest(Request si) {
      if (si.type != OpCode.ping && si.type != OpCode.sync) {
        requests.computeIfAbsent(si.sessionId, id -> new LongAdder()).increment();
      }
      super.submitRequest(si);
    }

    RequestProcessor firstProcessor() {
      return firstProcessor;
    }
  }

  /**
   * Configures and starts an {@link EmbeddedZooKeeper}. Defaults suit tests: tick 100 ms, session
   * timeouts from 200 ms (2 ticks) to 60 s accepted, no fsync, containers checked every second.
   */
  public static final class Builder {
    private Duration tickTime = Duration.ofMillis(100);
    private Duration minSessionTimeout;
    private Duration maxSessionTimeout;
    private boolean forceSync;
    private Duration containerCheckInterval = Duration.ofSeconds(1);
    private int clientPort;
    private int maxClientConnections = 0;
    private Path dataDir;
    private TestCertificates tls;
    private String serverVersion;

    private Builder() {}

    /**
     * ZooKeeper's tick; the session timeouts a client may ask for default to 2 to 20 ticks. Default
     * 100 ms.
     */
    public Builder tickTime(Duration tickTime) {
      requirePositive(tickTime, "tickTime");
      this.tickTime = tickTime;
      return this;
    }

    /** The smallest session timeout granted (default 2 ticks). */
    public Builder minSessionTimeout(Duration timeout) {
      requirePositive(timeout, "minSessionTimeout");
      this.minSessionTimeout = timeout;
      return this;
    }

    /** The largest session timeout granted (default 60 s, or 20 ticks if that is more). */
    public Builder maxSessionTimeout(Duration timeout) {
      requirePositive(timeout, "maxSessionTimeout");
      this.maxSessionTimeout = timeout;
      return this;
    }

    /** Whether the transaction log is fsync'ed on commit. Default {@code false} (fast tests). */
    public Builder forceSync(boolean forceSync) {
      this.forceSync = forceSync;
      return this;
    }

    /** How often empty CONTAINER znodes are reclaimed. Default 1 s (ZooKeeper's is 1 minute). */
    public Builder containerCheckInterval(Duration interval) {
      requirePositive(interval, "containerCheckInterval");
      this.containerCheckInterval = interval;
      return this;
    }

    /** A fixed client port instead of a free one (0, the default, picks a free port). */
    public Builder clientPort(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("clientPort out of range: " + port);
      }
      this.clientPort = port;
      return this;
    }

    /** Connections allowed per client host; 0 (default) means unlimited. */
    public Builder maxClientConnections(int max) {
      if (max < 0) {
        throw new IllegalArgumentException("maxClientConnections must be >= 0: " + max);
      }
      this.maxClientConnections = max;
      return this;
    }

    /**
     * Keep the data in {@code dir} instead of a temporary directory; {@link #close()} then leaves
     * it in place.
     */
    public Builder dataDir(Path dir) {
      this.dataDir = Objects.requireNonNull(dir, "dataDir");
      return this;
    }

    /**
     * Also open a TLS client port (Netty) that uses {@code certs}' server key store and trust store
     * and requires client certificates. See the class comment about system properties.
     */
    public Builder tls(TestCertificates certs) {
      this.tls = Objects.requireNonNull(certs, "certs");
      return this;
    }

    /**
     * Runs ZooKeeper release {@code version} (3.5 to 3.9, for example {@code "3.5.10"}) instead of
     * the ZooKeeper on this JVM's class path, in a child JVM run by this JVM's {@code java}.
     *
     * <p>Its jars are read from the local Maven repository ({@code ~/.m2/repository}, or the system
     * property {@code zklock.testkit.localRepository}, or {@code maven.repo.local}), and what is
     * missing is downloaded from Maven Central (or the mirror in {@code
     * zklock.testkit.remoteRepository}) and checked against the SHA-1 the repository serves: the
     * {@code zookeeper} and {@code zookeeper-jute} jars of that release and the libraries its POM
     * names for the server (Netty, slf4j with slf4j-simple, audience-annotations, and from 3.6 on
     * metrics-core and snappy-java, from 3.8 on commons-io), at the versions its parent POM gives.
     *
     * <p>The child's main class is the testkit's own, which runs ZooKeeper's {@code
     * ZooKeeperServerMain} and opens a control port for {@link #expireSession}; it binds 127.0.0.1
     * only (client and control port), logs to {@link #serverLog()} and has the builder's settings.
     * It is killed (SIGKILL) by {@link #close()}, or when this JVM exits. Not with {@link
     * #tls(TestCertificates)}.
     *
     * @throws IllegalArgumentException if {@code version} is not a 3.5 to 3.9 release number
     */
    public Builder serverVersion(String version) {
      this.serverVersion = ServerArtifacts.checkVersion(version);
      return this;
    }

    /**
     * Starts the server and returns once it accepts connections.
     *
     * @throws UncheckedIOException if it cannot bind or write its data directory, or the jars of a
     *     {@link #serverVersion(String)} cannot be downloaded
     * @throws IllegalStateException if a server in a child JVM exits or does not serve within a
     *     minute (the message ends with its log), or TLS is asked of one, or in the server-free
     *     test phase ({@link ServerFreePhase})
     */
    public EmbeddedZooKeeper start() {
      ServerFreePhase.refuseServer("a ZooKeeper server is started");
      if (serverVersion != null && tls != null) {
        throw new IllegalStateException(
            "a server of another version (serverVersion " + serverVersion + ") has no TLS port");
      }
      if (minSessionTimeout != null
          && maxSessionTimeout != null
          && minSessionTimeout.compareTo(maxSessionTimeout) > 0) {
        throw new IllegalArgumentException(
            "minSessionTimeout " + minSessionTimeout + " > maxSessionTimeout " + maxSessionTimeout);
      }
      EmbeddedZooKeeper zk = new EmbeddedZooKeeper(this);
      try {
        return zk.startServer();
      } catch (RuntimeException e) {
        zk.close();
        throw e;
      }
    }

    static void requirePositive(Duration d, String name) {
      Objects.requireNonNull(d, name);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be positive: " + d);
      }
    }
  }
}
