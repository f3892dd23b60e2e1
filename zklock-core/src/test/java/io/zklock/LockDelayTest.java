package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.zklock.testkit.EmbeddedZooKeeper;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.server.ServerCnxn;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * {@link LockOptions#lockDelay}: after a grant ends by failure (session expired, node deleted by
 * someone else) the next grant waits out the delay; after a clean release it does not; a waiter
 * that gives up during the delay leaves no node. Timings are measured with {@code nanoTime} around
 * the grant; the delay is short (1.5 s) so that the class stays quick.
 */
class LockDelayTest extends ZkTestSupport {
  private static final Duration DELAY = Duration.ofMillis(1500);
  private static final LockOptions DELAYED = LockOptions.defaults().lockDelay(DELAY);

  /**
   * Hides {@link ZkTestSupport#startServer()}: the server must not reap an emptied lock directory
   * within the delay (its record would go with it: see docs/guarantees.md), so the container check
   * runs at ZooKeeper's default, once a minute.
   */
  @BeforeAll
  static void startServer() {
    server =
        EmbeddedZooKeeper.standalone()
            .tickTime(Duration.ofMillis(100))
            .containerCheckInterval(Duration.ofSeconds(60))
            .start();
  }

  private CompletableFuture<LockHandle> waiterBehind(LockHandle held, String name) {
    CompletableFuture<LockHandle> next = client("next").mutex(name, DELAYED).acquireAsync();
    awaitWaiters(name, 1);
    return next;
  }

  private void awaitWaiters(String name, int n) {
    ZkLocks operator = client("operator");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> operator.inspect(name).map(i -> i.waiters().size()).orElse(0) == n);
  }

  private static long millisSince(long t0) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
  }

  @RepeatedTest(3)
  void cleanRelease_handsOverWithoutDelay() throws Exception {
    // a delay far longer than any scheduling hiccup: a grant within it was not delayed (a time
    // bound near the short DELAY would measure the machine's load, not the protocol)
    LockOptions longDelay = LockOptions.defaults().lockDelay(Duration.ofMinutes(2));
    LockHandle held = client("holder").mutex("job", longDelay).acquire();
    CompletableFuture<LockHandle> next = client("next").mutex("job", longDelay).acquireAsync();
    awaitWaiters("job", 1);

    held.release();
    LockHandle got = next.get(30, TimeUnit.SECONDS);

    assertThat(got.isHeld()).as("a clean release is handed over without the delay").isTrue();
    got.release();
    awaitNoLockNodes();
  }

  @RepeatedTest(2)
  void holderSessionExpired_nextGrantWaitsOutTheDelay() throws Exception {
    ZkLocks holder = client("holder");
    LockHandle held = holder.mutex("job", DELAYED).acquire();
    CompletableFuture<LockHandle> next = waiterBehind(held, "job");

    long t0 = System.nanoTime();
    server.expireSession(holder.sessionId());
    LockHandle got = next.get(10, TimeUnit.SECONDS);

    assertThat(millisSince(t0)).as("granted only after the delay").isGreaterThanOrEqualTo(1500);
    assertThat(got.fencingToken()).isGreaterThan(held.fencingToken());
    got.release();
    awaitNoLockNodes();
  }

  @Test
  void forcedRelease_nextGrantWaitsOutTheDelay() throws Exception {
    LockHandle held = client("stuck").mutex("job", DELAYED).acquire();
    CompletableFuture<LockHandle> next = waiterBehind(held, "job");

    long t0 = System.nanoTime();
    ZkLocks operator = client("operator");
    operator.forceRelease("job");
    await("inspect shows the delay in progress")
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                operator
                    .inspect("job")
                    .map(i -> i.holders().stream().anyMatch(n -> n.lockDelayUntil().isPresent()))
                    .orElse(false));
    // isDone read before the clock: a grant it saw came before that reading (a machine slow enough
    // may only look after the delay, and then a grant is due)
    boolean granted = next.isDone();
    long seen = millisSince(t0);
    assertThat(!granted || seen >= 1500)
        .as(
            "not granted during the delay (granted: %s, %d ms after the forced release)",
            granted, seen)
        .isTrue();
    LockHandle got = next.get(10, TimeUnit.SECONDS);

    assertThat(millisSince(t0)).as("granted only after the delay").isGreaterThanOrEqualTo(1500);
    assertThat(held.lost().get(10, TimeUnit.SECONDS).reason())
        .isEqualTo(LockLostException.Reason.NODE_DELETED);
    got.release();
    awaitNoLockNodes();
  }

  @Test
  void leaseRunOut_nextGrantWaitsOutTheDelay() throws Exception {
    // a lease that cannot run out before the waiter stands behind the holder (a short one could,
    // on a loaded machine, and the waiter would be the holder); shortened once it does
    LockHandle held =
        client("stuck").mutex("job", DELAYED).withLease(Duration.ofMinutes(10)).acquire();
    CompletableFuture<LockHandle> next = waiterBehind(held, "job");

    // read before the lease is set to run out: the failure, and so the delay, come after it
    long t0 = System.nanoTime();
    assertThat(held.extend(Duration.ofMillis(500))).as("still held, lease shortened").isTrue();
    LockLostException lost = held.lost().get(10, TimeUnit.SECONDS);
    LockHandle got = next.get(10, TimeUnit.SECONDS);

    assertThat(lost.reason()).isEqualTo(LockLostException.Reason.LEASE_EXPIRED);
    assertThat(millisSince(t0))
        .as("granted only after the lease (500 ms) and then the delay (1500 ms)")
        .isGreaterThanOrEqualTo(500 + 1500);
    got.release();
    awaitNoLockNodes();
  }

  @Test
  void newcomerAfterAFailure_tryAcquireBusyUntilTheDelayHasPassed() throws Exception {
    ZkLocks holder = client("holder");
    holder.mutex("job", DELAYED).acquire();
    long t0 = System.nanoTime();
    server.expireSession(holder.sessionId());
    awaitNoLockNodes();
    DistributedLock lock = client("newcomer").mutex("job", DELAYED);

    assertThat(lock.tryAcquire()).as("busy during the delay").isEmpty();
    assertNoLockNodes();
    Optional<LockHandle> got = Optional.empty();
    while (got.isEmpty()) {
      got = lock.tryAcquire(Duration.ofSeconds(5));
    }

    assertThat(millisSince(t0)).as("granted only after the delay").isGreaterThanOrEqualTo(1500);
    got.get().release();
    awaitNoLockNodes();
  }

  @RepeatedTest(2)
  void timeoutDuringTheDelay_leavesNoNode_andTheNextStillWaits() throws Exception {
    ZkLocks holder = client("holder");
    holder.mutex("job", DELAYED).acquire();
    DistributedLock lock = client("next").mutex("job", DELAYED);
    long start = System.nanoTime();
    CompletableFuture<Optional<LockHandle>> timed =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return lock.tryAcquire(Duration.ofMillis(3000));
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    awaitWaiters("job", 1);
    // the waiter's deadline (start + 3 s) falls inside the delay (from start + 2 s to 3.5 s)
    await().atMost(Duration.ofSeconds(10)).until(() -> millisSince(start) >= 2000);
    long t0 = System.nanoTime();
    server.expireSession(holder.sessionId());

    assertThat(timed.get(10, TimeUnit.SECONDS)).as("timed out during the delay").isEmpty();
    assertNoLockNodes();
    LockHandle got = client("third").mutex("job", DELAYED).acquire();
    assertThat(millisSince(t0))
        .as("the withdrawal kept the delay for the next one")
        .isGreaterThanOrEqualTo(1500);
    got.release();
    awaitNoLockNodes();
  }

  @Test
  void cancelDuringTheDelay_leavesNoNode() throws Exception {
    // a delay far longer than the steps up to the cancel, which a loaded machine can stretch past a
    // short one (the waiter would then hold, and the cancel come too late)
    LockOptions longDelay = LockOptions.defaults().lockDelay(Duration.ofMinutes(2));
    ZkLocks holder = client("holder");
    holder.mutex("job", longDelay).acquire();
    CompletableFuture<LockHandle> next = client("next").mutex("job", longDelay).acquireAsync();
    awaitWaiters("job", 1);
    server.expireSession(holder.sessionId());
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 1);

    assertThat(next.cancel(true)).isTrue();

    awaitNoLockNodes();
  }

  @Test
  void readWriteLockCohortAndCuratorMode_refuseADelay_zeroIsTheDefault() {
    assertThatThrownBy(() -> client().readWriteLock("rw", DELAYED))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("plain mutex only")
        .hasMessageContaining("read-write lock 'rw'");
    assertThatThrownBy(() -> LockOptions.cohort().lockDelay(DELAY))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("plain mutex only");
    assertThatThrownBy(() -> LockOptions.curatorCompatible().lockDelay(DELAY))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("plain mutex only");
    assertThat(LockOptions.defaults().lockDelay(Duration.ZERO)).isEqualTo(LockOptions.defaults());
    assertThatThrownBy(() -> LockOptions.defaults().lockDelay(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void semaphoreAndElection_refuseADelay_namingTheLock_andLeaveNoNode() {
    ZkLocks locks = client();
    assertThatThrownBy(() -> locks.semaphore("pool", 2, DELAYED))
        .as("a semaphore does not honour a lock-delay: refused at the call, not ignored")
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("plain mutex only")
        .hasMessageContaining("semaphore 'pool'");
    assertThatThrownBy(() -> locks.leaderElection("leader", "me", DELAYED))
        .as("an election does not honour a lock-delay: refused at the call, not ignored")
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("plain mutex only")
        .hasMessageContaining("election 'leader'");
    assertThat(locks.inspect("pool")).as("nothing was made for the refused semaphore").isEmpty();
    // the same options without the delay are accepted
    assertThat(locks.semaphore("pool", 2, LockOptions.defaults())).isNotNull();
    assertThat(locks.leaderElection("leader", "me", LockOptions.defaults())).isNotNull();
  }

  // ------------------------------------------------------------------ requests, by the server

  /** The requests a session has sent, by the server's count of its connection's packets. */
  /**
   * The requests {@code locks}'s session has sent, without pings and {@code sync}s: the keep-alives
   * of ZooKeeper's client and zklock's heartbeats go out on their own clocks and would be counted
   * by whichever window they fall into.
   */
  private static long requests(ZkLocks locks) {
    return server.requestsOf(locks.sessionId());
  }

  private long uncontendedCycle(ZkLocks locks, DistributedLock lock) throws Exception {
    lock.acquire().release(); // the directory exists from here on
    long before = requests(locks);
    lock.acquire().release();
    return requests(locks) - before;
  }

  @Test
  void requests_zeroDelayCostsWhatThePlainMutexCosts_aDelayOneReadMore() throws Exception {
    ZkLocks locks = client("counted");
    long plain = uncontendedCycle(locks, locks.mutex("plain"));
    long zero = uncontendedCycle(locks, locks.mutex("zero", LockOptions.defaults()));
    long delayed = uncontendedCycle(locks, locks.mutex("delayed", DELAYED));

    System.out.printf(
        "lock-delay requests per uncontended cycle: plain %d, zero delay %d, delay %d%n",
        plain, zero, delayed);
    assertThat(zero).as("a zero delay sends no extra request").isEqualTo(plain);
    assertThat(delayed).as("one read of the record before the create").isEqualTo(plain + 1);
  }

  @Test
  void requests_ofAHandoff_cleanWithoutAnyRequestAfterTheRelease_failedWithOneReadAfterTheDelay()
      throws Exception {
    long[] clean = handoff(false);
    long[] failed = handoff(true);
    System.out.printf(
        "lock-delay handoff, waiter's requests before the grant / after the predecessor's end:"
            + " clean %d / %d, failed %d / %d; releaser's requests for the release: %d%n",
        clean[0], clean[1], failed[0], failed[1], clean[2]);
    assertThat(clean[1]).as("no request between the release and the grant").isZero();
    // during the delay, off the grant's path: the mark for inspect (one setData); after the delay
    // one read of our own node, whose answer proves the session and the node still there (a timer
    // alone proves neither); at the grant the removal of the record's watch, which no release fired
    assertThat(failed[1])
        .as("the delay's mark, the read of our node after the delay, the watch's removal")
        .isLessThanOrEqualTo(3);
    // as before a lock-delay: the own-node watch's removal and the delete (now a multi), pipelined
    assertThat(clean[2]).as("the release: watch removal + one multi, one round trip").isEqualTo(2);
  }

  /** {waiter's requests to set its wait, waiter's after the end, releaser's release}. */
  private long[] handoff(boolean fail) throws Exception {
    String name = fail ? "failed" : "clean";
    ZkLocks holder = client("holder");
    LockHandle held = holder.mutex(name, DELAYED).acquire();
    awaitDataWatch(held.path());
    ZkLocks waiter = client("waiter");
    long start = requests(waiter);
    CompletableFuture<LockHandle> next = waiter.mutex(name, DELAYED).acquireAsync();
    awaitWaiters(name, 1);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> connectionIdle(waiter) && requests(waiter) - start >= 5);
    long set = requests(waiter);
    long releaser = requests(holder);
    if (fail) {
      server.expireSession(holder.sessionId());
    } else {
      held.release();
    }
    long released = fail ? 0 : requests(holder) - releaser;
    long[] atGrant = new long[1];
    LockHandle got =
        next.thenApply(
                h -> {
                  atGrant[0] = requests(waiter);
                  return h;
                })
            .get(10, TimeUnit.SECONDS);
    got.release();
    return new long[] {set - start, atGrant[0] - set, released};
  }

  private static boolean connectionIdle(ZkLocks locks) {
    for (ServerCnxn c : server.server().getServerCnxnFactory().getConnections()) {
      if (c.getSessionId() == locks.sessionId()) {
        return c.getOutstandingRequests() == 0;
      }
    }
    return false;
  }
}
