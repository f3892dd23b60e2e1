package io.zklock.testkit;

import java.util.List;

/**
 * A quorum peer in its own JVM: this JVM's ZooKeeper, or the release named by {@link
 * ZooKeeperEnsemble.Builder#serverVersion(String)}.
 */
final class ChildProcessPeer implements ZooKeeperEnsemble.Peer {
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
    List<String> command =
        ChildJvm.serverCommand(
            config.serverVersion,
            config.forceSync,
            config.containerCheckInterval.toMillis(),
            config.jvmOptions);
    command.add("org.apache.zookeeper.server.quorum.QuorumPeerMain");
    command.add(server.configFile().toAbsolutePath().toString());
    this.process =
        ChildJvm.start(command, server.dir(), server.logFile(), "ZooKeeper server " + server.index);
  }

  @Override
  public synchronized void kill() {
    ChildJvm.kill(process, "server " + server.index);
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
    ChildJvm.signal(process, signal, "server " + server.index);
  }
}
