package io.zklock.bench;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one uncontended acquire + {@code release()} costs in CPU, by thread, for each ZooKeeper
 * implementation: the caller, ZooKeeper's client threads (send, event), the library's own threads
 * and the embedded server's, summed from each thread's CPU time ({@link ThreadMXBean}) over blocks
 * of cycles run one implementation after the other, alternated. On a machine with few cores the
 * server and the clients share, every microsecond here is one the others wait for; the rate
 * scenarios cannot resolve differences this small.
 *
 * <pre>
 * java -cp zklock-bench/target/zklock-bench.jar io.zklock.bench.CpuCost [--fsync] [--rtt 1ms]
 *     [--blocks 6] [--cycles 3000] [--impls zklock,curator,fair-floor]
 * </pre>
 *
 * The server runs without fsync unless {@code --fsync} is given: fsync costs waiting, not CPU.
 */
public final class CpuCost {
  private CpuCost() {}

  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out));
  }

  /** Runs and prints the table; returns 0, or 2 for bad arguments. */
  static int run(String[] args, PrintStream out) throws Exception {
    int blocks = 6;
    int cycles = 3000;
    // the server's options go to the bench's own parser, after its defaults here: fsync off, direct
    List<String> benchArgs = new ArrayList<>(List.of("--no-peers", "--no-fsync", "--rtt", "0"));
    try {
      for (int i = 0; i < args.length; i++) {
        switch (args[i]) {
          case "--blocks" -> blocks = positive(args[++i], "--blocks");
          case "--cycles" -> cycles = positive(args[++i], "--cycles");
          case "--fsync" -> benchArgs.add(args[i]);
          case "--rtt", "--impls" -> benchArgs.addAll(List.of(args[i], args[++i]));
          default -> throw new IllegalArgumentException("unknown option: " + args[i]);
        }
      }
    } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
      out.println(
          "cpu-cost: "
              + (e instanceof ArrayIndexOutOfBoundsException ? "missing value" : e.getMessage()));
      return 2;
    }
    BenchConfig config;
    try {
      config = BenchConfig.parse(benchArgs.toArray(new String[0]));
    } catch (IllegalArgumentException e) {
      out.println("cpu-cost: " + e.getMessage());
      return 2;
    }
    if (config.rtts.size() != 1) {
      out.println("cpu-cost: --rtt takes one round trip");
      return 2;
    }
    List<Impl> impls =
        config.impls.isEmpty() ? List.of(Impl.ZKLOCK, Impl.CURATOR, Impl.FLOOR) : config.impls;
    for (Impl impl : impls) {
      if (impl.server != Impl.Server.ZOOKEEPER) {
        out.println("cpu-cost: " + impl.label + " does not run on ZooKeeper");
        return 2;
      }
    }
    boolean fsync = config.fsync;
    Duration rtt = config.rtts.get(0);
    Logging.quiet();
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    String caller = Thread.currentThread().getName();
    List<Map<String, Long>> cpu = new ArrayList<>();
    long[] wall = new long[impls.size()];
    for (int k = 0; k < impls.size(); k++) {
      cpu.add(new TreeMap<>());
    }
    try (Servers servers = Servers.start(config, 1, false, out);
        Env base = new Env(servers, config);
        Env env = rtt.isZero() ? base : base.withRtt(rtt)) {
      for (int b = 0; b < blocks; b++) {
        for (int k = 0; k < impls.size(); k++) {
          List<BenchLock.Client> clients = env.connect(impls.get(k), 1);
          try {
            BenchLock lock = clients.get(0).mutex("cpu-cost-" + impls.get(k).label);
            for (int w = 0; w < Math.min(500, cycles); w++) {
              lock.acquire().release();
            }
            Map<String, Long> before = byThread(mx, caller);
            long w0 = System.nanoTime();
            for (int i = 0; i < cycles; i++) {
              lock.acquire().release();
            }
            wall[k] += System.nanoTime() - w0;
            Map<String, Long> after = byThread(mx, caller);
            Map<String, Long> mine = cpu.get(k);
            after.forEach((t, c) -> mine.merge(t, c - before.getOrDefault(t, 0L), Long::sum));
          } finally {
            Env.closeAll(clients);
          }
        }
        out.printf("block %d of %d done%n", b + 1, blocks);
      }
    }
    long n = (long) blocks * cycles;
    out.printf(
        "CPU per uncontended acquire + release(), µs, %d cycles each (fsync %s, %s)%n",
        n, fsync ? "on" : "off", rtt.isZero() ? "no added latency" : BenchConfig.regime(rtt));
    // the groups that used CPU in some implementation's windows (0.05 µs a cycle or more)
    List<String> groups = new ArrayList<>();
    for (Map<String, Long> m : cpu) {
      m.forEach(
          (g, c) -> {
            if (c * 20 >= n * 1000 && !groups.contains(g)) {
              groups.add(g);
            }
          });
    }
    groups.sort(null);
    int width = "wall time per cycle".length();
    for (String g : groups) {
      width = Math.max(width, g.length());
    }
    String first = "%-" + width + "s";
    StringBuilder head = new StringBuilder(String.format(first, "thread"));
    for (Impl impl : impls) {
      head.append(String.format(" %12s", impl.label));
    }
    out.println(head);
    long[] total = new long[impls.size()];
    for (int k = 0; k < impls.size(); k++) {
      for (long c : cpu.get(k).values()) {
        total[k] += Math.max(0L, c);
      }
    }
    for (String g : groups) {
      StringBuilder row = new StringBuilder(String.format(first, g));
      for (int k = 0; k < impls.size(); k++) {
        long c = Math.max(0L, cpu.get(k).getOrDefault(g, 0L));
        row.append(String.format(" %12.1f", c / 1000.0 / n));
      }
      out.println(row);
    }
    StringBuilder tot = new StringBuilder(String.format(first, "all threads"));
    StringBuilder w = new StringBuilder(String.format(first, "wall time per cycle"));
    for (int k = 0; k < impls.size(); k++) {
      tot.append(String.format(" %12.1f", total[k] / 1000.0 / n));
      w.append(String.format(" %12.1f", wall[k] / 1000.0 / n));
    }
    out.println(tot);
    out.println(w);
    return 0;
  }

  private static int positive(String s, String option) {
    int v;
    try {
      v = Integer.parseInt(s);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " takes a whole number, not '" + s + "'");
    }
    if (v <= 0) {
      throw new IllegalArgumentException(option + " must be positive, not " + v);
    }
    return v;
  }

  /** Every live thread's CPU time, summed by {@link #group}; {@code caller}: the loop's thread. */
  private static Map<String, Long> byThread(ThreadMXBean mx, String caller) {
    Map<String, Long> m = new HashMap<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      long c = mx.getThreadCpuTime(t.getId());
      if (c > 0) {
        m.merge(t.getName().equals(caller) ? "caller" : group(t.getName()), c, Long::sum);
      }
    }
    return m;
  }

  private static final List<String> SERVER_THREADS =
      List.of(
          "NIOServerCxnFactory",
          "NIOWorkerThread",
          "ProcessThread",
          "SyncThread",
          "RequestThrottler",
          "SessionTracker",
          "ConnnectionExpirer",
          "CommitProcessor",
          "FinalRequestProcessor");

  /** A thread's group: ZooKeeper's client threads by role, the rest by name, numbers folded. */
  static String group(String name) {
    if (name.contains("-SendThread(")) {
      return "client send";
    }
    if (name.contains("-EventThread")) {
      return "client event";
    }
    if (name.startsWith("zklock-")) {
      return "zklock library";
    }
    if (name.startsWith("Curator-")) {
      return "curator library";
    }
    String folded = name.replaceAll("\\(.*", "").replaceAll("[0-9]+", "N");
    for (String s : SERVER_THREADS) {
      if (name.startsWith(s)) {
        return "server: " + folded;
      }
    }
    return "other: " + folded;
  }
}
