package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class LeaderElectionTest extends ZkTestSupport {

  /** Records a participant's listener calls. */
  static final class Recorder implements LeadershipListener {
    final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public void elected(long epoch) {
      events.add("elected " + epoch);
    }

    @Override
    public void revoked(long epoch) {
      events.add("revoked " + epoch);
    }
  }

  private static long leaders(List<LeaderElection> es) {
    return es.stream().filter(LeaderElection::isLeader).count();
  }

  @Test
  void leaderSessionExpires_exactlyOneNewLeader_andTheOldOneIsRevoked() throws Exception {
    List<ZkLocks> clients = new ArrayList<>();
    List<LeaderElection> es = new ArrayList<>();
    List<Recorder> recorders = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ZkLocks c = client("p" + i);
      LeaderElection e = track(c.leaderElection("scheduler", "node-" + i));
      Recorder r = new Recorder();
      e.addListener(r);
      e.start();
      clients.add(c);
      es.add(e);
      recorders.add(r);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> leaders(es) == 1);
    int old = es.indexOf(es.stream().filter(LeaderElection::isLeader).findFirst().get());
    long oldEpoch = es.get(old).epoch().orElseThrow();
    for (LeaderElection e : es) {
      assertThat(e.leader()).as("every participant sees the leader").contains("node-" + old);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 3);

    server.expireSession(clients.get(old).sessionId());

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(recorders.get(old).events).contains("revoked " + oldEpoch));
    await().atMost(Duration.ofSeconds(10)).until(() -> leaders(es) == 1 && !es.get(old).isLeader());
    LeaderElection now = es.stream().filter(LeaderElection::isLeader).findFirst().get();
    assertThat(now.epoch().orElseThrow()).isGreaterThan(oldEpoch);
    // the old participant re-queues on its new session, behind the others
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 3);
    assertThat(leaders(es)).as("exactly one leader").isEqualTo(1);
    Optional<String> seen = es.get(old).leader();
    assertThat(seen).contains(now.participantId());
    assertThat(recorders.get(es.indexOf(now)).events)
        .containsExactly("elected " + now.epoch().orElseThrow());
  }

  /**
   * One participant of a handover chain: logs "elected i" when elected and "revoked i" when its
   * revoked returns, into one log shared by every participant (appends are totally ordered).
   */
  private static LeaderElection participant(ZkLocks c, int i, List<String> log, int revokeMillis) {
    LeaderElection e = c.leaderElection("handover", "p" + i);
    e.addListener(
        new LeadershipListener() {
          @Override
          public void elected(long epoch) {
            log.add("elected " + i);
          }

          @Override
          public void revoked(long epoch) {
            if (e.isLeader()) {
              log.add("still leader in revoked " + i);
            }
            try {
              Thread.sleep(revokeMillis); // a listener that takes a moment to stop its work
            } catch (InterruptedException ie) {
              Thread.currentThread().interrupt();
            }
            log.add("revoked " + i);
          }
        });
    return e;
  }

  @Test
  void close_everyRevokedReturnsBeforeTheNextParticipantIsElected() throws Exception {
    // Given a chain of participants on two sessions, each leader's revoked taking 20 ms
    ZkLocks[] clients = {client("c0"), client("c1")};
    List<String> log = java.util.Collections.synchronizedList(new ArrayList<>());
    int rounds = 30;
    LeaderElection[] ps = new LeaderElection[rounds + 1];
    for (int i = 0; i <= rounds; i++) {
      ps[i] = track(participant(clients[i % 2], i, log, 20));
    }
    ps[0].start();
    assertThat(ps[0].awaitLeadership(Duration.ofSeconds(10))).isTrue();
    for (int i = 0; i < rounds; i++) {
      ps[i + 1].start();
      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(10))
          .until(() -> lockNodes().size() == 2);

      // When the leader closes
      ps[i].close();

      // Then its revoked had returned before the next one heard elected
      assertThat(ps[i].isLeader()).isFalse();
      assertThat(ps[i + 1].awaitLeadership(Duration.ofSeconds(10))).isTrue();
      int next = i + 1;
      await().atMost(Duration.ofSeconds(10)).until(() -> log.contains("elected " + next));
      assertThat(log.indexOf("revoked " + i))
          .as("round %d: the old leader's revoked returned before the next elected; log %s", i, log)
          .isNotNegative()
          .isLessThan(log.indexOf("elected " + next));
    }
    assertThat(log)
        .as("nobody was told revoked while still leading")
        .noneMatch(l -> l.startsWith("still"));
    ps[rounds].close();
    awaitNoLockNodes();
  }

  @Test
  void close_calledInsideAListener_doesNotHang_andStillHandsOverInOrder() throws Exception {
    // Given a leader that closes its own election from its elected callback (a library thread)
    List<String> log = java.util.Collections.synchronizedList(new ArrayList<>());
    ZkLocks c0 = client("c0");
    LeaderElection b = track(participant(client("c1"), 1, log, 0));
    LeaderElection a = track(participant(c0, 0, log, 20));
    a.addListener(
        new LeadershipListener() {
          @Override
          public void elected(long epoch) {
            b.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 2);
            a.close();
          }

          @Override
          public void revoked(long epoch) {}
        });

    // When it starts
    a.start();

    // Then the next participant is elected, after the old leader's revoked returned
    assertThat(b.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    await().atMost(Duration.ofSeconds(10)).until(() -> log.contains("elected 1"));
    assertThat(log.indexOf("revoked 0")).isNotNegative().isLessThan(log.indexOf("elected 1"));
  }

  @Test
  void leaderNodeDeletedByAnOperator_revokedAtOnce_beforeItIsElectedAgain() throws Exception {
    // Given a sole participant that leads
    List<String> log = java.util.Collections.synchronizedList(new ArrayList<>());
    LeaderElection a = track(participant(client(), 0, log, 0));
    a.start();
    assertThat(a.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    long first = a.epoch().orElseThrow();
    await().atMost(Duration.ofSeconds(10)).until(() -> log.contains("elected 0"));
    String node = lockNodes().get(0);

    // When an operator deletes its node (the loss is known from its own-node watch)
    raw().delete(node, -1);

    // Then it hears revoked, while no longer leading, before it is elected again on a new node
    await().atMost(Duration.ofSeconds(10)).until(() -> log.contains("revoked 0"));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> a.isLeader() && a.epoch().orElseThrow() > first);
    await().atMost(Duration.ofSeconds(10)).until(() -> log.size() >= 3);
    assertThat(log).startsWith("elected 0", "revoked 0", "elected 0");
  }

  @Test
  void leaderLosesItsConnection_underTreatAsLost_isRevokedBeforeItsNodeGoesAndTheNextIsElected()
      throws Exception {
    // Given a leader behind a proxy that treats suspension as loss, and a waiting participant
    io.zklock.testkit.FaultProxy proxy =
        track(io.zklock.testkit.FaultProxy.start(server.connectString()));
    ZkLocks aClient =
        track(
            ZkLocks.builder(proxy.connectString())
                .namespace(namespace)
                .sessionTimeout(Duration.ofSeconds(10))
                .suspensionPolicy(SuspensionPolicy.TREAT_AS_LOST)
                .build());
    List<String> log = java.util.Collections.synchronizedList(new ArrayList<>());
    LeaderElection a = track(participant(aClient, 0, log, 0));
    a.start();
    assertThat(a.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    LeaderElection b = track(participant(client(), 1, log, 0));
    b.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 2);

    // When the leader's connection drops (and cannot come back yet)
    proxy.refuse();

    // Then it is told at once, while its node still stands, so nobody else leads yet
    await().atMost(Duration.ofSeconds(10)).until(() -> log.contains("revoked 0"));
    assertThat(a.isLeader()).isFalse();
    assertThat(b.isLeader()).as("the old leader's node is still there").isFalse();
    assertThat(lockNodes()).hasSize(2);

    // And once it reconnects, its node goes and the next participant is elected, after the revoke
    proxy.pass();
    assertThat(b.awaitLeadership(Duration.ofSeconds(15))).isTrue();
    await().atMost(Duration.ofSeconds(10)).until(() -> log.contains("elected 1"));
    assertThat(log.indexOf("revoked 0")).isLessThan(log.indexOf("elected 1"));
  }
}
