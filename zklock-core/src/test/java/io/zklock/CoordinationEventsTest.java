package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.zklock.LockEvent.Type;
import io.zklock.LockEventsTest.Recorder;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The coordination recipes' blocking waits on the lock event seam, on a real server: each wait is
 * told as a request of its own kind that ends once (passed, timed out, cancelled, lost) and never
 * holds; count-downs, a barrier's set and remove, and signals are not told.
 */
class CoordinationEventsTest extends ZkTestSupport {
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  private ZkLocks observed(Recorder r) {
    return track(builder().eventListener(r).build());
  }

  /** The events of the requests of {@code kind}, in order. */
  private static List<LockEvent> ofKind(Recorder r, String kind) {
    return r.events.stream().filter(e -> e.kind().equals(kind)).toList();
  }

  private static void assertPassedOnce(Recorder r, long id, String name, String kind) {
    assertThat(r.types(id))
        .as("a wait of kind %s: requested, then passed, no hold", kind)
        .containsExactly(Type.REQUESTED, Type.PASSED);
    LockEvent passed = r.last(id);
    assertThat(passed.kind()).isEqualTo(kind);
    assertThat(passed.lockName()).isEqualTo(name);
    assertThat(passed.fencingToken()).isZero();
    assertThat(passed.endsWait()).isTrue();
    assertThat(passed.endsHold()).isFalse();
    assertThat(passed.isCoordination()).isTrue();
  }

  private static void assertTimedOut(Recorder r, long id, String kind) {
    assertThat(r.types(id)).containsExactly(Type.REQUESTED, Type.TIMED_OUT);
    LockEvent end = r.last(id);
    assertThat(end.kind()).isEqualTo(kind);
    assertThat(end.reason()).isEqualTo("timeout");
    assertThat(end.elapsed()).isPositive();
  }

  @Test
  void classification_aGrantsLossEndsAHold_aWaitersLossAndAPassEndAWait() {
    LockEvent grantLost = event(Type.LOST, "mutex");
    LockEvent waiterLost = event(Type.LOST, "condition");
    assertThat(grantLost.endsHold()).isTrue();
    assertThat(grantLost.endsWait()).isFalse();
    assertThat(waiterLost.endsHold()).isFalse();
    assertThat(waiterLost.endsWait()).isTrue();
    for (String kind :
        List.of("latch", "barrier", "double-barrier-enter", "double-barrier-leave", "condition")) {
      assertThat(event(Type.PASSED, kind).isCoordination()).as(kind).isTrue();
      assertThat(event(Type.PASSED, kind).endsWait()).as(kind).isTrue();
    }
    for (String kind : List.of("mutex", "read", "write", "semaphore", "cohort", "election", "")) {
      assertThat(event(Type.GRANTED, kind).isCoordination()).as(kind).isFalse();
    }
  }

  private static LockEvent event(Type type, String kind) {
    return new LockEvent(type, "x", kind, 1L, 0L, 0L, -1, Duration.ZERO, "", null, null);
  }

  @Test
  void latch_awaitPassesWhenCountedDown_countDownItselfIsNotTold() throws Exception {
    Recorder r = new Recorder();
    ZkLocks locks = observed(r);
    DistributedCountDownLatch latch = locks.countDownLatch("l", 1);
    Future<Boolean> waiter = pool.submit(() -> latch.await(Duration.ofSeconds(30)));
    await().until(() -> r.of("l").size() == 1);

    client().countDownLatch("l", 1).countDown();
    latch.countDown(); // after zero: a no-op, and not a wait

    assertThat(waiter.get(30, TimeUnit.SECONDS)).isTrue();
    await().until(() -> r.of("l").size() == 2);
    assertPassedOnce(r, r.request("l", 0), "l", "latch");
    assertThat(r.of("l")).as("only the wait is told").hasSize(2);
  }

  @Test
  void latch_awaitTimesOut_andAZeroTimeoutIsACheckThatIsTold() throws Exception {
    Recorder r = new Recorder();
    ZkLocks locks = observed(r);
    DistributedCountDownLatch latch = locks.countDownLatch("l", 2);

    assertThat(latch.await(Duration.ofMillis(100))).isFalse();
    assertThat(latch.await(Duration.ZERO)).isFalse();

    assertTimedOut(r, r.request("l", 0), "latch");
    assertThat(r.types(r.request("l", 1))).containsExactly(Type.REQUESTED, Type.TIMED_OUT);
  }

  @Test
  void barrier_awaitPassesWhenRemoved_orTimesOut_setAndRemoveAreNotTold() throws Exception {
    Recorder r = new Recorder();
    ZkLocks locks = observed(r);
    DistributedBarrier barrier = locks.barrier("b");
    barrier.set();

    assertThat(barrier.await(Duration.ofMillis(100))).isFalse();
    Future<?> waiter =
        pool.submit(
            () -> {
              barrier.await();
              return null;
            });
    await().until(() -> r.of("b").size() == 3);
    barrier.remove();
    waiter.get(30, TimeUnit.SECONDS);

    assertTimedOut(r, r.request("b", 0), "barrier");
    await().until(() -> r.of("b").size() == 4);
    assertPassedOnce(r, r.request("b", 1), "b", "barrier");
  }

  @Test
  void doubleBarrier_enterAndLeave_areToldApart_eachPassedByEveryMember() throws Exception {
    Recorder r = new Recorder();
    ZkLocks locks = observed(r);
    DistributedDoubleBarrier a = locks.doubleBarrier("d", 2);
    DistributedDoubleBarrier b = locks.doubleBarrier("d", 2);

    Future<Boolean> aEnters = pool.submit(() -> a.enter(Duration.ofSeconds(30)));
    assertThat(b.enter(Duration.ofSeconds(30))).isTrue();
    assertThat(aEnters.get(30, TimeUnit.SECONDS)).isTrue();
    Future<Boolean> aLeaves = pool.submit(() -> a.leave(Duration.ofSeconds(30)));
    assertThat(b.leave(Duration.ofSeconds(30))).isTrue();
    assertThat(aLeaves.get(30, TimeUnit.SECONDS)).isTrue();

    await().until(() -> r.of("d").size() == 8);
    for (String kind : List.of("double-barrier-enter", "double-barrier-leave")) {
      List<LockEvent> mine = ofKind(r, kind);
      assertThat(mine).as(kind).hasSize(4);
      for (LockEvent e : mine) {
        if (e.type() == Type.REQUESTED) {
          assertPassedOnce(r, e.requestId(), "d", kind);
        }
      }
    }
  }

  @Test
  void doubleBarrier_enterAlone_timesOut() throws Exception {
    Recorder r = new Recorder();
    ZkLocks locks = observed(r);

    assertThat(locks.doubleBarrier("d", 2).enter(Duration.ofMillis(100))).isFalse();

    assertTimedOut(r, r.request("d", 0), "double-barrier-enter");
  }

  @Test
  void condition_signalledWaiter_passes_thenTakesTheLockAgainAsAMutexRequest() throws Exception {
    Recorder r = new Recorder();
    ZkLocks locks = observed(r);
    DistributedLock l = locks.mutex("c");
    LockHandle first = l.acquire();
    Future<LockHandle> waiting = pool.submit(() -> l.newCondition().await(first));
    await().until(() -> r.of("c.cond-default").size() == 1);

    DistributedLock other = client().mutex("c");
    LockHandle s = other.tryAcquire(Duration.ofSeconds(10)).orElseThrow(); // await released it
    other.newCondition().signal(s);
    s.release();
    LockHandle back = waiting.get(30, TimeUnit.SECONDS);
    back.release();

    long wait = r.request("c.cond-default", 0);
    assertPassedOnce(r, wait, "c.cond-default", "condition");
    await().until(() -> r.of("c").stream().filter(e -> e.type() == Type.RELEASED).count() == 2);
    assertThat(r.types(r.request("c", 0)))
        .as("the hold before the wait, released by await")
        .containsExactly(Type.REQUESTED, Type.GRANTED, Type.RELEASED);
    assertThat(r.types(r.request("c", 1)))
        .as(
            "the lock taken again after the signal (queued if the signaller had not released yet:"
                + " the waiter asks for the lock as soon as it is signalled)")
        .filteredOn(t -> t != Type.QUEUED)
        .containsExactly(Type.REQUESTED, Type.GRANTED, Type.RELEASED);
  }

  @Test
  void condition_timedAwaitWithoutSignal_timesOut() throws Exception {
    Recorder r = new Recorder();
    ZkLocks locks = observed(r);
    DistributedLock l = locks.mutex("c");
    LockHandle h = l.acquire();

    DistributedCondition.Wakeup w = l.newCondition("ready").await(h, Duration.ofMillis(100));
    w.handle().release();

    assertThat(w.signalled()).isFalse();
    assertTimedOut(r, r.request("c.cond-ready", 0), "condition");
  }

  @Test
  void condition_awaitOnALostLock_isAWaitLost_withTheGrantsToken() throws Exception {
    Recorder r = new Recorder();
    ZkLocks locks = observed(r);
    DistributedLock l = locks.mutex("c");
    LockHandle h = l.acquire();
    client().forceRelease("c");
    h.lost().get(30, TimeUnit.SECONDS);

    assertThatThrownBy(() -> l.newCondition().await(h)).isInstanceOf(LockLostException.class);

    long wait = r.request("c.cond-default", 0);
    assertThat(r.types(wait)).containsExactly(Type.REQUESTED, Type.LOST);
    LockEvent lost = r.last(wait);
    assertThat(lost.reason()).isEqualTo("NODE_DELETED");
    assertThat(lost.fencingToken()).isEqualTo(h.fencingToken());
    assertThat(lost.endsWait()).as("a waiter's loss ends its wait").isTrue();
    assertThat(lost.endsHold()).as("it held nothing while waiting").isFalse();
  }

  @Test
  void jdkCondition_timedOut_thenInterrupted_isTimedOutThenCancelled() throws Exception {
    Recorder r = new Recorder();
    ZkLocks locks = observed(r);
    Lock lock = locks.mutex("j").asLock();
    Condition c = lock.newCondition();

    lock.lock();
    try {
      assertThat(c.await(100, TimeUnit.MILLISECONDS)).isFalse();
    } finally {
      lock.unlock();
    }
    Future<?> waiter =
        pool.submit(
            () -> {
              lock.lock();
              try {
                c.await();
              } finally {
                lock.unlock();
              }
              return null;
            });
    await().until(() -> r.of("j.cond-default").size() == 3);
    waiter.cancel(true); // interrupts the waiter

    assertTimedOut(r, r.request("j.cond-default", 0), "condition");
    long second = r.request("j.cond-default", 1);
    await().until(() -> r.types(second).size() == 2);
    assertThat(r.types(second)).containsExactly(Type.REQUESTED, Type.CANCELLED);
  }
}
