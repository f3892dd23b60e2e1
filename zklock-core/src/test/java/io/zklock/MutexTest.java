package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.zklock.internal.QueueNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

class MutexTest extends ZkTestSupport {

  @Test
  void acquire_uncontended_holdsThenReleaseDeletesTheNode() throws Exception {
    ZkLocks locks = client();
    DistributedLock lock = locks.mutex("orders/42");

    LockHandle h = lock.acquire();

    assertThat(h.isHeld()).isTrue();
    assertThat(h.path()).startsWith(namespace + "/orders/42/m-");
    assertThat(h.lockName()).isEqualTo("orders/42");
    Stat stat = raw().exists(h.path(), false);
    assertThat(stat).as("lock node exists while held").isNotNull();
    assertThat(h.fencingToken()).as("token is the node's czxid").isEqualTo(stat.getCzxid());
    String data =
        new String(raw().getData(h.path(), false, null), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(data).contains("\"kind\":\"mutex\"").contains("\"client\":");

    h.release();

    assertThat(h.isHeld()).isFalse();
    assertThat(raw().exists(h.path(), false)).as("node deleted once release() returns").isNull();
    assertThat(h.lost()).as("a released handle is not lost").isNotDone();
  }

  @Test
  void release_twice_isHarmless_andCloseIsRelease() throws Exception {
    DistributedLock lock = client().mutex("a");
    LockHandle h = lock.acquire();
    h.release();
    h.release();
    h.close();
    h.releaseAsync().get(5, TimeUnit.SECONDS);
    try (LockHandle h2 = lock.acquire()) {
      assertThat(h2.isHeld()).isTrue();
    }
    assertNoLockNodes();
  }

  @Test
  void tryAcquire_whenBusy_returnsEmptyAndLeavesNoNode() throws Exception {
    LockHandle held = client().mutex("busy").acquire();
    DistributedLock other = client().mutex("busy");

    Optional<LockHandle> t = other.tryAcquire();

    assertThat(t).isEmpty();
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(lockNodes()).containsExactly(held.path()));
    held.release();
    assertThat(other.tryAcquire()).as("free again").hasValueSatisfying(h -> h.release());
    assertNoLockNodes();
  }

  @Test
  void tryAcquire_timeoutElapsed_returnsEmptyAndLeavesNoNode() throws Exception {
    LockHandle held = client().mutex("t").acquire();
    DistributedLock other = client().mutex("t");

    long start = System.nanoTime();
    Optional<LockHandle> t = other.tryAcquire(Duration.ofMillis(300));
    long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    assertThat(t).isEmpty();
    assertThat(waitedMs).as("waited about the timeout").isGreaterThanOrEqualTo(290);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(lockNodes()).containsExactly(held.path()));
    held.release();
    assertNoLockNodes();
  }

  @Test
  void tryAcquire_zeroTimeout_behavesLikeTryAcquire() throws Exception {
    DistributedLock lock = client().mutex("z");
    Optional<LockHandle> h = lock.tryAcquire(Duration.ZERO);
    assertThat(h).isPresent();
    assertThat(client().mutex("z").tryAcquire(Duration.ZERO)).isEmpty();
    h.get().release();
  }

  @Test
  void badArguments_throwIllegalArgumentNamingTheValue() {
    ZkLocks locks = client();
    assertThatThrownBy(() -> locks.mutex(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty");
    assertThatThrownBy(() -> locks.mutex("a//b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a//b");
    assertThatThrownBy(() -> locks.mutex("a/../b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("..");
    assertThatThrownBy(() -> locks.mutex("./b")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> locks.mutex("/abs"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("/abs");
    assertThatThrownBy(() -> locks.mutex("a\u0001b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\\u0001");
    assertThatThrownBy(() -> locks.mutex("zookeeper/x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("zookeeper");
    assertThatThrownBy(() -> locks.mutex("x".repeat(600)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("600");
    assertThatThrownBy(() -> locks.mutex(null)).isInstanceOf(NullPointerException.class);
    DistributedLock lock = locks.mutex("ok");
    assertThatThrownBy(() -> lock.tryAcquire(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-0.001");
    assertThatThrownBy(() -> lock.tryAcquire(Duration.ofSeconds(Long.MAX_VALUE)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("too large");
  }

  @Test
  void interruptedWaiter_throwsInterrupted_andLeavesNoNode() throws Exception {
    LockHandle held = client().mutex("i").acquire();
    DistributedLock other = client().mutex("i");
    CompletableFuture<Throwable> outcome = new CompletableFuture<>();
    Thread waiter =
        new Thread(
            () -> {
              try {
                other.acquire();
                outcome.complete(null);
              } catch (Throwable t) {
                outcome.complete(t);
              }
            });
    waiter.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 2);

    waiter.interrupt();

    assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(lockNodes()).containsExactly(held.path()));
    held.release();
    assertNoLockNodes();
  }

  @Test
  void cancelledAsyncRequest_isWithdrawn_andTheNextWaiterStillGetsTheLock() throws Exception {
    LockHandle held = client().mutex("c").acquire();
    CompletableFuture<LockHandle> cancelled = client().mutex("c").acquireAsync();
    CompletableFuture<LockHandle> next = client().mutex("c").acquireAsync();
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 3);

    assertThat(cancelled.cancel(true)).isTrue();
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 2);
    held.release();

    LockHandle h = next.get(10, TimeUnit.SECONDS);
    assertThat(h.isHeld()).isTrue();
    h.release();
    assertNoLockNodes();
  }

  @Test
  void waiterInTheMiddleGivesUp_theChainContinues() throws Exception {
    LockHandle first = client().mutex("m").acquire();
    DistributedLock middle = client().mutex("m");
    CompletableFuture<Optional<LockHandle>> middleTry =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return middle.tryAcquire(Duration.ofMillis(500));
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 2);
    CompletableFuture<LockHandle> last = client().mutex("m").acquireAsync();

    assertThat(middleTry.get(10, TimeUnit.SECONDS)).as("the middle waiter timed out").isEmpty();
    // the timeout answers at once; the withdrawal (deleting the middle node, which the last
    // waiter watches) follows: wait for it, then check the last waiter did not take its
    // predecessor's deletion for a handoff
    await("the middle node is deleted")
        .atMost(Duration.ofSeconds(10))
        .until(() -> lockNodes().size() == 2);
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(5))
        .until(() -> !last.isDone());
    assertThat(lockNodes()).as("the first holder and the last waiter").contains(first.path());
    first.release();

    LockHandle h = last.get(10, TimeUnit.SECONDS);
    h.release();
    assertNoLockNodes();
  }

  @Test
  void twentySessions_mutualExclusion_fencingTokensIncrease() throws Exception {
    int sessions = 20;
    int rounds = 5;
    List<DistributedLock> locks = new ArrayList<>();
    for (int i = 0; i < sessions; i++) {
      locks.add(client("worker-" + i).mutex("shared"));
    }
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger maxInside = new AtomicInteger();
    AtomicLong lastToken = new AtomicLong(Long.MIN_VALUE);
    List<String> violations = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(sessions);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (DistributedLock lock : locks) {
        futures.add(
            pool.submit(
                () -> {
                  for (int r = 0; r < rounds; r++) {
                    try (LockHandle h = lock.acquire()) {
                      int now = inside.incrementAndGet();
                      maxInside.accumulateAndGet(now, Math::max);
                      long token = h.fencingToken();
                      long prev = lastToken.getAndSet(token);
                      if (token <= prev) {
                        violations.add("token " + token + " after " + prev);
                      }
                      Thread.sleep(1);
                      inside.decrementAndGet();
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(maxInside.get()).as("never two holders at once").isEqualTo(1);
    assertThat(violations).as("fencing tokens strictly increase across holders").isEmpty();
    assertNoLockNodes();
  }

  @Test
  void waiters_areGrantedInArrivalOrder() throws Exception {
    LockHandle first = client().mutex("fifo").acquire();
    List<Integer> order = Collections.synchronizedList(new ArrayList<>());
    List<CompletableFuture<LockHandle>> waiting = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      int n = i;
      CompletableFuture<LockHandle> f = client().mutex("fifo").acquireAsync();
      int expectedNodes = i + 2;
      await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == expectedNodes);
      waiting.add(
          f.thenApply(
              h -> {
                order.add(n);
                return h;
              }));
    }
    first.release();
    for (CompletableFuture<LockHandle> f : waiting) {
      f.get(10, TimeUnit.SECONDS).release();
    }
    assertThat(order).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
  }

  @Test
  void sequenceWrapAround_keepsArrivalOrder() throws Exception {
    ZkLocks a = client();
    createDir("wrap");
    server.setChildSequence(dir("wrap"), Integer.MAX_VALUE - 2);
    LockHandle first = a.mutex("wrap").acquire();
    List<CompletableFuture<LockHandle>> waiting = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      waiting.add(client().mutex("wrap").acquireAsync());
      int expected = i + 2;
      await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == expected);
    }
    // ZooKeeper 3.9 documents a wrap to -2147483648 but its data tree keeps the counter at
    // 2147483647: suffixes repeat (or, in a burst, turn negative). Either way they lie about order.
    List<String> suffixes = new ArrayList<>();
    for (String p : lockNodes()) {
      suffixes.add(String.valueOf(QueueNode.parse(p.substring(p.lastIndexOf('/') + 1)).sequence()));
    }
    assertThat(suffixes.stream().filter(x -> x.equals("2147483647") || x.startsWith("-")).count())
        .as("the counter overflowed: %s", suffixes)
        .isGreaterThanOrEqualTo(2);
    assertThat(first.path()).endsWith("2147483645");

    first.release();
    long prevToken = first.fencingToken();
    for (CompletableFuture<LockHandle> f : waiting) {
      LockHandle h = f.get(10, TimeUnit.SECONDS);
      assertThat(waiting.stream().filter(CompletableFuture::isDone).count())
          .as("only one waiter granted at a time, in order")
          .isEqualTo(waiting.indexOf(f) + 1);
      assertThat(h.fencingToken()).isGreaterThan(prevToken);
      prevToken = h.fencingToken();
      h.release();
    }
    assertNoLockNodes();
  }

  @Test
  void holderSessionExpires_nextWaiterGetsTheLock_andOldHolderIsTold() throws Exception {
    ZkLocks holderClient = client("holder");
    LockHandle held = holderClient.mutex("exp").acquire();
    CompletableFuture<LockHandle> next = client("next").mutex("exp").acquireAsync();
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 2);

    server.expireSession(holderClient.sessionId());

    LockLostException lost = held.lost().get(10, TimeUnit.SECONDS);
    assertThat(lost.reason()).isEqualTo(LockLostException.Reason.SESSION_EXPIRED);
    assertThat(lost.path()).isEqualTo(held.path());
    assertThat(held.isHeld()).isFalse();
    LockHandle h = next.get(10, TimeUnit.SECONDS);
    assertThat(h.fencingToken()).isGreaterThan(held.fencingToken());
    held.release(); // harmless on a lost handle
    h.release();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> holderClient.sessionState() == SessionState.CONNECTED);
    assertNoLockNodes();
  }

  @Test
  void waiterSessionExpires_requestQueuesAgainOnTheNewSession() throws Exception {
    LockHandle held = client().mutex("requeue").acquire();
    ZkLocks waiterClient = client("waiter");
    long oldSession = waiterClient.sessionId();
    CompletableFuture<LockHandle> waiting = waiterClient.mutex("requeue").acquireAsync();
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 2);

    server.expireSession(oldSession);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                waiterClient.sessionState() == SessionState.CONNECTED
                    && waiterClient.sessionId() != oldSession);
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 2);
    assertThat(waiting).isNotDone();
    held.release();

    LockHandle h = waiting.get(10, TimeUnit.SECONDS);
    assertThat(h.isHeld()).isTrue();
    Stat stat = raw().exists(h.path(), false);
    assertThat(stat.getEphemeralOwner())
        .as("node of the new session")
        .isEqualTo(waiterClient.sessionId());
    h.release();
    assertNoLockNodes();
  }

  @Test
  void nodeDeletedByOperator_holderIsToldItLostTheLock() throws Exception {
    LockHandle held = client().mutex("forced").acquire();

    raw().delete(held.path(), -1);

    LockLostException lost = held.lost().get(10, TimeUnit.SECONDS);
    assertThat(lost.reason()).isEqualTo(LockLostException.Reason.NODE_DELETED);
    assertThat(held.isHeld()).isFalse();
    held.release();
  }

  @Test
  void waitingNodeDeletedByOperator_neverTwoLiveHolders() throws Exception {
    LockHandle holder = client("h").mutex("forcedwait").acquire();
    CompletableFuture<LockHandle> w = client("w").mutex("forcedwait").acquireAsync();
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 2);
    CompletableFuture<LockHandle> x = client("x").mutex("forcedwait").acquireAsync();
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 3);
    String wNode =
        lockNodes().stream()
            .sorted(
                (a, b) ->
                    Integer.compare(
                        QueueNode.parse(a.substring(a.lastIndexOf('/') + 1)).sequence(),
                        QueueNode.parse(b.substring(b.lastIndexOf('/') + 1)).sequence()))
            .toList()
            .get(1);

    raw().delete(wNode, -1); // an operator removes the waiting request by hand
    holder.release();

    LockHandle xh = x.get(10, TimeUnit.SECONDS);
    // w may have been granted on the strength of its predecessor's deletion; it must learn at once
    // that its node is gone, so that only one live holder remains
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> {
              LockHandle wh = w.getNow(null);
              assertThat(wh == null || !wh.isHeld()).as("w is not a live holder").isTrue();
            });
    if (w.isDone()) {
      // not held from the moment its node's deletion is seen; lost() completes once the reason
      // is known, one round trip later
      await().atMost(Duration.ofSeconds(5)).until(() -> w.get().lost().isDone());
    }
    assertThat(xh.isHeld()).isTrue();
    xh.release();
  }

  @Test
  void serverRestartWhileHeld_lockSurvives() throws Exception {
    ZkLocks locks = client();
    LockHandle held = locks.mutex("restart").acquire();
    List<SessionState> states = new CopyOnWriteList<>();
    locks.addSessionListener((s, id) -> states.add(s));

    server.restart();

    await().atMost(Duration.ofSeconds(20)).until(() -> states.contains(SessionState.CONNECTED));
    assertThat(states).startsWith(SessionState.SUSPENDED).doesNotContain(SessionState.LOST);
    assertThat(held.isHeld()).isTrue();
    assertThat(held.lost()).isNotDone();
    assertThat(client().mutex("restart").tryAcquire()).as("still held by the first").isEmpty();
    held.release();
    assertThat(client().mutex("restart").tryAcquire()).hasValueSatisfying(LockHandle::release);
  }

  @Test
  void closingZkLocks_failsWaitersAndLosesHeldLocks() throws Exception {
    LockHandle other = client().mutex("close").acquire();
    ZkLocks locks = client();
    LockHandle held = locks.mutex("close2").acquire();
    CompletableFuture<LockHandle> waiting = locks.mutex("close").acquireAsync();
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 3);

    locks.close();

    assertThat(held.lost().get(10, TimeUnit.SECONDS).reason())
        .isEqualTo(LockLostException.Reason.CLOSED);
    assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(ZkLockException.class);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(lockNodes()).containsExactly(other.path()));
    assertThatThrownBy(() -> locks.mutex("x").acquire())
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("closed");
    assertThat(locks.sessionState()).isEqualTo(SessionState.CLOSED);
    locks.close();
    other.release();
  }

  /** A small thread-safe list for listener records. */
  static final class CopyOnWriteList<T> extends java.util.concurrent.CopyOnWriteArrayList<T> {
    private static final long serialVersionUID = 1L;
  }

  @Test
  void acquireReleaseLoop_leavesNoNodes() throws Exception {
    ZkLocks locks = client();
    for (int i = 0; i < 50; i++) {
      try (LockHandle h = locks.mutex("loop").acquire()) {
        assertThat(h.isHeld()).isTrue();
      }
    }
    assertNoLockNodes();
  }

  @Test
  void manyPendingAsyncRequests_needNoThreadPerWaiter() throws Exception {
    ZkLocks locks = client();
    LockHandle held = client().mutex("many").acquire();
    int before = Thread.activeCount();
    List<CompletableFuture<LockHandle>> pending = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      pending.add(locks.mutex("many").acquireAsync());
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> lockNodes().size() == 2001);
    assertThat(Thread.activeCount() - before)
        .as("threads added for 2000 waiters")
        .isLessThanOrEqualTo(4);
    for (CompletableFuture<LockHandle> f : pending) {
      f.cancel(true);
    }
    held.release();
    awaitNoLockNodes();
  }
}
