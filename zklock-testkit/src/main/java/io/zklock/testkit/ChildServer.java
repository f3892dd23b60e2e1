package io.zklock.testkit;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A standalone server of one ZooKeeper release in its own JVM (ZooKeeper's {@code
 * ZooKeeperServerMain}, run by {@link ChildServerMain}), for {@link
 * EmbeddedZooKeeper.Builder#serverVersion(String)}. Its {@code zoo.cfg} and {@code server.log} live
 * in a run directory of their own; the data directory is the caller's.
 *
 * <p>The child's main class is {@link ChildServerMain}, which also listens on a control port on
 * 127.0.0.1 to expire sessions.
 */
final class ChildServer {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private final String version;
  private final Path runDir;
  private final Path dataDir;
  private final int clientPort;
  private final int controlPort;
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
    this.controlPort = Ports.free();
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
    List<String> command = ChildJvm.serverCommand(version, forceSync, containerCheckMs, List.of());
    int cp = command.indexOf("-cp") + 1;
    command.set(cp, command.get(cp) + File.pathSeparator + ownLocation());
    command.add(ChildServerMain.class.getName());
    command.add(Integer.toString(controlPort));
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
   * its connection is closed, and its client is told {@code Expired} when it reconnects. Like
   * ZooKeeper's expiry, it returns once the close is submitted, and does nothing to a session the
   * server does not know.
   */
  void expire(long sessionId) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(Ports.LOOPBACK, controlPort), 5_000);
      s.setSoTimeout(10_000);
      s.getOutputStream().write(("expire " + sessionId + "\n").getBytes(StandardCharsets.UTF_8));
      s.getOutputStream().flush();
      String answer =
          new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8))
              .readLine();
      if (!"ok".equals(answer)) {
        throw new IllegalStateException(
            "ZooKeeper "
                + version
                + " did not expire session 0x"
                + Long.toHexString(sessionId)
                + ": "
                + answer);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot reach the control port of ZooKeeper " + version + " on port " + clientPort, e);
    }
  }

  /** Where the testkit's classes are (a jar or a directory): the child runs its main class. */
  private static String ownLocation() {
    try {
      return Path.of(
              ChildServerMain.class.getProtectionDomain().getCodeSource().getLocation().toURI())
          .toString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException("cannot locate the testkit's classes", e);
    }
  }
}
