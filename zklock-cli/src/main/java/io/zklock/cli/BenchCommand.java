package io.zklock.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/**
 * {@code zklock bench}: the side-by-side benchmarks run from a clone of zklock's repository, where
 * {@code ./zklock bench} runs zklock-bench's own jar. The tool an operator installs does not carry
 * the libraries they measure zklock against (Apache Curator, Redisson, etcd's client), so here the
 * command only says where it runs.
 */
@Command(
    name = "bench",
    header =
        "Benchmarks zklock against Curator, Redisson, etcd, the naive lock and raw ZooKeeper:"
            + " from a clone of zklock's repository.",
    description = {
      "The benchmarks of docs/benchmarks.md run from a clone of zklock's repository:"
          + " ./zklock bench [options] there (./zklock bench --help lists them). They measure"
          + " zklock beside Apache Curator, Redisson and etcd's client, which the installed zklock"
          + " does not carry."
    })
final class BenchCommand implements Callable<Integer> {
  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "Show this help message and exit.")
  boolean help;

  @Unmatched List<String> args = new ArrayList<>();

  @Override
  public Integer call() {
    throw new CliException(
        ExitCodes.USAGE,
        "bench runs from a clone of zklock's repository, as ./zklock bench: the libraries it"
            + " measures zklock against are not part of this installed tool");
  }
}
