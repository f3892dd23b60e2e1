package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.LockEvent.Type;
import io.zklock.testkit.FaultProxy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The lock event seam ({@link ZkLocks.Builder#eventListener}) on a real server: every recipe tells
 * its steps in order, each request's events share its id, and a listener that throws or blocks
 * breaks and stalls nothing.
 */
class LockEventsTest extends ZkTestSupport {

  /** Records every event in place (a non-blocking listener). */
  static final class Recorder implements LockEventListener {
    final List<LockEvent> events = new CopyOnWriteArrayList<>();

    @Override
    public void onEvent(LockEvent event) {
      events.add(event);
    }

    @Override
    public boolean isNonBlocking() {
      return true;
    }

    /** The events of one lock's requests, session events left out. */
    List<LockEvent> of(String lockName) {
      return events.stream().filter(e -> e.lockName().equals(lockName)).toList();
    }

    /** The types of the events of the request {@code id}. */
    List<Type> types(long id) {
      return events.stream().filter(e -> e.requestId() == id).map(LockEvent::type).toList();
    }

    /** The id of the {@code n}th request (from 0) of the lock {@code name}. */
    long request(String name, int n) {
      return of(name).stream()
          .filter(e -> e.type() == Type.REQUESTED)
          .skip(n)
          .findFirst()
          .orElseThrow(() -> new AssertionError("no request " + n + " of " + name + ": " + events))
          .requestId();
    }

    LockEvent last(long id) {
      List<LockEvent> mine = events.stream().filter(e -> e.requestId() == id).toList();
      return mine.get(mine.size() - 1);
    }
  }

  private ZkLocks observed(Recorder r) {
    return track(builder().eventListener(r).build());
  }

  @Test
  void mutex_waiterIsQueuedBehindTheHolder_thenGrantedAndReleased_inOrder() throws Exception {
    Recorder r = new Recorder();
    ZkLocks locks = observed(r);
    LockHandle first = locks.mutex("m").acquire();
    CompletableFuture<LockHandle> second = locks.mutex("m").acquireAsync();
    long a = r.request("m", 0);
    long b = r.request("m", 1);
    await().until(() -> r.types(b).contains(Type.QUEUED));

    first.release();
    LockHandle h = second.get(30, TimeUnit.SECONDS);
    h.release();

    assertThat(r.types(a)).containsExactly(Type.REQUESTED, Type.GRANTED, Type.RELEASED);
    await().until(() -> r.types(b).size() == 4);
    assertThat(r.types(b))
        .as("the waiter's steps")
        .containsExactly(Type.REQUESTED, Type.QUEUED, Type.GRANTED, Type.RELEASED);
    LockEvent queued = r.of("m").stream().filter(e -> e.type() == Type.QUEUED).findFirst().get();
    assertThat(queued.position()).as("requests ahead of the waiter").isEqualTo(1);
    LockEvent granted =
        r.events.stream()
            .filter(e -> e.requestId() == b && e.type() == Type.GRANTED)
            .findFirst()
            .get();
    assertThat(granted.fencingToken()).isEqualTo(h.fencingToken());
    assertThat(granted.kind()).isEqualTo("mutex");
    assertThat(granted.sessionId()).isEqualTo(locks.sessionId());
    assertThat(r.last(b).fencingToken())
        .as("the release names the grant's token")
        .isEqualTo(h.fencingToken());
  }

  @Test
  void addEventListener_onABuiltInstance_hearsTheSessionThenLaterRequests_untilRemoved()
      throws Exception {
    ZkLocks locks = track(builder().build()); // built with no listener: it makes no event
    LockHandle before = locks.mutex("late").acquire(); // a request before anyone listens
    Recorder r = new Recorder();

    locks.addEventListener(r);
    before.release();
    locks.mutex("late").acquire().release();

    assertThat(r.events.get(0).type()).as("first, the session's state").isEqualTo(Type.SESSION);
    assertThat(r.events.get(0).sessionState()).isEqualTo(SessionState.CONNECTED);
    assertThat(r.events.get(0).sessionId()).isEqualTo(locks.sessionId());
    assertThat(r.of("late").stream().map(LockEvent::type))
        .as("the request made before the listener is not told; the next one is, whole")
        .containsExactly(Type.REQUESTED, Type.GRANTED, Type.RELEASED);

    locks.removeEventListener(r);
    int heard = r.events.size();
    locks.mutex("late").acquire().release();
    assertThat(r.events).as("nothing after the removal").hasSize(heard);
  }

  @Test
  void readWriteLock_readerQueuedBehindWriter_kindsNamed() throws Exception {
    Recorder r = new Recorder();
    ZkLocks locks = observed(r);
    ReadWriteLock rw = locks.readWriteLock("rw");
    LockHandle w = rw.writeLock().acquire();
    CompletableFuture<LockHandle> read = rw.readLock().acquireAsync();
    long reader = r.request("rw", 1);
    await().until(() -> r.types(reader).contains(Type.QUEUED));
    w.release();
    read.get(30, TimeUnit.SECONDS).release();

    long writer = r.request("rw", 0);
    assertThat(r.types(writer)).containsExactly(Type.REQUESTED, Type.GRANTED, Type.RELEASED);
    assertThat(r.types(reader))
        .containsExactly(Type.REQUESTED, Type.QUEUED, Type.GRANTED, Type.RELEASED);
    assertThat(r.last(writer).kind()).isEqualTo("write");
    assertThat(r.last(reader).kind()).isEqualTo("read");
  }

  @Test
  void waiterWhoseConnectionDropsAndReturns_isQueuedOnce_whileItsPlaceStaysTheSame()
      throws Exception {
    Recorder r = new Recorder();
    try (FaultProxy proxy = FaultProxy.start(server.connectString())) {
      ZkLocks waiterSide =
          track(
              ZkLocks.builder(proxy.connectString())
                  .namespace(namespace)
                  .sessionTimeout(Duration.ofSeconds(20))
                  .eventListener(r)
                  .build());
      LockHandle held = client().mutex("m").acquire();
      CompletableFuture<LockHandle> waiting = waiterSide.mutex("m").acquireAsync();
      long waiter = r.request("m", 0);
      await().until(() -> r.types(waiter).contains(Type.QUEUED));

      proxy.cut(); // the connection drops; the session lives on and the waiter lists again
      proxy.pass();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> waiterSide.sessionState() == SessionState.CONNECTED);
      assertThat(waiting).as("still behind the holder").isNotDone();
      held.release();
      waiting.get(30, TimeUnit.SECONDS).release();

      assertThat(r.types(waiter))
          .as("a second listing at the same place is no news")
          .containsExactly(Type.REQUESTED, Type.QUEUED, Type.GRANTED, Type.RELEASED);
    }
  }

  @Test
  void semaphore_busyTryIsTimedOutBusy_leaseGrantedAndReleased() throws Exception {
    Recorder r = new Recorder();
    ZkLocks locks = observed(r);
    DistributedSemaphore sem = locks.semaphore("s", 1);
    LockHandle lease = sem.acquire();
    assertThat(sem.tryAcquire()).isEmpty();
    lease.release();

    long held = r.request("s", 0);
    long busy = r.request("s", 1);
    assertThat(r.types(held)).containsExactly(Type.REQUESTED, Type.GRANTED, Type.RELEASED);
    assertThat(r.types(busy)).containsExactly(Type.REQUESTED, Type.TIMED_OUT);
    assertThat(r.last(busy).reason()).isEqualTo("busy");
    assertThat(r.last(held).kind()).isEqualTo("semaphore");
  }

  @Test
  void semaphore_waiterForALease_isQueued_thenGranted() throws Exception {
    Recorder r = new Recorder();
    ZkLocks locks = observed(r);
    LockHandle taken = client().semaphore("q", 1).acquire(); // another client, not observed
    CompletableFuture<LockHandle> waiter = locks.semaphore("q", 1).acquireAsync();
    long id = r.request("q", 0);
    await().until(() -> r.types(id).contains(Type.QUEUED));
    taken.release();
    waiter.get(30, TimeUnit.SECONDS).release();

    assertThat(r.types(id))
        .as("queued (for the lease, maybe for the admission too), then granted, released")
        .startsWith(Type.REQUESTED, Type.QUEUED)
        .endsWith(Type.GRANTED, Type.RELEASED)
        .doesNotContain(Type.TIMED_OUT, Type.CANCELLED, Type.FAILED, Type.LOST);
  }

  /**
   * A waiter queues, then its deadline passes. Queueing takes round trips (the directory's ACL, the
   * create, the watch on the holder's node) that a loaded machine makes longer than any deadline a
   * test could pick, and a deadline that passes first is another case (REQUESTED, TIMED_OUT). So
   * the test holds the time of the observed instance ({@link HeldTime}): its deadline passes when
   * the test says, once the waiter is queued.
   */
  @Test
  void simpleLock_timedOutWaiter_isQueuedThenTimedOut() throws Exception {
    Recorder r = new Recorder();
    Duration timeout = Duration.ofMillis(200);
    HeldTime time = new HeldTime(timeout);
    ZkLocks locks = track(time.build(this, r));
    LockHandle held = client().simpleLock("x").acquire(); // another client, not observed
    CompletableFuture<Optional<LockHandle>> none =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return locks.simpleLock("x").tryAcquire(timeout);
              } catch (InterruptedException e) {
                throw new CompletionException(e);
              }
            });
    await().until(() -> r.of("x").stream().anyMatch(e -> e.type() == Type.QUEUED));
    time.pass();

    assertThat(none.get(30, TimeUnit.SECONDS)).isEmpty();
    held.release();
    long id = r.request("x", 0);
    assertThat(r.types(id)).containsExactly(Type.REQUESTED, Type.QUEUED, Type.TIMED_OUT);
    assertThat(r.last(id).reason()).isEqualTo("timeout");
    assertThat(r.last(id).kind()).isEqualTo("simple");
    assertThat(r.last(id).elapsed()).isGreaterThanOrEqualTo(timeout);
  }

  @Test
  void multiLock_isOneRequest_ofKindMulti() throws Exception {
    Recorder r = new Recorder();
    ZkLocks locks = observed(r);
    DistributedLock both = locks.multiLock(locks.mutex("a"), locks.mutex("b"));
    both.acquire().release();

    assertThat(r.events.stream().filter(e -> e.type() == Type.REQUESTED).count())
        .as("the parts are not told as requests of their own")
        .isEqualTo(1);
    long id = r.request(both.name(), 0);
    assertThat(r.types(id)).containsExactly(Type.REQUESTED, Type.GRANTED, Type.RELEASED);
    assertThat(r.last(id).kind()).isEqualTo("multi");
  }

  @Test
  void cohortMutex_requestsTold_ofKindCohort() throws Exception {
    Recorder r = new Recorder();
    ZkLocks locks = observed(r);
    DistributedLock lock = locks.mutex("c", LockOptions.cohort());
    lock.acquire().release();
    lock.acquire().release();

    for (int n = 0; n < 2; n++) {
      long id = r.request("c", n);
      assertThat(r.types(id)).containsExactly(Type.REQUESTED, Type.GRANTED, Type.RELEASED);
      assertThat(r.last(id).kind()).isEqualTo("cohort");
    }
  }

  @Test
  void election_leadershipIsAGrant_closeReleasesIt() throws Exception {
    Recorder r = new Recorder();
    ZkLocks locks = observed(r);
    LeaderElection e = locks.leaderElection("lead", "p1");
    e.start();
    assertThat(e.awaitLeadership(Duration.ofSeconds(30))).isTrue();
    e.close();

    long id = r.request("lead", 0);
    await().until(() -> r.types(id).size() == 3);
    assertThat(r.types(id)).containsExactly(Type.REQUESTED, Type.GRANTED, Type.RELEASED);
    assertThat(r.last(id).kind()).isEqualTo("election");
  }

  @Test
  void cancelledWaiter_isCancelled_andForcedReleaseIsLost() throws Exception {
    Recorder r = new Recorder();
    ZkLocks locks = observed(r);
    LockHandle held = locks.mutex("k").acquire();
    CompletableFuture<LockHandle> waiter = locks.mutex("k").acquireAsync();
    long w = r.request("k", 1);
    await().until(() -> r.types(w).contains(Type.QUEUED));
    waiter.cancel(true);
    client().forceRelease("k");
    held.lost().get(30, TimeUnit.SECONDS);

    long h = r.request("k", 0);
    await().until(() -> r.types(h).contains(Type.LOST));
    assertThat(r.types(w)).containsExactly(Type.REQUESTED, Type.QUEUED, Type.CANCELLED);
    assertThat(r.types(h)).containsExactly(Type.REQUESTED, Type.GRANTED, Type.LOST);
    assertThat(r.last(h).reason()).isEqualTo(LockLostException.Reason.NODE_DELETED.name());
    awaitNoLockNodes();
  }

  /**
   * A non-blocking listener (a meter) has heard of a loss by the time the holder's {@code lost()}
   * completes: whatever the holder runs on that future sees the loss counted. The holder's callback
   * is attached after the library's own; were they on one future, it would run first.
   */
  @Test
  void lostCompletes_afterANonBlockingListenerHeardTheLoss() throws Exception {
    Recorder r = new Recorder();
    ZkLocks locks = observed(r);
    LockHandle held = locks.mutex("told-first").acquire();
    long h = r.request("told-first", 0);
    CompletableFuture<List<Type>> seenAtLoss = held.lost().thenApply(e -> r.types(h));

    client().forceRelease("told-first");

    assertThat(seenAtLoss.get(30, TimeUnit.SECONDS))
        .containsExactly(Type.REQUESTED, Type.GRANTED, Type.LOST);
  }

  @Test
  void observedGrant_guardedWrite_commitsBehindTheGrantsOwnNode() throws Exception {
    ZkLocks locks = observed(new Recorder());
    String path = "/observed" + namespace.replace('/', '-');
    for (DistributedLock lock :
        List.of(locks.mutex("g"), locks.multiLock(locks.mutex("a"), locks.mutex("b")))) {
      try (LockHandle h = lock.acquire()) {
        h.transaction().create(path, new byte[0]).delete(path).commit();
      }
    }
    assertThat(raw().exists(path, false)).isNull();
  }

  @Test
  void sessionChanges_areTold() {
    Recorder r = new Recorder();
    ZkLocks locks = observed(r);
    locks.close();

    await()
        .untilAsserted(
            () ->
                assertThat(
                        r.events.stream()
                            .filter(e -> e.type() == Type.SESSION)
                            .map(LockEvent::sessionState))
                    .contains(SessionState.CLOSED));
  }

  @Test
  void throwingListener_breaksNoLock_andTheOthersStillHearEverything() throws Exception {
    Recorder r = new Recorder();
    AtomicInteger thrown = new AtomicInteger();
    LockEventListener throwing =
        new LockEventListener() {
          @Override
          public void onEvent(LockEvent event) {
            thrown.incrementAndGet();
            throw new IllegalStateException("listener failure, on purpose");
          }

          @Override
          public boolean isNonBlocking() {
            return true;
          }
        };
    ZkLocks locks = track(builder().eventListener(throwing).eventListener(r).build());
    DistributedLock lock = locks.mutex("t");
    for (int i = 0; i < 3; i++) {
      try (LockHandle h = lock.acquire()) {
        assertThat(h.isHeld()).isTrue();
      }
    }
    assertThat(lock.tryAcquire()).isPresent().get().satisfies(LockHandle::release);

    assertThat(thrown.get()).as("the throwing listener was called").isGreaterThanOrEqualTo(12);
    assertThat(r.of("t").stream().filter(e -> e.type() == Type.RELEASED).count()).isEqualTo(4);
    awaitNoLockNodes();
  }

  @Test
  void blockingListener_stallsNoLock() throws Exception {
    CountDownLatch unblock = new CountDownLatch(1);
    AtomicInteger heard = new AtomicInteger();
    LockEventListener blocking =
        event -> {
          heard.incrementAndGet();
          try {
            unblock.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        };
    ZkLocks locks = track(builder().eventListener(blocking).build());
    try {
      DistributedLock lock = locks.mutex("b");
      for (int i = 0; i < 20; i++) {
        lock.acquire().release();
      }
      CompletableFuture<LockHandle> async = lock.acquireAsync();
      async.get(30, TimeUnit.SECONDS).releaseAsync().get(30, TimeUnit.SECONDS);
      assertThat(heard.get()).as("the listener is stuck in its first event").isEqualTo(1);
    } finally {
      unblock.countDown();
    }
    await().until(() -> heard.get() >= 63); // the queued events reach it once it returns
    assertThat(locks.droppedEvents()).isZero();
  }
}
