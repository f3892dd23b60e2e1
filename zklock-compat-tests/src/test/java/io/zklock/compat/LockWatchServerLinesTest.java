package io.zklock.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.LockHandle;
import io.zklock.LockWatch;
import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link ZkLocks#watchLocks} on every server line: a 3.6+ server gets one persistent recursive
 * watch; a 3.5 server, which answers that request as unimplemented, gets the fallback of a child
 * watch per directory, and grants, waiters and releases are told all the same, nested directories
 * and directories made after the watch included, on one session (the server does not drop it).
 */
class LockWatchServerLinesTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  static Stream<String> versions() {
    return Arrays.stream(System.getProperty("compat.versions", "3.5.10").split(","))
        .map(String::trim)
        .filter(v -> !v.isEmpty());
  }

  @ParameterizedTest(name = "ZooKeeper {0}")
  @MethodSource("versions")
  void watchLocks_grantsWaitersReleases_toldOnEveryLine(String version) throws Exception {
    try (EmbeddedZooKeeper server = EmbeddedZooKeeper.standalone().serverVersion(version).start();
        ZkLocks viewer =
            ZkLocks.builder(server.connectString())
                .namespace("/watch")
                .connectInBackground()
                .build();
        ZkLocks a = ZkLocks.builder(server.connectString()).namespace("/watch").build();
        ZkLocks b = ZkLocks.builder(server.connectString()).namespace("/watch").build()) {
      List<String> told = new CopyOnWriteArrayList<>();
      boolean old = version.startsWith("3.5.");
      try (LockWatch watch = viewer.watchLocks("", told::add)) {
        await()
            .atMost(WAIT)
            .until(
                () ->
                    watch.mode()
                        == (old ? LockWatch.Mode.PER_DIRECTORY : LockWatch.Mode.RECURSIVE));
        long session = viewer.sessionId();

        LockHandle h = a.mutex("jobs/nightly").acquire();
        await().atMost(WAIT).until(() -> told.contains("jobs/nightly"));
        told.clear();
        CompletableFuture<LockHandle> next = b.mutex("jobs/nightly").acquireAsync();
        await().atMost(WAIT).until(() -> told.contains("jobs/nightly"));
        told.clear();
        h.release();
        await().atMost(WAIT).until(() -> told.contains("jobs/nightly"));
        next.get().release();
        told.clear();
        a.semaphore("quota", 2).acquire().release();
        await().atMost(WAIT).until(() -> told.contains("quota"));

        assertThat(viewer.sessionId()).as("the same session throughout").isEqualTo(session);
        assertThat(watch.mode())
            .isEqualTo(old ? LockWatch.Mode.PER_DIRECTORY : LockWatch.Mode.RECURSIVE);
      }
    }
  }

  /**
   * A 3.5 server answers {@code addWatch} as unimplemented and closes the connection. The watch
   * must remember that: a namespace that does not exist yet is watched for its creation, and on
   * every reconnection the watch is set again; had it asked {@code addWatch} again each time, the
   * server would close each new connection in turn, and nothing would be told for as long as that
   * went on.
   */
  @Test
  void aServerWithoutPersistentWatches_isAskedOnce_evenBeforeTheNamespaceExists() throws Exception {
    try (EmbeddedZooKeeper server = EmbeddedZooKeeper.standalone().serverVersion("3.5.10").start();
        ZkLocks viewer = ZkLocks.builder(server.connectString()).namespace("/absent").build();
        ZkLocks a = ZkLocks.builder(server.connectString()).namespace("/absent").build()) {
      List<String> told = new CopyOnWriteArrayList<>();
      try (LockWatch watch = viewer.watchLocks("", told::add)) {
        await().atMost(WAIT).until(() -> watch.mode() == LockWatch.Mode.PER_DIRECTORY);
        await().atMost(WAIT).until(() -> addWatchRefusals(server) >= 1);
        // the client reconnects within a second or two of each close
        await()
            .during(Duration.ofSeconds(5))
            .atMost(Duration.ofSeconds(30))
            .until(() -> addWatchRefusals(server) == 1);

        LockHandle h = a.mutex("orders/42").acquire();
        await().atMost(WAIT).until(() -> told.contains("orders/42"));
        h.release();
        assertThat(addWatchRefusals(server)).as("addWatch asked once").isEqualTo(1);
      }
    }
  }

  /** How often the server refused a request it does not know (opcode 106 is addWatch). */
  private static long addWatchRefusals(EmbeddedZooKeeper server) throws Exception {
    try (Stream<String> lines = Files.lines(server.serverLog().orElseThrow())) {
      return lines.filter(l -> l.contains("unknown type 106")).count();
    }
  }
}
