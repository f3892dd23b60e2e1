package io.zklock.bench;

import io.zklock.testkit.EmbeddedZooKeeper;
import io.zklock.testkit.FourLetterWords;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/** What every scenario shares during one run: the one server and the run's settings. */
final class Env {
  final EmbeddedZooKeeper zk;
  final BenchConfig config;
  private final AtomicInteger windows = new AtomicInteger();

  Env(EmbeddedZooKeeper zk, BenchConfig config) {
    this.zk = zk;
    this.config = config;
  }

  String connectString() {
    return zk.connectString();
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
