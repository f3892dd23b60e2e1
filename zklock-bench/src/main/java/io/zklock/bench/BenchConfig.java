package io.zklock.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The settings of one run, from the command line. */
final class BenchConfig {
  boolean quick;
  double warmupSeconds = 0.25;
  double measureSeconds = 0.8;
  int reps = 4;
  int herdSessions = 500;
  int asyncWaiters = 10_000;
  boolean fsync;
  List<String> scenarios = new ArrayList<>();
  Path json;
  Path svg;
  boolean list;

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

  private static int positive(String s, String option) {
    int n = Integer.parseInt(s);
    if (n <= 0) {
      throw new IllegalArgumentException(option + " must be positive: " + s);
    }
    return n;
  }

  static final String USAGE =
      """
      usage: bench [--quick] [--scenarios a,b] [--json FILE] [--svg FILE] [--reps N]
                   [--seconds S] [--warmup S] [--herd N] [--waiters N] [--fsync] [--list]
        --quick       short windows, 2 repetitions, no warm-up round, 60-session herd, 1,000 async
                      waiters (about a minute)
        --scenarios   run only these (see --list)
        --json FILE   write the results as JSON
        --svg FILE    write a bar chart of the ratios
        --reps N      measured repetitions per implementation (default 4; interleaved A B A B)
        --seconds S   length of one measurement window (default 0.8)
        --warmup S    warm-up before each window (default 0.25)
        --herd N      sessions of the large watch-event scenario (default 500)
        --waiters N   pending acquireAsync() of the async scenario (default 10,000)
        --fsync       fsync the server's transaction log (default off)
      """;
}
