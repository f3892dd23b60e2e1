package io.zklock.bench;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs the side-by-side benchmarks of issue 6 on one embedded ZooKeeper server: implementations
 * interleaved (A B C D, then B C D A, ...) after one unrecorded warm-up round, several repetitions,
 * medians and spread, every figure also as a ratio against a baseline measured in the same run. The
 * benchmark never fails a build: targets are reported, not asserted.
 *
 * <p>{@code ./mvnw -B -q -pl zklock-bench -am exec:java -Dexec.args="--quick"}; the CLI calls
 * {@link #run(String[], PrintStream)}.
 */
public final class BenchMain {
  private BenchMain() {}

  public static void main(String[] args) {
    int code = run(args, System.out);
    System.out.flush();
    System.exit(code);
  }

  /**
   * Runs the benchmarks as the command line asks and prints the tables to {@code out}.
   *
   * @return 0 when the run completed (whether or not the targets were met), 2 for bad arguments, 1
   *     when the run itself failed
   */
  public static int run(String[] args, PrintStream out) {
    BenchConfig config;
    try {
      config = BenchConfig.parse(args);
    } catch (IllegalArgumentException e) {
      out.println(e.getMessage());
      out.print(BenchConfig.USAGE);
      return 2;
    }
    if (config.list) {
      select(config, out); // prints the scenarios
      return 0;
    }
    try {
      Report report = execute(config, out);
      return report == null ? 2 : 0;
    } catch (Exception e) {
      out.println("benchmark run failed: " + e);
      e.printStackTrace(out);
      return 1;
    }
  }

  /** Runs the selected scenarios and returns the report (null: nothing to run). */
  static Report execute(BenchConfig config, PrintStream out) throws Exception {
    Logging.quiet();
    List<Scenario> selected = select(config, out);
    if (selected == null) {
      return null;
    }
    Map<String, String> machine = machine(config);
    out.println(
        "zklock bench: "
            + machine.get("cores")
            + " cores, JDK "
            + machine.get("jdk")
            + ", fsync "
            + (config.fsync ? "on" : "off")
            + ", ZooKeeper servers "
            + config.servers
            + ", windows "
            + config.warmupSeconds
            + " s warm-up + "
            + config.measureSeconds
            + " s, "
            + config.reps
            + " reps, round trips "
            + rttList(config)
            + loadAverage()
            + (config.distinctNames != BenchConfig.DISTINCT_NAMES
                ? ", " + distinctNames(config)
                : "")
            + (config.observe ? ", zklock observed (Micrometer + JFR)" : ""));
    if (config.observe) {
      Observed.start();
    }
    Map<String, Result> results = new LinkedHashMap<>();
    Map<String, double[]> anatomy = new LinkedHashMap<>();
    long start = System.nanoTime();
    for (int n : config.servers) {
      RawZk.ENSURED.clear();
      try (Servers servers = Servers.start(config, n, config.peers && needsPeers(selected), out)) {
        String tag = n == 1 ? "" : "ensemble " + n + " ";
        machine.put(tag + "zookeeper", servers.describeZk());
        if (config.fsync && !machine.containsKey("disk")) {
          // the testkit's servers keep their data in the temporary directory
          machine.put("disk", DiskProbe.describe(Path.of(System.getProperty("java.io.tmpdir"))));
          out.println("disk: " + machine.get("disk"));
        }
        servers.redis.ifPresent(
            r -> machine.put(tag + "redis", r.describe() + "; durability: " + r.durability()));
        servers.etcd.ifPresent(
            e -> machine.put(tag + "etcd", e.describe() + "; durability: " + e.durability()));
        out.println(
            "servers: "
                + servers.describeZk()
                + servers
                    .redis
                    .map(r -> "; " + r.describe() + " (" + r.durability() + ")")
                    .orElse("")
                + servers
                    .etcd
                    .map(e -> "; " + e.describe() + " (" + e.durability() + ")")
                    .orElse(""));
        Env direct = new Env(servers, config);
        for (Duration rtt : config.rtts) {
          try (Env env = direct.withRtt(rtt)) {
            String regime = env.regime();
            double measured = env.measuredRoundTripMicros();
            String label = Report.regimeLabel(regime);
            machine.put(
                "rtt " + (regime.isEmpty() ? "0" : regime),
                String.format(
                    Locale.ROOT,
                    "measured round trip of exists(\"/\"): %.0f µs (median)",
                    measured));
            out.println(
                String.format(
                    Locale.ROOT,
                    "regime: %s (measured round trip of a read: %.0f µs)%s",
                    label,
                    measured,
                    loadAverage()));
            for (Scenario s : selected) {
              if (!rtt.isZero() && config.scenarios.isEmpty() && !s.inLatencyRegime()) {
                continue;
              }
              if (!s.anyLatency() && !rtt.equals(config.rtts.get(0))) {
                continue; // measured once per server regime, in its first round-trip regime
              }
              Result r = runScenario(s, env, out);
              results.put(r.key(), r);
            }
            if (config.scenarios.isEmpty() || config.scenarios.contains("anatomy")) {
              for (var e : Anatomy.run(env, out).entrySet()) {
                anatomy.put(
                    regime.isEmpty() ? e.getKey() : "@" + regime + " " + e.getKey(), e.getValue());
              }
            }
          }
        }
      }
    }
    machine.put(
        "runSeconds", String.format(Locale.ROOT, "%.0f", (System.nanoTime() - start) / 1e9));
    if (config.observe) {
      machine.put("observe", Observed.summary());
      out.println(Observed.summary());
      Observed.stop();
    }
    Report report = new Report(results, Target.all(), machine, anatomy);
    report.printTables(out);
    report.write(config.json, config.svg);
    if (config.json != null) {
      out.println("wrote " + config.json);
    }
    if (config.svg != null) {
      out.println("wrote " + config.svg);
    }
    return report;
  }

  /** Whether any selected scenario measures a peer (Redis, etcd). */
  static boolean needsPeers(List<Scenario> selected) {
    for (Scenario s : selected) {
      for (Impl i : s.impls) {
        if (!i.onZooKeeper()) {
          return true;
        }
      }
    }
    return false;
  }

  /** ", load average 1.23 (1 min)" from /proc/loadavg, or "" where there is none. */
  static String loadAverage() {
    try {
      String[] f =
          java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim().split(" ");
      return ", load average " + f[0] + " " + f[1] + " " + f[2];
    } catch (java.io.IOException | RuntimeException e) {
      return "";
    }
  }

  static String rttList(BenchConfig config) {
    List<String> r = new ArrayList<>();
    for (Duration d : config.rtts) {
      r.add(d.isZero() ? "0 (direct)" : BenchConfig.regime(d) + " (proxy, half each way)");
    }
    return String.join(", ", r);
  }

  private static List<Scenario> select(BenchConfig config, PrintStream out) {
    List<Scenario> all = Scenarios.all();
    if (config.list) {
      for (Scenario s : all) {
        out.println(s.name + "\t" + s.title);
      }
      out.println("anatomy\tprofile: zklock's and Curator's uncontended requests replayed raw");
      return null;
    }
    if (config.scenarios.isEmpty()) {
      return all;
    }
    List<Scenario> selected = new ArrayList<>();
    for (String name : config.scenarios) {
      if (name.equals("anatomy")) {
        continue; // the diagnostic replay, run after the scenarios
      }
      Scenario found = null;
      for (Scenario s : all) {
        if (s.name.equals(name)) {
          found = s;
        }
      }
      if (found == null) {
        out.println("unknown scenario '" + name + "'; --list shows them");
        return null;
      }
      selected.add(found);
    }
    return selected;
  }

  static Result runScenario(Scenario s, Env env, PrintStream out) {
    int reps = s.reps(env.config);
    Result result = new Result(s, env.regime(), reps);
    long t0 = System.nanoTime();
    out.print(result.key() + ":");
    out.flush();
    List<Impl> impls = new ArrayList<>(s.impls);
    impls.removeIf(i -> !env.config.measures(i));
    for (Impl i : s.impls) {
      if (!impls.contains(i)) {
        result.notes.put(i, "not measured: not in --impls");
      }
    }
    if (impls.isEmpty()) {
      out.println(" (no implementation selected)");
      return result;
    }
    for (int round = s.warmRound() && !env.config.quick ? -1 : 0; round < reps; round++) {
      int shift = Math.floorMod(round, impls.size());
      for (int k = 0; k < impls.size(); k++) {
        Impl impl = impls.get((k + shift) % impls.size());
        if (result.notes.containsKey(impl)) {
          continue; // unsupported or failed before
        }
        try {
          env.countFor(impl);
          Window w = s.measure(impl, env);
          if (round >= 0) {
            result.windows.get(impl)[round] = w;
          }
          out.print(" " + impl.label + "=" + Report.num(w.value()));
        } catch (UnsupportedOperationException e) {
          result.notes.put(impl, "not supported: " + e.getMessage());
          out.print(" " + impl.label + "=n/a");
        } catch (Exception e) {
          result.notes.put(impl, "failed: " + e);
          out.print(" " + impl.label + "=FAILED(" + e + ")");
        }
        out.flush();
      }
      out.print(round < 0 ? " |" : " ;");
    }
    result.seconds = (System.nanoTime() - t0) / 1e9;
    out.println(String.format(Locale.ROOT, " (%.0f s)", result.seconds));
    return result;
  }

  static Map<String, String> machine(BenchConfig config) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("date", Instant.now().toString());
    m.put("cores", String.valueOf(Runtime.getRuntime().availableProcessors()));
    m.put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
    m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
    m.put("maxHeap", (Runtime.getRuntime().maxMemory() >> 20) + " MiB");
    m.put("fsync", config.fsync ? "on" : "off");
    m.put("zookeeper servers", config.servers.toString());
    m.put("load average at start", loadAverage().replace(", load average ", ""));
    m.put(
        "windows",
        config.warmupSeconds
            + " s warm-up + "
            + config.measureSeconds
            + " s, "
            + config.reps
            + " reps"
            + (config.quick ? " (quick)" : ""));
    m.put("round trips", rttList(config));
    if (config.distinctNames != BenchConfig.DISTINCT_NAMES) {
      m.put("distinct names", distinctNames(config));
    }
    return m;
  }

  /** What a run with {@code --names} other than 1,000 says of its distinct-1000 scenarios. */
  static String distinctNames(BenchConfig config) {
    return "distinct-1000 and distinct-1000-one with " + config.distinctNames + " names, not 1,000";
  }
}
