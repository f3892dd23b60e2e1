package io.zklock.testkit.junit;

import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * The last net under per-test time-outs, for every test engine (JUnit Jupiter, jqwik, ...): a test
 * still running well past its time-out is named on standard error with a dump of every thread (also
 * written to {@code target/thread-dumps/}), and its thread is interrupted. Repeated once more after
 * the same time again if it still runs; after that the build's fork time-out ends the JVM. A test
 * that ignored the interrupt and then ended leaves it to no one: the flag this listener set is
 * cleared when the test ends, so that the next test on that thread (often another class's set-up)
 * does not fail with an {@link InterruptedException} that was never meant for it.
 *
 * <p>A test's limit is its Jupiter {@link Timeout} (on the method, else on the class), else the
 * configuration parameter {@code junit.jupiter.execution.timeout.default}, else five minutes; plus
 * {@code zklock.test.watchdog.grace} (default 30 s), so that a Jupiter test is failed by its own
 * time-out first and this listener only speaks for what nothing else stopped: a property of another
 * engine, a test that ignores interrupts in the {@code SAME_THREAD} mode.
 *
 * <p>Register it per module with a file {@code
 * META-INF/services/org.junit.platform.launcher.TestExecutionListener} in the test resources,
 * containing {@code io.zklock.testkit.junit.HangWatchdog}.
 */
public final class HangWatchdog implements TestExecutionListener {
  private static final Duration FALLBACK = Duration.ofMinutes(5);

  private record Running(TestIdentifier test, Thread thread, long startNanos, long limitNanos) {}

  private final Map<String, Running> running = new ConcurrentHashMap<>();
  private final Map<String, Integer> dumps = new ConcurrentHashMap<>();
  private volatile Duration defaultLimit = FALLBACK;
  private volatile Duration grace = Duration.ofSeconds(30);
  private ScheduledExecutorService timer;
  private final PrintStream err;

  /** The listener JUnit's launcher loads (through {@code ServiceLoader}). */
  public HangWatchdog() {
    this(System.err);
  }

  /** For tests of the listener itself: where its reports go. */
  HangWatchdog(PrintStream err) {
    this.err = err;
  }

  @Override
  public void testPlanExecutionStarted(TestPlan testPlan) {
    var params = testPlan.getConfigurationParameters();
    params
        .get("junit.jupiter.execution.timeout.default")
        .flatMap(HangWatchdog::parse)
        .ifPresent(d -> defaultLimit = d);
    params.get("zklock.test.watchdog.grace").flatMap(HangWatchdog::parse).ifPresent(d -> grace = d);
    timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "zklock-hang-watchdog");
              t.setDaemon(true);
              return t;
            });
    timer.scheduleWithFixedDelay(this::check, 1, 1, TimeUnit.SECONDS);
  }

  @Override
  public void testPlanExecutionFinished(TestPlan testPlan) {
    if (timer != null) {
      timer.shutdownNow();
    }
  }

  @Override
  public void executionStarted(TestIdentifier test) {
    if (test.isTest()) {
      running.put(
          test.getUniqueId(),
          new Running(test, Thread.currentThread(), System.nanoTime(), limitOf(test).toNanos()));
    }
  }

  @Override
  public void executionFinished(TestIdentifier test, TestExecutionResult result) {
    Running r = running.remove(test.getUniqueId());
    Integer interrupted = dumps.remove(test.getUniqueId());
    if (interrupted != null
        && r != null
        && r.thread() == Thread.currentThread()
        && Thread.interrupted()) {
      err.println(
          "[zklock-testkit] "
              + test.getLegacyReportingName()
              + " ended with the interrupt this watchdog sent still set; cleared, so that it"
              + " does not fail the next test on thread \""
              + r.thread().getName()
              + "\"");
    }
  }

  private Duration limitOf(TestIdentifier test) {
    Duration limit = defaultLimit;
    Optional<Timeout> timeout = test.getSource().flatMap(HangWatchdog::timeoutOf);
    if (timeout.isPresent()) {
      limit = Duration.ofNanos(timeout.get().unit().toNanos(timeout.get().value()));
    }
    return limit.plus(grace);
  }

  private static Optional<Timeout> timeoutOf(org.junit.platform.engine.TestSource source) {
    if (!(source instanceof MethodSource ms)) {
      return Optional.empty();
    }
    try {
      Method m = ms.getJavaMethod();
      Timeout t = m.getAnnotation(Timeout.class);
      return Optional.ofNullable(
          t != null ? t : m.getDeclaringClass().getAnnotation(Timeout.class));
    } catch (RuntimeException | LinkageError e) {
      return Optional.empty();
    }
  }

  private void check() {
    check(System.nanoTime());
  }

  /** Interrupts (and dumps) the tests overdue at {@code now}, a {@link System#nanoTime()}. */
  void check(long now) {
    for (Running r : running.values()) {
      int done = dumps.getOrDefault(r.test().getUniqueId(), 0);
      if (done >= 2 || now - r.startNanos() < (done + 1) * r.limitNanos()) {
        continue;
      }
      dumps.put(r.test().getUniqueId(), done + 1);
      String name = r.test().getLegacyReportingName() + " [" + r.test().getUniqueId() + "]";
      String dump = ThreadDumps.all();
      Path file = ThreadDumps.write(r.test().getLegacyReportingName(), dump);
      err.println(
          "[zklock-testkit] HUNG TEST: "
              + name
              + " still running after "
              + TimeUnit.NANOSECONDS.toSeconds(now - r.startNanos())
              + " s (limit "
              + TimeUnit.NANOSECONDS.toSeconds(r.limitNanos())
              + " s); interrupting its thread \""
              + r.thread().getName()
              + "\". Thread dump"
              + (file == null ? "" : " (also in " + file + ")")
              + ":\n"
              + dump);
      r.thread().interrupt();
    }
  }

  /** JUnit's duration syntax: a number and an optional unit (ns, μs, ms, s, m, h, d). */
  static Optional<Duration> parse(String text) {
    String s = text.trim().toLowerCase(Locale.ROOT);
    int i = 0;
    while (i < s.length() && Character.isDigit(s.charAt(i))) {
      i++;
    }
    if (i == 0) {
      return Optional.empty();
    }
    long n = Long.parseLong(s.substring(0, i));
    String unit = s.substring(i).trim();
    return switch (unit) {
      case "", "s" -> Optional.of(Duration.ofSeconds(n));
      case "ns" -> Optional.of(Duration.ofNanos(n));
      case "μs", "us" -> Optional.of(Duration.ofNanos(n * 1000));
      case "ms" -> Optional.of(Duration.ofMillis(n));
      case "m" -> Optional.of(Duration.ofMinutes(n));
      case "h" -> Optional.of(Duration.ofHours(n));
      case "d" -> Optional.of(Duration.ofDays(n));
      default -> Optional.empty();
    };
  }
}
