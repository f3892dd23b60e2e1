package io.zklock.bench;

import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
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
 * scenarios cannot resolve differences this small. A second table gives the bytes each group
 * allocated per cycle ({@code com.sun.management.ThreadMXBean}), with the garbage collections that
 * ran during the blocks.
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
    List<Map<String, Long>> alloc = new ArrayList<>();
    long[] wall = new long[impls.size()];
    long[] gcs = new long[impls.size()];
    long[] gcMillis = new long[impls.size()];
    for (int k = 0; k < impls.size(); k++) {
      cpu.add(new TreeMap<>());
      alloc.add(new TreeMap<>());
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
            Sample before = Sample.take(mx, caller);
            long w0 = System.nanoTime();
            for (int i = 0; i < cycles; i++) {
              lock.acquire().release();
            }
            wall[k] += System.nanoTime() - w0;
            Sample after = Sample.take(mx, caller);
            after.addSince(before, cpu.get(k), alloc.get(k));
            gcs[k] += after.gcs - before.gcs;
            gcMillis[k] += after.gcMillis - before.gcMillis;
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
    table(out, impls, cpu, n, 1000.0);
    StringBuilder w = new StringBuilder(String.format(first(cpu), "wall time per cycle"));
    for (int k = 0; k < impls.size(); k++) {
      w.append(String.format(" %12.1f", wall[k] / 1000.0 / n));
    }
    out.println(w);
    out.println();
    out.println("bytes allocated per cycle (threads alive at both ends of a block)");
    table(out, impls, alloc, n, 1.0);
    StringBuilder g = new StringBuilder(String.format(first(alloc), "GCs per 1,000 cycles"));
    StringBuilder gt = new StringBuilder(String.format(first(alloc), "GC time per cycle, µs"));
    for (int k = 0; k < impls.size(); k++) {
      g.append(String.format(" %12.2f", gcs[k] * 1000.0 / n));
      gt.append(String.format(" %12.1f", gcMillis[k] * 1000.0 / n));
    }
    out.println(g);
    out.println(gt);
    return 0;
  }

  /**
   * Prints one row per thread group that used some of {@code by} in any implementation's windows
   * (0.05 units a cycle or more, after dividing by {@code unit}), then the sum over all threads.
   */
  private static void table(
      PrintStream out, List<Impl> impls, List<Map<String, Long>> by, long n, double unit) {
    List<String> groups = groups(by, n, unit);
    String first = first(by);
    StringBuilder head = new StringBuilder(String.format(first, "thread"));
    for (Impl impl : impls) {
      head.append(String.format(" %12s", impl.label));
    }
    out.println(head);
    long[] total = new long[impls.size()];
    for (int k = 0; k < impls.size(); k++) {
      for (long c : by.get(k).values()) {
        total[k] += Math.max(0L, c);
      }
    }
    for (String g : groups) {
      StringBuilder row = new StringBuilder(String.format(first, g));
      for (int k = 0; k < impls.size(); k++) {
        long c = Math.max(0L, by.get(k).getOrDefault(g, 0L));
        row.append(String.format(" %12.1f", c / unit / n));
      }
      out.println(row);
    }
    StringBuilder tot = new StringBuilder(String.format(first, "all threads"));
    for (int k = 0; k < impls.size(); k++) {
      tot.append(String.format(" %12.1f", total[k] / unit / n));
    }
    out.println(tot);
  }

  private static List<String> groups(List<Map<String, Long>> by, long n, double unit) {
    List<String> groups = new ArrayList<>();
    for (Map<String, Long> m : by) {
      m.forEach(
          (g, c) -> {
            if (c / unit / n >= 0.05 && !groups.contains(g)) {
              groups.add(g);
            }
          });
    }
    groups.sort(null);
    return groups;
  }

  /** The first column's format, wide enough for every group and row name. */
  private static String first(List<Map<String, Long>> by) {
    int width = "GC time per cycle, µs".length();
    for (Map<String, Long> m : by) {
      for (String g : m.keySet()) {
        width = Math.max(width, g.length());
      }
    }
    return "%-" + width + "s";
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

  /** Every live thread's CPU time and allocated bytes, and the collectors' counts, at one time. */
  private record Sample(
      Map<Long, String> groups, Map<Long, long[]> byThread, long gcs, long gcMillis) {

    /** {@code caller}: the loop's thread's name, grouped on its own. */
    static Sample take(ThreadMXBean mx, String caller) {
      Map<Long, String> groups = new HashMap<>();
      Map<Long, long[]> by = new HashMap<>();
      for (Thread t : Thread.getAllStackTraces().keySet()) {
        long id = t.getId();
        long c = mx.getThreadCpuTime(id);
        long a =
            mx instanceof com.sun.management.ThreadMXBean sun
                ? sun.getThreadAllocatedBytes(id)
                : -1L;
        if (c > 0) {
          groups.put(id, t.getName().equals(caller) ? "caller" : group(t.getName()));
          by.put(id, new long[] {c, a});
        }
      }
      long gcs = 0;
      long gcMillis = 0;
      for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
        gcs += Math.max(0L, gc.getCollectionCount());
        gcMillis += Math.max(0L, gc.getCollectionTime());
      }
      return new Sample(groups, by, gcs, gcMillis);
    }

    /**
     * Adds what each group used since {@code before} to {@code cpu} and {@code alloc}: a thread
     * started in between counts from zero, one that ended in between is not counted.
     */
    void addSince(Sample before, Map<String, Long> cpu, Map<String, Long> alloc) {
      byThread.forEach(
          (id, now) -> {
            long[] then = before.byThread.getOrDefault(id, new long[] {0L, 0L});
            String g = groups.get(id);
            cpu.merge(g, now[0] - then[0], Long::sum);
            if (now[1] >= 0 && then[1] >= 0) {
              alloc.merge(g, now[1] - then[1], Long::sum);
            }
          });
    }
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
