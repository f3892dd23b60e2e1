package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.zklock.testkit.FaultProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The count-down latch on a real server: counting, waiting, herd-free wake-ups, and faults. */
class CountDownLatchTest extends ZkTestSupport {
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  private long watches() {
    return Long.parseLong(server.mntr().getOrDefault("zk_watch_count", "0"));
  }

  private String dirData(String name) throws Exception {
    return new String(raw().getData(dir(name), false, null), StandardCharsets.UTF_8);
  }

  private List<String> latchNodes(String name) throws Exception {
    return raw().getChildren(dir(name), false);
  }

  @Test
  void await_passesOnlyOnceEveryCountDownIsApplied() throws Exception {
    DistributedCountDownLatch waiterSide = client("waiter").countDownLatch("start", 3);
    Future<?> waiter =
        pool.submit(
            () -> {
              waiterSide.await();
              return null;
            });
    await().atMost(Duration.ofSeconds(10)).until(() -> watches() >= 1);

    client("w1").countDownLatch("start", 3).countDown();
    client("w2").countDownLatch("start", 3).countDown();
    assertThat(waiterSide.count()).isEqualTo(1);
    assertThat(waiter.isDone()).as("two of three count-downs applied: nobody passes").isFalse();

    client("w3").countDownLatch("start", 3).countDown();
    waiter.get(10, TimeUnit.SECONDS);
    assertThat(waiterSide.count()).isZero();
    assertThat(waiterSide.await(Duration.ZERO)).as("open: stays open").isTrue();
    assertThat(dirData("start")).isEqualTo("{\"kind\":\"latch\",\"count\":3,\"remaining\":0}");
  }

  @Test
  void countDown_afterZero_isANoOp() throws Exception {
    DistributedCountDownLatch l = client().countDownLatch("once", 1);
    l.countDown();
    l.countDown();
    l.countDownAsync().get(10, TimeUnit.SECONDS);
    assertThat(l.count()).isZero();
    assertThat(latchNodes("once"))
        .as("one marker and the opening; the count-downs after zero wrote nothing")
        .hasSize(2)
        .contains("open");
  }

  @Test
  void otherCount_isRefusedClearly_byEveryCall() throws Exception {
    client("a").countDownLatch("n", 3).countDown();
    DistributedCountDownLatch wrong = client("b").countDownLatch("n", 2);

    assertThatThrownBy(wrong::countDown)
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("count 3")
        .hasMessageContaining("asked for 2")
        .hasCauseInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(wrong::count).isInstanceOf(ZkLockException.class);
    assertThatThrownBy(wrong::await).isInstanceOf(ZkLockException.class);
    assertThatThrownBy(() -> wrong.await(Duration.ofSeconds(5)))
        .isInstanceOf(ZkLockException.class);
    assertThat(client().countDownLatch("n", 3).count())
        .as("nothing counted by the refused")
        .isEqualTo(2);
  }

  @Test
  void badArguments_areRefused() {
    ZkLocks c = client();
    assertThatThrownBy(() -> c.countDownLatch("x", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0");
    assertThatThrownBy(() -> c.countDownLatch("x", 1).await(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void await_timesOut_andRepeatedTimeOutsAddNoWatches() throws Exception {
    DistributedCountDownLatch l = client().countDownLatch("t", 2);
    long before = watches();
    for (int i = 0; i < 5; i++) {
      assertThat(l.await(Duration.ofMillis(50))).isFalse();
    }
    assertThat(l.await(Duration.ZERO)).isFalse();
    assertThat(watches() - before)
        .as("the server keeps one watch per path and session, shared by every later wait")
        .isLessThanOrEqualTo(1);
  }

  @Test
  void manyWaiters_eachHearsOneNotification_notOnePerCountDown() throws Exception {
    int waiters = 8;
    int count = 5;
    List<Future<?>> waiting = new ArrayList<>();
    for (int i = 0; i < waiters; i++) {
      DistributedCountDownLatch l = client("waiter-" + i).countDownLatch("herd", count);
      waiting.add(
          pool.submit(
              () -> {
                l.await();
                return null;
              }));
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> watches() >= waiters);
    long before = server.watchEventsTriggered();

    DistributedCountDownLatch counter = client("counter").countDownLatch("herd", count);
    for (int i = 0; i < count; i++) {
      counter.countDown();
    }
    for (Future<?> f : waiting) {
      f.get(20, TimeUnit.SECONDS);
    }

    assertThat(server.watchEventsTriggered() - before)
        .as(
            "%d count-downs, %d waiters each in its own session: one event per waiter",
            count, waiters)
        .isEqualTo(waiters);
  }

  @Test
  void interruptedWaiter_throwsInterruptedException() throws Exception {
    DistributedCountDownLatch l = client().countDownLatch("i", 1);
    long before = watches();
    AtomicReference<Thread> t = new AtomicReference<>();
    Future<Throwable> f =
        pool.submit(
            () -> {
              t.set(Thread.currentThread());
              try {
                l.await();
                return null;
              } catch (InterruptedException e) {
                return e;
              }
            });
    await().atMost(Duration.ofSeconds(10)).until(() -> watches() > before);
    t.get().interrupt();
    assertThat(f.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    l.countDown();
    assertThat(l.await(Duration.ofSeconds(10))).as("the latch still works").isTrue();
  }

  @Test
  void waiterWhoseSessionExpires_watchesAgainOnItsNewSession_andPasses() throws Exception {
    ZkLocks waiterClient = client("waiter");
    DistributedCountDownLatch l = waiterClient.countDownLatch("e", 2);
    Future<?> waiter =
        pool.submit(
            () -> {
              l.await();
              return null;
            });
    await().atMost(Duration.ofSeconds(10)).until(() -> watches() >= 1);
    long old = waiterClient.sessionId();
    client().countDownLatch("e", 2).countDown();

    server.expireSession(old);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                waiterClient.sessionState() == SessionState.CONNECTED
                    && waiterClient.sessionId() != old);
    assertThat(waiter.isDone()).as("an expiry is not an opening").isFalse();

    client().countDownLatch("e", 2).countDown();
    waiter.get(20, TimeUnit.SECONDS);
  }

  @Test
  void waiterOnAClosedInstance_isToldSo() throws Exception {
    ZkLocks c = client();
    DistributedCountDownLatch l = c.countDownLatch("closed", 1);
    long before = watches();
    Future<?> waiter =
        pool.submit(
            () -> {
              l.await();
              return null;
            });
    await().atMost(Duration.ofSeconds(10)).until(() -> watches() > before);
    c.close();
    assertThatThrownBy(() -> waiter.get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(ZkLockException.class);
    assertThatThrownBy(l::countDown).isInstanceOf(ZkLockException.class);
  }

  @Test
  void countDownWhoseReplyIsLost_isAppliedExactlyOnce() throws Exception {
    try (FaultProxy proxy = FaultProxy.start(server.connectString())) {
      ZkLocks viaProxy =
          track(
              ZkLocks.builder(proxy.connectString())
                  .namespace(namespace)
                  .sessionTimeout(Duration.ofSeconds(20))
                  .build());
      DistributedCountDownLatch l = viaProxy.countDownLatch("lost", 3);
      assertThat(l.count()).isEqualTo(3);
      proxy.muteReplies();
      CompletableFuture<Void> f = l.countDownAsync();
      await("the server applies the count-down")
          .atMost(Duration.ofSeconds(10))
          .until(() -> latchNodes("lost").size() == 1);
      proxy.cut();
      proxy.pass();
      f.get(20, TimeUnit.SECONDS);
      assertThat(l.count()).as("applied once, not twice").isEqualTo(2);
      assertThat(latchNodes("lost")).hasSize(1);
    }
  }
}
