package io.zklock.internal.zk;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.NodeAcl;
import io.zklock.SessionState;
import io.zklock.SuspensionPolicy;
import io.zklock.ZkTestSupport;
import io.zklock.internal.rules.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.ZooDefs;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A session zklock declares lost at its own deadline while its connection is in fact up (a
 * partition that healed just before the deadline, a leader's failover): the handle stays open,
 * connected and ignored, until the ensemble could have expired the session ({@code heardSentAt +
 * T}), and is closed then. Closed at the declaration, it would end the session on the ensemble at
 * once, and the next waiter could be granted as the holder is told; never closed, its nodes would
 * stay while its client keeps it alive.
 *
 * <p>The window is opened on purpose: the session's heartbeats are switched off (its scheduler
 * drops them) while the connection stays healthy, so the deadline passes with the handle connected.
 */
class DeclaredLostCloseTest extends ZkTestSupport {

  /** A scheduler whose fixed-delay tasks (the session's heartbeats) can be switched off. */
  private static final class Heartbeats extends ScheduledThreadPoolExecutor {
    volatile boolean on = true;

    Heartbeats() {
      super(2);
      setRemoveOnCancelPolicy(true);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(
        Runnable command, long initialDelay, long delay, TimeUnit unit) {
      return super.scheduleWithFixedDelay(
          () -> {
            if (on) {
              command.run();
            }
          },
          initialDelay,
          delay,
          unit);
    }
  }

  private final Heartbeats scheduler = new Heartbeats();
  private final ExecutorService events = Executors.newSingleThreadExecutor();
  private Session session;

  @AfterEach
  void stop() {
    if (session != null) {
      session.close();
    }
    scheduler.shutdownNow();
    events.shutdownNow();
  }

  @Test
  void aSessionDeclaredLostWhileConnected_isClosedOnceTheEnsembleCouldHaveExpiredIt_notBefore()
      throws Exception {
    session =
        new Session(
            new SessionConfig(
                server.connectString(),
                "/zklock",
                Duration.ofSeconds(4),
                Duration.ofSeconds(10),
                "declared-lost-close-test",
                List.of(),
                NodeAcl.open(),
                null,
                SuspensionPolicy.WAIT_FOR_EXPIRY,
                false,
                false),
            events,
            scheduler,
            Clock.SYSTEM);
    session.start();
    Session.Conn old = session.current();
    long timeout = session.negotiatedTimeout().toNanos();
    // Given a node of the session (what a holder's lock node is), watched from another session
    String node =
        handle(old)
            .create(
                "/declared-lost-" + Long.toHexString(old.sessionId()),
                new byte[0],
                ZooDefs.Ids.OPEN_ACL_UNSAFE,
                CreateMode.EPHEMERAL);
    AtomicLong deletedAt = new AtomicLong();
    assertThat(
            raw()
                .exists(
                    node,
                    e -> {
                      if (e.getType() == EventType.NodeDeleted) {
                        deletedAt.set(System.nanoTime());
                      }
                    }))
        .isNotNull();
    // and a listener that looks for the node the moment the loss is told
    AtomicLong toldAt = new AtomicLong();
    AtomicLong heardAt = new AtomicLong();
    List<Boolean> existedWhenTold = new CopyOnWriteArrayList<>();
    List<String> states = new CopyOnWriteArrayList<>();
    List<Boolean> aliveWhenTold = new CopyOnWriteArrayList<>();
    session.addListener(
        (state, id) -> {
          states.add(state + ":" + Long.toHexString(id));
          if (state == SessionState.LOST && id == old.sessionId()) {
            aliveWhenTold.add(handle(old).getState().isAlive());
            heardAt.set(session.lastHeardNanos());
            try {
              existedWhenTold.add(raw().exists(node, false) != null);
            } catch (Exception e) {
              existedWhenTold.add(null);
            }
            toldAt.set(System.nanoTime());
          }
        });

    // When its heartbeats stop being sent while its connection stays up
    scheduler.on = false;

    // Then the session is declared lost at zklock's deadline, with its node still on the ensemble
    Awaitility.await().atMost(Duration.ofNanos(2 * timeout)).until(() -> toldAt.get() != 0);
    assertThat(existedWhenTold)
        .as("the node was there when the loss was told")
        .containsExactly(true);
    // and nothing new goes out on the old handle, connected as it is: a create on it (a request
    // that took the connection just before the declaration) is answered SESSIONEXPIRED at once,
    // and makes no node of a session whose holders and waiters were told it ended
    String late = "/declared-lost-late-" + Long.toHexString(old.sessionId());
    CompletableFuture<Code> lateCreate = new CompletableFuture<>();
    old.ops()
        .create(
            late,
            new byte[0],
            ZooDefs.Ids.OPEN_ACL_UNSAFE,
            CreateMode.EPHEMERAL,
            (rc, p, c, name, stat) -> lateCreate.complete(Code.get(rc)));
    assertThat(lateCreate.get(10, TimeUnit.SECONDS)).isEqualTo(Code.SESSIONEXPIRED);
    assertThat(raw().exists(late, false)).as("the late create never reached the server").isNull();
    // The handle itself was still open when the loss was told. (Asked there, not here: it closes
    // one margin after the declaration, and on a loaded machine the late create and the read
    // above can take longer than that.)
    assertThat(aliveWhenTold).as("the handle itself is still open").containsExactly(true);
    // and the old handle is closed, ending the session and its node, once the ensemble could have
    // expired it: no earlier than T after the last answered heartbeat, and not much later
    Awaitility.await().atMost(Duration.ofNanos(2 * timeout)).until(() -> deletedAt.get() != 0);
    assertThat(deletedAt.get() - heardAt.get())
        .as("the close waited for the ensemble's earliest expiry, heardSentAt + T")
        .isGreaterThanOrEqualTo(timeout);
    assertThat(deletedAt.get()).isGreaterThan(toldAt.get());
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> !handle(old).getState().isAlive());
    assertThat(states).doesNotContain("CONNECTED:" + Long.toHexString(old.sessionId()));
  }

  /** ZooKeeper's handle under a live connection (the test looks at the server through it). */
  private static org.apache.zookeeper.ZooKeeper handle(Session.Conn conn) {
    return ((LiveZk.Client) conn.client()).handle();
  }
}
