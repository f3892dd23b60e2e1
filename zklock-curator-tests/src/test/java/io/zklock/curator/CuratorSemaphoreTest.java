package io.zklock.curator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.zklock.DistributedSemaphore;
import io.zklock.LockHandle;
import io.zklock.LockInfo;
import io.zklock.LockNode;
import io.zklock.LockOptions;
import io.zklock.ZkLocks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Curator-compatible semaphore ({@link ZkLocks#semaphore(String, int, LockOptions)} with {@link
 * LockOptions#curatorCompatible()}) with real Curator 5.9 {@link InterProcessSemaphoreV2} clients
 * on the same path: leases of both libraries count against one limit.
 */
class CuratorSemaphoreTest extends CuratorTestBase {
  private static final LockOptions COMPAT = LockOptions.curatorCompatible();
  private static final long SECONDS = WAIT.toSeconds();

  /** Counts holders at once and remembers the most seen. */
  private static final class Holders {
    final AtomicInteger now = new AtomicInteger();
    final AtomicInteger max = new AtomicInteger();

    void enter() {
      enter(1);
    }

    void enter(int leases) {
      int n = now.addAndGet(leases);
      max.accumulateAndGet(n, Math::max);
    }

    void exit() {
      exit(1);
    }

    void exit(int leases) {
      now.addAndGet(-leases);
    }
  }

  @Test
  void mixedClients_inLoops_neverHoldMoreThanThePermits_andLeaveNothing() throws Exception {
    String name = newName("sem-contend");
    int permits = 2;
    int rounds = 6;
    Holders holders = new Holders();
    List<Future<?>> done = new ArrayList<>();
    ExecutorService zklockThreads = Executors.newFixedThreadPool(2);
    CuratorClient reader = curator("reader");
    try {
      for (int i = 0; i < 2; i++) {
        CuratorClient c = curator("c" + i);
        InterProcessSemaphoreV2 sem = new InterProcessSemaphoreV2(c.framework, "/" + name, permits);
        done.add(
            c.run(
                () -> {
                  for (int r = 0; r < rounds; r++) {
                    Lease lease = sem.acquire();
                    holders.enter();
                    holders.exit();
                    sem.returnLease(lease);
                  }
                  return null;
                }));
        DistributedSemaphore zsem = zklock("z" + i).semaphore(name, permits, COMPAT);
        done.add(
            zklockThreads.submit(
                () -> {
                  for (int r = 0; r < rounds; r++) {
                    try (LockHandle h = zsem.acquire()) {
                      holders.enter();
                      holders.exit();
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get(SECONDS, TimeUnit.SECONDS);
      }
    } finally {
      zklockThreads.shutdownNow();
    }
    assertThat(holders.max.get()).as("most holders at once").isBetween(1, permits);
    awaitChildren(reader, name + "/leases", 0);
    awaitChildren(reader, name + "/locks", 0);
  }

  @Test
  void curatorHoldsEveryPermit_zklockWaitsForALease_andTakesOneWhenReturned() throws Exception {
    // Given Curator's clients holding both permits
    String name = newName("sem-full");
    CuratorClient c = curator("c");
    InterProcessSemaphoreV2 sem = new InterProcessSemaphoreV2(c.framework, "/" + name, 2);
    List<Lease> held = new ArrayList<>(sem.acquire(2));
    ZkLocks z = zklock("z");
    DistributedSemaphore zsem = z.semaphore(name, 2, COMPAT);

    // Then zklock's tryAcquire fails and leaves nothing; a waiter waits
    assertThat(zsem.tryAcquire()).isEmpty();
    assertThat(children(c, name + "/leases")).hasSize(2);
    CompletableFuture<LockHandle> waiter = zsem.acquireAsync();
    awaitChildren(c, name + "/leases", 3); // admitted, its lease queued behind the two
    LockInfo info = z.inspect(name).orElseThrow();
    assertThat(info.kind()).isEqualTo(LockInfo.Kind.SEMAPHORE);
    assertThat(info.holders())
        .extracting(LockNode::clientName)
        .containsExactly("(curator)", "(curator)");
    assertThat(info.holders()).extracting(LockNode::kind).containsOnly(LockNode.Kind.CURATOR_LEASE);
    assertThat(info.waiters()).extracting(LockNode::clientName).contains("z");

    // When Curator returns one lease, the zklock waiter holds one
    sem.returnLease(held.remove(0));
    LockHandle h = waiter.get(SECONDS, TimeUnit.SECONDS);
    assertThat(h.isHeld()).isTrue();

    // and now Curator cannot take a third
    assertThat(c.run(() -> sem.acquire(1, 0, TimeUnit.MILLISECONDS)).get()).isNull();
    h.release();
    sem.returnAll(held);
    awaitChildren(c, name + "/leases", 0);
  }

  @Test
  void zklockHoldsEveryPermit_curatorWaits_andZklockWaiterCancelledLeavesNothing()
      throws Exception {
    // Given zklock holding both permits, a Curator waiter, then a zklock waiter
    String name = newName("sem-zfull");
    DistributedSemaphore zsem = zklock("z").semaphore(name, 2, COMPAT);
    LockHandle a = zsem.acquire();
    LockHandle b = zsem.acquire();
    CuratorClient c = curator("c");
    InterProcessSemaphoreV2 sem = new InterProcessSemaphoreV2(c.framework, "/" + name, 2);
    Future<Lease> curatorWaiter = c.run(() -> sem.acquire(SECONDS, TimeUnit.SECONDS));
    awaitChildren(c, name + "/leases", 3); // Curator's lease waits behind zklock's two
    CompletableFuture<LockHandle> zwaiter = zklock("z2").semaphore(name, 2, COMPAT).acquireAsync();
    awaitChildren(c, name + "/locks", 2); // waits for admission behind Curator's admitted waiter

    // When the zklock waiter is cancelled, its admission node goes
    zwaiter.cancel(true);
    awaitChildren(c, name + "/locks", 1);

    // When zklock returns a lease, the Curator waiter holds one
    a.release();
    Lease lease = curatorWaiter.get(SECONDS, TimeUnit.SECONDS);
    assertThat(lease).isNotNull();
    sem.returnLease(lease);
    b.release();
    awaitChildren(c, name + "/leases", 0);
    awaitChildren(c, name + "/locks", 0);
  }

  private static InterProcessSemaphoreV2 v2(CuratorClient c, String name, int permits) {
    return new InterProcessSemaphoreV2(c.framework, "/" + name, permits);
  }

  /** A Curator client waiting for one lease of a one-permit semaphore, up to the tests' wait. */
  private record CuratorWaiter(
      CuratorClient client, InterProcessSemaphoreV2 sem, Future<Lease> lease) {
    /** Waits until it holds, then returns its lease. */
    void holdsThenReturns() throws Exception {
      Lease got = lease.get(SECONDS, TimeUnit.SECONDS);
      assertThat(got).as("Curator's waiter got no lease").isNotNull();
      sem.returnLease(got);
    }
  }

  private CuratorWaiter curatorWaiter(String who, String name) throws InterruptedException {
    CuratorClient c = curator(who);
    InterProcessSemaphoreV2 sem = v2(c, name, 1);
    return new CuratorWaiter(c, sem, c.run(() -> sem.acquire(SECONDS, TimeUnit.SECONDS)));
  }

  /** A Curator client holding the one permit of {@code name}: its lease and its client. */
  private record CuratorHolder(CuratorClient client, InterProcessSemaphoreV2 sem, Lease lease) {
    void returnLease() throws Exception {
      sem.returnLease(lease);
    }
  }

  private CuratorHolder curatorHolder(String who, String name) throws Exception {
    CuratorClient c = curator(who);
    InterProcessSemaphoreV2 sem = v2(c, name, 1);
    return new CuratorHolder(c, sem, sem.acquire());
  }

  /** Curator's client c0 holding the one permit, and c1 admitted behind it, waiting for it. */
  private record HeldAndAdmitted(CuratorHolder holder, CuratorWaiter admitted) {}

  private HeldAndAdmitted heldAndAdmitted(String name) throws Exception {
    CuratorHolder h0 = curatorHolder("c0", name);
    CuratorWaiter c1 = curatorWaiter("c1", name);
    awaitChildren(h0.client(), name + "/leases", 2);
    return new HeldAndAdmitted(h0, c1);
  }

  /** A zklock waiter for one of one permit, once its admission node is queued behind c1's. */
  private CompletableFuture<LockHandle> queuedForAdmission(
      ZkLocks z, String name, CuratorClient reader) {
    CompletableFuture<LockHandle> waiter = z.semaphore(name, 1, COMPAT).acquireAsync();
    awaitChildren(reader, name + "/locks", 2);
    return waiter;
  }

  /** A zklock client's {@code tryAcquire} of one of one permit, waiting up to {@code seconds}. */
  private static CompletableFuture<Optional<LockHandle>> timedZklockWaiter(
      ZkLocks z, String name, int seconds) {
    DistributedSemaphore zsem = z.semaphore(name, 1, COMPAT);
    return inBackground(() -> zsem.tryAcquire(Duration.ofSeconds(seconds)));
  }

  /** Waits until nothing is left of the semaphore: no lease, no admission node. */
  private void awaitEmpty(CuratorClient reader, String name) {
    awaitChildren(reader, name + "/leases", 0);
    awaitChildren(reader, name + "/locks", 0);
  }

  @Test
  void curatorLeaseHolderExpires_zklockWaiterIsGranted_andNothingOfCuratorsIsLeft()
      throws Exception {
    // Given a Curator client holding both permits (acquire(2)), and a zklock waiter admitted behind
    String name = newName("sem-curator-expires");
    CuratorClient c0 = curator("c0");
    CuratorClient reader = curator("reader");
    Collection<Lease> held = v2(c0, name, 2).acquire(2);
    assertThat(held).hasSize(2);
    ZkLocks z = zklock("z");
    CompletableFuture<LockHandle> waiter = z.semaphore(name, 2, COMPAT).acquireAsync();
    awaitChildren(reader, name + "/leases", 3);
    assertThat(waiter).isNotDone();

    // When the Curator holder's session expires
    server.expireSession(c0.sessionId());

    // Then the zklock waiter holds a lease, the only node left, its admission node gone
    LockHandle h = waiter.get(SECONDS, TimeUnit.SECONDS);
    assertThat(h.isHeld()).isTrue();
    awaitChildren(reader, name + "/leases", 1);
    awaitChildren(reader, name + "/locks", 0);
    assertThat(nodesOf(z, name, "z")).hasSize(1);
    h.release();
    awaitEmpty(reader, name);
  }

  @Test
  void zklockLeaseHolderExpires_lossIsTold_andCuratorWaiterGetsTheLease() throws Exception {
    // Given a zklock client holding the one permit, and a Curator waiter admitted behind it
    String name = newName("sem-zklock-expires");
    ZkLocks z0 = zklock("z0");
    LockHandle h = z0.semaphore(name, 1, COMPAT).acquire();
    CuratorWaiter curatorWaiter = curatorWaiter("c1", name);
    CuratorClient c1 = curatorWaiter.client();
    awaitChildren(c1, name + "/leases", 2);

    // When the zklock holder's session expires
    server.expireSession(z0.sessionId());

    // Then the holder is told of its loss, and the Curator waiter holds the lease
    assertThat(h.lost().get(SECONDS, TimeUnit.SECONDS)).isNotNull();
    assertThat(h.isHeld()).isFalse();
    curatorWaiter.lease().get(SECONDS, TimeUnit.SECONDS);
    assertThat(children(c1, name + "/leases")).hasSize(1);
    curatorWaiter.holdsThenReturns();
    awaitEmpty(c1, name);
  }

  @ParameterizedTest(name = "the waiter {0}")
  @ValueSource(strings = {"times out", "is cancelled"})
  void zklockWaiterAdmitted_withdrawnBetweenCuratorNodes_leavesNeitherLeaseNorAdmissionNode(
      String how) throws Exception {
    // Given a Curator holder of the one permit, a zklock waiter admitted behind it (its lease
    // created, its admission node held), with a time-out or not, and a Curator waiter queued for
    // admission
    String name = newName("sem-withdrawn-admitted");
    CuratorHolder h0 = curatorHolder("c0", name);
    CuratorClient c0 = h0.client();
    ZkLocks z = zklock("z");
    boolean timesOut = how.equals("times out");
    CompletableFuture<?> waiter =
        timesOut ? timedZklockWaiter(z, name, 3) : z.semaphore(name, 1, COMPAT).acquireAsync();
    awaitChildren(c0, name + "/leases", 2);
    CuratorWaiter behind = curatorWaiter("c2", name);
    awaitChildren(c0, name + "/locks", 2); // z's admission node, then c2's

    // When the zklock waiter times out, or is cancelled
    if (timesOut) {
      assertThat(waiter.get(SECONDS, TimeUnit.SECONDS)).isEqualTo(Optional.empty());
      assertThat(nodesOf(z, name, "z")).as("the timed-out waiter's nodes").isEmpty();
    } else {
      waiter.cancel(true);
      await().atMost(WAIT).until(() -> nodesOf(z, name, "z").isEmpty());
    }

    // Then neither its lease nor its admission node is left, and the Curator waiter is admitted
    awaitChildren(c0, name + "/leases", 2); // c0's lease and c2's, waiting
    awaitChildren(c0, name + "/locks", 1); // c2's admission
    assertThat(behind.lease()).isNotDone();
    h0.returnLease();
    behind.holdsThenReturns();
    awaitEmpty(c0, name);
  }

  @Test
  void inspect_showsEachRequestOnce_withWhereItStands_whicheverLibraryMadeIt() throws Exception {
    // Given Curator's c0 holding the one permit, Curator's c1 admitted and waiting with its lease,
    // and a zklock waiter queued for admission behind it
    String name = newName("sem-inspect");
    HeldAndAdmitted curators = heldAndAdmitted(name);
    CuratorClient c0 = curators.holder().client();
    ZkLocks z = zklock("z");
    CompletableFuture<LockHandle> waiter = queuedForAdmission(z, name, c0);

    // Then each request shows once: c0 holding, c1 admitted (its lease, not also its admission
    // node), z queued
    LockInfo info = z.inspect(name).orElseThrow();
    assertThat(info.holders())
        .extracting(LockNode::clientName, LockNode::state)
        .containsExactly(tuple("(curator)", LockNode.State.HOLDING));
    assertThat(info.waiters())
        .extracting(LockNode::clientName, LockNode::state)
        .containsExactly(
            tuple("(curator)", LockNode.State.ADMITTED), tuple("z", LockNode.State.QUEUED));
    assertThat(info.waiters().get(0).path()).contains("/leases/");

    // When c0 returns its lease: c1 holds, and the zklock waiter is admitted, its lease waiting
    curators.holder().returnLease();
    Lease c1 = curators.admitted().lease().get(SECONDS, TimeUnit.SECONDS);
    awaitChildren(c0, name + "/leases", 2);
    awaitChildren(c0, name + "/locks", 1);

    // Then a zklock request in that place shows once too, as its lease, admitted
    LockInfo after = z.inspect(name).orElseThrow();
    assertThat(after.holders())
        .extracting(LockNode::clientName, LockNode::state)
        .containsExactly(tuple("(curator)", LockNode.State.HOLDING));
    assertThat(after.waiters())
        .extracting(LockNode::clientName, LockNode::state)
        .containsExactly(tuple("z", LockNode.State.ADMITTED));
    curators.admitted().sem().returnLease(c1);
    holdsWithTokenThenReleases(waiter);
    awaitEmpty(c0, name);
  }

  @Test
  void curatorAdmittedWaiterExpires_zklockWaiterQueuedForAdmissionIsAdmitted() throws Exception {
    // Given a Curator holder of the one permit, a Curator waiter admitted behind it (holding the
    // admission mutex), and a zklock waiter queued for admission
    String name = newName("sem-admitted-expires");
    HeldAndAdmitted curators = heldAndAdmitted(name);
    CuratorClient c0 = curators.holder().client();
    ZkLocks z = zklock("z");
    CompletableFuture<LockHandle> waiter = queuedForAdmission(z, name, c0);

    // When the admitted Curator waiter's session expires
    server.expireSession(curators.admitted().client().sessionId());

    // Then the zklock waiter is admitted (its lease waits behind c0's), and holds when c0 returns
    awaitChildren(c0, name + "/locks", 1);
    awaitChildren(c0, name + "/leases", 2);
    assertThat(nodesOf(z, name, "z")).isNotEmpty();
    assertThat(waiter).isNotDone();
    curators.holder().returnLease();
    holdsWithTokenThenReleases(waiter);
    awaitEmpty(c0, name);
  }

  @Test
  void zklockAdmittedWaiterExpires_curatorBehindIsAdmitted_andZklockQueuesAgainBehindIt()
      throws Exception {
    // Given a Curator holder of the one permit, a zklock waiter admitted behind it, and a Curator
    // waiter queued for admission
    String name = newName("sem-zklock-admitted-expires");
    CuratorHolder h0 = curatorHolder("c0", name);
    CuratorClient c0 = h0.client();
    ZkLocks z = zklock("z");
    CompletableFuture<LockHandle> waiter = z.semaphore(name, 1, COMPAT).acquireAsync();
    awaitChildren(c0, name + "/leases", 2);
    CuratorWaiter behind = curatorWaiter("c2", name);
    awaitChildren(c0, name + "/locks", 2);
    long expired = z.sessionId();

    // When the zklock waiter's session expires, and it is back on its new session (the Curator
    // waiter admitted meanwhile, its lease behind c0's) before c0 returns its lease
    server.expireSession(expired);
    awaitBackOnANewSession(z, name, expired);

    // Then it queued again for admission behind the Curator waiter, no lease of its own beside it
    List<LockNode> zNodes = nodesOf(z, name, "z");
    assertThat(zNodes).as("z's nodes").hasSize(1);
    assertThat(zNodes.get(0).path()).as("z's node").contains("/locks/");
    assertThat(children(c0, name + "/leases")).as("c0's lease and c2's").hasSize(2);
    assertThat(children(c0, name + "/locks")).as("c2's admission, then z's").hasSize(2);
    assertThat(waiter).isNotDone();

    // and the Curator waiter holds when c0 returns its lease, then the zklock waiter: never two
    // leases held at once, never a stall
    h0.returnLease();
    behind.holdsThenReturns();
    LockHandle h = waiter.get(SECONDS, TimeUnit.SECONDS);
    assertThat(h.isHeld()).isTrue();
    assertThat(children(c0, name + "/leases")).hasSize(1);
    h.release();
    awaitEmpty(c0, name);
  }

  /**
   * Waits until zklock's client {@code z}, whose session {@code expired} ended, is connected on a
   * new one and has a node of {@code name}'s semaphore on it again (in either directory).
   */
  private void awaitBackOnANewSession(ZkLocks z, String name, long expired) {
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(10))
        .until(
            () ->
                z.sessionId() != expired
                    && nodesOf(z, name, "z").stream().anyMatch(n -> n.sessionId() != expired));
  }

  @Test
  void zklockWaiterQueuedForAdmission_timesOutBetweenCuratorNodes_leavesNoNode() throws Exception {
    // Given a Curator holder of the one permit, a Curator waiter admitted behind it, a zklock
    // waiter with a time-out queued for admission, and another Curator waiter behind that
    String name = newName("sem-timeout-queued");
    HeldAndAdmitted curators = heldAndAdmitted(name);
    CuratorClient c0 = curators.holder().client();
    CuratorWaiter first = curators.admitted();
    ZkLocks z = zklock("z");
    CompletableFuture<Optional<LockHandle>> timed = timedZklockWaiter(z, name, 2);
    awaitChildren(c0, name + "/locks", 2);
    CuratorWaiter last = curatorWaiter("c3", name);
    awaitChildren(c0, name + "/locks", 3);

    // When the zklock waiter times out
    assertThat(timed.get(SECONDS, TimeUnit.SECONDS)).isEmpty();

    // Then its admission node is gone, and the Curator waiters are granted in turn past it
    assertThat(nodesOf(z, name, "z")).isEmpty();
    awaitChildren(c0, name + "/locks", 2);
    curators.holder().returnLease();
    first.lease().get(SECONDS, TimeUnit.SECONDS);
    assertThat(last.lease()).as("Curator's waiters are granted in queue order").isNotDone();
    first.holdsThenReturns();
    last.holdsThenReturns();
    awaitEmpty(c0, name);
  }

  @Test
  void curatorAcquireSeveral_andZklockAcquireSeveral_shareThePermits() throws Exception {
    // Given three permits, two held by Curator's acquire(2)
    String name = newName("sem-several");
    CuratorClient c = curator("c");
    InterProcessSemaphoreV2 sem = v2(c, name, 3);
    List<Lease> held = new ArrayList<>(sem.acquire(2));
    DistributedSemaphore zsem = zklock("z").semaphore(name, 3, COMPAT);

    // Then zklock cannot take two at once now, and leaves nothing trying
    assertThat(zsem.tryAcquire(2)).isEmpty();
    assertThat(children(c, name + "/leases")).hasSize(2);

    // When a zklock request for two waits, and Curator returns one lease
    CompletableFuture<LockHandle> two = zsem.acquireAsync(2);
    awaitChildren(c, name + "/leases", 4); // admitted: its two leases behind Curator's two
    assertThat(two).isNotDone();
    sem.returnLease(held.remove(0));

    // Then zklock holds two, and Curator can take no more
    LockHandle h = two.get(SECONDS, TimeUnit.SECONDS);
    assertThat(h.isHeld()).isTrue();
    assertThat(c.run(() -> sem.acquire(1, 0, TimeUnit.MILLISECONDS)).get()).isNull();

    // When Curator asks for two while zklock holds two, it waits until zklock releases
    Future<Collection<Lease>> curatorTwo = c.run(() -> sem.acquire(2, SECONDS, TimeUnit.SECONDS));
    awaitChildren(c, name + "/leases", 4); // its first lease waits behind the three held
    assertThat(curatorTwo).isNotDone();
    h.release();
    Collection<Lease> got = curatorTwo.get(SECONDS, TimeUnit.SECONDS);
    assertThat(got).hasSize(2);
    sem.returnAll(got);
    sem.returnAll(held);
    awaitEmpty(c, name);
  }

  @Test
  void mixedClients_askingForSeveralLeases_inLoops_neverHoldMoreThanThePermits() throws Exception {
    // Given three permits; per library one client asks for two leases a time, one for one
    String name = newName("sem-several-contend");
    int permits = 3;
    int rounds = 5;
    Holders holders = new Holders();
    List<Future<?>> done = new ArrayList<>();
    ExecutorService zklockThreads = threads(2);
    CuratorClient reader = curator("reader");
    for (int count = 1; count <= 2; count++) {
      int n = count;
      CuratorClient c = curator("c" + n);
      InterProcessSemaphoreV2 sem = v2(c, name, permits);
      done.add(
          c.run(
              () -> {
                for (int r = 0; r < rounds; r++) {
                  Collection<Lease> leases = sem.acquire(n);
                  holders.enter(n);
                  holders.exit(n);
                  sem.returnAll(leases);
                }
                return null;
              }));
      DistributedSemaphore zsem = zklock("z" + n).semaphore(name, permits, COMPAT);
      done.add(
          zklockThreads.submit(
              () -> {
                for (int r = 0; r < rounds; r++) {
                  try (LockHandle h = zsem.acquire(n)) {
                    holders.enter(n);
                    holders.exit(n);
                  }
                }
                return null;
              }));
    }
    awaitAll(done);
    assertThat(holders.max.get()).as("most leases held at once").isBetween(1, permits);
    awaitEmpty(reader, name);
  }
}
