package io.zklock.testkit;

import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.server.command.FourLetterCommands;
import org.apache.zookeeper.server.quorum.QuorumPeer;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig;
import org.apache.zookeeper.server.quorum.QuorumPeerMain;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A quorum peer running on a thread of this JVM. */
final class InProcessPeer implements ZooKeeperEnsemble.Peer {
  private static final Logger log = LoggerFactory.getLogger(InProcessPeer.class);

  private final ZooKeeperEnsemble.Server server;
  private Main main;
  private Thread thread;

  InProcessPeer(ZooKeeperEnsemble.Server server) {
    this.server = server;
  }

  @Override
  public synchronized void start() {
    if (isRunning()) {
      throw new IllegalStateException("server " + server.index + " is already running");
    }
    Properties props = server.properties();
    QuorumPeerConfig config = new QuorumPeerConfig();
    try {
      // parseProperties turns unknown keys into JVM-wide "zookeeper.<key>" system properties
      config.parseProperties(props);
    } catch (Exception e) {
      throw new IllegalStateException("bad configuration for server " + server.index, e);
    }
    System.setProperty(
        "znode.container.checkIntervalMs",
        System.getProperty("znode.container.checkIntervalMs", "1000"));
    FourLetterCommands.resetWhiteList();
    Main m = new Main();
    Thread t =
        new Thread(
            () -> {
              try {
                m.runFromConfig(config);
              } catch (Exception e) {
                log.warn("in-process ZooKeeper server {} stopped with an error", server.index, e);
              } finally {
                m.exited.countDown();
              }
            },
            "zk-ensemble-peer-" + server.index);
    t.setDaemon(true);
    t.start();
    this.main = m;
    this.thread = t;
  }

  @Override
  public synchronized void kill() {
    if (main == null) {
      return;
    }
    main.close();
    try {
      if (!main.exited.await(30, TimeUnit.SECONDS)) {
        log.warn("in-process ZooKeeper server {} did not stop within 30 s", server.index);
      }
      thread.join(TimeUnit.SECONDS.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    main = null;
    thread = null;
  }

  @Override
  public synchronized boolean isRunning() {
    return thread != null && thread.isAlive();
  }

  @Override
  public void signal(String signal) {
    throw new UnsupportedOperationException(
        "pause/resume need child processes: use EmbeddedZooKeeper.ensemble(n).childProcesses()");
  }

  /** Gives access to the peer so that a shutdown requested early is not lost. */
  private static final class Main extends QuorumPeerMain {
    final CountDownLatch exited = new CountDownLatch(1);
    private boolean closeRequested;

    @Override
    protected synchronized QuorumPeer getQuorumPeer() throws javax.security.sasl.SaslException {
      if (closeRequested) {
        throw new IllegalStateException("closed before it started");
      }
      return super.getQuorumPeer();
    }

    @Override
    public void close() {
      synchronized (this) {
        closeRequested = true;
      }
      // quorumPeer is assigned by runFromConfig right after getQuorumPeer()
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      try {
        while (quorumPeer == null && !exited.await(10, TimeUnit.MILLISECONDS)) {
          if (System.nanoTime() - deadline > 0) {
            break;
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      super.close();
    }
  }
}
