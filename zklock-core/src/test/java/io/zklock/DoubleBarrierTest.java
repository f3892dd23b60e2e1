package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.zklock.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The double barrier on a real server: entering and leaving together, rounds, and faults. */
class DoubleBarrierTest extends ZkTestSupport {
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  private List<String> members(String name) throws Exception {
    return raw().getChildren(dir(name), false).stream().filter(n -> n.startsWith("m-")).toList();
  }

  private Future<?> enter(DistributedDoubleBarrier b) {
    return pool.submit(
        () -> {
          b.enter();
          return null;
        });
  }

  private Future<?> leave(DistributedDoubleBarrier b) {
    return pool.submit(
        () -> {
          b.leave();
          return null;
        });
  }

  @Test
  void nobodyPassesEnter_beforeAllEntered_norLeave_beforeAllLeft_roundAfterRound()
      throws Exception {
    List<DistributedDoubleBarrier> group = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      group.add(client("m" + i).doubleBarrier("work", 3));
    }
    for (int round = 0; round < 2; round++) {
      Future<?> e0 = enter(group.get(0));
      Future<?> e1 = enter(group.get(1));
      await().atMost(Duration.ofSeconds(10)).until(() -> members("work").size() == 2);
      assertThat(e0.isDone() || e1.isDone()).as("two of three entered: nobody passes").isFalse();
      Future<?> e2 = enter(group.get(2));
      for (Future<?> f : List.of(e0, e1, e2)) {
        f.get(10, TimeUnit.SECONDS);
      }

      Future<?> l0 = leave(group.get(0));
      Future<?> l1 = leave(group.get(1));
      await().atMost(Duration.ofSeconds(10)).until(() -> members("work").size() == 1);
      assertThat(l0.isDone() || l1.isDone()).as("one member still in: nobody passes").isFalse();
      Future<?> l2 = leave(group.get(2));
      for (Future<?> f : List.of(l0, l1, l2)) {
        f.get(10, TimeUnit.SECONDS);
      }
      assertThat(members("work")).isEmpty();
    }
    assertThat(new String(raw().getData(dir("work"), false, null)))
        .as("two rounds done, the third entering")
        .contains("\"round\":2")
        .contains("\"phase\":\"entering\"");
  }

  /**
   * The directory outlives an idle moment between rounds: a container would be reaped by the server
   * once its last member left (this server checks every 500 ms), and the round number that keeps a
   * slow leaver of one round from waiting on the next round's members would restart at 0.
   */
  @Test
  void anIdleBarrier_keepsItsRound() throws Exception {
    DistributedDoubleBarrier solo = client().doubleBarrier("idle", 1);
    solo.enter();
    solo.leave();
    await()
        .during(Duration.ofMillis(1500))
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                raw().exists(dir("idle"), false) != null
                    && new String(raw().getData(dir("idle"), false, null)).contains("\"round\":1"));
  }

  @Test
  void otherMemberCount_isRefused() throws Exception {
    DistributedDoubleBarrier first = client().doubleBarrier("n", 1);
    first.enter();
    assertThatThrownBy(() -> client().doubleBarrier("n", 2).enter(Duration.ofSeconds(5)))
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("members 1")
        .hasMessageContaining("asked for 2")
        .hasCauseInstanceOf(IllegalArgumentException.class);
    first.leave();
    assertThatThrownBy(() -> client().doubleBarrier("n", 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void leaveBeforeEnter_isRefused() {
    assertThatThrownBy(() -> client().doubleBarrier("s", 2).leave())
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void enterTimeout_withdrawsTheMember() throws Exception {
    DistributedDoubleBarrier b = client().doubleBarrier("t", 2);
    assertThat(b.enter(Duration.ofMillis(200))).isFalse();
    assertThat(members("t")).as("withdrawn: not counted").isEmpty();
    DistributedDoubleBarrier other = client().doubleBarrier("t", 2);
    assertThat(other.enter(Duration.ofMillis(200)))
        .as("the withdrawn member does not count for the next one")
        .isFalse();
  }

  /**
   * curator#1290: Curator's timed {@code enter} ended its wait on any watcher event, including a
   * connection event (disconnected, connected again), and returned without counting the members
   * again, so a lone member could pass a barrier for two. Here a lone member's connection drops and
   * comes back while it waits: it must still be waiting, and pass only with the second member.
   */
  @Test
  void curator1290_aReconnectionWhileWaitingInEnter_doesNotLetALoneMemberThrough()
      throws Exception {
    try (FaultProxy proxy = FaultProxy.start(server.connectString())) {
      ZkLocks viaProxy =
          track(
              ZkLocks.builder(proxy.connectString())
                  .namespace(namespace)
                  .sessionTimeout(Duration.ofSeconds(20))
                  .build());
      AtomicInteger connects = new AtomicInteger();
      viaProxy.addSessionListener(
          (state, session) -> {
            if (state == SessionState.CONNECTED) {
              connects.incrementAndGet();
            }
          });
      DistributedDoubleBarrier lone = viaProxy.doubleBarrier("pair", 2);
      Future<Boolean> entering = pool.submit(() -> lone.enter(Duration.ofSeconds(40)));
      await().atMost(Duration.ofSeconds(10)).until(() -> members("pair").size() == 1);

      for (int i = 0; i < 3; i++) {
        int before = connects.get();
        proxy.cut();
        proxy.pass();
        await("reconnected").atMost(Duration.ofSeconds(15)).until(() -> connects.get() > before);
        assertThat(entering.isDone()).as("a reconnection is not a second member").isFalse();
      }

      DistributedDoubleBarrier second = client().doubleBarrier("pair", 2);
      assertThat(second.enter(Duration.ofSeconds(10))).isTrue();
      assertThat(entering.get(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void memberWhoseSessionExpiresWhileEntering_entersAgainOnItsNewSession() throws Exception {
    ZkLocks aClient = client("a");
    DistributedDoubleBarrier a = aClient.doubleBarrier("e", 2);
    Future<?> aEntering = enter(a);
    await().atMost(Duration.ofSeconds(10)).until(() -> members("e").size() == 1);
    long old = aClient.sessionId();
    server.expireSession(old);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                aClient.sessionState() == SessionState.CONNECTED
                    && aClient.sessionId() != old
                    && members("e").size() == 1);
    assertThat(aEntering.isDone()).isFalse();

    client("b").doubleBarrier("e", 2).enter();
    aEntering.get(10, TimeUnit.SECONDS);
  }

  @Test
  void memberWhoseSessionExpiresInside_hasLeft_forTheOthers() throws Exception {
    ZkLocks aClient = client("a");
    DistributedDoubleBarrier a = aClient.doubleBarrier("x", 2);
    DistributedDoubleBarrier b = client("b").doubleBarrier("x", 2);
    Future<?> aEntering = enter(a);
    b.enter();
    aEntering.get(10, TimeUnit.SECONDS);

    server.expireSession(aClient.sessionId());
    assertThat(b.leave(Duration.ofSeconds(20))).as("a's node went with its session").isTrue();
  }
}
