package io.zklock.curator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.LeaderElection;
import io.zklock.LeadershipListener;
import io.zklock.LockInfo;
import io.zklock.LockNode;
import io.zklock.LockOptions;
import io.zklock.ZkLocks;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.junit.jupiter.api.Test;

/**
 * The Curator-compatible election ({@link ZkLocks#leaderElection(String, String, LockOptions)} with
 * {@link LockOptions#curatorCompatible()}) among real Curator 5.9 {@link LeaderLatch} participants
 * on the same path: leadership passes between the libraries in queue order, and each side names the
 * other's leader.
 */
class CuratorLeaderLatchTest extends CuratorTestBase {
  private static final LockOptions COMPAT = LockOptions.curatorCompatible();

  /** Records what a zklock participant's listener hears, in order. */
  private static final class Heard implements LeadershipListener {
    final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public void elected(long epoch) {
      events.add("elected");
    }

    @Override
    public void revoked(long epoch) {
      events.add("revoked");
    }
  }

  private LeaderLatch latch(CuratorClient c, String name) throws Exception {
    LeaderLatch latch = new LeaderLatch(c.framework, "/" + name, c.name);
    latch.start();
    return latch;
  }

  /** Waits until {@code latch} leads, failing after the tests' wait. */
  private static LeaderLatch leads(LeaderLatch latch) throws Exception {
    assertThat(latch.await(WAIT.toSeconds(), TimeUnit.SECONDS))
        .as("Curator latch " + latch.getId() + " leads")
        .isTrue();
    return latch;
  }

  /** Starts zklock participant "z1" of {@code z} on {@code name}, telling {@code heard}. */
  private static LeaderElection started(ZkLocks z, String name, Heard heard) {
    LeaderElection e = z.leaderElection(name, "z1", COMPAT);
    e.addListener(heard);
    e.start();
    return e;
  }

  @Test
  void leadershipPassesCuratorToZklockToCurator_inQueueOrder_andEachSideNamesTheLeader()
      throws Exception {
    // Given a Curator latch leading, then a zklock participant, then another Curator latch
    String name = newName("latch");
    CuratorClient c1 = curator("c1");
    LeaderLatch l1 = leads(latch(c1, name));
    ZkLocks z = zklock("z");
    Heard heard = new Heard();
    LeaderElection e = started(z, name, heard);
    awaitChildren(c1, name, 2);
    CuratorClient c2 = curator("c2");
    LeaderLatch l2 = latch(c2, name);
    awaitChildren(c1, name, 3);

    // Then both libraries name the Curator leader, and see each other's participants
    assertThat(e.isLeader()).isFalse();
    assertThat(e.leader()).contains("c1");
    assertThat(l2.getLeader().getId()).isEqualTo("c1");
    assertThat(l1.getParticipants()).extracting(p -> p.getId()).containsExactly("c1", "z1", "c2");
    assertThat(e.participants())
        .extracting(LockNode::kind)
        .containsOnly(LockNode.Kind.CURATOR_LATCH);
    LockInfo info = z.inspect(name).orElseThrow();
    assertThat(info.kind()).isEqualTo(LockInfo.Kind.ELECTION);
    assertThat(info.holders().get(0).data()).containsEntry("curator", "c1");
    assertThat(info.holders().get(0).participantId()).contains("c1");
    assertThat(info.waiters())
        .extracting(n -> n.participantId().orElse(""))
        .containsExactly("z1", "c2");

    // When the Curator leader leaves, the zklock participant leads, and Curator names it
    l1.close();
    assertThat(e.awaitLeadership(WAIT)).isTrue();
    await().atMost(WAIT).until(() -> heard.events.equals(List.of("elected")));
    assertThat(l2.hasLeadership()).isFalse();
    assertThat(l2.getLeader().getId()).isEqualTo("z1");
    assertThat(e.leader()).contains("z1");

    // When the zklock leader leaves, the second Curator latch leads
    e.close();
    leads(l2);
    assertThat(heard.events).containsExactly("elected", "revoked");
    l2.close();
    awaitChildren(c1, name, 0);
  }

  @Test
  void zklockLeaderExpires_revokedIsHeard_andCuratorLatchBehindLeads() throws Exception {
    String name = newName("latch-zklock-expires");
    ZkLocks z = zklock("z");
    Heard heard = new Heard();
    LeaderElection e = started(z, name, heard);
    assertThat(e.awaitLeadership(WAIT)).isTrue();
    CuratorClient c = curator("c");
    LeaderLatch l = latch(c, name);
    awaitChildren(c, name, 2);

    // When the zklock leader's session expires
    server.expireSession(z.sessionId());

    // Then it hears revoked, and the Curator latch leads (the zklock participant queues again)
    await().atMost(WAIT).until(() -> heard.events.contains("revoked"));
    leads(l);
    assertThat(e.isLeader()).isFalse();
    l.close();
    assertThat(e.awaitLeadership(WAIT)).as("the zklock participant leads again").isTrue();
    e.close();
  }

  @Test
  void zklockFollowerExpires_joinsAgainBehindTheCuratorLatchThatJoinedMeanwhile() throws Exception {
    // Given a Curator latch leading and a zklock participant following it
    String name = newName("latch-follower-expires");
    CuratorClient c1 = curator("c1");
    LeaderLatch l1 = leads(latch(c1, name));
    ZkLocks z = zklock("z");
    Heard heard = new Heard();
    LeaderElection e = started(z, name, heard);
    awaitChildren(c1, name, 2);
    long expired = z.sessionId();

    // When its session expires, and another Curator latch joins before it is back
    server.expireSession(expired);
    awaitChildren(c1, name, 1);
    LeaderLatch l2 = latch(curator("c2"), name);
    awaitChildren(c1, name, 2);
    await().atMost(WAIT).until(() -> z.sessionId() != expired && children(c1, name).size() == 3);

    // Then it joined again with one node, on its new session, behind the latch that joined
    // meanwhile: when the leader leaves, that latch leads, then the zklock participant
    List<LockNode> zNodes =
        z.inspect(name).orElseThrow().waiters().stream()
            .filter(n -> n.participantId().orElse("").equals("z1"))
            .toList();
    assertThat(zNodes).hasSize(1);
    assertThat(zNodes.get(0).sessionId()).isEqualTo(z.sessionId());
    l1.close();
    leads(l2);
    assertThat(e.isLeader()).isFalse();
    assertThat(heard.events).as("never elected meanwhile").isEmpty();
    l2.close();
    assertThat(e.awaitLeadership(WAIT)).isTrue();
    e.close();
    awaitChildren(c1, name, 0);
  }

  @Test
  void curatorLeaderExpires_zklockParticipantBehindLeads() throws Exception {
    String name = newName("latch-curator-expires");
    CuratorClient c = curator("c");
    LeaderLatch l = leads(latch(c, name));
    LeaderElection e = started(zklock("z"), name, new Heard());
    awaitChildren(c, name, 2);

    server.expireSession(c.sessionId());

    assertThat(e.awaitLeadership(WAIT)).isTrue();
    e.close();
    l.close();
  }

  @Test
  void zklockParticipantLeavesBeforeLeading_betweenCuratorLatches_leavesNoNode() throws Exception {
    // Given a Curator latch leading, a zklock participant behind it, and a Curator latch behind
    // that
    String name = newName("latch-leaves");
    CuratorClient c1 = curator("c1");
    LeaderLatch l1 = leads(latch(c1, name));
    Heard heard = new Heard();
    LeaderElection e = started(zklock("z"), name, heard);
    awaitChildren(c1, name, 2);
    LeaderLatch l2 = latch(curator("c2"), name);
    awaitChildren(c1, name, 3);

    // When the zklock participant leaves before it leads
    e.close();

    // Then its node is gone, it heard nothing, and leadership passes from c1 straight to c2
    awaitChildren(c1, name, 2);
    assertThat(l1.getParticipants()).extracting(p -> p.getId()).containsExactly("c1", "c2");
    l1.close();
    leads(l2);
    assertThat(heard.events).isEmpty();
    l2.close();
    awaitChildren(c1, name, 0);
  }

  @Test
  void leadersOfBothLibraries_inTurn_neverOverlap_andZklockEpochsRise() throws Exception {
    // Given participants of both libraries queued alternately, each leading until the test ends
    // its term
    String name = newName("latch-turns");
    FencingChecker checker = new FencingChecker();
    CuratorClient reader = curator("reader");
    List<Object> queue = new java.util.ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      String who = (i % 2 == 1 ? "c" : "z") + i;
      if (i % 2 == 1) {
        queue.add(latch(curator(who), name));
      } else {
        LeaderElection e = zklock(who).leaderElection(name, who, COMPAT);
        e.start();
        queue.add(e);
      }
      awaitChildren(reader, name, i);
    }

    // When each leader in turn leaves, the next leads, alone
    for (int i = 0; i < queue.size(); i++) {
      String who = (i % 2 == 0 ? "c" : "z") + (i + 1);
      Object p = queue.get(i);
      if (p instanceof LeaderLatch l) {
        leads(l);
        checker.enter(who, -1);
      } else {
        LeaderElection e = (LeaderElection) p;
        assertThat(e.awaitLeadership(WAIT)).isTrue();
        checker.enter(who, e.epoch().orElseThrow());
      }
      for (Object other : queue.subList(i + 1, queue.size())) {
        assertThat(
                other instanceof LeaderLatch l
                    ? l.hasLeadership()
                    : ((LeaderElection) other).isLeader())
            .as("a participant behind " + who + " leads with it")
            .isFalse();
      }
      checker.exit(who);
      if (p instanceof LeaderLatch l) {
        l.close();
      } else {
        ((LeaderElection) p).close();
      }
    }

    // Then the terms came in queue order, zklock's epochs rising, and nothing is left
    assertThat(checker.problems()).isEmpty();
    assertThat(checker.entries()).containsExactly("c1", "z2", "c3", "z4");
    awaitChildren(reader, name, 0);
  }
}
