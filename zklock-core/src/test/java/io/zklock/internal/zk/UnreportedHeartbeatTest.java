package io.zklock.internal.zk;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.NodeAcl;
import io.zklock.SessionState;
import io.zklock.SuspensionPolicy;
import io.zklock.internal.engine.ManualScheduler;
import io.zklock.internal.rules.SessionDeadline;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.junit.jupiter.api.Test;

/**
 * The session deadline counts from the latest heartbeat proven reported to the leader, not from the
 * latest one answered: a follower that answers a heartbeat and is cut off from the leader right
 * after never passes that heartbeat's traffic on (a forwarded {@code sync} does not touch the
 * session at the leader; only the follower's next ping answer would), and the leader may expire the
 * session T after the traffic it last heard of. A heartbeat is proven once a later one on the same
 * connection, sent the report period P (T/4 + T/40) after its answer, is answered. On a manual
 * clock: T = 2 s, heartbeats every 200 ms, P = 550 ms, margin 500 ms.
 */
class UnreportedHeartbeatTest {
  private static final long T_MS = 2000;

  private final ManualScheduler.FakeClock clock = new ManualScheduler.FakeClock();
  private final ManualScheduler scheduler = new ManualScheduler(clock);
  private final Queue<Runnable> events = new ArrayDeque<>(); // the session's serial executor
  private final List<ScriptedClient> clients = new ArrayList<>();
  private final long start = clock.nanoTime();
  private final Session session =
      new Session(
          new SessionConfig(
              "fake:2181",
              "/zklock",
              Duration.ofMillis(T_MS),
              Duration.ofSeconds(10),
              "unreported-heartbeat-test",
              List.of(),
              NodeAcl.open(),
              null,
              SuspensionPolicy.WAIT_FOR_EXPIRY,
              false,
              true),
          (config, sessionClock, news) -> {
            ScriptedClient c =
                new ScriptedClient(0x100L + clients.size(), clock.nanoTime(), (int) T_MS, news);
            clients.add(c);
            return c;
          },
          events::add,
          scheduler,
          clock,
          (name, close) -> close.run());

  private void runEvents() {
    while (!events.isEmpty()) {
      events.poll().run();
    }
  }

  private long ms(long sinceStartMs) {
    return start + sinceStartMs * 1_000_000L;
  }

  private long nowMs() {
    return (clock.nanoTime() - start) / 1_000_000L;
  }

  /** Advances in steps of 10 ms, answering each heartbeat at once, until {@code untilMs}. */
  private void answeringAtOnceUntil(ScriptedClient c, long untilMs) {
    c.answerHeartbeats();
    while (nowMs() < untilMs) {
      scheduler.advance(Duration.ofMillis(10));
      c.answerHeartbeats();
      runEvents();
    }
  }

  /** Advances in steps of 10 ms without answering, until {@code untilMs}. */
  private void silentUntil(long untilMs) {
    while (nowMs() < untilMs) {
      scheduler.advance(Duration.ofMillis(10));
      runEvents();
    }
  }

  private ScriptedClient connected() {
    session.startInBackground();
    ScriptedClient c = clients.get(0);
    c.tell(KeeperState.SyncConnected);
    runEvents();
    assertThat(session.state()).isEqualTo(SessionState.CONNECTED);
    return c;
  }

  @Test
  void theFigures() {
    long t = T_MS * 1_000_000L;
    assertThat(SessionDeadline.beatNanos(t)).isEqualTo(200_000_000L);
    assertThat(SessionDeadline.reportNanos(t)).isEqualTo(550_000_000L);
    assertThat(SessionDeadline.dueNanos(0, t)).as("margin 500 ms").isEqualTo(1_500_000_000L);
  }

  @Test
  void lastAnsweredThenNeverAgain_theDeadlineCountsFromTheLastHeartbeatProvenReported() {
    // Given a session whose heartbeats (every 200 ms) were each answered at once until 2.0 s
    ScriptedClient c = connected();
    answeringAtOnceUntil(c, 2_000);
    // Then the instant counted from is the heartbeat of 1.4 s: the one of 2.0 s, sent 550 ms after
    // 1.4 s's answer, proves it; nothing proves the ones of 1.6, 1.8 and 2.0 s yet
    assertThat(session.lastHeardNanos()).isEqualTo(ms(1_400));

    // When no heartbeat is answered any more (its follower was cut off from the leader just after
    // answering the one of 2.0 s, which the leader may therefore never have heard of)
    // Then the session is declared lost at 1.4 + 2.0 - 0.5 = 2.9 s, not at 2.0 + 2.0 - 0.5 = 3.5 s
    silentUntil(2_890);
    assertThat(session.state()).isEqualTo(SessionState.CONNECTED);
    silentUntil(2_900);
    assertThat(session.state()).isEqualTo(SessionState.LOST);
    assertThat(session.lastHeardNanos()).isEqualTo(ms(1_400));
  }

  @Test
  void anAnswerTooSoonAfterTheLast_provesNothing_aLaterOneProvesIt() {
    // Given heartbeats answered at once until 1.0 s: the one of 0.4 s is proven by the one of 1.0 s
    ScriptedClient c = connected();
    answeringAtOnceUntil(c, 1_000);
    assertThat(session.lastHeardNanos()).isEqualTo(ms(400));
    // When the heartbeats of 1.2 and 1.4 s are answered only at 1.45 s (slow answers)
    silentUntil(1_450);
    c.answerHeartbeats();
    runEvents();
    // Then what they prove counts from their sends: 1.2 s proves 0.6 s (1.2 - 0.6 >= P), 1.4 s
    // proves 0.8 s; not 1.0 s (1.4 - 1.0 < P)
    assertThat(session.lastHeardNanos()).isEqualTo(ms(800));
    // and the heartbeat of 1.6 s proves 1.0 s, not the slow ones: sent less than P after their
    // answer at 1.45 s
    answeringAtOnceUntil(c, 1_600);
    assertThat(session.lastHeardNanos()).isEqualTo(ms(1_000));
    answeringAtOnceUntil(c, 1_800);
    assertThat(session.lastHeardNanos()).as("1.8 s: 0.35 s after 1.45 s").isEqualTo(ms(1_000));
    // the one of 2.0 s, exactly P after 1.45 s, proves the slow ones of 1.2 and 1.4 s
    answeringAtOnceUntil(c, 2_000);
    assertThat(session.lastHeardNanos()).isEqualTo(ms(1_400));
  }

  @Test
  void aConnectionMadeAgain_countsFromItsAttemptsStart_thenFromItsOwnProvenHeartbeats() {
    // Given heartbeats answered at once until 2.0 s (proven: 1.4 s)
    ScriptedClient c = connected();
    answeringAtOnceUntil(c, 2_000);
    assertThat(session.lastHeardNanos()).isEqualTo(ms(1_400));
    // When the connection drops at 2.05 s, and the handle connects again (the same session) through
    // an attempt that began at 2.1 s: the server revalidated the session with the leader before
    // answering the connect
    silentUntil(2_050);
    c.tell(KeeperState.Disconnected);
    runEvents();
    silentUntil(2_200);
    c.began = ms(2_100);
    c.tell(KeeperState.SyncConnected);
    runEvents();
    // Then the deadline counts from 2.1 s, and then from the new connection's own heartbeats
    assertThat(session.lastHeardNanos()).isEqualTo(ms(2_100));
    c.answerHeartbeats(); // the heartbeat sent at the connection, 2.2 s
    answeringAtOnceUntil(c, 2_740);
    assertThat(session.lastHeardNanos())
        .as("nothing of the new connection proven yet")
        .isEqualTo(ms(2_100));
    answeringAtOnceUntil(c, 2_800);
    assertThat(session.lastHeardNanos())
        .as("2.8 s proves the new connection's 2.2 s")
        .isEqualTo(ms(2_200));
    assertThat(session.state()).isEqualTo(SessionState.CONNECTED);
  }

  @Test
  void aNewSession_countsFromItsConnectAttempt_untilAHeartbeatIsProven() {
    // Given a new session connected at 0 (its attempt began at 0), heartbeats answered at once
    ScriptedClient c = connected();
    answeringAtOnceUntil(c, 500);
    // Then until a heartbeat is proven, the instant is the attempt's start (the leader made the
    // session no earlier)
    assertThat(session.lastHeardNanos()).isEqualTo(ms(0));
    answeringAtOnceUntil(c, 800);
    assertThat(session.lastHeardNanos()).as("0.8 s proves 0.2 s").isEqualTo(ms(200));
  }
}
