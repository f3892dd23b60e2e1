package io.zklock.bench;

import io.zklock.testkit.EmbeddedZooKeeper;
import io.zklock.testkit.FourLetterWords;
import io.zklock.testkit.ZooKeeperEnsemble;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The servers of one server regime of a run: ZooKeeper (one embedded standalone server, or an
 * ensemble of child JVMs), and the peers' real servers when installed: one {@code redis-server},
 * and {@code etcd} with as many members as ZooKeeper has servers.
 */
final class Servers implements AutoCloseable {
  final int zkServers;
  final boolean fsync;
  private final EmbeddedZooKeeper standalone;
  private final ZooKeeperEnsemble ensemble;
  final Optional<PeerServer.Redis> redis;
  final Optional<PeerServer.Etcd> etcd;

  private Servers(
      int zkServers,
      boolean fsync,
      EmbeddedZooKeeper standalone,
      ZooKeeperEnsemble ensemble,
      Optional<PeerServer.Redis> redis,
      Optional<PeerServer.Etcd> etcd) {
    this.zkServers = zkServers;
    this.fsync = fsync;
    this.standalone = standalone;
    this.ensemble = ensemble;
    this.redis = redis;
    this.etcd = etcd;
  }

  /** Starts ZooKeeper ({@code n} servers) and, if wanted and installed, the peers' servers. */
  static Servers start(BenchConfig config, int n, boolean peers, PrintStream out) throws Exception {
    EmbeddedZooKeeper standalone = null;
    ZooKeeperEnsemble ensemble = null;
    Optional<PeerServer.Redis> redis = Optional.empty();
    Optional<PeerServer.Etcd> etcd = Optional.empty();
    try {
      if (n == 1) {
        standalone =
            EmbeddedZooKeeper.standalone()
                .forceSync(config.fsync)
                .maxClientConnections(0)
                // ZooKeeper's default: the testkit's 1 s would reap lock directories mid-window
                .containerCheckInterval(Duration.ofMinutes(1))
                .start();
      } else {
        ensemble =
            EmbeddedZooKeeper.ensemble(n)
                .childProcesses()
                .forceSync(config.fsync)
                .containerCheckInterval(Duration.ofMinutes(1))
                .maxClientConnections(0)
                // grant the session length every implementation asks for, as the standalone
                // server does: ZooKeeper's default (20 ticks: 5 s) would cut it short
                .maxSessionTimeout(Endpoints.BENCH_SESSION)
                // the testkit starts children for fast start-up (C1 only); a benchmark wants the
                // full JIT
                .jvmOptions(List.of("-Xmx512m", "-XX:TieredStopAtLevel=4"))
                .start();
      }
      if (peers) {
        redis = PeerServer.Redis.startIfInstalled();
        if (redis.isEmpty()) {
          out.println(
              "redis-server not found on PATH: the redisson rows are skipped (install it: "
                  + PeerServer.Redis.INSTALL
                  + ")");
        }
        etcd = PeerServer.Etcd.startIfInstalled(n);
        if (etcd.isEmpty()) {
          out.println(
              "etcd not found on PATH: the etcd rows are skipped (install it: "
                  + PeerServer.Etcd.INSTALL
                  + ")");
        }
      }
      return new Servers(n, config.fsync, standalone, ensemble, redis, etcd);
    } catch (Exception | Error e) {
      redis.ifPresent(PeerServer::close);
      etcd.ifPresent(PeerServer::close);
      if (ensemble != null) {
        ensemble.close();
      }
      if (standalone != null) {
        standalone.close();
      }
      throw e;
    }
  }

  /** {@code host:port} of each ZooKeeper server. */
  List<String> zkHostPorts() {
    if (standalone != null) {
      return List.of(standalone.connectString());
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < ensemble.size(); i++) {
      out.add(ensemble.connectString(i));
    }
    return out;
  }

  /** The server's {@code mntr} counters, summed over the ensemble's servers. */
  long zkCounter(String... names) {
    long sum = 0;
    for (Map<String, String> m : mntrs()) {
      for (String name : names) {
        String v = m.get(name);
        if (v != null) {
          sum += (long) Double.parseDouble(v);
        }
      }
    }
    return sum;
  }

  long zkWatchEvents() {
    long sum = 0;
    for (Map<String, String> m : mntrs()) {
      sum += FourLetterWords.watchEventsTriggered(m);
    }
    return sum;
  }

  List<Map<String, String>> mntrs() {
    if (standalone != null) {
      return List.of(standalone.mntr());
    }
    List<Map<String, String>> out = new ArrayList<>();
    for (int i = 0; i < ensemble.size(); i++) {
      out.add(ensemble.mntr(i));
    }
    return out;
  }

  /** "1 server" or "3 servers (child JVMs)". */
  String describeZk() {
    return zkServers == 1
        ? "embedded standalone ZooKeeper, fsync " + (fsync ? "on" : "off")
        : zkServers + "-server ZooKeeper ensemble (child JVMs), fsync " + (fsync ? "on" : "off");
  }

  @Override
  public void close() {
    redis.ifPresent(PeerServer::close);
    etcd.ifPresent(PeerServer::close);
    if (ensemble != null) {
      ensemble.close();
    }
    if (standalone != null) {
      standalone.close();
    }
  }
}
