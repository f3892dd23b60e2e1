package io.zklock.bench;

import io.zklock.testkit.EmbeddedZooKeeper;
import io.zklock.testkit.FaultProxy;
import io.zklock.testkit.FourLetterWords;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What every scenario shares during one regime of a run: the one server, the run's settings and,
 * when the regime adds latency, the proxy every session connects through.
 */
final class Env implements AutoCloseable {
  final EmbeddedZooKeeper zk;
  final BenchConfig config;
  final Duration rtt;
  private final FaultProxy proxy;
  private final AtomicInteger windows;

  Env(EmbeddedZooKeeper zk, BenchConfig config) {
    this(zk, config, Duration.ZERO, new AtomicInteger());
  }

  private Env(EmbeddedZooKeeper zk, BenchConfig config, Duration rtt, AtomicInteger windows) {
    this.zk = zk;
    this.config = config;
    this.rtt = rtt;
    this.windows = windows;
    if (rtt.isZero()) {
      proxy = null;
    } else {
      proxy = FaultProxy.start(zk.connectString());
      proxy.delay(rtt.dividedBy(2)); // each direction: half the round trip
    }
  }

  /**
   * The same server and settings, every session behind a proxy adding {@code rtt} per round trip.
   */
  Env withRtt(Duration rtt) {
    return new Env(zk, config, rtt, windows);
  }

  /** "" with no added latency, else the round trip ("1ms"). */
  String regime() {
    return BenchConfig.regime(rtt);
  }

  /** Where sessions connect: the server, or the latency proxy in front of it. */
  String connectString() {
    return proxy == null ? zk.connectString() : proxy.connectString();
  }

  /**
   * The median round trip of a small read, in microseconds, through {@link #connectString()}: what
   * the regime really adds (the proxy's delay is a floor; scheduling adds to it).
   */
  double measuredRoundTripMicros() throws Exception {
    try (RawZk raw = new RawZk(connectString())) {
      double[] us = new double[101];
      for (int i = -20; i < us.length; i++) {
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
    if (proxy != null) {
      proxy.close();
    }
  }

  /** A name no earlier window used. */
  String freshName(String prefix) {
    return prefix + "-" + windows.incrementAndGet();
  }

  /** Server counters at one instant. */
  record Counters(long packetsReceived, long watchEvents) {}

  Counters counters() {
    Map<String, String> m = zk.mntr();
    return new Counters(
        Long.parseLong(m.getOrDefault("zk_packets_received", "0")),
        FourLetterWords.watchEventsTriggered(m));
  }

  /** Connects {@code n} sessions of {@code impl}, in parallel. */
  List<BenchLock.Client> connect(Impl impl, int n) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(n, 8));
    try {
      List<Future<BenchLock.Client>> fs = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int index = i;
        fs.add(pool.submit(() -> impl.connect(connectString(), index)));
      }
      List<BenchLock.Client> clients = new ArrayList<>();
      Exception failure = null;
      for (Future<BenchLock.Client> f : fs) {
        try {
          clients.add(f.get());
        } catch (Exception e) {
          failure = failure == null ? e : failure;
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
