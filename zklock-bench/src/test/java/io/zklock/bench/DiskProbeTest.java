package io.zklock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiskProbeTest {

  @Test
  void timesForcedAppends_andLeavesNoFileBehind(@TempDir Path dir) throws Exception {
    double[] us = DiskProbe.fsyncMicros(dir, 20);

    assertThat(us[0]).as("median µs").isPositive();
    assertThat(us[1]).as("p90 µs").isGreaterThanOrEqualTo(us[0]);
    try (var files = Files.list(dir)) {
      assertThat(files).isEmpty();
    }
    assertThat(DiskProbe.describe(dir))
        .startsWith("fsync of a 512-byte append in " + dir + ": median ");
  }
}
