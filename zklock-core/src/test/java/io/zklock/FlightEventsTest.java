package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.jfr.Configuration;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * zklock's JDK Flight Recorder events, recorded with {@link RecordingStream} from a {@link ZkLocks}
 * that has no listener: the wait, the hold, the loss and the session's changes, and the
 * coordination recipes' waits.
 */
class FlightEventsTest extends ZkTestSupport {

  @Test
  void recording_seesWaitHoldLossAndSession_withNameKindTokenOutcome(@TempDir Path dir)
      throws Exception {
    ZkLocks locks = client();
    try (RecordingStream rs = new RecordingStream()) {
      rs.enable("io.zklock.LockWait").withThreshold(Duration.ZERO);
      rs.enable("io.zklock.LockHold").withThreshold(Duration.ZERO);
      rs.enable("io.zklock.LockLost");
      rs.enable("io.zklock.SessionState");
      rs.startAsync();

      LockHandle first = locks.mutex("jfr").acquire();
      long token = first.fencingToken();
      first.release();
      LockHandle second = locks.mutex("jfr").acquire();
      CompletableFuture<LockLostException> lost = second.lost();
      client().forceRelease("jfr");
      lost.get(30, TimeUnit.SECONDS);
      locks.close();

      // what the stream recorded, read from its dump: every event, each once
      AtomicInteger dumps = new AtomicInteger();
      await()
          .untilAsserted(
              () -> {
                Path file = dir.resolve("zklock-" + dumps.incrementAndGet() + ".jfr");
                rs.dump(file);
                List<RecordedEvent> got =
                    RecordingFile.readAllEvents(file).stream()
                        .filter(e -> e.getEventType().getName().startsWith("io.zklock."))
                        .toList();
                assertThat(named(got, "io.zklock.SessionState"))
                    .anySatisfy(e -> assertThat(e.getString("state")).isEqualTo("CLOSED"));
                assertThat(named(got, "io.zklock.LockWait"))
                    .as("one wait event per request")
                    .hasSize(2)
                    .allSatisfy(
                        e -> {
                          assertThat(e.getString("lockName")).isEqualTo("jfr");
                          assertThat(e.getString("kind")).isEqualTo("mutex");
                          assertThat(e.getString("outcome")).isEqualTo("granted");
                        })
                    .anySatisfy(e -> assertThat(e.getLong("token")).isEqualTo(token));
                assertThat(named(got, "io.zklock.LockHold"))
                    .as("one hold event per grant")
                    .hasSize(2)
                    .anySatisfy(
                        e -> {
                          assertThat(e.getString("outcome")).isEqualTo("released");
                          assertThat(e.getLong("token")).isEqualTo(token);
                        })
                    .anySatisfy(e -> assertThat(e.getString("outcome")).isEqualTo("lost"));
                assertThat(named(got, "io.zklock.LockLost"))
                    .singleElement()
                    .satisfies(
                        e -> {
                          assertThat(e.getString("reason")).isEqualTo("node_deleted");
                          assertThat(e.getString("lockName")).isEqualTo("jfr");
                        });
              });
    }
  }

  @Test
  void coordinationWaits_areLockWaits_passedOrTimedOut_withNoHoldAndNoLoss(@TempDir Path dir)
      throws Exception {
    ZkLocks locks = client();
    try (RecordingStream rs = new RecordingStream()) {
      rs.enable("io.zklock.LockWait").withThreshold(Duration.ZERO);
      rs.enable("io.zklock.LockHold").withThreshold(Duration.ZERO);
      rs.enable("io.zklock.LockLost");
      rs.startAsync();

      DistributedCountDownLatch latch = locks.countDownLatch("jfr-latch", 1);
      latch.countDown();
      assertThat(latch.await(Duration.ofSeconds(10))).isTrue();
      DistributedBarrier barrier = locks.barrier("jfr-barrier");
      barrier.set();
      assertThat(barrier.await(Duration.ofMillis(50))).isFalse();
      DistributedDoubleBarrier alone = locks.doubleBarrier("jfr-double", 1);
      assertThat(alone.enter(Duration.ofSeconds(10))).isTrue();
      assertThat(alone.leave(Duration.ofSeconds(10))).isTrue();
      DistributedLock lock = locks.mutex("jfr-c");
      LockHandle h = lock.acquire();
      lock.newCondition().await(h, Duration.ofMillis(50)).handle().release();
      LockHandle gone = lock.acquire();
      client().forceRelease("jfr-c");
      gone.lost().get(30, TimeUnit.SECONDS);
      try {
        lock.newCondition().await(gone);
      } catch (LockLostException expected) {
        // the wait is lost
      }

      AtomicInteger dumps = new AtomicInteger();
      await()
          .untilAsserted(
              () -> {
                Path file = dir.resolve("zklock-c-" + dumps.incrementAndGet() + ".jfr");
                rs.dump(file);
                List<RecordedEvent> got =
                    RecordingFile.readAllEvents(file).stream()
                        .filter(e -> e.getEventType().getName().startsWith("io.zklock."))
                        .toList();
                List<String> waits =
                    named(got, "io.zklock.LockWait").stream()
                        .map(e -> e.getString("kind") + ":" + e.getString("outcome"))
                        .toList();
                assertThat(waits)
                    .containsExactlyInAnyOrder(
                        "latch:passed",
                        "barrier:timeout",
                        "double-barrier-enter:passed",
                        "double-barrier-leave:passed",
                        "mutex:granted",
                        "condition:timeout",
                        "mutex:granted",
                        "mutex:granted",
                        "condition:lost");
                assertThat(named(got, "io.zklock.LockHold"))
                    .as("holds of the mutex only: a coordination wait holds nothing")
                    .hasSize(3)
                    .allSatisfy(e -> assertThat(e.getString("kind")).isEqualTo("mutex"));
                assertThat(named(got, "io.zklock.LockLost"))
                    .as("the grant's loss once, not again for the condition waiter")
                    .singleElement()
                    .satisfies(e -> assertThat(e.getString("kind")).isEqualTo("mutex"));
              });
    }
  }

  @Test
  void shippedSettings_setTheThresholds() throws Exception {
    try (Reader r =
        new InputStreamReader(
            FlightEventsTest.class.getResourceAsStream("/META-INF/zklock.jfc"),
            StandardCharsets.UTF_8)) {
      Configuration c = Configuration.create(r);
      assertThat(c.getSettings())
          .containsEntry("io.zklock.LockWait#threshold", "10 ms")
          .containsEntry("io.zklock.LockHold#threshold", "100 ms")
          .containsEntry("io.zklock.LockLost#enabled", "true")
          .containsEntry("io.zklock.SessionState#enabled", "true");
    }
  }

  private static List<RecordedEvent> named(List<RecordedEvent> events, String name) {
    return events.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
  }
}
