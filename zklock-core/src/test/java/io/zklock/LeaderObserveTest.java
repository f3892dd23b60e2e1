package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Leader election beyond electing: observers (participants or not), the participants in order,
 * requeue, and restarting a closed election.
 */
class LeaderObserveTest extends ZkTestSupport {

  /** Records what an observer hears, as "id@epoch" or "none". */
  static final class Seen implements LeaderObserver {
    final List<Optional<Leader>> calls = new CopyOnWriteArrayList<>();

    @Override
    public void leaderChanged(Optional<Leader> leader) {
      calls.add(leader);
    }

    /** The leaders heard, in order, leaving out "nobody". */
    List<Leader> leaders() {
      List<Leader> out = new ArrayList<>();
      calls.forEach(l -> l.ifPresent(out::add));
      return out;
    }

    List<String> ids() {
      return leaders().stream().map(Leader::participantId).toList();
    }
  }

  /** Records a participant's listener calls into a log shared by several participants. */
  private static LeaderElection participant(
      ZkLocks c, String election, String id, List<String> log) {
    LeaderElection e = c.leaderElection(election, id);
    e.addListener(
        new LeadershipListener() {
          @Override
          public void elected(long epoch) {
            log.add("elected " + id + " " + epoch);
          }

          @Override
          public void revoked(long epoch) {
            log.add("revoked " + id + " " + epoch);
          }
        });
    return e;
  }

  private static long leaders(List<LeaderElection> es) {
    return es.stream().filter(LeaderElection::isLeader).count();
  }

  @Test
  void observers_seeEveryLeaderInOrder_acrossLeadersSessionExpiries_withRisingEpochs()
      throws Exception {
    // Given an observer that does not take part, and three participants each observing too
    List<String> log = Collections.synchronizedList(new ArrayList<>());
    LeaderElection watcher = track(client("watcher").leaderElection("scheduler", "watcher"));
    Seen outside = new Seen();
    watcher.addObserver(outside);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(outside.calls).containsExactly(Optional.empty()));
    List<ZkLocks> clients = new ArrayList<>();
    List<LeaderElection> es = new ArrayList<>();
    List<Seen> seen = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ZkLocks c = client("p" + i);
      LeaderElection e = track(participant(c, "scheduler", "p" + i, log));
      Seen s = new Seen();
      e.addObserver(s);
      e.start();
      int n = i + 1;
      await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == n);
      clients.add(c);
      es.add(e);
      seen.add(s);
    }
    List<Seen> all = new ArrayList<>(seen);
    all.add(outside);
    awaitAllSaw(all, List.of("p0"));

    // When the leader's session expires, and then the next leader's
    server.expireSession(clients.get(0).sessionId());
    awaitAllSaw(all, List.of("p0", "p1"));
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 3); // p0 queued again
    server.expireSession(clients.get(1).sessionId());

    // Then every observer heard p0, p1, p2 in order, each with the epoch it was elected with
    awaitAllSaw(all, List.of("p0", "p1", "p2"));
    await().atMost(Duration.ofSeconds(10)).until(() -> leaders(es) == 1 && es.get(2).isLeader());
    long[] epochs = new long[3];
    for (int i = 0; i < 3; i++) {
      String prefix = "elected p" + i + " ";
      epochs[i] =
          Long.parseLong(
              log.stream()
                  .filter(l -> l.startsWith(prefix))
                  .findFirst()
                  .orElseThrow()
                  .substring(prefix.length()));
    }
    assertThat(epochs[0]).isLessThan(epochs[1]);
    assertThat(epochs[1]).isLessThan(epochs[2]);
    assertThat(es.get(2).epoch()).contains(epochs[2]);
    for (Seen s : all) {
      assertThat(s.leaders())
          .as("what an observer heard: %s", s.calls)
          .extracting(Leader::epoch)
          .containsExactly(epochs[0], epochs[1], epochs[2]);
      assertThat(s.leaders().get(2).node().clientName()).isEqualTo("p2");
      assertThat(s.leaders().get(2).node().sessionId()).isEqualTo(clients.get(2).sessionId());
    }
    assertThat(outside.calls.get(0)).as("the outside observer first heard: nobody").isEmpty();
    assertThat(outside.calls).hasSize(4);
    assertThat(watcher.isLeader()).as("an observer that never started takes no part").isFalse();
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 3); // p1 queued again
    assertThat(watcher.participants())
        .extracting(n -> n.participantId().orElseThrow())
        .containsExactly("p2", "p0", "p1");
  }

  private static void awaitAllSaw(List<Seen> all, List<String> ids) {
    await()
        .atMost(Duration.ofSeconds(15))
        .untilAsserted(
            () -> {
              for (Seen s : all) {
                assertThat(s.ids()).as("heard %s", s.calls).isEqualTo(ids);
              }
            });
  }

  @Test
  void observerAddedLater_hearsTheCurrentLeaderFirst_andRemovedHearsNoMore() throws Exception {
    LeaderElection a = track(client().leaderElection("job", "a"));
    a.start();
    assertThat(a.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    ZkLocks other = client();
    LeaderElection view = track(other.leaderElection("job", "viewer"));
    Seen s = new Seen();
    view.addObserver(s);
    await().atMost(Duration.ofSeconds(10)).until(() -> s.calls.size() == 1);
    assertThat(s.leaders().get(0).participantId()).isEqualTo("a");
    assertThat(s.leaders().get(0).epoch()).isEqualTo(a.epoch().orElseThrow());
    Seen late = new Seen();
    view.addObserver(late);
    await().atMost(Duration.ofSeconds(10)).until(() -> late.calls.size() == 1);
    assertThat(late.calls).isEqualTo(s.calls);

    view.removeObserver(s);
    a.close();

    await().atMost(Duration.ofSeconds(10)).until(() -> late.calls.size() == 2);
    assertThat(late.calls.get(1)).as("nobody takes part after the leader left").isEmpty();
    assertThat(s.calls).as("a removed observer hears nothing more").hasSize(1);
    assertThat(view.participants()).isEmpty();
  }

  @Test
  void participants_listedInQueueOrder_leaderFirst() throws Exception {
    List<String> log = Collections.synchronizedList(new ArrayList<>());
    List<LeaderElection> es = new ArrayList<>();
    for (String id : List.of("a", "b", "c")) {
      LeaderElection e = track(participant(client(id), "ordered", id, log));
      e.start();
      int n = es.size() + 1;
      await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == n);
      es.add(e);
    }
    assertThat(es.get(0).awaitLeadership(Duration.ofSeconds(10))).isTrue();

    for (LeaderElection e : es) {
      List<LockNode> ps = e.participants();
      assertThat(ps)
          .extracting(n -> n.participantId().orElseThrow())
          .containsExactly("a", "b", "c");
      assertThat(ps).extracting(LockNode::clientName).containsExactly("a", "b", "c");
      assertThat(ps.get(0).fencingToken()).isEqualTo(es.get(0).epoch().orElseThrow());
    }
  }

  @Test
  void requeue_leaderGivesUpAndQueuesAtTheBack_nextIsElectedAfterTheRevoke() throws Exception {
    // Given a leads, b and c wait
    List<String> log = Collections.synchronizedList(new ArrayList<>());
    List<LeaderElection> es = new ArrayList<>();
    for (String id : List.of("a", "b", "c")) {
      LeaderElection e = track(participant(client(id), "requeued", id, log));
      e.start();
      int n = es.size() + 1;
      await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == n);
      es.add(e);
    }
    LeaderElection a = es.get(0);
    LeaderElection b = es.get(1);
    assertThat(a.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    long first = a.epoch().orElseThrow();

    // When a requeues
    a.requeue();

    // Then a was revoked (before b was elected), b leads, and a queues behind c without leaving
    assertThat(a.isLeader()).isFalse();
    assertThat(b.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> log.stream().anyMatch(l -> l.startsWith("elected b")));
    assertThat(log.indexOf("revoked a " + first))
        .as("log %s", log)
        .isNotNegative()
        .isLessThan(indexOfPrefix(log, "elected b"));
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 3);
    assertThat(a.participants())
        .extracting(n -> n.participantId().orElseThrow())
        .containsExactly("b", "c", "a");
    assertThat(b.epoch().orElseThrow()).isGreaterThan(first);

    // And a requeue of a waiting participant keeps its place
    es.get(2).requeue();
    assertThat(a.participants())
        .extracting(n -> n.participantId().orElseThrow())
        .containsExactly("b", "c", "a");
  }

  @Test
  void requeue_aloneIsElectedAgain_withAGreaterEpoch_andRequeueFromInsideElected()
      throws Exception {
    List<String> log = Collections.synchronizedList(new ArrayList<>());
    LeaderElection a = track(participant(client(), "alone", "a", log));
    // a listener that gives leadership up once from its own elected callback (a library thread)
    java.util.concurrent.atomic.AtomicBoolean once =
        new java.util.concurrent.atomic.AtomicBoolean();
    a.addListener(
        new LeadershipListener() {
          @Override
          public void elected(long epoch) {
            if (once.compareAndSet(false, true)) {
              a.requeue();
            }
          }

          @Override
          public void revoked(long epoch) {}
        });
    a.start();

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> log.size() == 3 && a.isLeader() && lockNodes().size() == 1);
    long first = Long.parseLong(log.get(0).substring("elected a ".length()));
    assertThat(log.get(1)).isEqualTo("revoked a " + first);
    assertThat(a.epoch().orElseThrow()).isGreaterThan(first);
    assertThat(log.get(2)).isEqualTo("elected a " + a.epoch().orElseThrow());
  }

  @Test
  void closedElection_canBeStartedAgain_andANewOneMadeWithTheSameId() throws Exception {
    // Given a participant that led and closed
    ZkLocks c = client();
    List<String> log = Collections.synchronizedList(new ArrayList<>());
    LeaderElection a = track(participant(c, "restart", "a", log));
    Seen seen = new Seen();
    a.addObserver(seen);
    a.start();
    assertThat(a.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    long first = a.epoch().orElseThrow();
    a.close();
    awaitNoLockNodes();
    assertThat(a.awaitLeadership(Duration.ofMillis(10))).isFalse();

    // When it starts again
    a.start();

    // Then it leads again, with a greater epoch, its listeners and observers kept
    assertThat(a.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    long second = a.epoch().orElseThrow();
    assertThat(second).isGreaterThan(first);
    await().atMost(Duration.ofSeconds(10)).until(() -> log.size() == 3);
    assertThat(log)
        .containsExactly("elected a " + first, "revoked a " + first, "elected a " + second);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(seen.leaders()).extracting(Leader::epoch).endsWith(second));

    // And after closing again, a new election with the same name and id on the same instance leads
    a.close();
    LeaderElection again = track(c.leaderElection("restart", "a"));
    again.start();
    assertThat(again.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    assertThat(again.epoch().orElseThrow()).isGreaterThan(second);
    assertThat(again.leader()).contains("a");
    again.close();
    awaitNoLockNodes();
  }

  private static int indexOfPrefix(List<String> log, String prefix) {
    synchronized (log) {
      for (int i = 0; i < log.size(); i++) {
        if (log.get(i).startsWith(prefix)) {
          return i;
        }
      }
    }
    return -1;
  }
}
