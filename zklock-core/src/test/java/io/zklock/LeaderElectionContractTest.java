package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.Test;

/**
 * A {@link LeaderElection} is not a {@link DistributedLock}, but it keeps the analogous cases of
 * {@link LockContractTest}: a closed {@link ZkLocks}, closing twice and from another thread, zero
 * and negative timeouts, interruption, callbacks off ZooKeeper's event thread, and what a closed
 * participant does when asked to requeue.
 */
class LeaderElectionContractTest extends ZkTestSupport {

  /** Records a participant's listener calls, and the threads they ran on. */
  static final class Recorder implements LeadershipListener {
    final List<String> events = new CopyOnWriteArrayList<>();
    final List<Thread> threads = new CopyOnWriteArrayList<>();

    @Override
    public void elected(long epoch) {
      threads.add(Thread.currentThread());
      events.add("elected " + epoch);
    }

    @Override
    public void revoked(long epoch) {
      threads.add(Thread.currentThread());
      events.add("revoked " + epoch);
    }
  }

  private static ConditionFactory soon(String what) {
    return await(what)
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(20))
        .atMost(Duration.ofSeconds(10));
  }

  /** A started participant {@code id} of election {@code name} on a client of its own. */
  private LeaderElection started(String name, String id, Recorder r) {
    LeaderElection e = track(client(id).leaderElection(name, id));
    if (r != null) {
      e.addListener(r);
    }
    e.start();
    return e;
  }

  /**
   * Waits until {@code e} leads and its recorder {@code r} has heard it, so that what the test does
   * next is ordered after the {@code elected} call.
   */
  private static long awaitElected(LeaderElection e, Recorder r) throws InterruptedException {
    assertThat(e.awaitLeadership(Duration.ofSeconds(10))).as("elected").isTrue();
    long epoch = e.epoch().orElseThrow();
    soon("elected " + epoch + " is heard").until(() -> r.events.contains("elected " + epoch));
    return epoch;
  }

  private List<String> ids(LeaderElection viewer) {
    return viewer.participants().stream().map(n -> n.participantId().orElseThrow()).toList();
  }

  // ------------------------------------------------------------------ a closed ZkLocks

  @Test
  void start_onAClosedInstance_throwsZkLockException_andLeavesNoNode() throws Exception {
    ZkLocks locks = client();
    LeaderElection before = locks.leaderElection("closed", "a");
    locks.close();
    LeaderElection after = locks.leaderElection("closed", "b");

    assertThatThrownBy(before::start)
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(after::start)
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("closed");
    assertThat(before.isLeader()).isFalse();
    assertThat(before.awaitLeadership(Duration.ZERO)).isFalse();
    before.close(); // harmless
    assertNoLockNodes();
  }

  @Test
  void requeue_neverStarted_onAClosedInstance_throwsZkLockException() throws Exception {
    ZkLocks locks = client();
    LeaderElection e = locks.leaderElection("closed-requeue", "a");
    locks.close();

    // a participant not started is started by requeue(), which a closed instance refuses
    assertThatThrownBy(e::requeue)
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("closed");
    assertNoLockNodes();
  }

  @Test
  void requeue_afterItLed_onAClosedInstance_throwsZkLockException() throws Exception {
    ZkLocks locks = client();
    LeaderElection e = track(locks.leaderElection("closed-requeue-led", "a"));
    e.start();
    assertThat(e.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    locks.close();
    soon("leadership ends with the instance").until(() -> !e.isLeader());

    assertThatThrownBy(e::requeue)
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void closingTheInstance_revokesTheLeader_andDeletesItsNode() throws Exception {
    // Given a leader
    Recorder r = new Recorder();
    ZkLocks locks = client("a");
    LeaderElection e = track(locks.leaderElection("close-instance", "a"));
    e.addListener(r);
    e.start();
    long epoch = awaitElected(e, r);

    // When its ZkLocks is closed
    locks.close();

    // Then it no longer leads, hears revoked for its term, and its node is gone
    assertThat(e.isLeader()).isFalse();
    assertThat(e.epoch()).isEmpty();
    soon("revoked is heard")
        .untilAsserted(
            () -> assertThat(r.events).containsExactly("elected " + epoch, "revoked " + epoch));
    // (today it waits out its timeout: the participant is not closed, only its ZkLocks is)
    assertThat(e.awaitLeadership(Duration.ofMillis(100))).isFalse();
    e.close(); // harmless
    e.close();
    assertNoLockNodes();
  }

  // ------------------------------------------------------------------ close

  @Test
  void close_twice_isHarmless_andRevokedIsHeardOnce() throws Exception {
    Recorder ra = new Recorder();
    LeaderElection a = started("twice", "a", ra);
    awaitElected(a, ra);
    LeaderElection b = started("twice", "b", null);
    b.start(); // idempotent while started
    soon("b is queued").until(() -> lockNodes().size() == 2);
    assertThat(b.awaitLeadership(Duration.ofMillis(50))).isFalse();

    a.close();
    a.close();

    assertThat(b.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    assertThat(b.leader()).contains("b");
    assertThat(a.isLeader()).isFalse();
    soon("a heard revoked").until(() -> ra.events.size() == 2);
    assertThat(ra.events.get(1)).startsWith("revoked");
    assertThat(ids(b)).containsExactly("b");
    a.close();
    assertThat(ra.events).as("told once").hasSize(2);
    assertThat(b.isLeader()).as("a later close of a does not touch b").isTrue();
    b.close();
    assertNoLockNodes();
  }

  @Test
  void close_neverStarted_isHarmless() throws Exception {
    LeaderElection e = track(client().leaderElection("never", "a"));

    e.close();
    e.close();

    assertThat(e.isLeader()).isFalse();
    assertThat(e.awaitLeadership(Duration.ofSeconds(5))).as("closed: answers at once").isFalse();
    assertNoLockNodes();
  }

  @Test
  void close_fromAnotherThread_resigns_andTheNextIsElected() throws Exception {
    // Given a leader started on this thread, and a waiting participant
    Recorder ra = new Recorder();
    LeaderElection a = started("thread", "a", ra);
    long epoch = awaitElected(a, ra);
    LeaderElection b = started("thread", "b", null);
    soon("b is queued").until(() -> lockNodes().size() == 2);

    // When another thread closes it
    CompletableFuture<Void> closed = new CompletableFuture<>();
    new Thread(
            () -> {
              try {
                a.close();
                closed.complete(null);
              } catch (Throwable t) {
                closed.completeExceptionally(t);
              }
            })
        .start();
    closed.get(10, TimeUnit.SECONDS);

    // Then close() returned after the resignation: a is revoked, its node is gone, b leads
    assertThat(a.isLeader()).isFalse();
    assertThat(ra.events).containsExactly("elected " + epoch, "revoked " + epoch);
    assertThat(lockNodes()).hasSize(1);
    assertThat(b.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    assertThat(b.epoch().orElseThrow()).isGreaterThan(epoch);
    b.close();
    assertNoLockNodes();
  }

  @Test
  void close_wakesAWaitingAwaitLeadership_whichAnswersFalse() throws Exception {
    LeaderElection a = started("wake", "a", null);
    assertThat(a.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    LeaderElection b = started("wake", "b", null);
    soon("b is queued").until(() -> lockNodes().size() == 2);
    CompletableFuture<Boolean> waiting = new CompletableFuture<>();
    Thread waiter =
        new Thread(
            () -> {
              try {
                waiting.complete(b.awaitLeadership(Duration.ofSeconds(60)));
              } catch (Throwable t) {
                waiting.completeExceptionally(t);
              }
            });
    waiter.start();
    soon("the waiter is waiting").until(() -> waiter.getState() == Thread.State.TIMED_WAITING);

    b.close();

    assertThat(waiting.get(10, TimeUnit.SECONDS))
        .as("woken by close, not by the timeout")
        .isFalse();
    assertThat(a.isLeader()).isTrue();
    soon("b's node is gone").until(() -> lockNodes().size() == 1);
    a.close();
    assertNoLockNodes();
  }

  // ------------------------------------------------------------------ awaitLeadership timeouts

  @Test
  void awaitLeadership_zeroTimeout_answersAtOnce() throws Exception {
    LeaderElection a = started("zero", "a", null);
    assertThat(a.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    LeaderElection b = started("zero", "b", null);
    soon("b is queued").until(() -> lockNodes().size() == 2);

    assertThat(a.awaitLeadership(Duration.ZERO)).as("the leader").isTrue();
    // a never resigns here: an answer proves b did not wait for it
    CompletableFuture<Boolean> waiter =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return b.awaitLeadership(Duration.ZERO);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    assertThat(waiter.get(10, TimeUnit.SECONDS)).as("a waiting participant").isFalse();
    assertThat(ids(a)).as("nothing changed").containsExactly("a", "b");
  }

  @Test
  void awaitLeadership_negativeTimeout_throwsIllegalArgumentNamingTheValue() throws Exception {
    LeaderElection a = started("negative", "a", null);
    assertThat(a.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    LeaderElection b = track(client().leaderElection("negative", "b"));

    assertThatThrownBy(() -> a.awaitLeadership(Duration.ofMillis(-1)))
        .as("even a leader")
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-0.001");
    assertThatThrownBy(() -> b.awaitLeadership(Duration.ofSeconds(-5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-5");
    assertThatThrownBy(() -> b.awaitLeadership(Duration.ofSeconds(Long.MAX_VALUE)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("too large");
    assertThat(a.isLeader()).isTrue();
    assertThat(ids(a)).containsExactly("a");
  }

  @Test
  void awaitLeadership_interruptedBefore_throwsInterrupted_andKeepsItsPlace() throws Exception {
    LeaderElection a = started("interrupt", "a", null);
    assertThat(a.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    LeaderElection b = started("interrupt", "b", null);
    soon("b is queued").until(() -> lockNodes().size() == 2);

    CompletableFuture<Throwable> outcome = new CompletableFuture<>();
    new Thread(
            () -> {
              Thread.currentThread().interrupt();
              try {
                b.awaitLeadership(Duration.ofSeconds(30));
                outcome.complete(null);
              } catch (Throwable t) {
                outcome.complete(t);
              }
            })
        .start();

    assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    // waiting for leadership is not taking part: the participant stays queued
    assertThat(ids(a)).containsExactly("a", "b");
    a.close();
    assertThat(b.awaitLeadership(Duration.ofSeconds(10))).isTrue();
  }

  // ------------------------------------------------------------------ requeue after close

  @Test
  void requeue_afterClose_startsAgain_asANewParticipantAtTheBack() throws Exception {
    // Given a participant that led and closed, and another that leads now
    Recorder ra = new Recorder();
    LeaderElection a = started("requeue-closed", "a", ra);
    long first = awaitElected(a, ra);
    a.close();
    LeaderElection b = started("requeue-closed", "b", null);
    assertThat(b.awaitLeadership(Duration.ofSeconds(10))).isTrue();

    // When the closed one is asked to requeue
    a.requeue();

    // Then it is started again, at the back, and is elected after b with a greater epoch
    soon("a is queued again").until(() -> lockNodes().size() == 2);
    assertThat(ids(b)).containsExactly("b", "a");
    assertThat(a.isLeader()).isFalse();
    b.close();
    assertThat(a.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    assertThat(a.epoch().orElseThrow()).isGreaterThan(first);
    soon("a heard its second term").until(() -> ra.events.size() == 3);
    assertThat(ra.events.get(1)).isEqualTo("revoked " + first);
    a.close();
    assertNoLockNodes();
  }

  // ------------------------------------------------------------------ threads

  @Test
  void listeners_hearElectedBeforeRevoked_whenClosedRightAfterTheGrant() throws Exception {
    // Given a participant whose listener records every call
    Recorder r = new Recorder();
    LeaderElection a = track(client().leaderElection("order", "a"));
    a.addListener(r);
    int rounds = 200;

    // When it is closed as soon as awaitLeadership() says it leads, many times over
    for (int i = 0; i < rounds; i++) {
      a.start();
      assertThat(a.awaitLeadership(Duration.ofSeconds(10))).isTrue();
      a.close();
    }

    // Then every term was told in order: elected, then revoked, with the same epoch
    soon("every call is made").until(() -> r.events.size() == 2 * rounds);
    for (int i = 0; i < rounds; i++) {
      String elected = r.events.get(2 * i);
      String revoked = r.events.get(2 * i + 1);
      List<String> around =
          r.events.subList(Math.max(0, 2 * i - 2), Math.min(2 * rounds, 2 * i + 4));
      assertThat(elected)
          .as("term %d of %d, calls around it %s", i, rounds, around)
          .startsWith("elected ");
      assertThat(revoked)
          .as("term %d of %d, calls around it %s", i, rounds, around)
          .isEqualTo("revoked " + elected.substring("elected ".length()));
    }
  }

  @Test
  void listeners_areNeverCalledOnZooKeepersEventThread() throws Exception {
    Recorder r = new Recorder();
    LeaderElection a = started("threads", "a", r);
    awaitElected(a, r);
    LeaderElection b = started("threads", "b", null);
    soon("b is queued").until(() -> lockNodes().size() == 2);

    a.requeue(); // revoked, then elected again after b closes
    b.close();
    soon("elected, revoked, elected").until(() -> r.events.size() == 3);

    assertThat(r.threads)
        .extracting(Thread::getName)
        .as("LeaderElection: listeners run on the library's executor")
        .allSatisfy(
            n -> {
              assertThat(n).doesNotContain("EventThread").doesNotContain("SendThread");
              assertThat(n).startsWith("zklock-");
            });
    a.close();
    assertNoLockNodes();
  }
}
