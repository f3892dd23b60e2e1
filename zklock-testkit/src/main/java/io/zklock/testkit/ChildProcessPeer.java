package io.zklock.testkit;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** A quorum peer in its own JVM. */
final class ChildProcessPeer implements ZooKeeperEnsemble.Peer {
  private static final Set<Process> live = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  for (Process p : live) {
                    p.destroyForcibly();
                  }
                },
                "zk-ensemble-child-reaper"));
  }

  private final ZooKeeperEnsemble.Server server;
  private final ZooKeeperEnsemble.Builder config;
  private Process process;

  ChildProcessPeer(ZooKeeperEnsemble.Server server, ZooKeeperEnsemble.Builder config) {
    this.server = server;
    this.config = config;
  }

  @Override
  public synchronized void start() {
    if (isRunning()) {
      throw new IllegalStateException("server " + server.index + " is already running");
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>();
    command.add(java);
    command.add("-Xmx128m");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-XX:+UseSerialGC");
    command.add("-Xshare:auto");
    command.add("-XX:-UsePerfData");
    command.add("-Dzookeeper.admin.enableServer=false");
    command.add("-Dzookeeper.4lw.commands.whitelist=*");
    command.add("-Dzookeeper.forceSync=" + (config.forceSync ? "yes" : "no"));
    command.add("-Dzookeeper.jmx.log4j.disable=true");
    command.add("-Dznode.container.checkIntervalMs=" + config.containerCheckInterval.toMillis());
    command.addAll(config.jvmOptions);
    command.add("-cp");
    command.add(classPath());
    command.add("org.apache.zookeeper.server.quorum.QuorumPeerMain");
    command.add(server.configFile().toAbsolutePath().toString());
    File log = server.logFile().toFile();
    try {
      Process p =
          new ProcessBuilder(command)
              .directory(server.dir().toFile())
              .redirectErrorStream(true)
              .redirectOutput(Redirect.appendTo(log))
              .start();
      live.add(p);
      p.onExit().thenRun(() -> live.remove(p));
      this.process = p;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start ZooKeeper server " + server.index, e);
    }
  }

  @Override
  public synchronized void kill() {
    Process p = process;
    if (p == null) {
      return;
    }
    p.destroyForcibly();
    try {
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException(
            "server " + server.index + " (pid " + p.pid() + ") survived SIGKILL");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process = null;
  }

  @Override
  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  @Override
  public synchronized void signal(String signal) {
    if (!isRunning()) {
      throw new IllegalStateException("server " + server.index + " is not running");
    }
    try {
      Process kill =
          new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
              .redirectErrorStream(true)
              .start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException(
            "kill -"
                + signal
                + " "
                + process.pid()
                + " failed: "
                + new String(kill.getInputStream().readAllBytes()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run kill -" + signal, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while signalling server " + server.index, e);
    }
  }

  /**
   * This JVM's class path, and its module path if it has one (a module's tests run with ZooKeeper
   * on the module path): the child runs everything from its class path. Entries are made absolute,
   * since the child runs in the server's directory (a {@code java -jar target/app.jar} has a
   * relative class path).
   */
  static String classPath() {
    return classPath(
        System.getProperty("java.class.path", ""), System.getProperty("jdk.module.path", ""));
  }

  static String classPath(String classPath, String modulePath) {
    String joined =
        modulePath.isEmpty()
            ? classPath
            : classPath.isEmpty() ? modulePath : classPath + File.pathSeparator + modulePath;
    List<String> absolute = new ArrayList<>();
    for (String entry : joined.split(File.pathSeparator)) {
      if (!entry.isEmpty()) {
        absolute.add(Path.of(entry).toAbsolutePath().toString());
      }
    }
    return String.join(File.pathSeparator, absolute);
  }
}
