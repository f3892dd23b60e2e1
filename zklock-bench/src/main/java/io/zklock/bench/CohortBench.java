package io.zklock.bench;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.LockOptions;
import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import io.zklock.testkit.FaultProxy;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryNTimes;

/**
 * The cohort benchmark (issue 16): threads of one session on one lock, zklock's cohort mutex
 * against Curator (one client, one {@code InterProcessMutex} shared by the threads) and against
 * zklock's plain mutex; then several sessions of several threads, cohort against plain, with the
 * worst wait of a remote waiter against the bound K·(local hold) + one handoff.
 *
 * <pre>
 * ./mvnw -B -q -pl zklock-bench -am package -DskipTests
 * java -cp zklock-bench/target/zklock-bench.jar io.zklock.bench.CohortBench --reps 3 --seconds 5 [--rtt-ms 1]
 * </pre>
 *
 * Implementations interleave within each repetition (fresh sessions and a fresh lock name per
 * window); figures are medians over the repetitions. The critical section is empty: every
 * acquisition is released at once, so the figures are the lock's own cost.
 */
public final class CohortBench {
  private final PrintStream out;
  private final int reps;
  private final double warmupSeconds;
  private final double seconds;
  private final int threads;
  private final int sessions;
  private final LockOptions options;
  private final String side; // mutex, read or write: which lock the threads take
  private String connectString;
  private int windows;

  private CohortBench(PrintStream out, Map<String, String> args) {
    this.out = out;
    this.reps = Integer.parseInt(args.getOrDefault("reps", "3"));
    this.warmupSeconds = Double.parseDouble(args.getOrDefault("warmup", "2"));
    this.seconds = Double.parseDouble(args.getOrDefault("seconds", "5"));
    this.threads = Integer.parseInt(args.getOrDefault("threads", "8"));
    this.sessions = Integer.parseInt(args.getOrDefault("sessions", "4"));
    LockOptions o = LockOptions.cohort();
    if (args.containsKey("k")) {
      o = o.maxLocalHandoffs(Integer.parseInt(args.get("k")));
    }
    if (args.containsKey("t-ms")) {
      o = o.maxLocalHold(Duration.ofMillis(Long.parseLong(args.get("t-ms"))));
    }
    this.options = o;
    this.side = args.getOrDefault("side", "mutex");
    if (!List.of("mutex", "read", "write").contains(side)) {
      throw new IllegalArgumentException("--side must be mutex, read or write: " + side);
    }
  }

  /** The lock the threads take: a mutex, or one side of a read-write lock (--side). */
  private DistributedLock lockOf(ZkLocks locks, String name, boolean cohort) {
    if (side.equals("mutex")) {
      return cohort ? locks.mutex(name, options) : locks.mutex(name);
    }
    io.zklock.ReadWriteLock rw =
        cohort ? locks.readWriteLock(name, options) : locks.readWriteLock(name);
    return side.equals("read") ? rw.readLock() : rw.writeLock();
  }

  public static void main(String[] argv) throws Exception {
    Map<String, String> args = new LinkedHashMap<>();
    for (int i = 0; i < argv.length; i++) {
      if (!argv[i].startsWith("--") || i + 1 >= argv.length) {
        System.out.println(
            "usage: CohortBench [--reps N] [--seconds S] [--warmup S] [--threads N] [--sessions N]"
                + " [--k K] [--t-ms T] [--rtt-ms R] [--only one|many]");
        System.exit(2);
      }
      args.put(argv[i].substring(2), argv[++i]);
    }
    Logging.quiet();
    new CohortBench(System.out, args).run(args);
    System.exit(0);
  }

  private void run(Map<String, String> args) throws Exception {
    double rttMs = Double.parseDouble(args.getOrDefault("rtt-ms", "0"));
    String only = args.getOrDefault("only", "");
    try (EmbeddedZooKeeper zk =
        EmbeddedZooKeeper.standalone()
            .forceSync(false)
            .maxClientConnections(0)
            .containerCheckInterval(Duration.ofMinutes(1))
            .start()) {
      FaultProxy proxy = null;
      connectString = zk.connectString();
      if (rttMs > 0) {
        proxy = FaultProxy.start(zk.connectString());
        proxy.delay(Duration.ofNanos(Math.round(rttMs * 1e6 / 2)));
        connectString = proxy.connectString();
      }
      try {
        out.printf(
            Locale.ROOT,
            "cohort bench: %d cores, %s, rtt %.1f ms, %d reps x (%.0f s warm-up + %.0f s), %s,"
                + " side %s%n",
            Runtime.getRuntime().availableProcessors(),
            System.getProperty("java.version"),
            rttMs,
            reps,
            warmupSeconds,
            seconds,
            options,
            side);
        if (!only.equals("many")) {
          oneSession();
        }
        if (!only.equals("one")) {
          manySessions();
        }
      } finally {
        if (proxy != null) {
          proxy.close();
        }
      }
    }
  }

  // ---------------------------------------------------------------- 1 session x N threads

  private void oneSession() throws Exception {
    String[] impls = {"cohort", "curator", "zklock"};
    Map<String, double[]> rates = new LinkedHashMap<>();
    for (String impl : impls) {
      rates.put(impl, new double[reps]);
    }
    out.printf(Locale.ROOT, "1 session x %d threads, one lock (acq/s):", threads);
    for (int r = -1; r < reps; r++) { // round -1: unrecorded warm-up of every implementation
      for (int i = 0; i < impls.length; i++) {
        String impl = impls[Math.floorMod(i + r, impls.length)];
        double rate = oneSessionWindow(impl);
        if (r >= 0) {
          rates.get(impl)[r] = rate;
        }
        out.printf(Locale.ROOT, " %s=%.0f", impl, rate);
        out.flush();
      }
      out.print(r < 0 ? " |" : " ;");
    }
    out.println();
    double cohort = median(rates.get("cohort"));
    double curator = median(rates.get("curator"));
    double plain = median(rates.get("zklock"));
    out.printf(
        Locale.ROOT,
        "  median acq/s: cohort %.0f, Curator %.0f, zklock plain %.0f;"
            + " cohort/Curator %.1fx, cohort/plain %.1fx, plain/Curator %.2fx%n",
        cohort,
        curator,
        plain,
        cohort / curator,
        cohort / plain,
        plain / curator);
  }

  private double oneSessionWindow(String impl) throws Exception {
    String name = "one-" + impl + "-" + (++windows);
    if (impl.equals("curator")) {
      CuratorFramework client =
          CuratorFrameworkFactory.builder()
              .connectString(connectString)
              .sessionTimeoutMs((int) Endpoints.BENCH_SESSION.toMillis())
              .connectionTimeoutMs(30_000)
              .retryPolicy(new RetryNTimes(3, 100))
              .build();
      client.start();
      try {
        if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("Curator could not connect");
        }
        String path = "/bench-cohort-curator/" + name;
        InterProcessMutex m =
            side.equals("mutex")
                ? new InterProcessMutex(client, path)
                : side.equals("read")
                    ? new org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock(
                            client, path)
                        .readLock()
                    : new org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock(
                            client, path)
                        .writeLock();
        List<Loop.Op> ops = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          ops.add(
              () -> {
                m.acquire();
                m.release();
              });
        }
        return loop(ops, null);
      } finally {
        client.close();
      }
    }
    try (ZkLocks locks = connect(0)) {
      DistributedLock lock = lockOf(locks, name, impl.equals("cohort"));
      List<Loop.Op> ops = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        ops.add(() -> lock.acquire().release());
      }
      return loop(ops, null);
    }
  }

  // ---------------------------------------------------------------- M sessions x N threads

  private void manySessions() throws Exception {
    String[] impls = {"cohort", "zklock"};
    double[] cohortRates = new double[reps];
    double[] plainRates = new double[reps];
    List<Fairness> fairness = new ArrayList<>();
    List<String> plainWaits = new ArrayList<>();
    out.printf(Locale.ROOT, "%d sessions x %d threads, one lock (acq/s):", sessions, threads);
    for (int r = -1; r < reps; r++) {
      for (int i = 0; i < impls.length; i++) {
        String impl = impls[Math.floorMod(i + r, impls.length)];
        boolean cohort = impl.equals("cohort");
        String name = "many-" + impl + "-" + (++windows);
        List<ZkLocks> clients = new ArrayList<>();
        double rate;
        Recorder rec = new Recorder(sessions * threads);
        try {
          List<Loop.Op> ops = new ArrayList<>();
          for (int s = 0; s < sessions; s++) {
            ZkLocks locks = connect(s);
            clients.add(locks);
            DistributedLock lock = lockOf(locks, name, cohort);
            for (int t = 0; t < threads; t++) {
              int slot = s * threads + t;
              int session = s;
              ops.add(
                  () -> {
                    long asked = System.nanoTime();
                    LockHandle h = lock.acquire();
                    long granted = System.nanoTime();
                    long token = h.fencingToken();
                    h.release();
                    rec.add(slot, session, asked, granted, token);
                  });
            }
          }
          rate = loop(ops, rec);
        } finally {
          clients.forEach(ZkLocks::close);
        }
        if (r >= 0) {
          (cohort ? cohortRates : plainRates)[r] = rate;
          if (cohort) {
            fairness.add(Fairness.of(rec, options));
          } else {
            plainWaits.add(Fairness.waits(rec));
          }
        }
        out.printf(Locale.ROOT, " %s=%.0f", impl, rate);
        out.flush();
      }
      out.print(r < 0 ? " |" : " ;");
    }
    out.println();
    double c = median(cohortRates);
    double p = median(plainRates);
    out.printf(
        Locale.ROOT,
        "  median acq/s: cohort %.0f, zklock plain %.0f; cohort/plain %.1fx%n",
        c,
        p,
        c / p);
    for (Fairness f : fairness) {
      out.println("  " + f);
    }
    for (String w : plainWaits) {
      out.println("  zklock plain: " + w);
    }
  }

  /** Per-acquisition records of the measured window, one list per thread (no sharing). */
  static final class Recorder {
    final List<List<long[]>> bySlot = new ArrayList<>();
    volatile boolean on;

    Recorder(int slots) {
      for (int i = 0; i < slots; i++) {
        bySlot.add(new ArrayList<>());
      }
    }

    void add(int slot, int session, long asked, long granted, long token) {
      if (on) {
        bySlot.get(slot).add(new long[] {session, asked, granted, token});
      }
    }
  }

  /**
   * What a remote waiter saw. Nodes are told apart by the token's high bits (the node's czxid); the
   * lock goes from one node to the next in czxid order. A node's tenure runs from its first grant
   * to the first grant of the next node: the longest a request queued right behind it (a remote
   * waiter, for with four sessions one always is) waited for the lock.
   */
  record Fairness(
      String tenures,
      String waits,
      int nodes,
      int maxLocalPerNode,
      double meanLocalPerNode,
      double worstTenureMs,
      double meanLocalPeriodUs,
      double meanNodeHandoffMs,
      double boundMs,
      double worstWaitMs) {

    static Fairness of(Recorder rec, LockOptions options) {
      List<long[]> all = new ArrayList<>();
      rec.bySlot.forEach(all::addAll);
      all.sort(Comparator.comparingLong(a -> a[3]));
      TreeMap<Long, List<long[]>> byNode = new TreeMap<>();
      long worstWait = 0;
      for (long[] a : all) {
        byNode.computeIfAbsent(a[3] >>> 16, k -> new ArrayList<>()).add(a);
        worstWait = Math.max(worstWait, a[2] - a[1]);
      }
      List<List<long[]>> nodes = new ArrayList<>(byNode.values());
      int maxLocal = 0;
      long localGaps = 0;
      long localCount = 0;
      long worstTenure = 0;
      long handoffs = 0;
      long handoffCount = 0;
      List<Long> tenures = new ArrayList<>();
      // only nodes whose every grant we saw: drop the first and last of the window
      for (int i = 1; i + 1 < nodes.size(); i++) {
        List<long[]> n = nodes.get(i);
        maxLocal = Math.max(maxLocal, n.size());
        for (int j = 1; j < n.size(); j++) {
          localGaps += n.get(j)[2] - n.get(j - 1)[2];
          localCount++;
        }
        long next = nodes.get(i + 1).get(0)[2];
        worstTenure = Math.max(worstTenure, next - n.get(0)[2]);
        tenures.add(next - n.get(0)[2]);
        handoffs += next - n.get(n.size() - 1)[2];
        handoffCount++;
      }
      double localPeriodUs = localCount == 0 ? 0 : localGaps / 1e3 / localCount;
      double handoffMs = handoffCount == 0 ? 0 : handoffs / 1e6 / handoffCount;
      double bound = options.maxLocalHandoffs() * localPeriodUs / 1e3 + handoffMs;
      return new Fairness(
          percentiles(tenures),
          waits(rec),
          nodes.size(),
          maxLocal,
          nodes.size() <= 2 ? 0 : (double) all.size() / nodes.size(),
          worstTenure / 1e6,
          localPeriodUs,
          handoffMs,
          bound,
          worstWait / 1e6);
    }

    /** Percentiles of the wait of every acquisition, asked to granted. */
    static String waits(Recorder rec) {
      List<Long> waits = new ArrayList<>();
      rec.bySlot.forEach(l -> l.forEach(a -> waits.add(a[2] - a[1])));
      return "wait of an acquisition " + percentiles(waits);
    }

    static String percentiles(List<Long> nanos) {
      if (nanos.isEmpty()) {
        return "(none)";
      }
      long[] s = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
      return String.format(
          Locale.ROOT,
          "p50 %.2f ms, p99 %.2f ms, max %.2f ms",
          s[s.length / 2] / 1e6,
          s[(int) Math.min(s.length - 1, Math.round(s.length * 0.99))] / 1e6,
          s[s.length - 1] / 1e6);
    }

    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "cohort: node tenure + handoff (a remote head waiter's wait) %s; %s%n  cohort: %d nodes, local grants per node mean %.1f max %d; local hold period"
              + " %.1f us, node handoff %.2f ms; worst remote wait (node tenure + handoff) %.2f ms"
              + " vs K x local hold + one handoff = %.2f ms (%.2fx); worst wait of any acquisition"
              + " %.1f ms",
          tenures,
          waits,
          nodes,
          meanLocalPerNode,
          maxLocalPerNode,
          meanLocalPeriodUs,
          meanNodeHandoffMs,
          worstTenureMs,
          boundMs,
          boundMs == 0 ? 0 : worstTenureMs / boundMs,
          worstWaitMs);
    }
  }

  // ---------------------------------------------------------------- plumbing

  private ZkLocks connect(int index) {
    return ZkLocks.builder(connectString)
        .namespace("/bench-cohort")
        .sessionTimeout(Endpoints.BENCH_SESSION)
        .connectTimeout(Duration.ofSeconds(30))
        .clientName("cohort-bench-" + index)
        .build();
  }

  /** Runs the ops on their threads: warm-up, then the measured window; returns ops/s. */
  private double loop(List<Loop.Op> ops, Recorder rec) throws Exception {
    LongAdder done = new LongAdder();
    AtomicBoolean stop = new AtomicBoolean();
    List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    List<Thread> ts = new ArrayList<>();
    for (Loop.Op op : ops) {
      Thread t =
          new Thread(
              () -> {
                try {
                  while (!stop.get()) {
                    op.run();
                    done.increment();
                  }
                } catch (InterruptedException e) {
                  // stopped
                } catch (Throwable e) {
                  if (!stop.get()) {
                    failures.add(e);
                  }
                }
              });
      t.setDaemon(true);
      ts.add(t);
    }
    ts.forEach(Thread::start);
    Thread.sleep(Math.round(warmupSeconds * 1000));
    if (rec != null) {
      rec.on = true;
    }
    long n0 = done.sum();
    long t0 = System.nanoTime();
    Thread.sleep(Math.round(seconds * 1000));
    long n1 = done.sum();
    long t1 = System.nanoTime();
    if (rec != null) {
      rec.on = false;
    }
    stop.set(true);
    for (Thread t : ts) {
      t.join(10_000);
      if (t.isAlive()) {
        t.interrupt();
      }
    }
    if (!failures.isEmpty()) {
      throw new IllegalStateException("a benchmark thread failed", failures.get(0));
    }
    return (n1 - n0) / ((t1 - t0) / 1e9);
  }

  static double median(double[] xs) {
    double[] s = xs.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }
}
