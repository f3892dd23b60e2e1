package io.zklock.curator;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.DistributedSemaphore;
import io.zklock.LockHandle;
import io.zklock.LockInfo;
import io.zklock.LockNode;
import io.zklock.LockOptions;
import io.zklock.ZkLocks;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.junit.jupiter.api.Test;

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
      int n = now.incrementAndGet();
      max.accumulateAndGet(n, Math::max);
    }

    void exit() {
      now.decrementAndGet();
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
}
