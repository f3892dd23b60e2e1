package io.zklock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Main code takes threads, timers, blocking waits and randomness from the JVM only through the
 * seams a simulation replaces ({@code zk.Platform}, {@code zk.Blocking}, {@code rules.RandomIds}),
 * so that the simulation runs the real code on simulated time and threads and replays from a seed.
 * The few files named below take them directly, each for a path the simulation does not run.
 */
class PlatformSeamTest {
  /** Files allowed to take threads or randomness directly, and why. */
  private static final Map<String, String> ALLOWED =
      Map.of(
          "Platform.java", "the seam itself: the JVM's threads for Platform.SYSTEM",
          "LibraryThreads.java", "makes the real executor that Platform.SYSTEM hands out",
          "RandomIds.java", "the seam of node names' randomness: SecureRandom for SYSTEM",
          "Blocking.java", "the seam of callers' waits: the JDK's sleep when none is installed",
          "Events.java",
              "a blocking lock-event listener's own thread (the simulation's listeners do not"
                  + " block)",
          "ConnectProbe.java",
              "probes the servers while a blocking start() waits (the simulation starts in the"
                  + " background)");

  private static final Pattern TAKES =
      Pattern.compile(
          "new\\s+Thread\\s*\\(|Executors\\s*\\.|new\\s+ScheduledThreadPoolExecutor|"
              + "new\\s+Timer\\s*\\(|Thread\\s*\\.\\s*sleep|SecureRandom|UUID\\s*\\.\\s*randomUUID|"
              + "ThreadLocalRandom|Math\\s*\\.\\s*random|ForkJoinPool");

  /** A CompletableFuture step that runs on the JDK's common pool: {@code ...Async(fn)}. */
  private static final Pattern ASYNC =
      Pattern.compile(
          "\\.(thenApply|thenAccept|thenRun|thenCompose|thenCombine|whenComplete|handle|exceptionally"
              + "|supply|run)Async\\s*\\(");

  /** Whether {@code text} takes the JVM's threads, timers or randomness: the first such use. */
  static String offence(String text) {
    var m = TAKES.matcher(text);
    if (m.find()) {
      return m.group();
    }
    var a = ASYNC.matcher(text);
    while (a.find()) {
      if (!hasExecutorArgument(text, a.end())) {
        return a.group() + "...) without an executor";
      }
    }
    return null;
  }

  /** Whether the call whose arguments start at {@code from} has a second, top-level argument. */
  private static boolean hasExecutorArgument(String text, int from) {
    int depth = 0;
    for (int i = from; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '(' || c == '{' || c == '[') {
        depth++;
      } else if (c == ')' || c == '}' || c == ']') {
        if (depth == 0) {
          return false;
        }
        depth--;
      } else if (c == ',' && depth == 0) {
        return true;
      }
    }
    return false;
  }

  @Test
  void mainCode_takesThreadsTimersAndRandomnessOnlyThroughTheSeams() throws IOException {
    Path main = Path.of("src", "main", "java");
    assertThat(main).as("run from the module's directory").isDirectory();
    List<String> offenders;
    try (Stream<Path> files = Files.walk(main)) {
      offenders =
          files
              .filter(p -> p.toString().endsWith(".java"))
              .filter(p -> !ALLOWED.containsKey(p.getFileName().toString()))
              .filter(p -> offence(read(p)) != null)
              .map(p -> p + ": " + offence(read(p)))
              .collect(Collectors.toList());
    }
    assertThat(offenders)
        .as(
            "main code that takes threads, timers, sleeps, the common pool or randomness from the"
                + " JVM instead of zk.Platform / rules.RandomIds")
        .isEmpty();
  }

  @Test
  void theScan_findsWhatItLooksFor() {
    for (String planted :
        List.of(
            "new Thread(r)",
            "Executors.newFixedThreadPool(2)",
            "Thread.sleep(10)",
            "UUID.randomUUID()",
            "f.thenRunAsync(r)",
            "f.whenCompleteAsync((v, e) -> done())")) {
      assertThat(offence(planted)).as(planted).isNotNull();
    }
    assertThat(offence("f.whenCompleteAsync((v, e) -> done(), executor)"))
        .as("an async step on a given executor is fine")
        .isNull();
    assertThat(offence("f.thenApplyAsync(x -> g(x, y), ctx.executor())"))
        .as("an async step on a given executor is fine")
        .isNull();
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
