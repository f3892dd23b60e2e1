package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The Condition of a distributed lock, on a real server: waits, signals, order, and faults. */
class ConditionTest extends ZkTestSupport {
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  private List<String> waiters(String lock) throws Exception {
    String d = dir(lock) + ".cond-default";
    return children(d);
  }

  /** A waiter in its own client: acquires, awaits, records its name when back, releases. */
  private Future<Long> waiter(String lock, String name, List<String> woken) {
    DistributedLock l = client(name).mutex(lock);
    return pool.submit(
        () -> {
          LockHandle h = l.acquire();
          LockHandle back = l.newCondition().await(h);
          woken.add(name);
          assertThat(back.isHeld()).isTrue();
          long token = back.fencingToken();
          back.release();
          return token;
        });
  }

  @Test
  void await_releases_signalWakes_andTheWaiterReturnsHolding_withANewToken() throws Exception {
    DistributedLock l = client("w").mutex("c");
    LockHandle first = l.acquire();
    long firstToken = first.fencingToken();
    Future<LockHandle> waiting = pool.submit(() -> l.newCondition().await(first));
    await().atMost(Duration.ofSeconds(10)).until(() -> waiters("c").size() == 1);

    DistributedLock other = client("s").mutex("c");
    LockHandle s = other.tryAcquire(Duration.ofSeconds(10)).orElseThrow(); // await released it
    assertThat(waiting.isDone()).isFalse();
    other.newCondition().signal(s);
    assertThat(waiting.isDone()).as("woken, but the signaller still holds").isFalse();
    s.release();

    LockHandle back = waiting.get(10, TimeUnit.SECONDS);
    assertThat(back.isHeld()).isTrue();
    assertThat(back.fencingToken()).isGreaterThan(s.fencingToken()).isGreaterThan(firstToken);
    assertThat(first.isHeld()).isFalse();
    back.release();
    assertThat(waiters("c")).isEmpty();
  }

  @Test
  void signal_wakesOneInArrivalOrder_signalAll_wakesTheRest() throws Exception {
    List<String> woken = new CopyOnWriteArrayList<>();
    List<Future<Long>> fs = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      fs.add(waiter("order", "w" + i, woken));
      int n = i + 1;
      await().atMost(Duration.ofSeconds(10)).until(() -> waiters("order").size() == n);
    }
    DistributedLock l = client("signaller").mutex("order");
    for (int i = 0; i < 2; i++) {
      LockHandle h = l.acquire();
      l.newCondition().signal(h);
      h.release();
      int n = i + 1;
      await().atMost(Duration.ofSeconds(10)).until(() -> woken.size() == n);
    }
    assertThat(woken).containsExactly("w0", "w1");
    LockHandle h = l.acquire();
    l.newCondition().signalAll(h);
    h.release();
    for (Future<Long> f : fs) {
      f.get(10, TimeUnit.SECONDS);
    }
    assertThat(woken).hasSize(4).startsWith("w0", "w1");
  }

  @Test
  void oneSignal_amongManyWaiters_triggersOneWatchEvent() throws Exception {
    List<String> woken = new CopyOnWriteArrayList<>();
    for (int i = 0; i < 5; i++) {
      waiter("herd", "w" + i, woken);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> waiters("herd").size() == 5);
    DistributedLock l = client("signaller").mutex("herd");
    LockHandle h = l.acquire();
    long before = server.watchEventsTriggered();
    l.newCondition().signal(h);
    await().atMost(Duration.ofSeconds(10)).until(() -> waiters("herd").size() == 4);
    assertThat(server.watchEventsTriggered() - before).as("one waiter's own node").isEqualTo(1);
    l.newCondition().signalAll(h);
    h.release();
  }

  @Test
  void signalRightAfterTheWaiterReleased_isNeverLost() throws Exception {
    DistributedLock w = client("w").mutex("race");
    DistributedLock s = client("s").mutex("race");
    for (int i = 0; i < 10; i++) {
      LockHandle h = w.acquire();
      Future<LockHandle> waiting = pool.submit(() -> w.newCondition().await(h));
      LockHandle sh = s.acquire(); // granted the moment the waiter's release is applied
      s.newCondition().signal(sh);
      sh.release();
      waiting.get(10, TimeUnit.SECONDS).release();
    }
  }

  @Test
  void onlyTheHolder_maySignalOrAwait() throws Exception {
    DistributedLock l = client().mutex("imse");
    LockHandle h = l.acquire();
    h.release();
    assertThatThrownBy(() -> l.newCondition().signal(h))
        .isInstanceOf(IllegalMonitorStateException.class);
    assertThatThrownBy(() -> l.newCondition().signalAll(h))
        .isInstanceOf(IllegalMonitorStateException.class);
    assertThatThrownBy(() -> l.newCondition().await(h))
        .isInstanceOf(IllegalMonitorStateException.class);
    LockHandle other = client().mutex("elsewhere").acquire();
    assertThatThrownBy(() -> l.newCondition().signal(other))
        .as("a handle of another lock")
        .isInstanceOf(IllegalMonitorStateException.class);
    assertThatThrownBy(() -> client().mutex("x").asLock().newCondition().signal())
        .as("a thread that does not hold")
        .isInstanceOf(IllegalMonitorStateException.class);
  }

  @Test
  void aLostHandle_isToldWithLockLostException() throws Exception {
    ZkLocks c = client();
    DistributedLock l = c.mutex("lost");
    LockHandle h = l.acquire();
    server.expireSession(c.sessionId());
    h.lost().get(20, TimeUnit.SECONDS);
    assertThatThrownBy(() -> l.newCondition().signal(h)).isInstanceOf(LockLostException.class);
    assertThatThrownBy(() -> l.newCondition().await(h)).isInstanceOf(LockLostException.class);
  }

  @Test
  void timedAwait_withoutSignal_returnsHolding_notSignalled_andLeavesNoWaiter() throws Exception {
    DistributedLock l = client().mutex("timed");
    LockHandle h = l.acquire();
    DistributedCondition.Wakeup w = l.newCondition().await(h, Duration.ofMillis(200));
    assertThat(w.signalled()).isFalse();
    assertThat(w.handle().isHeld()).isTrue();
    assertThat(w.handle().fencingToken()).isGreaterThan(h.fencingToken());
    assertThat(waiters("timed")).isEmpty();
    w.handle().release();
  }

  @Test
  void interruptedWaiter_throws_withoutTheLock_andLeavesNoWaiter() throws Exception {
    DistributedLock l = client().mutex("intr");
    LockHandle h = l.acquire();
    AtomicReference<Thread> t = new AtomicReference<>();
    Future<Throwable> f =
        pool.submit(
            () -> {
              t.set(Thread.currentThread());
              try {
                l.newCondition().await(h);
                return null;
              } catch (InterruptedException e) {
                return e;
              }
            });
    await().atMost(Duration.ofSeconds(10)).until(() -> waiters("intr").size() == 1);
    t.get().interrupt();
    assertThat(f.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    assertThat(waiters("intr")).isEmpty();
    assertThat(client().mutex("intr").tryAcquire()).as("not held").isPresent();
  }

  @Test
  void waiterWhoseSessionExpires_wakesSpuriously_andReturnsHolding() throws Exception {
    ZkLocks c = client();
    DistributedLock l = c.mutex("exp");
    LockHandle h = l.acquire();
    Future<LockHandle> waiting = pool.submit(() -> l.newCondition().await(h));
    await().atMost(Duration.ofSeconds(10)).until(() -> waiters("exp").size() == 1);
    server.expireSession(c.sessionId());
    LockHandle back = waiting.get(20, TimeUnit.SECONDS);
    assertThat(back.isHeld()).isTrue();
    back.release();
  }

  @Test
  void asLockCondition_worksAsAJdkCondition_reentrantHoldsRestored() throws Exception {
    Lock a = client("a").mutex("jdk").asLock();
    Lock b = client("b").mutex("jdk").asLock();
    Condition ca = a.newCondition();
    Future<Boolean> waiting =
        pool.submit(
            () -> {
              a.lock();
              a.lock();
              try {
                ca.await();
                return true;
              } finally {
                a.unlock();
                a.unlock();
              }
            });
    await().atMost(Duration.ofSeconds(10)).until(() -> waiters("jdk").size() == 1);
    b.lock();
    try {
      b.newCondition().signal();
    } finally {
      b.unlock();
    }
    assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(b.tryLock()).as("both holds given back").isTrue();
    b.unlock();
    a.lock();
    assertThat(ca.await(100, TimeUnit.MILLISECONDS)).as("nobody signals").isFalse();
    a.unlock();
  }

  @Test
  void kindsWithoutACondition_sayHowClearly() {
    ZkLocks c = client();
    assertThatThrownBy(() -> c.readWriteLock("rw").readLock().newCondition())
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> c.mutex("co", LockOptions.cohort()).newCondition())
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(c.readWriteLock("rw").writeLock().newCondition()).isNotNull();
    assertThat(c.simpleLock("sl").newCondition()).isNotNull();
  }
}
