package io.zklock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The arguments {@code ./zklock bench} passes to this module's jar: {@code --list} names the
 * scenarios and runs nothing; an unknown option is a usage error (2), as docs/cli.md says.
 */
class BenchMainArgsTest {
  private static String run(int[] code, String... args) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      code[0] = BenchMain.run(args, out);
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void list_namesTheScenarios_andExitsZero() {
    int[] code = new int[1];
    String out = run(code, "--list");

    assertThat(code[0]).as(out).isZero();
    assertThat(out).contains("uncontended", "contended-10", "herd", "rw-90");
  }

  @Test
  void unknownOption_isAUsageError_exit2() {
    int[] code = new int[1];
    String out = run(code, "--no-such-option");

    assertThat(code[0]).as(out).isEqualTo(2);
    assertThat(out).contains("--no-such-option");
  }

  @Test
  void names_setsTheDistinctScenariosNameCount_zeroIsAUsageError() {
    assertThat(BenchConfig.parse(new String[0]).distinctNames).isEqualTo(1_000);
    assertThat(BenchConfig.parse(new String[] {"--names", "50"}).distinctNames).isEqualTo(50);

    int[] code = new int[1];
    String out = run(code, "--names", "0");

    assertThat(code[0]).as(out).isEqualTo(2);
    assertThat(out).contains("--names must be positive").contains("--names N");
  }
}
