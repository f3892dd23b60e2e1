package io.zklock.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.StringJoiner;

/**
 * An ensemble of N ZooKeeper servers on 127.0.0.1, for tests of failover: in this JVM ({@link
 * Builder#inProcess()}) or one child JVM per server ({@link Builder#childProcesses()}), which can
 * be killed with SIGKILL, paused with SIGSTOP and resumed.
 *
 * <pre>{@code
 * try (ZooKeeperEnsemble ensemble = EmbeddedZooKeeper.ensemble(3).childProcesses().start()) {
 *   ZooKeeper client = new ZooKeeper(ensemble.connectString(), 4000, event -> {});
 *   int leader = ensemble.awaitQuorum(Duration.ofSeconds(30));
 *   ensemble.kill(leader);
 *   ensemble.awaitQuorum(Duration.ofSeconds(30));
 * }
 * }</pre>
 *
 * <p>Servers are numbered from 0 to {@code size() - 1} (their ZooKeeper {@code myid} is index + 1).
 * Each server has its own free client, quorum and election ports, which stay the same across {@link
 * #restart(int)}, and its own data directory under a temporary directory that {@link #close()}
 * deletes. A child process writes its output to {@code server.log} next to its data. AdminServers
 * are disabled and all four-letter words are whitelisted.
 *
 * <p><b>In-process ensembles</b> share one JVM, so ZooKeeper's JVM-wide settings apply to all of
 * them: the configuration sets the system properties {@code zookeeper.admin.enableServer}, {@code
 * zookeeper.4lw.commands.whitelist}, {@code zookeeper.cnxTimeout}, {@code
 * znode.container.checkIntervalMs} and {@code zookeeper.forceSync}, and every peer start resets
 * ZooKeeper's static metrics. {@link #pause(int)} and {@link #resume(int)} need child processes.
 *
 * <p>Child processes run {@code org.apache.zookeeper.server.quorum.QuorumPeerMain} with this JVM's
 * {@code java} and class path (plus its module path, if it runs on one), {@code -Xmx128m} and
 * fast-startup flags; a shutdown hook kills them if the JVM exits without {@link #close()}. With
 * {@link Builder#serverVersion(String)} they run that ZooKeeper release instead, from its artifacts
 * on Maven Central (see {@link EmbeddedZooKeeper.Builder#serverVersion(String)}).
 */
public final class ZooKeeperEnsemble implements AutoCloseable {
  private final Builder config;
  private final Path baseDir;
  private final List<Server> servers = new ArrayList<>();
  // with Builder#peerLinks: links[i][j] carries server i's quorum and election connections to j
  private final PeerLink[][] links;
  private boolean closed;

  private ZooKeeperEnsemble(Builder config) {
    this.config = config;
    this.baseDir = Files2.tempDir("zklock-ensemble-");
    for (int i = 0; i < config.size; i++) {
      servers.add(new Server(i, Ports.free(), Ports.free(), Ports.free()));
    }
    links = config.peerLinks ? new PeerLink[config.size][config.size] : null;
    try {
      if (links != null) {
        for (Server from : servers) {
          for (Server to : servers) {
            if (from != to) {
              links[from.index][to.index] = new PeerLink(to);
            }
          }
        }
      }
      for (Server s : servers) {
        Files.createDirectories(s.dataDir());
        Files.writeString(s.dataDir().resolve("myid"), Integer.toString(s.index + 1));
        Files.writeString(s.configFile(), configText(s), StandardCharsets.UTF_8);
        s.node = config.childProcesses ? new ChildProcessPeer(s, config) : new InProcessPeer(s);
      }
    } catch (IOException e) {
      closeLinks();
      Files2.deleteQuietly(baseDir);
      throw new UncheckedIOException("cannot write ensemble configuration under " + baseDir, e);
    } catch (RuntimeException e) {
      closeLinks();
      Files2.deleteQuietly(baseDir);
      throw e;
    }
  }

  /** Server {@code from}'s connections to server {@code to}: one proxy per port it dials. */
  private static final class PeerLink {
    final FaultProxy quorum;
    final FaultProxy election;

    PeerLink(Server to) {
      quorum = FaultProxy.start(Ports.LOOPBACK, to.quorumPort);
      FaultProxy e;
      try {
        e = FaultProxy.start(Ports.LOOPBACK, to.electionPort);
      } catch (RuntimeException ex) {
        quorum.close();
        throw ex;
      }
      election = e;
    }

    void blackhole() {
      quorum.blackhole();
      election.blackhole();
    }

    void reopen() {
      // what was held is dropped with its connections; new ones pass
      quorum.refuse();
      election.refuse();
      quorum.pass();
      election.pass();
    }

    void close() {
      quorum.close();
      election.close();
    }
  }

  private void closeLinks() {
    if (links == null) {
      return;
    }
    for (PeerLink[] row : links) {
      for (PeerLink l : row) {
        if (l != null) {
          l.close();
        }
      }
    }
  }

  /**
   * Cuts server {@code i} off from the other servers while it keeps serving its clients, as a
   * network partition between servers does: every byte of its quorum and election connections, both
   * ways, is held from now on (the connections stay open). It serves reads until it notices that
   * its leader is silent (syncLimit ticks), as ZooKeeper does; a leader cut off likewise loses its
   * quorum. Needs {@link Builder#peerLinks()}.
   *
   * @throws IllegalStateException if the ensemble was built without peer links
   */
  public void isolate(int i) {
    server(i);
    for (int j = 0; j < servers.size(); j++) {
      if (j != i) {
        peerLinks()[i][j].blackhole();
        peerLinks()[j][i].blackhole();
      }
    }
  }

  /**
   * Ends {@link #isolate(int)}: the held connections are closed (what they held is lost) and new
   * ones pass, so server {@code i} rejoins the ensemble. Returns without waiting; see {@link
   * #awaitQuorum(Duration)}.
   */
  public void rejoin(int i) {
    server(i);
    for (int j = 0; j < servers.size(); j++) {
      if (j != i) {
        peerLinks()[i][j].reopen();
        peerLinks()[j][i].reopen();
      }
    }
  }

  private PeerLink[][] peerLinks() {
    if (links == null) {
      throw new IllegalStateException(
          "isolate/rejoin need an ensemble built with peerLinks(): its servers reach each other"
              + " directly");
    }
    return links;
  }

  /** The number of servers. */
  public int size() {
    return servers.size();
  }

  /** The connect string of all servers, {@code "127.0.0.1:p1,127.0.0.1:p2,..."}. */
  public String connectString() {
    StringJoiner joiner = new StringJoiner(",");
    for (int i = 0; i < servers.size(); i++) {
      joiner.add(connectString(i));
    }
    return joiner.toString();
  }

  /** The connect string of server {@code i} alone. */
  public String connectString(int i) {
    return Ports.LOOPBACK + ":" + clientPort(i);
  }

  /** The client port of server {@code i}. */
  public int clientPort(int i) {
    return server(i).clientPort;
  }

  /** The data directory of server {@code i} (holds {@code myid}, snapshots and logs). */
  public Path dataDir(int i) {
    return server(i).dataDir();
  }

  /**
   * The {@code mntr} answer of server {@code i}.
   *
   * @throws UncheckedIOException if the server does not answer within 2 seconds (killed, paused)
   */
  public Map<String, String> mntr(int i) {
    return FourLetterWords.mntr(Ports.LOOPBACK, clientPort(i), Duration.ofSeconds(2));
  }

  /**
   * The index of the server that currently says it leads, or -1 if none does (election running,
   * quorum lost). Asks each running server's {@code mntr} ({@code zk_server_state}).
   */
  public int leaderIndex() {
    for (Server s : servers) {
      if ("leader".equals(state(s))) {
        return s.index;
      }
    }
    return -1;
  }

  /**
   * Expires a client's session through {@link SessionKiller}: the client receives {@code Expired}
   * on its next contact with the ensemble.
   *
   * @param sessionId {@code ZooKeeper#getSessionId()} of the victim
   * @param password {@code ZooKeeper#getSessionPasswd()} of the victim
   * @throws InterruptedException if interrupted while waiting for the killer to connect
   */
  public void expireSession(long sessionId, byte[] password) throws InterruptedException {
    SessionKiller.expire(connectString(), sessionId, password);
  }

  /** Whether server {@code i} was started and not killed or stopped since (paused counts). */
  public boolean isRunning(int i) {
    return server(i).node.isRunning();
  }

  /**
   * Waits until one server leads and every running, unpaused server serves clients as leader or
   * follower.
   *
   * @return the index of the leader, as the look that found the quorum saw it: use it rather than a
   *     {@link #leaderIndex()} asked again, in which a server slow to answer (a loaded machine) or
   *     a new election reads as no leader (-1)
   * @throws IllegalStateException on timeout, naming each server's state
   * @throws InterruptedException if interrupted while waiting
   */
  public int awaitQuorum(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      List<String> states = new ArrayList<>();
      int leaders = 0;
      int leader = -1;
      boolean allServing = true;
      for (Server s : servers) {
        if (!s.node.isRunning() || s.paused) {
          states.add(s.index + "=down");
          continue;
        }
        String state = state(s);
        states.add(s.index + "=" + state);
        if ("leader".equals(state)) {
          leaders++;
          leader = s.index;
        } else if (!"follower".equals(state)) {
          allServing = false;
        }
      }
      if (leaders == 1 && allServing) {
        return leader;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("no quorum within " + timeout + ": servers " + states);
      }
      Thread.sleep(50);
    }
  }

  /**
   * Stops server {@code i} at once: SIGKILL for a child process ({@code destroyForcibly}), an
   * immediate shutdown for an in-process peer. Its data stays for {@link #restart(int)}.
   */
  public void kill(int i) {
    Server s = server(i);
    s.node.kill();
    s.paused = false;
  }

  /**
   * Freezes the child process of server {@code i} with SIGSTOP: its sockets stay open but it
   * answers nothing, like a long GC pause.
   *
   * @throws UnsupportedOperationException for an in-process ensemble
   */
  public void pause(int i) {
    Server s = server(i);
    s.node.signal("STOP");
    s.paused = true;
  }

  /**
   * Resumes a server paused by {@link #pause(int)} (SIGCONT).
   *
   * @throws UnsupportedOperationException for an in-process ensemble
   */
  public void resume(int i) {
    Server s = server(i);
    s.node.signal("CONT");
    s.paused = false;
  }

  /**
   * Kills server {@code i} if it runs, then starts it again with the same ports and data directory.
   * Returns without waiting for it to rejoin; see {@link #awaitQuorum(Duration)}.
   */
  public void restart(int i) {
    Server s = server(i);
    s.node.kill();
    s.paused = false;
    s.node.start();
  }

  /** Kills every server and deletes the temporary directories. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (Server s : servers) {
      if (s.node != null) {
        s.node.kill();
      }
    }
    closeLinks();
    Files2.deleteQuietly(baseDir);
  }

  /** The last lines of each child's log, for a failure message ("" if there are none). */
  String childLogTails() {
    StringBuilder text = new StringBuilder();
    for (Server s : servers) {
      try {
        if (Files.exists(s.logFile())) {
          List<String> lines = Files.readAllLines(s.logFile(), StandardCharsets.UTF_8);
          text.append("\n--- server ").append(s.index).append(" log (last lines) ---\n");
          lines
              .subList(Math.max(0, lines.size() - 15), lines.size())
              .forEach(line -> text.append(line).append('\n'));
        }
      } catch (IOException | UncheckedIOException e) {
        text.append("\n(cannot read ").append(s.logFile()).append(": ").append(e).append(")");
      }
    }
    return text.toString();
  }

  private String state(Server s) {
    try {
      // as long as mntr(i) waits: a loaded machine's server answers late, not never
      return FourLetterWords.mntr(Ports.LOOPBACK, s.clientPort, Duration.ofSeconds(2))
          .getOrDefault("zk_server_state", "unknown");
    } catch (RuntimeException e) {
      return "unreachable";
    }
  }

  private Server server(int i) {
    if (i < 0 || i >= servers.size()) {
      throw new IndexOutOfBoundsException("server index " + i + " of " + servers.size());
    }
    if (closed) {
      throw new IllegalStateException("ensemble is closed");
    }
    return servers.get(i);
  }

  private String configText(Server self) {
    Properties p = configProperties(self);
    StringBuilder text = new StringBuilder();
    for (String key : p.stringPropertyNames().stream().sorted().toList()) {
      text.append(key).append('=').append(p.getProperty(key)).append('\n');
    }
    return text.toString();
  }

  /** syncLimit in ticks: the builder's, rounded up, or about 2 s worth (at least 5). */
  static long syncLimitTicks(Builder config, long tickMillis) {
    if (config.syncLimit == null) {
      return Math.max(5, 2_000 / tickMillis);
    }
    return Math.max(1, (config.syncLimit.toMillis() + tickMillis - 1) / tickMillis);
  }

  Properties configProperties(Server self) {
    Properties p = new Properties();
    long tick = config.tickTime.toMillis();
    p.setProperty("tickTime", Long.toString(tick));
    p.setProperty("initLimit", Long.toString(Math.max(10, 10_000 / tick)));
    p.setProperty("syncLimit", Long.toString(syncLimitTicks(config, tick)));
    p.setProperty("dataDir", self.dataDir().toAbsolutePath().toString());
    p.setProperty("clientPort", Integer.toString(self.clientPort));
    p.setProperty("clientPortAddress", Ports.LOOPBACK);
    p.setProperty("standaloneEnabled", "false");
    p.setProperty("reconfigEnabled", "false");
    p.setProperty("admin.enableServer", "false");
    p.setProperty("4lw.commands.whitelist", "*");
    p.setProperty("cnxTimeout", "1000");
    p.setProperty("forceSync", config.forceSync ? "yes" : "no");
    if (config.maxClientConnections >= 0) {
      p.setProperty("maxClientCnxns", Integer.toString(config.maxClientConnections));
    }
    if (config.maxSessionTimeout != null) {
      p.setProperty("maxSessionTimeout", Long.toString(config.maxSessionTimeout.toMillis()));
    }
    for (Server s : servers) {
      int quorum = s.quorumPort;
      int election = s.electionPort;
      if (links != null && s != self) {
        // self dials s through its links; it binds its own ports itself
        quorum = links[self.index][s.index].quorum.port();
        election = links[self.index][s.index].election.port();
      }
      p.setProperty("server." + (s.index + 1), Ports.LOOPBACK + ":" + quorum + ":" + election);
    }
    return p;
  }

  /** One member: fixed ports and directory, and the peer that runs it. */
  final class Server {
    final int index;
    final int clientPort;
    final int quorumPort;
    final int electionPort;
    volatile boolean paused;
    Peer node;

    Server(int index, int clientPort, int quorumPort, int electionPort) {
      this.index = index;
      this.clientPort = clientPort;
      this.quorumPort = quorumPort;
      this.electionPort = electionPort;
    }

    Path dir() {
      return baseDir.resolve("server-" + index);
    }

    Path dataDir() {
      return dir().resolve("data");
    }

    Path configFile() {
      return dir().resolve("zoo.cfg");
    }

    Path logFile() {
      return dir().resolve("server.log");
    }

    Properties properties() {
      return configProperties(this);
    }
  }

  /** How a server runs: in this JVM or in a child process. */
  interface Peer {
    void start();

    void kill();

    boolean isRunning();

    void signal(String signal);
  }

  /**
   * Configures and starts a {@link ZooKeeperEnsemble}. Defaults: child processes, tick 250 ms
   * (session timeouts from 500 ms to 5 s), no fsync, containers checked every second.
   */
  public static final class Builder {
    final int size;
    boolean childProcesses = true;
    Duration tickTime = Duration.ofMillis(250);
    Duration containerCheckInterval = Duration.ofSeconds(1);
    boolean forceSync;
    Duration startTimeout = Duration.ofSeconds(60);
    List<String> jvmOptions = List.of();
    int maxClientConnections = -1;
    Duration maxSessionTimeout;
    Duration syncLimit;
    String serverVersion;
    boolean peerLinks;

    Builder(int size) {
      if (size < 1) {
        throw new IllegalArgumentException("an ensemble needs at least one server: " + size);
      }
      this.size = size;
    }

    /** Runs every server as a {@code QuorumPeer} in this JVM (fast; cannot pause). */
    public Builder inProcess() {
      this.childProcesses = false;
      return this;
    }

    /** Runs every server in its own JVM, so it can be killed and paused (the default). */
    public Builder childProcesses() {
      this.childProcesses = true;
      return this;
    }

    /** ZooKeeper's tick (default 250 ms). initLimit is ~10 s and syncLimit ~2 s worth of ticks. */
    public Builder tickTime(Duration tickTime) {
      EmbeddedZooKeeper.Builder.requirePositive(tickTime, "tickTime");
      this.tickTime = tickTime;
      return this;
    }

    /** How often empty CONTAINER znodes are reclaimed (default 1 s). */
    public Builder containerCheckInterval(Duration interval) {
      EmbeddedZooKeeper.Builder.requirePositive(interval, "containerCheckInterval");
      this.containerCheckInterval = interval;
      return this;
    }

    /** Whether transaction logs are fsync'ed (default {@code false}). */
    public Builder forceSync(boolean forceSync) {
      this.forceSync = forceSync;
      return this;
    }

    /**
     * The most connections one client address may open to each server ({@code maxClientCnxns}); 0
     * means no limit. Default: ZooKeeper's (60), which a test or benchmark with many sessions on
     * 127.0.0.1 exceeds.
     */
    public Builder maxClientConnections(int max) {
      if (max < 0) {
        throw new IllegalArgumentException("maxClientConnections must be >= 0: " + max);
      }
      this.maxClientConnections = max;
      return this;
    }

    /**
     * The largest session timeout the servers grant ({@code maxSessionTimeout}). Default:
     * ZooKeeper's, 20 ticks (5 s with the default tick); a client asking for more is granted that.
     */
    public Builder maxSessionTimeout(Duration timeout) {
      EmbeddedZooKeeper.Builder.requirePositive(timeout, "maxSessionTimeout");
      this.maxSessionTimeout = timeout;
      return this;
    }

    /**
     * How long a leader keeps a follower that does not answer, and a follower its silent leader
     * ({@code syncLimit}, rounded up to whole ticks). Default: about 2 s worth of ticks, at least
     * 5. A test that pauses followers longer than that while the leader must stay leader sets more.
     */
    public Builder syncLimit(Duration limit) {
      EmbeddedZooKeeper.Builder.requirePositive(limit, "syncLimit");
      this.syncLimit = limit;
      return this;
    }

    /** Extra JVM options for child processes (for example {@code -Xmx256m}). */
    public Builder jvmOptions(List<String> options) {
      this.jvmOptions = List.copyOf(Objects.requireNonNull(options, "options"));
      return this;
    }

    /**
     * Runs the servers of ZooKeeper release {@code version} (3.5 to 3.9, for example {@code
     * "3.5.10"}) instead of the ZooKeeper on this JVM's class path: child processes only. Its jars
     * come from Maven Central into the local Maven repository, as for {@link
     * EmbeddedZooKeeper.Builder#serverVersion(String)}.
     *
     * @throws IllegalArgumentException if {@code version} is not a 3.5 to 3.9 release number
     */
    public Builder serverVersion(String version) {
      this.serverVersion = ServerArtifacts.checkVersion(version);
      return this;
    }

    /**
     * Each server reaches each other one through a {@link FaultProxy} of its own (its configuration
     * names the proxies' ports for the others' quorum and election ports), so that a server can be
     * cut off from the others while it still serves clients: {@link ZooKeeperEnsemble#isolate(int)}
     * and {@link ZooKeeperEnsemble#rejoin(int)}. Off by default (the servers dial each other
     * directly).
     */
    public Builder peerLinks() {
      this.peerLinks = true;
      return this;
    }

    /** How long {@link #start()} waits for a quorum (default 60 s). */
    public Builder startTimeout(Duration timeout) {
      EmbeddedZooKeeper.Builder.requirePositive(timeout, "startTimeout");
      this.startTimeout = timeout;
      return this;
    }

    /**
     * Starts every server and waits until they form a quorum.
     *
     * @throws IllegalStateException if no quorum forms within the start timeout (the servers are
     *     killed and their directories deleted), if a server version is asked of an in-process
     *     ensemble, or in the server-free test phase ({@link ServerFreePhase})
     * @throws java.io.UncheckedIOException if the jars of the server version cannot be downloaded
     * @throws InterruptedException if interrupted while waiting
     */
    public ZooKeeperEnsemble start() throws InterruptedException {
      ServerFreePhase.refuseServer("a ZooKeeper ensemble is started");
      if (serverVersion != null && !childProcesses) {
        throw new IllegalStateException(
            "serverVersion("
                + serverVersion
                + ") runs servers in child processes, not inProcess()");
      }
      ZooKeeperEnsemble ensemble = new ZooKeeperEnsemble(this);
      try {
        for (Server s : ensemble.servers) {
          s.node.start();
        }
        ensemble.awaitQuorum(startTimeout);
        return ensemble;
      } catch (IllegalStateException e) {
        String logs = ensemble.childLogTails();
        ensemble.close();
        throw logs.isEmpty() ? e : new IllegalStateException(e.getMessage() + logs, e);
      } catch (RuntimeException | InterruptedException e) {
        ensemble.close();
        throw e;
      }
    }
  }
}
