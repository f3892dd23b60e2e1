package io.zklock.internal.zk;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.NodeAcl;
import io.zklock.SessionState;
import io.zklock.SuspensionPolicy;
import io.zklock.internal.engine.ManualScheduler;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.junit.jupiter.api.Test;

/**
 * A handle that connects again just before zklock's deadline declares its session lost, the news of
 * the connection still on the session's executor when the declaration comes: that news must not
 * make the old connection the one a waiter for a connection is given. Once the session is over,
 * whoever waits for a connection waits for the next session's; given the old handle, a request
 * would create on it, be refused there (no create leaves the handle of an ended session), ask for a
 * connection again, be given the same one, without end.
 */
class ReconnectedThenDeclaredLostTest {
  private static final long T_MS = 2000;

  private final ManualScheduler.FakeClock clock = new ManualScheduler.FakeClock();
  private final ManualScheduler scheduler = new ManualScheduler(clock);
  private final Queue<Runnable> events = new ArrayDeque<>(); // the session's serial executor
  private final List<ScriptedClient> clients = new ArrayList<>();
  private final Session session =
      new Session(
          new SessionConfig(
              "fake:2181",
              "/zklock",
              Duration.ofMillis(T_MS),
              Duration.ofSeconds(10),
              "reconnected-then-declared-lost-test",
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

  @Test
  void aConnectionWhoseNewsComesAfterTheSessionWasDeclaredLost_isGivenToNobody() {
    session.startInBackground();
    ScriptedClient old = clients.get(0);
    old.tell(KeeperState.SyncConnected);
    runEvents();
    old.answerHeartbeats(); // arms the deadline
    // the connection drops; a request waits for it to come back
    old.tell(KeeperState.Disconnected);
    runEvents();
    List<Session.Conn> waitedThrough = new ArrayList<>();
    session.whenConnected(waitedThrough::add, () -> {});

    // When the handle connects again just as the deadline passes: the deadline's task runs before
    // the connection's news has left the session's executor
    old.tell(KeeperState.SyncConnected);
    scheduler.advance(Duration.ofMillis(T_MS));
    runEvents(); // the connection's news, then the loss's (which opens a new client)
    assertThat(session.state()).isEqualTo(SessionState.LOST);
    assertThat(clients).as("a new session is being opened").hasSize(2);

    // Then nobody is handed the old connection, neither the request that waited through the
    // suspension nor one that asks now
    List<Session.Conn> askedAfter = new ArrayList<>();
    session.whenConnected(askedAfter::add, () -> {});
    assertThat(askedAfter).as("a request asking once the session is over").isEmpty();
    assertThat(waitedThrough).as("the waiter of the suspension").isEmpty();

    // and both are given the next session's, once it connects
    ScriptedClient next = clients.get(1);
    next.tell(KeeperState.SyncConnected);
    runEvents();
    assertThat(waitedThrough).extracting(Session.Conn::sessionId).containsExactly(next.sessionId);
    assertThat(askedAfter).extracting(Session.Conn::sessionId).containsExactly(next.sessionId);
  }
}
