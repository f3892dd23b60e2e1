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

  @Test
  void closingTheLeader_handsLeadershipOn() throws Exception {
    LeaderElection a = track(client().leaderElection("job", "a"));
    Recorder ra = new Recorder();
    a.addListener(ra);
    a.start();
    assertThat(a.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    LeaderElection b = track(client().leaderElection("job", "b"));
    b.start();
    b.start(); // idempotent
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 2);
    assertThat(b.awaitLeadership(Duration.ofMillis(50))).isFalse();

    a.close();

    assertThat(b.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    assertThat(b.leader()).contains("b");
    await().atMost(Duration.ofSeconds(10)).until(() -> ra.events.size() == 2);
    assertThat(ra.events.get(1)).startsWith("revoked");
    assertThat(a.isLeader()).isFalse();
    b.close();
    awaitNoLockNodes();
  }
}
