package io.zklock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.zklock.LeaderElection;
import io.zklock.LockHandle;
import io.zklock.NodeAcl;
import io.zklock.SuspensionPolicy;
import io.zklock.internal.rules.Clock;
import io.zklock.internal.zk.SessionConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every deadline of the library is read on the instance's injectable {@link Clock}, never on the
 * JVM's: here the clock leaps an hour at every reading, so any deadline read on it has passed by
 * the second reading, while one read on {@link System#nanoTime()} would make the test wait half an
 * hour. No server is needed: the instance connects in the background to a port nobody listens on,
 * and never connects, so its session reads no time.
 */
class InjectedClockTest {
  private static final long HOUR = TimeUnit.HOURS.toNanos(1);

  private final AtomicLong now = new AtomicLong();
  private final Clock leaping = () -> now.getAndAdd(HOUR);
  private ZkLocksImpl locks;

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private ZkLocksImpl unconnected(Duration connectTimeout) throws IOException {
    SessionConfig config =
        new SessionConfig(
            "127.0.0.1:" + freePort(),
            "/zklock",
            Duration.ofSeconds(15),
            connectTimeout,
            "injected-clock-test",
            List.of(),
            NodeAcl.open(),
            null,
            SuspensionPolicy.WAIT_FOR_EXPIRY,
            false,
            true);
    locks = ZkLocksImpl.connect(config, leaping);
    return locks;
  }

  @AfterEach
  void close() {
    if (locks != null) {
      locks.close();
    }
  }

  @Test
  void awaitLeadership_countsItsTimeoutOnTheInstancesClock() throws Exception {
    // Given a participant that is not the leader (never started), on a clock that leaps
    LeaderElection e = unconnected(Duration.ofSeconds(10)).leaderElection("scheduler", "node-1");

    // When it waits half an hour (of the clock's time) for leadership
    boolean elected =
        assertTimeoutPreemptively(
            Duration.ofSeconds(20),
            () -> e.awaitLeadership(Duration.ofMinutes(30)),
            "awaitLeadership waited on the JVM's clock, not the instance's");

    // Then the deadline, read on the instance's clock, has passed at once
    assertThat(elected).isFalse();
  }

  @Test
  void aDeadlinePassedBeforeTheFirstConnection_isTheRequestsOwnTimeout_notAConnectFailure()
      throws Exception {
    // Given an instance connecting in the background with a connect timeout of a minute
    ZkLocksImpl l = unconnected(Duration.ofMinutes(1));

    // When a request whose half hour (of the clock's time) has passed by its next reading waits
    // for the first connection
    Optional<LockHandle> got =
        assertTimeoutPreemptively(
            Duration.ofSeconds(20),
            () -> l.mutex("jobs").tryAcquire(Duration.ofMinutes(30)),
            "the request's deadline was not read on the instance's clock");

    // Then it ends timed out (empty) at once, before the connect timeout could fail it
    assertThat(got).isEmpty();
  }

  @Test
  void mainCode_readsTheTimeOnlyThroughTheClock() throws IOException {
    Pattern timeRead =
        Pattern.compile(
            "System\\s*(\\.|::)\\s*(nanoTime|currentTimeMillis)"
                + "|Instant\\s*\\.\\s*now|java\\.time\\.Clock|LocalDateTime\\s*\\.\\s*now");
    Path main = Path.of("src", "main", "java");
    assertThat(main).as("run from the module's directory").isDirectory();
    List<String> offenders;
    try (Stream<Path> files = Files.walk(main)) {
      offenders =
          files
              .filter(p -> p.toString().endsWith(".java"))
              .filter(p -> !p.endsWith(Path.of("io", "zklock", "internal", "rules", "Clock.java")))
              .filter(
                  p -> !p.endsWith(Path.of("io", "zklock", "internal", "rules", "WallClock.java")))
              .filter(
                  p -> {
                    try {
                      return timeRead.matcher(Files.readString(p)).find();
                    } catch (IOException ex) {
                      throw new UncheckedIOException(ex);
                    }
                  })
              .map(Path::toString)
              .collect(Collectors.toList());
    }
    assertThat(offenders)
        .as("main code that reads the JVM's time instead of the injectable Clock (Clock.SYSTEM)")
        .isEmpty();
  }
}
