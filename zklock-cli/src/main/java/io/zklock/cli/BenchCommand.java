package io.zklock.cli;

import io.zklock.bench.BenchMain;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/** {@code zklock bench}: the side-by-side benchmarks of zklock-bench, from the command line. */
@Command(
    name = "bench",
    header = "Benchmarks zklock against Curator, Redisson, etcd, the naive lock and raw ZooKeeper.",
    description = {
      "Runs the benchmarks of docs/benchmarks.md: zklock, Apache Curator, the naive lock (a parent watch),"
          + " raw ZooKeeper and the fair-queue floor on an embedded ZooKeeper server (or a 3-server"
          + " ensemble, --ensemble 3), Redisson's locks on redis-server and etcd's lock on etcd"
          + " (started from PATH when installed), interleaved, with ratios against a baseline"
          + " measured in the same run, with fsync on, with no added latency and with a 1 ms round"
          + " trip (--rtt). The default run takes about 17 minutes; --quick about three.",
      "",
      "Options are those of the harness: --quick, --rtt D[,D], --ensemble N, --servers 1,N,"
          + " --no-fsync, --no-peers, --scenarios a,b, --impls a,b, --list, --json FILE, --svg"
          + " FILE, --reps N, --seconds S, --warmup S, --herd N, --waiters N, --held N."
    })
final class BenchCommand implements Callable<Integer> {
  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "Show this help message and exit.")
  boolean help;

  @Unmatched List<String> args = new ArrayList<>();

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    OutputStream toWriter =
        new OutputStream() {
          @Override
          public void write(int b) {
            out.write(b);
          }

          @Override
          public void write(byte[] b, int off, int len) {
            out.write(new String(b, off, len, StandardCharsets.UTF_8));
          }

          @Override
          public void flush() {
            out.flush();
          }
        };
    try (PrintStream ps = new PrintStream(toWriter, true, StandardCharsets.UTF_8)) {
      return BenchMain.run(args.toArray(String[]::new), ps);
    }
  }
}
