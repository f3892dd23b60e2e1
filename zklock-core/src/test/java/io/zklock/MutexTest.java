package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.zklock.internal.rules.QueueNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/**
 * What only the mutex does (its node layout, arrival order, wrap-around, recovery). What every lock
 * does, the mutex included, is in {@link LockContractTest} (run for the mutex by {@link
 * MutexContractTest}).
 */
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
    assertThatThrownBy(() -> locks.mutex("job-\uD83D\uDE00"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid character U+1F600 '\uD83D\uDE00'");
    assertThatThrownBy(() -> locks.mutex("x".repeat(600)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("600");
    assertThatThrownBy(() -> locks.mutex(null)).isInstanceOf(NullPointerException.class);
    // bad timeouts: LockContractTest#tryAcquire_negativeTimeout_* and *_timeoutTooLarge_*
  }

  @Test
  void lockNamedZookeeper_livesUnderTheNamespace_andWorks() throws Exception {
    // Given the lock name "zookeeper", which is only reserved at the root of the tree
    try (LockHandle h = client().mutex("zookeeper").acquire()) {
      // Then it is an ordinary lock under the namespace
      assertThat(h.path()).startsWith(namespace + "/zookeeper/m-");
      assertThat(raw().exists(h.path(), false)).isNotNull();
    }
    // but under the root namespace it would be ZooKeeper's own /zookeeper: refused
    ZkLocks atRoot = track(ZkLocks.builder(server.connectString()).namespace("/").build());
    assertThatThrownBy(() -> atRoot.mutex("zookeeper/x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("reserved /zookeeper");
  }

  /**
   * The middle of three waiters gives up (its deadline passes) while the last one is queued behind
   * it, watching its node. The middle's time is held ({@link HeldTime}): its deadline passes when
   * the test says, once all three nodes stand. With a real 500 ms deadline the middle waiter could
   * queue and give up before the test saw its node (or before the last waiter queued behind it) on
   * a loaded machine, and the test then waited for a node that was already gone.
   */
  @Test
  void waiterInTheMiddleGivesUp_theChainContinues() throws Exception {
    LockHandle first = client().mutex("m").acquire();
    Duration timeout = Duration.ofMillis(500);
    HeldTime time = new HeldTime(timeout);
    DistributedLock middle = track(time.build(this)).mutex("m");
    CompletableFuture<Optional<LockHandle>> middleTry =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return middle.tryAcquire(timeout);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 2);
    CompletableFuture<LockHandle> last = client().mutex("m").acquireAsync();
    await("the last waiter queued behind the middle one")
        .atMost(Duration.ofSeconds(10))
        .until(() -> lockNodes().size() == 3);
    time.pass(); // the middle waiter's deadline

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
    // persistent, not a container: an empty container whose child counter was moved looks to the
    // server like one whose children all left, and it may reap it before the first create
    raw()
        .create(
            dir("wrap"),
            new byte[0],
            org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
            org.apache.zookeeper.CreateMode.PERSISTENT);
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
