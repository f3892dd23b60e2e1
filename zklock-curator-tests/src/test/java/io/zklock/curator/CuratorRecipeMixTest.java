package io.zklock.curator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.zklock.LeaderElection;
import io.zklock.LockEvent;
import io.zklock.LockHandle;
import io.zklock.LockOptions;
import io.zklock.ZkLockException;
import io.zklock.ZkLocks;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.jfr.consumer.RecordingFile;
import jdk.jfr.consumer.RecordingStream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One recipe per path (issue 28): Curator 5.9 orders the nodes of its different recipes apart (a
 * {@code LeaderSelector}'s or {@code InterProcessMutex}'s {@code -lock-} nodes, a {@code
 * LeaderLatch}'s {@code -latch-} nodes), so a zklock request that joins a path holding the other
 * recipe's nodes refuses, with a {@link ZkLockException} that names the path and what it found, and
 * leaves no node; and an election whose path holds both kinds names no leader. The supported mixes
 * are {@code CuratorMutexTest}, {@code CuratorLeaderLatchTest}, {@code CuratorLeaderSelectorTest}.
 */
class CuratorRecipeMixTest extends CuratorTestBase {
  private static final LockOptions COMPAT = LockOptions.curatorCompatible();
  private static final long SECONDS = WAIT.toSeconds();

  /** A started selector that leads until the test ends. */
  private LeaderSelector leadingSelector(CuratorClient c, String name) throws Exception {
    CountDownLatch leads = new CountDownLatch(1);
    CountDownLatch end = new CountDownLatch(1);
    LeaderSelector s =
        new LeaderSelector(
            c.framework,
            "/" + name,
            new LeaderSelectorListenerAdapter() {
              @Override
              public void takeLeadership(CuratorFramework client) throws Exception {
                leads.countDown();
                end.await();
              }
            });
    s.setId(c.name);
    s.start();
    addCloseable(
        () -> {
          try {
            s.close();
          } catch (IllegalStateException closedByTheTest) {
            // closed already
          }
        });
    addCloseable(end::countDown); // closed first: takeLeadership returns, then the selector closes
    assertThat(leads.await(SECONDS, TimeUnit.SECONDS)).as("selector leads").isTrue();
    return s;
  }

  @Test
  void refusedElection_joinsByItself_onceTheSelectorIsGone() throws Exception {
    // Given a selector leading and a compatible election refused beside it
    String name = newName("mix-election-later");
    CuratorClient reader = curator("reader");
    CuratorClient sc = curator("s1");
    LeaderSelector s = leadingSelector(sc, name);
    LeaderElection e = zklock("z").leaderElection(name, "z1", COMPAT);
    addCloseable(e);
    e.start();
    assertThatThrownBy(() -> e.awaitLeadership(WAIT)).isInstanceOf(ZkLockException.class);

    // When the last selector leaves the path (its client closes: its node goes with its session)
    s.close();
    sc.close();

    // Then the participant, trying again with back-off, joins and leads, and names itself
    org.awaitility.Awaitility.await().atMost(WAIT).until(e::isLeader);
    assertThat(e.leader()).contains("z1");
    assertThat(children(reader, name)).hasSize(1);
  }

  private LeaderLatch leadingLatch(CuratorClient c, String name) throws Exception {
    LeaderLatch latch = new LeaderLatch(c.framework, "/" + name, c.name);
    latch.start();
    addCloseable(latch::close);
    assertThat(latch.await(SECONDS, TimeUnit.SECONDS)).as("latch leads").isTrue();
    return latch;
  }

  @Test
  void selectorLeads_thenZklockCompatibleElection_isRefused_andLeavesNoNode() throws Exception {
    // Given a LeaderSelector leading on the path
    String name = newName("mix-selector-election");
    CuratorClient reader = curator("reader");
    LeaderSelector s = leadingSelector(curator("s1"), name);
    String selectorNode = children(reader, name).get(0);

    // When a zklock participant of the compatible election (LeaderLatch's layout) joins
    ZkLocks z = zklock("z");
    LeaderElection e = z.leaderElection(name, "z1", COMPAT);
    e.start();

    // Then it is refused, with the path, the selector's node and what to use instead
    assertThatThrownBy(() -> e.awaitLeadership(WAIT))
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("/" + name)
        .hasMessageContaining(selectorNode)
        .hasMessageContaining("LeaderSelector")
        .hasMessageContaining("compatible mutex")
        .satisfies(
            ex ->
                assertThat(ex.getMessage().split("\\[lock ", -1))
                    .as("the path and session said once: " + ex.getMessage())
                    .hasSize(2))
        .hasMessageEndingWith("]")
        .hasMessageNotContaining("] [");
    assertThat(e.isLeader()).isFalse();
    assertThatThrownBy(e::leader)
        .as("no single leader can be named in a mix")
        .isInstanceOf(ZkLockException.class);
    e.close();
    // and, once closed, leaves nothing beside the selector, which alone still leads
    awaitChildren(reader, name, 1);
    assertThat(children(reader, name)).containsExactly(selectorNode);
    assertThat(s.getParticipants()).hasSize(1);
    assertThat(s.hasLeadership()).isTrue();
  }

  @Test
  void latchLeads_thenZklockCompatibleMutex_isRefused_andLeavesNoNode() throws Exception {
    // Given a LeaderLatch leading on the path
    String name = newName("mix-latch-mutex");
    CuratorClient reader = curator("reader");
    LeaderLatch latch = leadingLatch(curator("l1"), name);
    String latchNode = children(reader, name).get(0);
    ZkLocks z = zklock("z");

    // When a zklock client takes the compatible mutex there, by each call: then each is refused
    assertThatThrownBy(() -> z.mutex(name, COMPAT).acquire())
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("/" + name)
        .hasMessageContaining(latchNode)
        .hasMessageContaining("LeaderLatch");
    assertThatThrownBy(() -> z.mutex(name, COMPAT).tryAcquire(Duration.ofSeconds(SECONDS)))
        .isInstanceOf(ZkLockException.class);
    assertThatThrownBy(() -> z.mutex(name, COMPAT).acquireAsync().get(SECONDS, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(ZkLockException.class);

    // and leaves no node: the latch's is alone, and still leads
    assertThat(children(reader, name)).containsExactly(latchNode);
    assertThat(latch.hasLeadership()).isTrue();
  }

  @Test
  void curatorMutexHeld_thenZklockPlainMutex_isRefused() throws Exception {
    // Given Curator's InterProcessMutex held on the path
    String name = newName("mix-plain");
    CuratorClient c = curator("c1");
    InterProcessMutex m = new InterProcessMutex(c.framework, "/" + name);
    m.acquire();
    try {
      CuratorClient reader = curator("reader");

      // When a zklock client takes the plain mutex (not the compatible mode) on the same path
      // Then it is refused: Curator's clients would not see its node ahead of theirs
      assertThatThrownBy(() -> zklock("z").mutex(name).acquire())
          .isInstanceOf(ZkLockException.class)
          .hasMessageContaining("InterProcessMutex");
      assertThat(children(reader, name)).hasSize(1);
    } finally {
      m.release(); // Curator's mutex belongs to the thread that took it
    }
  }

  @Test
  void zklockElectionLeads_thenASelectorJoins_leaderIsRefused_notMisnamed() throws Exception {
    // Given a zklock participant of the compatible election leading
    String name = newName("mix-election-selector");
    ZkLocks z = zklock("z");
    LeaderElection e = z.leaderElection(name, "z1", COMPAT);
    addCloseable(e);
    e.start();
    assertThat(e.awaitLeadership(WAIT)).isTrue();
    assertThat(e.leader()).contains("z1");

    // When a LeaderSelector joins later (which zklock cannot stop: it leads as well, as Curator
    // orders the latch node after its own)
    leadingSelector(curator("s1"), name);

    // Then leader() does not name the latch participant as the one leader: it reports the mix
    assertThatThrownBy(e::leader)
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("LeaderSelector");
  }

  @Test
  void plainQueue_curatorJoinsLater_nextInLineIsGrantedBesideIt_theFirstZklockListingTells(
      @TempDir Path dir) throws Exception {
    // Given a plain zklock mutex held by z1, and z2 waiting next in line
    String name = newName("mix-plain-joined");
    LockHandle a = zklock("z1").mutex(name).acquire();
    CompletableFuture<LockHandle> b = zklock("z2").mutex(name).acquireAsync();
    CuratorClient reader = curator("reader");
    awaitChildren(reader, name, 2);

    // When a Curator client joins later: Curator orders zklock's plain nodes after its own, so it
    // holds at once, beside z1 (nothing on zklock's side can stop it)
    CuratorClient c = curator("c");
    InterProcessMutex m = new InterProcessMutex(c.framework, "/" + name);
    assertThat(c.run(() -> m.acquire(10, TimeUnit.SECONDS)).get()).isTrue();
    String curatorNode =
        children(reader, name).stream().filter(n -> n.startsWith("_c_")).findFirst().orElseThrow();
    try (RecordingStream rs = new RecordingStream()) {
      rs.enable("io.zklock.RecipeMix");
      rs.startAsync();

      // Then the first zklock client to list the directory refuses, and tells: its caller gets
      // the refusal (its listeners a FAILED event with it), a warning is logged, and a Flight
      // Recorder event io.zklock.RecipeMix names the node
      List<LockEvent> heard = new CopyOnWriteArrayList<>();
      ZkLocks z3 =
          ZkLocks.builder(server.connectString())
              .namespace("/")
              .clientName("z3")
              .eventListener(heard::add)
              .build();
      addCloseable(z3);
      assertThatThrownBy(() -> z3.mutex(name).acquire())
          .isInstanceOf(ZkLockException.class)
          .hasMessageContaining(curatorNode);
      // listeners hear events on the library's own thread: the FAILED event may come just after
      // acquire() has thrown
      await()
          .atMost(WAIT)
          .untilAsserted(
              () ->
                  assertThat(heard)
                      .anySatisfy(
                          e -> {
                            assertThat(e.type()).isEqualTo(LockEvent.Type.FAILED);
                            assertThat(e.failure()).hasMessageContaining(curatorNode);
                          }));
      AtomicInteger dumps = new AtomicInteger();
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                Path file = dir.resolve("mix-" + dumps.incrementAndGet() + ".jfr");
                rs.dump(file);
                assertThat(RecordingFile.readAllEvents(file))
                    .filteredOn(e -> e.getEventType().getName().equals("io.zklock.RecipeMix"))
                    .anySatisfy(
                        e -> {
                          assertThat(e.getString("lockName")).isEqualTo(name);
                          assertThat(e.getString("refusal")).contains(curatorNode);
                        });
              });
    }

    // And the window, as docs/migrating-from-curator.md describes it: z2, next in line, listed
    // before the Curator node came; its predecessor's deletion is its grant, with no listing, so
    // when z1 releases it holds beside the Curator client
    a.release();
    LockHandle h = b.get(SECONDS, TimeUnit.SECONDS);
    assertThat(h.isHeld()).as("z2 holds beside Curator's holder: the documented window").isTrue();
    assertThat(m.isAcquiredInThisProcess()).isTrue();
    h.release();
    c.call(m::release);
  }
}
