package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.testkit.EmbeddedZooKeeper;
import io.zklock.testkit.FaultProxy;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A new session whose connect is answered late, on a real server: the server makes the session when
 * the connect request arrives and counts its timeout from then, so a client that hears of the
 * session more than {@code T - margin} after its connect attempt began cannot know the session will
 * live long enough for a holder to be told of its loss in time. zklock does not use such a session:
 * it closes it and opens another, and tells no one of the first.
 *
 * <p>The server here grants at most 4 s while the client asks for 20 s, as an ensemble that clamps
 * the timeout does: ZooKeeper's client waits up to the timeout it asked for (20 s) for the connect
 * answer, while the session lives 4 s on the server. The connect's answer is held by a proxy for
 * 3.8 s after the server made the session: past 4 s - 0.5 s (zklock's margin for 4 s), before
 * anything in the client gives up.
 */
class NewSessionConnectedLateTest extends ZkTestSupport {
  private static final Duration GRANTED = Duration.ofSeconds(4);
  private static final Duration ASKED = Duration.ofSeconds(20);
  private static final Duration HELD = Duration.ofMillis(3_800);

  @Test
  void aNewSessionConnectedLaterThanTheTimeoutLessTheMargin_isNotUsed_anotherIsOpened()
      throws Exception {
    try (EmbeddedZooKeeper clamping =
            EmbeddedZooKeeper.standalone()
                .tickTime(Duration.ofMillis(100))
                .maxSessionTimeout(GRANTED)
                .start();
        FaultProxy proxy = FaultProxy.start(clamping.connectString())) {
      Set<Long> before =
          new HashSet<>(clamping.server().getZKDatabase().getSessionWithTimeOuts().keySet());
      // Given a client whose connect request reaches the server while the answers are held
      proxy.muteReplies();
      CompletableFuture<ZkLocks> building =
          CompletableFuture.supplyAsync(
              () ->
                  ZkLocks.builder(proxy.connectString())
                      .namespace(namespace)
                      .sessionTimeout(ASKED)
                      .connectTimeout(Duration.ofSeconds(30))
                      .build());
      long first =
          await()
              .atMost(Duration.ofSeconds(20))
              .pollInterval(Duration.ofMillis(5))
              .until(() -> newSession(clamping, before), id -> id != 0);
      long madeAt = System.nanoTime();

      // When the connect's answer reaches the client 3.8 s after the server made the session
      TimeUnit.NANOSECONDS.sleep(HELD.toNanos() - (System.nanoTime() - madeAt));
      proxy.pass();
      ZkLocks locks = track(building.get(40, TimeUnit.SECONDS));

      // Then zklock runs on another session, and the first is gone from the server
      assertThat(locks.negotiatedSessionTimeout()).isEqualTo(GRANTED);
      assertThat(locks.sessionId()).isNotZero().isNotEqualTo(first);
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  !clamping
                      .server()
                      .getZKDatabase()
                      .getSessionWithTimeOuts()
                      .keySet()
                      .contains(first));
      // and its locks are held on the session in use
      LockHandle held = locks.mutex("late").acquire();
      assertThat(held.isHeld()).isTrue();
      assertThat(clamping.server().getZKDatabase().getDataTree().getEphemerals(locks.sessionId()))
          .anyMatch(p -> p.contains("/late"));
      held.release();
    }
  }

  /** A session the server made that was not in {@code before}, or 0 while there is none. */
  private static long newSession(EmbeddedZooKeeper server, Set<Long> before) {
    for (long id : server.server().getZKDatabase().getSessionWithTimeOuts().keySet()) {
      if (!before.contains(id)) {
        return id;
      }
    }
    return 0;
  }
}
