package io.zklock.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Locale;

/**
 * What one fsync costs on the disk where the servers keep their logs, timed by the bench itself.
 *
 * <p>ZooKeeper times each fsync of its log in whole milliseconds, dropping the fraction ({@code
 * FileTxnLog#commit}), so on a disk whose fsync takes a few hundred microseconds its {@code
 * fsynctime} sum stays near zero: the server's own mean is a lower bound, and this probe says what
 * the fsyncs it counts cost. The probe does what a transaction log does: append a small record,
 * then {@code force(false)}.
 */
final class DiskProbe {
  private DiskProbe() {}

  /** Median and 90th percentile, in microseconds, of {@code n} appends of 512 bytes each forced. */
  static double[] fsyncMicros(Path dir, int n) throws IOException {
    Path file = Files.createTempFile(dir, "zklock-bench-fsync-", ".log");
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ByteBuffer record = ByteBuffer.allocate(512);
      double[] us = new double[n];
      for (int i = -10; i < n; i++) {
        record.clear();
        ch.write(record);
        long t0 = System.nanoTime();
        ch.force(false);
        if (i >= 0) {
          us[i] = (System.nanoTime() - t0) / 1e3;
        }
      }
      Arrays.sort(us);
      return new double[] {us[n / 2], us[(int) (n * 0.9)]};
    } finally {
      Files.deleteIfExists(file);
    }
  }

  /** One line for the run's header and its JSON: where, median and p90. */
  static String describe(Path dir) {
    try {
      double[] us = fsyncMicros(dir, 200);
      return String.format(
          Locale.ROOT,
          "fsync of a 512-byte append in %s: median %.0f µs, p90 %.0f µs",
          dir,
          us[0],
          us[1]);
    } catch (IOException e) {
      return "fsync probe failed in " + dir + ": " + e;
    }
  }
}
