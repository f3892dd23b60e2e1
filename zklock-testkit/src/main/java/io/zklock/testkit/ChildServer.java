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
import java.util.TreeMap;
import javax.management.JMException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * A standalone server of one ZooKeeper release in its own JVM ({@code ZooKeeperServerMain}), for
 * {@link EmbeddedZooKeeper.Builder#serverVersion(String)}. Its {@code zoo.cfg} and {@code
 * server.log} live in a run directory of their own; the data directory is the caller's.
 *
 * <p>Sessions are expired through the server's own JMX bean of the session's connection ({@code
 * ConnectionMXBean#terminateSession}, in every release): the child opens a JMX port on 127.0.0.1.
 */
final class ChildServer {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private final String version;
  private final Path runDir;
  private final Path dataDir;
  private final int clientPort;
  private final int jmxPort;
  private final Map<String, String> settings;
  private final boolean forceSync;
  private final long containerCheckMs;
  private Process process;

  /**
   * @param settings zoo.cfg lines beyond the data directory and client port (tick, session
   *     timeouts, connection limit)
   */
  ChildServer(
      String version,
      Path dataDir,
      int clientPort,
      Map<String, String> settings,
      boolean forceSync,
      long containerCheckMs) {
    this.version = version;
    this.runDir = Files2.tempDir("zklock-zk-" + version + "-");
    this.dataDir = dataDir;
    this.clientPort = clientPort;
    this.jmxPort = Ports.free();
    this.settings = new TreeMap<>(settings);
    this.forceSync = forceSync;
    this.containerCheckMs = containerCheckMs;
  }

  Path log() {
    return runDir.resolve("server.log");
  }

  /**
   * Starts the server and returns once it serves clients ({@code srvr} answers with its mode).
   *
   * @throws IllegalStateException with the end of its log if it exits or does not serve within a
   *     minute
   */
  synchronized void start() {
    Path config = runDir.resolve("zoo.cfg");
    StringBuilder text = new StringBuilder();
    text.append("dataDir=").append(dataDir.toAbsolutePath()).append('\n');
    text.append("clientPort=").append(clientPort).append('\n');
    text.append("clientPortAddress=").append(Ports.LOOPBACK).append('\n');
    settings.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
    try {
      Files.createDirectories(dataDir);
      Files.writeString(config, text.toString(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + config, e);
    }
    List<String> command = ChildJvm.serverCommand(version, forceSync, containerCheckMs, jmx());
    command.add("org.apache.zookeeper.server.ZooKeeperServerMain");
    command.add(config.toAbsolutePath().toString());
    String what = "ZooKeeper " + version + " on " + Ports.LOOPBACK + ":" + clientPort;
    Process p = ChildJvm.start(command, runDir, log(), what);
    this.process = p;
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (true) {
      if (!p.isAlive()) {
        process = null;
        throw new IllegalStateException(
            what + " exited with status " + p.exitValue() + "; its log ends:\n" + logTail());
      }
      if (serving()) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        kill();
        throw new IllegalStateException(
            what + " did not serve within " + START_TIMEOUT + "; its log ends:\n" + logTail());
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        kill();
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while starting " + what, e);
      }
    }
  }

  private boolean serving() {
    try {
      String srvr = FourLetterWords.send(Ports.LOOPBACK, clientPort, "srvr", Duration.ofSeconds(1));
      return srvr.contains("Mode:");
    } catch (UncheckedIOException e) {
      return false; // not listening yet
    }
  }

  /** The JMX agent of the child: loopback only, no authentication, one port for RMI too. */
  private List<String> jmx() {
    List<String> flags = new ArrayList<>();
    flags.add("-Dcom.sun.management.jmxremote.port=" + jmxPort);
    flags.add("-Dcom.sun.management.jmxremote.rmi.port=" + jmxPort);
    flags.add("-Dcom.sun.management.jmxremote.host=" + Ports.LOOPBACK);
    flags.add("-Djava.rmi.server.hostname=" + Ports.LOOPBACK);
    flags.add("-Dcom.sun.management.jmxremote.authenticate=false");
    flags.add("-Dcom.sun.management.jmxremote.ssl=false");
    return flags;
  }

  synchronized void kill() {
    ChildJvm.kill(process, "ZooKeeper " + version + " on port " + clientPort);
    process = null;
  }

  synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** Kills the server and deletes the run directory (not the data directory). */
  synchronized void close() {
    kill();
    Files2.deleteQuietly(runDir);
  }

  String logTail() {
    return ChildJvm.tail(log(), 30);
  }

  /**
   * Closes the session {@code sessionId} on the server, as an expiry does: its ephemeral nodes go,
   * its connection is closed, and its client is told {@code Expired} when it reconnects.
   *
   * @throws IllegalArgumentException if the session has no connection to this server
   */
  void expire(long sessionId) {
    String wanted = "0x" + Long.toHexString(sessionId);
    JMXServiceURL url;
    try {
      url =
          new JMXServiceURL(
              "service:jmx:rmi:///jndi/rmi://" + Ports.LOOPBACK + ":" + jmxPort + "/jmxrmi");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try (JMXConnector connector = JMXConnectorFactory.connect(url)) {
      MBeanServerConnection beans = connector.getMBeanServerConnection();
      for (ObjectName name :
          beans.queryNames(new ObjectName("org.apache.ZooKeeperService:*"), null)) {
        if (name.getKeyPropertyList().containsValue(wanted)) {
          beans.invoke(name, "terminateSession", null, null);
          return;
        }
      }
      throw new IllegalArgumentException(
          "session "
              + wanted
              + " has no connection to ZooKeeper "
              + version
              + " on port "
              + clientPort);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot reach the JMX port of ZooKeeper " + version, e);
    } catch (JMException e) {
      throw new IllegalStateException("cannot expire session " + wanted + " by JMX", e);
    }
  }
}
