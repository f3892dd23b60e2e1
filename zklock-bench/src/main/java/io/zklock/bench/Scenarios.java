package io.zklock.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** The scenarios of issue 6, by name. */
final class Scenarios {
  private Scenarios() {}

  static final List<Impl> ALL =
      List.of(Impl.ZKLOCK, Impl.ZKLOCK_BATCHED, Impl.CURATOR, Impl.NAIVE, Impl.RAW, Impl.FLOOR);
  static final List<Impl> RECIPES = List.of(Impl.ZKLOCK, Impl.CURATOR);

  /** The peers on their own servers (issue 32). */
  static final List<Impl> PEERS =
      List.of(Impl.REDISSON_FAIR, Impl.REDISSON_FENCED, Impl.REDISSON, Impl.ETCD);

  /** Every implementation on ZooKeeper, then the peers. */
  static final List<Impl> WITH_PEERS = concat(ALL, PEERS);

  /** The lock libraries users pick among: zklock, Curator, Redisson's three locks, etcd. */
  static final List<Impl> LIBRARIES = concat(RECIPES, PEERS);

  static List<Impl> concat(List<Impl> a, List<Impl> b) {
    List<Impl> out = new ArrayList<>(a);
    out.addAll(b);
    return List.copyOf(out);
  }

  static List<Scenario> all() {
    return List.of(
        uncontended(false),
        uncontended(true),
        contended(10, "contended-10"),
        mixed(),
        contended(50, "contended-50"),
        herd(),
        distinctLocks(),
        distinctLocksOneClient(),
        freshNames(),
        freshNamesThreads(),
        heldMany(),
        readWrite(),
        semaphore(),
        asyncWaiters(),
        CohortScenarios.oneSession(),
        LossScenario.scenario());
  }

  /** One session, one thread, one lock: acquire, release, again. */
  static Scenario uncontended(boolean async) {
    String name = async ? "uncontended-async" : "uncontended";
    String title =
        async
            ? "uncontended acquire + releaseAsync() (Curator: release())"
            : "uncontended acquire + release()";
    return new Scenario(name, title, "acq/s", true, WITH_PEERS, Impl.CURATOR) {
      @Override
      Window measure(Impl impl, Env env) throws Exception {
        List<BenchLock.Client> clients = env.connect(impl, 1);
        try {
          BenchLock lock = clients.get(0).mutex(name + "-" + impl.label);
          Loop.Op op = async ? () -> lock.acquire().releaseAsync() : () -> lock.acquire().release();
          return Loop.run(env, List.of(op));
        } finally {
          Env.closeAll(clients);
        }
      }
    };
  }

  /** N sessions, one thread each, one lock: every acquisition is a handoff. */
  static Scenario contended(int sessions, String name) {
    return new Scenario(
        name,
        "one lock, " + sessions + " sessions contending (raw-zk: write→watch ping-pong ring)",
        "handoffs/s",
        true,
        WITH_PEERS,
        Impl.CURATOR) {
      @Override
      Window measure(Impl impl, Env env) throws Exception {
        return contend(impl, env, sessions, name);
      }
    };
  }

  /**
   * A rolling migration from Curator caught in the middle (issue 28): one lock, 10 sessions, 5 of
   * Curator 5.9 and 5 of zklock in the Curator-compatible mode alternating in one queue ({@link
   * Impl#MIXED}), beside the pure runs of each library; rates and requests per acquisition.
   */
  static Scenario mixed() {
    return new Scenario(
        "mixed-10",
        "one lock, 5 Curator + 5 zklock (Curator-compatible) sessions in one queue",
        "handoffs/s",
        true,
        List.of(Impl.ZKLOCK, Impl.CURATOR, Impl.MIXED, Impl.ZKLOCK_CURATOR_COMPATIBLE),
        Impl.CURATOR) {
      @Override
      Window measure(Impl impl, Env env) throws Exception {
        return contend(impl, env, 10, "mixed-10");
      }
    };
  }

  static Window contend(Impl impl, Env env, int sessions, String name) throws Exception {
    List<BenchLock.Client> clients = env.connect(impl, sessions);
    try {
      List<BenchLock> locks = impl.oneLockPerClient(clients, env.freshName(name));
      List<Loop.Op> ops = new ArrayList<>();
      for (BenchLock lock : locks) {
        ops.add(() -> lock.acquire().release());
      }
      Window w = Loop.run(env, ops);
      w.extra().put("handoffs/s", w.value());
      return w;
    } finally {
      Env.closeAll(clients);
    }
  }

  /**
   * Watch events per acquisition with many sessions queued on one lock: the same contention loop,
   * the server's watch-event count per acquisition as the figure.
   */
  static Scenario herd() {
    return new Scenario(
        "herd",
        "watch events per acquisition, many sessions on one lock",
        "events/acq",
        false,
        ALL,
        Impl.CURATOR) {
      @Override
      int reps(BenchConfig config) {
        return config.quick ? Math.min(config.reps, 2) : 1; // 500 sessions a window: slow
      }

      @Override
      boolean inLatencyRegime() {
        return false; // a count per acquisition: the same at any latency
      }

      @Override
      boolean warmRound() {
        return false;
      }

      @Override
      Window measure(Impl impl, Env env) throws Exception {
        Window w = contend(impl, env, env.config.herdSessions, "herd");
        Window out =
            new Window(
                w.watchEventsPerOp(),
                w.ops(),
                w.requestsPerOp(),
                w.watchEventsPerOp(),
                w.fsyncsPerOp(),
                w.extra());
        out.extra().put("sessions", (double) env.config.herdSessions);
        return out;
      }
    };
  }

  /**
   * 1,000 locks ({@code --names}), 8 sessions × 4 threads, each picking locks at random (same seeds
   * for all).
   */
  static Scenario distinctLocks() {
    int sessions = 8;
    int threads = 4;
    return new Scenario(
        "distinct-1000",
        "1,000 distinct locks, 8 sessions x 4 threads (RAW: create+delete)",
        "acq/s",
        true,
        concat(ALL, List.of(Impl.FAST_FLOOR, Impl.FAST_FLOOR_VERSIONED)),
        Impl.RAW) {
      @Override
      Window measure(Impl impl, Env env) throws Exception {
        int locks = env.config.distinctNames;
        List<BenchLock.Client> clients = env.connect(impl, sessions);
        try {
          List<Loop.Op> ops = new ArrayList<>();
          for (int s = 0; s < sessions; s++) {
            BenchLock[] byIndex = new BenchLock[locks];
            for (int i = 0; i < locks; i++) {
              byIndex[i] = clients.get(s).mutex("distinct/" + impl.label + "-" + i);
            }
            for (int t = 0; t < threads; t++) {
              Random rnd = new Random(31L * s + t);
              ops.add(() -> byIndex[rnd.nextInt(locks)].acquire().release());
            }
          }
          return FastFloorClient.withVersionedShares(Loop.run(env, ops), clients);
        } finally {
          Env.closeAll(clients);
        }
      }
    };
  }

  /** The lock libraries and the two ZooKeeper floors, for one client shared by many threads. */
  static final List<Impl> ONE_CLIENT =
      List.of(
          Impl.ZKLOCK,
          Impl.ZKLOCK_BATCHED,
          Impl.CURATOR,
          Impl.RAW,
          Impl.FLOOR,
          Impl.REDISSON,
          Impl.ETCD);

  /** Threads sharing one client in the one-client per-entity scenarios. */
  static final int SHARED_THREADS = 32;

  /**
   * Per-entity locks as a service takes them: one client (one {@code ZkLocks}, one {@code
   * CuratorFramework}, one {@code RedissonClient}, one jetcd client and lease) shared by 32
   * threads, each taking one of 1,000 locks ({@code --names}) at random (the same seeds for every
   * implementation), Curator an {@code InterProcessMutex} per acquisition as its users do for
   * per-entity names. The client has met every entity once before the window ({@link
   * #meetEveryEntity}).
   */
  static Scenario distinctLocksOneClient() {
    int threads = SHARED_THREADS;
    return new Scenario(
        "distinct-1000-one",
        "1,000 distinct locks, one client x 32 threads (RAW: create+delete)",
        "acq/s",
        true,
        ONE_CLIENT,
        Impl.CURATOR) {
      @Override
      Window measure(Impl impl, Env env) throws Exception {
        int locks = env.config.distinctNames;
        BenchLock.Client client = impl.connectShared(env.endpoints(), threads);
        try {
          String prefix = "distinct-one/" + impl.label + "-";
          meetEveryEntity(client, prefix, locks, threads);
          List<Loop.Op> ops = new ArrayList<>();
          for (int t = 0; t < threads; t++) {
            Random rnd = new Random(31L * t + 7);
            ops.add(() -> client.perEntity(prefix + rnd.nextInt(locks)).acquire().release());
          }
          return Loop.run(env, ops);
        } finally {
          Env.closeAll(List.of(client));
        }
      }
    };
  }

  /**
   * Outside the timing, the client takes and releases each of the {@code locks} names once, from
   * {@code threads} threads: a per-entity service's client lives long and has met its entities (a
   * client connected for one window has not; each window connects a new one).
   */
  static void meetEveryEntity(BenchLock.Client client, String prefix, int locks, int threads)
      throws Exception {
    List<Thread> ts = new ArrayList<>();
    java.util.concurrent.atomic.AtomicReference<Exception> failed =
        new java.util.concurrent.atomic.AtomicReference<>();
    for (int t = 0; t < threads; t++) {
      int first = t;
      Thread th =
          new Thread(
              () -> {
                try {
                  for (int i = first; i < locks; i += threads) {
                    client.perEntity(prefix + i).acquire().release();
                  }
                } catch (Exception e) {
                  failed.compareAndSet(null, e);
                }
              },
              "bench-meet-" + t);
      ts.add(th);
      th.start();
    }
    for (Thread th : ts) {
      th.join();
    }
    if (failed.get() != null) {
      throw failed.get();
    }
  }

  /**
   * One lock per order, from many threads: one client shared by 32 threads, each acquire+release on
   * a name never used before (no directory yet for a ZooKeeper lock).
   */
  static Scenario freshNamesThreads() {
    int threads = SHARED_THREADS;
    return new Scenario(
        "fresh-names-32",
        "acquire + release(), each on a lock name never used before, one client x 32 threads",
        "acq/s",
        true,
        List.of(Impl.ZKLOCK, Impl.ZKLOCK_BATCHED, Impl.CURATOR, Impl.REDISSON, Impl.ETCD),
        Impl.CURATOR) {
      @Override
      Window measure(Impl impl, Env env) throws Exception {
        BenchLock.Client client = impl.connectShared(env.endpoints(), threads);
        try {
          String prefix = env.freshName("fresh32-" + impl.label) + "/order-";
          java.util.concurrent.atomic.AtomicLong next =
              new java.util.concurrent.atomic.AtomicLong();
          List<Loop.Op> ops = new ArrayList<>();
          for (int t = 0; t < threads; t++) {
            ops.add(() -> client.perEntity(prefix + next.getAndIncrement()).acquire().release());
          }
          return Loop.run(env, ops);
        } finally {
          Env.closeAll(List.of(client));
        }
      }
    };
  }

  /**
   * One lock per order: one session, one thread, each acquire+release on a lock name never used
   * before, so a ZooKeeper lock's directory does not exist yet (or was reaped as an empty
   * container, as a rarely used entity's is). The peers have no directories.
   */
  static Scenario freshNames() {
    return new Scenario(
        "fresh-names",
        "uncontended acquire + release(), each on a lock name never used before",
        "acq/s",
        true,
        LIBRARIES,
        Impl.CURATOR) {
      @Override
      Window measure(Impl impl, Env env) throws Exception {
        List<BenchLock.Client> clients = env.connect(impl, 1);
        try {
          BenchLock.Client c = clients.get(0);
          String prefix = env.freshName("fresh-" + impl.label) + "/order-";
          long[] next = {0};
          Loop.Op op = () -> c.mutex(prefix + next[0]++).acquire().release();
          return Loop.run(env, List.of(op));
        } finally {
          Env.closeAll(clients);
        }
      }
    };
  }

  /**
   * One session holding many distinct locks at once (per-entity locks): {@code --held} mutexes of
   * one {@code ZkLocks}, all taken with {@code acquireAsync()} and held together. The figure is the
   * heap per held lock (used heap after GC with every lock held, minus before the locks were
   * named); the time to take them all is beside it. zklock only: Curator and the peers would need a
   * thread per pending acquisition.
   */
  static Scenario heldMany() {
    return new Scenario(
        "held-many",
        "one session holding many distinct locks at once (zklock only)",
        "bytes/lock",
        false,
        List.of(Impl.ZKLOCK, Impl.ZKLOCK_BATCHED),
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
      Window measure(Impl impl, Env env) throws Exception {
        int n = env.config.heldLocks;
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        ZkLockClient client = (ZkLockClient) impl.connect(env.endpoints(), 0);
        try {
          String prefix = env.freshName("held") + "/e-";
          // the first use of each lock directory creates it: done once, outside the timing, as a
          // per-entity service meets its entities again and again
          List<CompletableFuture<Void>> warm = new ArrayList<>(n);
          for (int i = 0; i < n; i++) {
            warm.add(
                client.locks().mutex(prefix + i).acquireAsync().thenCompose(h -> h.releaseAsync()));
          }
          CompletableFuture.allOf(warm.toArray(CompletableFuture[]::new))
              .get(300, TimeUnit.SECONDS);
          warm.clear();
          long heap0 = usedHeapAfterGc(memory);
          Env.Counters c0 = env.counters();
          long t0 = System.nanoTime();
          List<CompletableFuture<io.zklock.LockHandle>> held = new ArrayList<>(n);
          List<CompletableFuture<?>> timed = new ArrayList<>(n);
          long[] grantedAt = new long[n];
          for (int i = 0; i < n; i++) {
            int k = i;
            CompletableFuture<io.zklock.LockHandle> f =
                client.locks().mutex(prefix + i).acquireAsync();
            timed.add(f.whenComplete((h, e) -> grantedAt[k] = System.nanoTime()));
            held.add(f);
          }
          long issued = System.nanoTime();
          CompletableFuture.allOf(timed.toArray(CompletableFuture[]::new))
              .get(300, TimeUnit.SECONDS);
          long t1 = System.nanoTime();
          Env.Counters c1 = env.counters();
          long heap1 = usedHeapAfterGc(memory);
          for (CompletableFuture<io.zklock.LockHandle> f : held) {
            if (!f.join().isHeld()) {
              throw new IllegalStateException("a lock was not held at the end");
            }
          }
          Window w =
              new Window(
                  (heap1 - heap0) / (double) n,
                  n,
                  (c1.requests() - c0.requests()) / (double) n,
                  (c1.watchEvents() - c0.watchEvents()) / (double) n,
                  c0.fsyncs() < 0 ? Double.NaN : (c1.fsyncs() - c0.fsyncs()) / (double) n,
                  new java.util.LinkedHashMap<>());
          w.extra().put("locks held at once", (double) n);
          w.extra().put("seconds to take them all", (t1 - t0) / 1e9);
          w.extra().put("acquisitions/s while taking them", n / ((t1 - t0) / 1e9));
          // when the grants came: a burst sent so that nobody is granted until the end shows here
          long[] sorted = grantedAt.clone();
          java.util.Arrays.sort(sorted);
          w.extra().put("seconds to issue them all", (issued - t0) / 1e9);
          w.extra().put("seconds to the first grant", (sorted[0] - t0) / 1e9);
          w.extra().put("seconds to half of the grants", (sorted[(n - 1) / 2] - t0) / 1e9);
          for (CompletableFuture<io.zklock.LockHandle> f : held) {
            f.join().releaseAsync();
          }
          return w;
        } finally {
          client.close();
        }
      }
    };
  }

  /** Read-write lock, 10 sessions, 90% reads. */
  static Scenario readWrite() {
    int sessions = 10;
    return new Scenario(
        "rw-90", "read-write lock, 90% reads, 10 sessions", "acq/s", true, RECIPES, Impl.CURATOR) {
      @Override
      Window measure(Impl impl, Env env) throws Exception {
        List<BenchLock.Client> clients = env.connect(impl, sessions);
        try {
          String name = env.freshName("rw");
          List<Loop.Op> ops = new ArrayList<>();
          for (int s = 0; s < sessions; s++) {
            BenchLock read = clients.get(s).readLock(name);
            BenchLock write = clients.get(s).writeLock(name);
            Random rnd = new Random(17L * s);
            ops.add(() -> (rnd.nextInt(10) == 0 ? write : read).acquire().release());
          }
          return Loop.run(env, ops);
        } finally {
          Env.closeAll(clients);
        }
      }
    };
  }

  /** Semaphore, 5 permits, 10 sessions: skipped while zklock has no semaphore. */
  static Scenario semaphore() {
    int sessions = 10;
    int permits = 5;
    return new Scenario(
        "semaphore-5",
        "semaphore, 5 permits, 10 sessions (Curator: InterProcessSemaphoreV2)",
        "acq/s",
        true,
        RECIPES,
        Impl.CURATOR) {
      @Override
      Window measure(Impl impl, Env env) throws Exception {
        List<BenchLock.Client> clients = env.connect(impl, sessions);
        try {
          String name = env.freshName("sem");
          List<Loop.Op> ops = new ArrayList<>();
          for (BenchLock.Client c : clients) {
            BenchLock sem = c.semaphore(name, permits);
            ops.add(() -> sem.acquire().release());
          }
          return Loop.run(env, ops);
        } finally {
          Env.closeAll(clients);
        }
      }
    };
  }

  /**
   * N pending acquireAsync() on one ZkLocks: threads the library adds, heap per waiter (GC'd
   * used-heap difference), then how fast the queue drains when each grant releases at once. zklock
   * only: Curator has no asynchronous acquire (N pending would need N threads).
   */
  static Scenario asyncWaiters() {
    return new Scenario(
        "async-waiters",
        "pending acquireAsync() in one JVM (zklock only)",
        "bytes/waiter",
        false,
        List.of(Impl.ZKLOCK),
        null) {
      @Override
      int reps(BenchConfig config) {
        return 1;
      }

      @Override
      boolean inLatencyRegime() {
        return false; // threads and heap are counts; queueing 10,000 is bound by the server's CPU
      }

      @Override
      boolean warmRound() {
        return false;
      }

      @Override
      Window measure(Impl impl, Env env) throws Exception {
        int n = env.config.asyncWaiters;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        try (RawZk observer = new RawZk(env.connectString())) {
          long heap0 = usedHeapAfterGc(memory);
          int threads0 = threads.getThreadCount();
          ZkLockClient client = (ZkLockClient) impl.connect(env.endpoints(), 0);
          try {
            String name = env.freshName("async");
            var lock = client.locks().mutex(name);
            var head = lock.acquire();
            long heap1 = usedHeapAfterGc(memory);
            int threads1 = threads.getThreadCount();
            long watchesBefore = watchCount(env);
            Env.Counters c0 = env.counters();
            long q0 = System.nanoTime();
            List<CompletableFuture<io.zklock.LockHandle>> pending = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
              pending.add(lock.acquireAsync());
            }
            String dir = client.queueDir(name);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (observer.zk.getAllChildrenNumber(dir) < n + 1) {
              if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the waiters did not queue within 120 s");
              }
              Thread.sleep(20);
            }
            // every waiter has its node; now wait until each has set its watch, so no listing is
            // still in flight in the client. A waiter watches only its predecessor (not its own
            // node): n waiters, n distinct predecessors, less the holder's node, which the holding
            // request of this same session already watches (one watch per path and session).
            waitWatchCount(env, watchesBefore, n - 1, deadline);
            long q1 = System.nanoTime();
            Env.Counters c1 = env.counters();
            int threads2 = threads.getThreadCount();
            long heap2 = usedHeapAfterGc(memory);

            // drain: each grant releases at once; timed over the first handoffs (at most 1,000),
            // the rest are withdrawn when the session closes
            int drainCount = Math.min(n, 1_000);
            java.util.concurrent.CountDownLatch drained =
                new java.util.concurrent.CountDownLatch(drainCount);
            for (CompletableFuture<io.zklock.LockHandle> f : pending) {
              f.thenAccept(
                  h -> {
                    drained.countDown();
                    h.releaseAsync();
                  });
            }
            long d0 = System.nanoTime();
            head.release();
            if (!drained.await(60, TimeUnit.SECONDS)) {
              throw new IllegalStateException("the first " + drainCount + " handoffs took > 60 s");
            }
            long d1 = System.nanoTime();

            Window w =
                new Window(
                    (heap2 - heap1) / (double) n,
                    n,
                    (c1.requests() - c0.requests()) / (double) n,
                    (c1.watchEvents() - c0.watchEvents()) / (double) n,
                    (c1.fsyncs() - c0.fsyncs()) / (double) n,
                    new java.util.LinkedHashMap<>());
            w.extra().put("waiters", (double) n);
            w.extra().put("library threads", (double) (threads2 - threads0));
            w.extra().put("threads added by the waiters", (double) (threads2 - threads1));
            w.extra().put("heap of the idle ZkLocks (bytes)", (double) (heap1 - heap0));
            w.extra().put("queue seconds", (q1 - q0) / 1e9);
            w.extra()
                .put("drain handoffs/s (first " + drainCount + ")", drainCount / ((d1 - d0) / 1e9));
            return w;
          } finally {
            client.close();
          }
        }
      }
    };
  }

  static long watchCount(Env env) {
    return env.servers.zkCounter("zk_watch_count");
  }

  /** Waits until the server holds {@code expected} more watches than {@code before}. */
  static void waitWatchCount(Env env, long before, long expected, long deadline)
      throws InterruptedException {
    while (watchCount(env) - before < expected) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the waiters did not set their watches: "
                + (watchCount(env) - before)
                + " of "
                + expected);
      }
      Thread.sleep(20);
    }
  }

  static long usedHeapAfterGc(MemoryMXBean memory) throws InterruptedException {
    long best = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(50);
      best = Math.min(best, memory.getHeapMemoryUsage().getUsed());
    }
    return best;
  }
}
