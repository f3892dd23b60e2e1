package io.zklock.bench;

import io.zklock.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * What users trade for speed, measured for each lock library (issue 32), once per server regime:
 *
 * <ol>
 *   <li><b>Fencing token</b>: two sessions take the lock in turn, six grants; "yes" if every grant
 *       carried a token and the tokens strictly increased.
 *   <li><b>Holder told of loss, under a partition that never heals</b>: session A (connected
 *       through proxies of its own, one per server) takes the lock; every one of A's connections is
 *       black-holed; session B (connected directly) asks for the same lock. Recorded: when B is
 *       granted, and when A's library tells A that it may no longer hold the lock (zklock: {@code
 *       LockHandle.lost()}; Curator: the {@code LOST} connection state; etcd: the end of the
 *       lease's keep-alive stream; Redisson: no such signal). Told before the other grant is the
 *       safe order: A stops acting on the resource before B starts.
 * </ol>
 *
 * Every session here has a {@link #SESSION} session timeout, lock watchdog timeout or lease TTL
 * ({@link #QUICK_SESSION} with {@code --quick}). After the other session's grant, the holder's
 * library has two more session lengths to speak before "never" is recorded.
 */
final class LossScenario {
  private LossScenario() {}

  /** The session length of the full run; {@code --quick} uses {@link #QUICK_SESSION}. */
  static final Duration SESSION = Duration.ofSeconds(4);

  static final Duration QUICK_SESSION = Duration.ofSeconds(2);
  static final String FENCING = "fencing token (1 = yes)";
  static final String TOLD_MS = "holder told of loss (ms after the partition)";
  static final String GRANTED_MS = "other session granted (ms after the partition)";
  static final String LEAD_MS = "told before the other grant by (ms)";

  static Scenario scenario() {
    return new Scenario(
        "loss",
        "fencing token; holder told of loss before another grant, under a partition that never"
            + " heals",
        "told first (1 = yes)",
        true,
        Scenarios.LIBRARIES,
        null) {
      @Override
      int reps(BenchConfig config) {
        return 1;
      }

      @Override
      boolean warmRound() {
        return false;
      }

      @Override
      boolean inLatencyRegime() {
        return false;
      }

      @Override
      boolean anyLatency() {
        return false;
      }

      @Override
      Window measure(Impl impl, Env env) throws Exception {
        return LossScenario.measure(impl, env);
      }
    };
  }

  static Window measure(Impl impl, Env env) throws Exception {
    Duration session = env.config.quick ? QUICK_SESSION : SESSION;
    Endpoints direct = env.endpoints().withSession(session);
    List<FaultProxy> proxies = new ArrayList<>();
    Endpoints throughProxies = proxied(impl, env, proxies).withSession(session);
    BenchLock.Client a = null;
    BenchLock.Client b = null;
    try {
      a = impl.connect(throughProxies, 0);
      b = impl.connect(direct, 1);
      String name = env.freshName("loss");

      // 1. fencing: six grants, alternating sessions
      boolean fenced = true;
      long last = Long.MIN_VALUE;
      for (int i = 0; i < 6; i++) {
        BenchLock.Held h = (i % 2 == 0 ? a : b).mutex(name + "-fencing").acquire();
        OptionalLong t = h.token();
        h.release();
        if (t.isEmpty() || t.getAsLong() <= last) {
          fenced = false;
        }
        last = t.isPresent() ? t.getAsLong() : last;
      }

      // 2. a partition that never heals, with A holding
      BenchLock.Held held = a.mutex(name).acquire();
      CompletableFuture<String> told = held.toldOfLoss();
      BenchLock other = b.mutex(name);
      long t0 = System.nanoTime();
      proxies.forEach(FaultProxy::blackhole);
      CompletableFuture<Long> granted = new CompletableFuture<>();
      java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
      // the locks of Curator and Redisson belong to a thread: B releases on its acquiring thread
      Thread asker =
          new Thread(
              () -> {
                try {
                  BenchLock.Held h = other.acquire();
                  granted.complete(System.nanoTime());
                  done.await();
                  h.release();
                } catch (Throwable e) {
                  granted.completeExceptionally(e);
                }
              },
              "loss-other");
      asker.setDaemon(true);
      asker.start();
      CompletableFuture<Long> toldAt = told.thenApply(x -> System.nanoTime());
      long limit = session.toNanos() * 6;
      double grantedMs = Double.NaN;
      try {
        grantedMs = (granted.get(limit, TimeUnit.NANOSECONDS) - t0) / 1e6;
      } catch (java.util.concurrent.TimeoutException e) {
        asker.interrupt();
      }
      // after the grant, give the library two more session lengths to speak
      double toldMs = Double.NaN;
      try {
        toldMs = (toldAt.get(2 * session.toNanos(), TimeUnit.NANOSECONDS) - t0) / 1e6;
      } catch (java.util.concurrent.TimeoutException e) {
        // never told within the time
      }
      done.countDown();
      asker.join(TimeUnit.SECONDS.toMillis(10));
      boolean toldFirst = !Double.isNaN(toldMs) && (Double.isNaN(grantedMs) || toldMs < grantedMs);
      Window w =
          new Window(
              toldFirst ? 1 : 0, 1, Double.NaN, Double.NaN, Double.NaN, new LinkedHashMap<>());
      w.extra().put(FENCING, fenced ? 1.0 : 0.0);
      w.extra().put(TOLD_MS, toldMs);
      w.extra().put(GRANTED_MS, grantedMs);
      w.extra().put(LEAD_MS, grantedMs - toldMs);
      return w;
    } finally {
      proxies.forEach(FaultProxy::close); // A's connections end: its client gives up on its own
      BenchLock.Client ca = a;
      BenchLock.Client cb = b;
      if (cb != null) {
        cb.close();
      }
      if (ca != null) {
        Thread closer = new Thread(ca::close, "loss-close");
        closer.setDaemon(true);
        closer.start();
        closer.join(TimeUnit.SECONDS.toMillis(5)); // a client that hangs on close is left to it
      }
    }
  }

  /** Endpoints of {@code impl}'s server through new proxies, one per server member. */
  private static Endpoints proxied(Impl impl, Env env, List<FaultProxy> proxies) {
    Servers s = env.servers;
    Endpoints e = env.endpoints();
    switch (impl.server) {
      case ZOOKEEPER -> {
        List<String> zk = new ArrayList<>();
        for (String hostPort : s.zkHostPorts()) {
          FaultProxy p = FaultProxy.start(hostPort);
          proxies.add(p);
          zk.add(p.connectString());
        }
        return new Endpoints(String.join(",", zk), e.redis(), e.etcd(), e.session());
      }
      case REDIS -> {
        if (s.redis.isEmpty()) {
          return e;
        }
        FaultProxy p = FaultProxy.start(PeerServer.LOOPBACK, s.redis.get().port());
        proxies.add(p);
        return new Endpoints(e.zk(), p.connectString(), e.etcd(), e.session());
      }
      case ETCD -> {
        List<String> etcd = new ArrayList<>();
        s.etcd.ifPresent(
            x -> {
              for (int port : x.clientPorts) {
                FaultProxy p = FaultProxy.start(PeerServer.LOOPBACK, port);
                proxies.add(p);
                etcd.add("http://" + p.connectString());
              }
            });
        return new Endpoints(e.zk(), e.redis(), etcd, e.session());
      }
      default -> throw new IllegalStateException(impl.server.toString());
    }
  }
}
