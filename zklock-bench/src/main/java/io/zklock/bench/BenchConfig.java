package io.zklock.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The settings of one run, from the command line. */
final class BenchConfig {
  boolean quick;
  double warmupSeconds = 0.25;
  double measureSeconds = 0.8;
  int reps = 4;
  int herdSessions = 500;
  int asyncWaiters = 10_000;
  int heldLocks = 10_000;

  /** The names of {@code distinct-1000} and {@code distinct-1000-one} unless {@code --names}. */
  static final int DISTINCT_NAMES = 1_000;

  /**
   * Distinct lock names of {@code distinct-1000} and {@code distinct-1000-one} ({@code --names});
   * the keys stay, the header and the JSON say the count when it is not {@link #DISTINCT_NAMES}.
   */
  int distinctNames = DISTINCT_NAMES;

  /**
   * fsync of the servers' logs: on, as ZooKeeper and etcd run in production ({@code --no-fsync}).
   */
  boolean fsync = true;

  /** ZooKeeper's server count of each server regime: 1 (standalone) and/or N (an ensemble). */
  List<Integer> servers = new ArrayList<>(List.of(1));

  /** Whether to start redis-server and etcd and measure the peers ({@code --no-peers}: not). */
  boolean peers = true;

  /** {@code --observe}: zklock's sessions report to Micrometer and a JFR recording (issue 27). */
  boolean observe;

  /** Only these implementations (empty: every one a scenario lists). */
  List<Impl> impls = new ArrayList<>();

  List<String> scenarios = new ArrayList<>();
  Path json;
  Path svg;
  boolean list;

  /**
   * The network round trips to measure under, each a regime of its own: every session of every
   * implementation connects through the testkit's {@code FaultProxy}, which delays each direction
   * by half of it. Zero: direct connections. The full run measures both; {@code --quick} only the
   * first unless {@code --rtt} says otherwise.
   */
  List<Duration> rtts = new ArrayList<>(List.of(Duration.ZERO, Duration.ofMillis(1)));

  private boolean rttGiven;

  static BenchConfig parse(String[] args) {
    BenchConfig c = new BenchConfig();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--quick" -> {
          c.quick = true;
          c.warmupSeconds = 0.1;
          c.measureSeconds = 0.3;
          c.reps = 2;
          c.herdSessions = 60;
          c.asyncWaiters = 1_000;
          c.heldLocks = 1_000;
          if (!c.rttGiven) {
            c.rtts = new ArrayList<>(List.of(Duration.ZERO));
          }
        }
        case "--rtt" -> {
          c.rtts = new ArrayList<>();
          for (String s : value(args, ++i, a).split(",")) {
            Duration d = duration(s.trim(), a);
            if (!c.rtts.contains(d)) {
              c.rtts.add(d);
            }
          }
          c.rttGiven = true;
        }
        case "--scenarios" -> {
          for (String s : value(args, ++i, a).split(",")) {
            if (!s.isBlank()) {
              c.scenarios.add(s.trim());
            }
          }
        }
        case "--json" -> c.json = Path.of(value(args, ++i, a));
        case "--svg" -> c.svg = Path.of(value(args, ++i, a));
        case "--reps" -> c.reps = positive(value(args, ++i, a), a);
        case "--seconds" -> c.measureSeconds = Double.parseDouble(value(args, ++i, a));
        case "--warmup" -> c.warmupSeconds = Double.parseDouble(value(args, ++i, a));
        case "--herd" -> c.herdSessions = positive(value(args, ++i, a), a);
        case "--waiters" -> c.asyncWaiters = positive(value(args, ++i, a), a);
        case "--fsync" -> c.fsync = true;
        case "--no-fsync" -> c.fsync = false;
        case "--no-peers" -> c.peers = false;
        case "--observe" -> c.observe = true;
        case "--held" -> c.heldLocks = positive(value(args, ++i, a), a);
        case "--names" -> c.distinctNames = positive(value(args, ++i, a), a);
        case "--ensemble" -> c.servers = new ArrayList<>(List.of(ensemble(value(args, ++i, a), a)));
        case "--servers" -> {
          c.servers = new ArrayList<>();
          for (String s : value(args, ++i, a).split(",")) {
            int n = s.trim().equals("1") ? 1 : ensemble(s.trim(), a);
            if (!c.servers.contains(n)) {
              c.servers.add(n);
            }
          }
        }
        case "--impls" -> {
          for (String s : value(args, ++i, a).split(",")) {
            if (!s.isBlank()) {
              c.impls.add(Impl.parse(s.trim()));
            }
          }
        }
        case "--list" -> c.list = true;
        default -> throw new IllegalArgumentException("unknown option: '" + a + "'");
      }
    }
    if (c.measureSeconds <= 0 || c.warmupSeconds < 0) {
      throw new IllegalArgumentException("--seconds must be > 0 and --warmup >= 0");
    }
    return c;
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }

  /** {@code 1ms}, {@code 500us}, {@code 0.5ms}, {@code 2s} or {@code 0}. */
  static Duration duration(String s, String option) {
    String t = s.toLowerCase(Locale.ROOT);
    double scale;
    String num;
    if (t.endsWith("ms")) {
      scale = 1e6;
      num = t.substring(0, t.length() - 2);
    } else if (t.endsWith("us") || t.endsWith("µs")) {
      scale = 1e3;
      num = t.substring(0, t.length() - 2);
    } else if (t.endsWith("s")) {
      scale = 1e9;
      num = t.substring(0, t.length() - 1);
    } else if (t.equals("0")) {
      return Duration.ZERO;
    } else {
      throw new IllegalArgumentException(
          option + " needs a duration such as 1ms, 500us or 0, got: '" + s + "'");
    }
    double v;
    try {
      v = Double.parseDouble(num);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          option + " needs a duration such as 1ms, 500us or 0, got: '" + s + "'");
    }
    if (!(v >= 0) || v * scale > 10e9) {
      throw new IllegalArgumentException(option + " must be between 0 and 10s, got: '" + s + "'");
    }
    return Duration.ofNanos(Math.round(v * scale));
  }

  /** "" for no added latency, else the round trip as given ("1ms", "500us"). */
  static String regime(Duration rtt) {
    if (rtt.isZero()) {
      return "";
    }
    long nanos = rtt.toNanos();
    if (nanos % 1_000_000 == 0) {
      return nanos / 1_000_000 + "ms";
    }
    if (nanos % 1_000 == 0) {
      return nanos / 1_000 + "us";
    }
    return nanos + "ns";
  }

  /** An ensemble size: 3, 5 or 7 (an odd quorum of at least 3). */
  private static int ensemble(String s, String option) {
    int n;
    try {
      n = Integer.parseInt(s);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          option + " needs a server count such as 3, got: '" + s + "'");
    }
    if (n < 3 || n > 7 || n % 2 == 0) {
      throw new IllegalArgumentException(option + " must be 3, 5 or 7 servers, got: " + n);
    }
    return n;
  }

  /** Whether this run measures {@code impl} (all, unless {@code --impls} names some). */
  boolean measures(Impl impl) {
    return impls.isEmpty() || impls.contains(impl);
  }

  private static int positive(String s, String option) {
    int n = Integer.parseInt(s);
    if (n <= 0) {
      throw new IllegalArgumentException(option + " must be positive: " + s);
    }
    return n;
  }

  static final String USAGE =
      """
      usage: bench [--quick] [--rtt D[,D]] [--ensemble N | --servers 1,N] [--no-fsync] [--no-peers]
                   [--observe] [--scenarios a,b] [--impls a,b] [--json FILE] [--svg FILE] [--reps N]
                   [--seconds S] [--warmup S] [--herd N] [--waiters N] [--held N] [--names N]
                   [--list]
        --quick       short windows, 2 repetitions, no warm-up round, 60-session herd, 1,000 async
                      waiters, no added latency (about a minute)
        --rtt D[,D]   the round trips to measure under, e.g. 1ms or 0,1ms: every session of every
                      implementation connects through a proxy that delays each direction by D/2
                      (default: 0,1ms, both regimes side by side; with --quick: 0)
        --scenarios   run only these (see --list)
        --json FILE   write the results as JSON
        --svg FILE    write a bar chart of the ratios
        --reps N      measured repetitions per implementation (default 4; interleaved A B A B)
        --seconds S   length of one measurement window (default 0.8)
        --warmup S    warm-up before each window (default 0.25)
        --herd N      sessions of the large watch-event scenario (default 500)
        --waiters N   pending acquireAsync() of the async scenario (default 10,000)
        --held N      distinct locks one session holds at once in held-many (default 10,000)
        --names N     distinct lock names of distinct-1000 and distinct-1000-one (default 1,000;
                      the keys stay, the header and the JSON say N when it is not 1,000)
        --ensemble N  ZooKeeper as an N-server ensemble of child JVMs (N = 3, 5 or 7) instead of
                      the embedded standalone server; etcd runs N members too
        --servers L   server regimes to measure one after the other: 1 (standalone) and/or N
                      (an ensemble), e.g. --servers 1,3 (default 1)
        --no-fsync    servers do not fsync their logs (the protocol-cost view); default: fsync on,
                      as ZooKeeper and etcd run in production (redis-server keeps its defaults:
                      in memory, no fsync, either way)
        --fsync       fsync on (the default; kept for older command lines)
        --no-peers    do not start redis-server and etcd (their rows are skipped)
        --observe     every zklock session reports its lock events to Micrometer (a simple
                      registry) and zklock's JFR events are recorded with no threshold: run with
                      and without it, alternated, to see what full observation costs
        --impls a,b   only these implementations: zklock, zklock-curator-compatible, curator,
                      naive, raw-zk, fair-floor, fast-floor, redisson-fair, redisson-fenced,
                      redisson-rlock, etcd
      """;
}
