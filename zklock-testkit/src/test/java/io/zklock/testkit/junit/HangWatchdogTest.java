package io.zklock.testkit.junit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.UniqueId;
import org.junit.platform.engine.support.descriptor.AbstractTestDescriptor;
import org.junit.platform.launcher.TestIdentifier;

class HangWatchdogTest {

  private static TestIdentifier aTest(String name) {
    return TestIdentifier.from(
        new AbstractTestDescriptor(UniqueId.forEngine("fake").append("test", name), name) {
          @Override
          public Type getType() {
            return Type.TEST;
          }
        });
  }

  private final ByteArrayOutputStream reports = new ByteArrayOutputStream();
  private final HangWatchdog watchdog =
      new HangWatchdog(new PrintStream(reports, true, StandardCharsets.UTF_8));

  @AfterEach
  void clearInterrupt() {
    Thread.interrupted();
  }

  @Test
  void anOverdueTestIsInterrupted_andTheInterruptItIgnoredDoesNotReachTheNextTest() {
    TestIdentifier slow = aTest("slow");
    long start = System.nanoTime();
    watchdog.executionStarted(slow);

    watchdog.check(start + TimeUnit.HOURS.toNanos(1));
    assertThat(Thread.currentThread().isInterrupted()).as("interrupted when overdue").isTrue();

    watchdog.executionFinished(slow, TestExecutionResult.successful()); // it ignored the interrupt
    assertThat(Thread.currentThread().isInterrupted()).as("cleared for the next test").isFalse();
    assertThat(reports.toString(StandardCharsets.UTF_8))
        .contains("HUNG TEST: slow")
        .contains("slow ended with the interrupt this watchdog sent still set; cleared");
  }

  @Test
  void aTestOnTime_isNotInterrupted_andAnInterruptOfItsOwnIsLeftAlone() {
    TestIdentifier quick = aTest("quick");
    watchdog.executionStarted(quick);

    watchdog.check(System.nanoTime());
    assertThat(Thread.currentThread().isInterrupted()).isFalse();

    Thread.currentThread().interrupt(); // the test's own doing, not the watchdog's
    watchdog.executionFinished(quick, TestExecutionResult.successful());
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    assertThat(reports.size()).isZero();
  }
}
