package io.zklock.bench;

import io.zklock.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What every scenario shares during one regime of a run: the servers, the run's settings and, when
 * the regime adds latency, the proxies every session of every implementation connects through (one
 * in front of each ZooKeeper server, of redis-server and of each etcd member).
 */
final class Env implements AutoCloseable {
  final Servers servers;
  final BenchConfig config;
  final Duration rtt;
  private final List<FaultProxy> proxies = new ArrayList<>();
  private final Endpoints endpoints;
  private final AtomicInteger windows;

  /** Which server's counters the windows read (the implementation being measured). */
  private volatile Impl.Server counting = Impl.Server.ZOOKEEPER;

  Env(Servers servers, BenchConfig config) {
    this(servers, config, Duration.ZERO, new AtomicInteger());
  }

  private Env(Servers servers, BenchConfig config, Duration rtt, AtomicInteger windows) {
    this.servers = servers;
    this.config = config;
    this.rtt = rtt;
    this.windows = windows;
    try {
      List<String> zk = new ArrayList<>();
      for (String hostPort : servers.zkHostPorts()) {
        zk.add(front(hostPort));
      }
      String redis =
          servers.redis.map(r -> front(PeerServer.LOOPBACK + ":" + r.port())).orElse(null);
      List<String> etcd = new ArrayList<>();
      servers.etcd.ifPresent(
          e -> {
            for (int port : e.clientPorts) {
              etcd.add("http://" + front(PeerServer.LOOPBACK + ":" + port));
            }
          });
      this.endpoints = new Endpoints(String.join(",", zk), redis, etcd, Endpoints.BENCH_SESSION);
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** The address to connect to for {@code hostPort}: itself, or a delay line in front of it. */
  private String front(String hostPort) {
    if (rtt.isZero()) {
      return hostPort;
    }
    FaultProxy p = FaultProxy.start(hostPort);
    proxies.add(p);
    p.delay(rtt.dividedBy(2)); // each direction: half the round trip
    return p.connectString();
  }

  /** The same servers and settings, every session behind proxies adding {@code rtt}. */
  Env withRtt(Duration rtt) {
    return new Env(servers, config, rtt, windows);
  }

  /**
   * The regime as a key suffix: "" for a standalone server with no added latency, else its parts
   * joined by commas: "3srv" for an ensemble, the round trip ("1ms").
   */
  String regime() {
    return regime(servers.zkServers, BenchConfig.regime(rtt));
  }

  static String regime(int zkServers, String rtt) {
    List<String> parts = new ArrayList<>();
    if (zkServers > 1) {
      parts.add(zkServers + "srv");
    }
    if (!rtt.isEmpty()) {
      parts.add(rtt);
    }
    return String.join(",", parts);
  }

  /** Where sessions of every implementation connect: the servers, or the proxies before them. */
  Endpoints endpoints() {
    return endpoints;
  }

  /** The ZooKeeper connect string sessions use (the servers, or the proxies in front of them). */
  String connectString() {
    return endpoints.zk();
  }

  /**
   * The median round trip of a small read, in microseconds, through {@link #connectString()}: what
   * the regime really adds (the proxy's delay is a floor; scheduling adds to it).
   */
  double measuredRoundTripMicros() throws Exception {
    try (RawZk raw = new RawZk(connectString())) {
      double[] us = new double[201];
      for (int i = -300; i < us.length; i++) { // warm: a cold client doubles it
        long t0 = System.nanoTime();
        raw.zk.exists("/", false);
        if (i >= 0) {
          us[i] = (System.nanoTime() - t0) / 1e3;
        }
      }
      return Result.median(us);
    }
  }

  @Override
  public void close() {
    for (FaultProxy p : proxies) {
      p.close();
    }
  }

  /** A name no earlier window used. */
  String freshName(String prefix) {
    return prefix + "-" + windows.incrementAndGet();
  }

  /** The windows read the counters of this implementation's server from now on. */
  void countFor(Impl impl) {
    counting = impl.server;
  }

  /**
   * Server counters at one instant: requests the server received from clients, watch events it
   * fired (ZooKeeper only), fsyncs of its log (-1 where the server does not count them).
   */
  record Counters(long requests, long watchEvents, long fsyncs, double fsyncMillis) {}

  Counters counters() {
    return switch (counting) {
      case ZOOKEEPER ->
          new Counters(
              servers.zkCounter("zk_packets_received"),
              servers.zkWatchEvents(),
              servers.zkCounter("zk_cnt_fsynctime"),
              servers.zkCounter("zk_sum_fsynctime"));
      case REDIS ->
          new Counters(
              servers.redis.map(PeerServer.Redis::commandsProcessed).orElse(-1L), -1, -1, -1);
      case ETCD ->
          servers
              .etcd
              .map(e -> new Counters(e.requestsHandled(), -1, e.walFsyncs(), e.walFsyncMillis()))
              .orElse(new Counters(-1, -1, -1, -1));
    };
  }

  /** Connects {@code n} sessions of {@code impl}, in parallel. */
  List<BenchLock.Client> connect(Impl impl, int n) throws Exception {
    return connect(impl, n, endpoints);
  }

  static List<BenchLock.Client> connect(Impl impl, int n, Endpoints endpoints) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(n, 8));
    try {
      List<Future<BenchLock.Client>> fs = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int index = i;
        fs.add(pool.submit(() -> impl.connect(endpoints, index)));
      }
      List<BenchLock.Client> clients = new ArrayList<>();
      Exception failure = null;
      for (Future<BenchLock.Client> f : fs) {
        try {
          clients.add(f.get());
        } catch (java.util.concurrent.ExecutionException e) {
          Exception cause = e.getCause() instanceof Exception x ? x : e;
          failure = failure == null ? cause : failure;
        }
      }
      if (failure != null) {
        closeAll(clients);
        throw failure;
      }
      return clients;
    } finally {
      pool.shutdown();
    }
  }

  static void closeAll(List<BenchLock.Client> clients) {
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(clients.size(), 8)));
    for (BenchLock.Client c : clients) {
      pool.execute(
          () -> {
            try {
              c.close();
            } catch (RuntimeException e) {
              // closing is best effort: the next window uses fresh sessions
            }
          });
    }
    pool.shutdown();
    try {
      pool.awaitTermination(60, java.util.concurrent.TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
