package io.zklock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class CpuCostTest {

  private static String run(int expectedCode, String... args) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    assertThat(CpuCost.run(args, out)).isEqualTo(expectedCode);
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void printsEachImplementationsCpuPerCycle_byThreadGroup() throws Exception {
    String out = run(0, "--blocks", "1", "--cycles", "30", "--impls", "zklock,fair-floor");

    assertThat(out).contains("block 1 of 1 done");
    assertThat(out).contains("CPU per uncontended acquire + release(), µs, 30 cycles each");
    assertThat(out).containsPattern("thread +zklock +fair-floor");
    for (String row : new String[] {"caller", "client send", "client event", "all threads"}) {
      assertThat(out).as(row).containsPattern("(?m)^" + row + " +[0-9.]+ +[0-9.]+$");
    }
    assertThat(out).containsPattern("(?m)^server: SyncThread:N +[0-9.]+ +[0-9.]+$");
    assertThat(out).containsPattern("(?m)^wall time per cycle +[0-9.]+ +[0-9.]+$");
    String cpu = out.substring(0, out.indexOf("bytes allocated per cycle"));
    assertThat(cpu).as("no row of idle threads").doesNotContainPattern("(?m) 0\\.0 +0\\.0$");
    String allocation = out.substring(out.indexOf("bytes allocated per cycle"));
    assertThat(allocation).containsPattern("(?m)^caller +[0-9.]+ +[0-9.]+$");
    assertThat(allocation).containsPattern("(?m)^all threads +[0-9.]+ +[0-9.]+$");
    assertThat(allocation).containsPattern("(?m)^GCs per 1,000 cycles +[0-9.]+ +[0-9.]+$");
    assertThat(allocation).containsPattern("(?m)^GC time per cycle, µs +[0-9.]+ +[0-9.]+$");
  }

  @Test
  void badArguments_sayWhatIsWrong() throws Exception {
    assertThat(run(2, "--cycles", "0")).contains("--cycles must be positive, not 0");
    assertThat(run(2, "--impls", "redisson-fair")).contains("does not run on ZooKeeper");
    assertThat(run(2, "--blocks")).contains("missing value");
    assertThat(run(2, "--frobnicate")).contains("unknown option: --frobnicate");
    assertThat(run(2, "--impls", "zklok")).contains("unknown implementation: 'zklok'");
    assertThat(run(2, "--rtt", "0,1ms")).contains("--rtt takes one round trip");
  }
}
