package io.zklock.internal.recipe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.LockInfo;
import io.zklock.LockLostException;
import io.zklock.LockNode;
import io.zklock.LockOptions;
import io.zklock.ReadWriteLock;
import io.zklock.SessionState;
import io.zklock.ZkLocks;
import io.zklock.ZkTestSupport;
import io.zklock.internal.rules.CohortToken;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

/**
 * Cohort read-write locks ({@code readWriteLock(name, LockOptions.cohort())}): writers of one
 * client share one write node, readers of one client share one read node; the bounds against a
 * writer of another client waiting behind the read node; losses, withdrawals, the JDK view and
 * inspection.
 */
class CohortReadWriteLockTest extends ZkTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private static LockOptions cohort(int k, Duration t) {
    return LockOptions.cohort().maxLocalHandoffs(k).maxLocalHold(t);
  }

  private static CohortLock part(DistributedLock lock) {
    return (CohortLock) lock;
  }

  @Test
  void localReaders_shareOneReadNode_deletedWithTheLastRelease() throws Exception {
    ReadWriteLock rw = client().readWriteLock("share", LockOptions.cohort());
    List<LockHandle> held = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      held.add(rw.readLock().acquire());
    }
    assertThat(lockNodes()).as("one read node for five local readers").hasSize(1);
    String path = held.get(0).path();
    assertThat(path).contains("/cr-");
    assertThat(held).extracting(LockHandle::path).containsOnly(path);
    for (int i = 1; i < held.size(); i++) {
      assertThat(held.get(i).fencingToken()).isGreaterThan(held.get(i - 1).fencingToken());
      assertThat(held.get(i).fencingToken() >>> CohortToken.LOCAL_BITS)
          .as("same node, same czxid")
          .isEqualTo(held.get(0).fencingToken() >>> CohortToken.LOCAL_BITS);
    }
    for (int i = 0; i < 4; i++) {
      held.get(i).release();
      assertThat(held.get(i).isHeld()).isFalse();
      assertThat(lockNodes()).as("still held by a local reader").hasSize(1);
    }
    assertThat(held.get(4).isHeld()).isTrue();
    held.get(4).release();
    assertNoLockNodes(); // the last local reader's release deletes the node
  }

  @Test
  void localWriters_shareOneWriteNode_andALocalReaderQueuesBehindIt() throws Exception {
    ReadWriteLock rw = client().readWriteLock("wshare", cohort(1000, Duration.ofHours(1)));
    LockHandle w1 = rw.writeLock().acquire();
    assertThat(w1.path()).contains("/cw-");
    CompletableFuture<LockHandle> w2 = rw.writeLock().acquireAsync();
    await().atMost(WAIT).until(() -> part(rw.writeLock()).localWaiters() == 1);
    assertThat(rw.readLock().tryAcquire()).as("the write side holds").isEmpty();
    CompletableFuture<LockHandle> r = rw.readLock().acquireAsync();
    await().atMost(WAIT).until(() -> lockNodes().size() == 2);
    w1.release();
    LockHandle h2 = w2.get(10, TimeUnit.SECONDS);
    assertThat(h2.path()).isEqualTo(w1.path());
    assertThat(h2.fencingToken()).isEqualTo(w1.fencingToken() + 1);
    assertThat(r).isNotDone();
    h2.release(); // the reader's node waits behind: the write node is given back
    LockHandle rh = r.get(10, TimeUnit.SECONDS);
    assertThat(rh.fencingToken()).isGreaterThan(h2.fencingToken());
    rh.release();
    assertNoLockNodes();
  }

  @Test
  void sameNameAndOptions_sameLock_otherOptionsRefused_downgradeUnsupported() throws Exception {
    ZkLocks locks = client();
    ReadWriteLock rw = locks.readWriteLock("same", LockOptions.cohort());
    assertThat(locks.readWriteLock("same", LockOptions.cohort())).isSameAs(rw);
    assertThatThrownBy(() -> locks.readWriteLock("same", cohort(1, Duration.ZERO)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("same");
    assertThat(locks.readWriteLock("same", LockOptions.defaults())).isNotSameAs(rw);
    try (LockHandle w = rw.writeLock().acquire()) {
      assertThatThrownBy(() -> rw.downgrade(w))
          .isInstanceOf(UnsupportedOperationException.class)
          .hasMessageContaining("same");
    }
    assertNoLockNodes();
  }

  /**
   * Three clients times three threads, each thread mixing reads and writes: no writer beside
   * anyone, every writer's token above every token granted before it, every reader's token above
   * the last writer's.
   */
  @Test
  void exclusion_threeClientsTimesThreeThreads_readersAndWriters_fencingChecked() throws Exception {
    int clients = 3;
    int threads = 3;
    int perThread = 30;
    AtomicInteger writers = new AtomicInteger();
    AtomicInteger readers = new AtomicInteger();
    AtomicInteger maxReaders = new AtomicInteger();
    AtomicLong maxToken = new AtomicLong(Long.MIN_VALUE);
    AtomicLong lastWriter = new AtomicLong(Long.MIN_VALUE);
    List<String> errors = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(clients * threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        ReadWriteLock rw = client("c" + c).readWriteLock("mixed", cohort(2, Duration.ofMillis(2)));
        for (int t = 0; t < threads; t++) {
          int thread = t;
          done.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < perThread; i++) {
                      if ((i + thread) % 3 == 0) {
                        try (LockHandle h = rw.writeLock().acquire()) {
                          if (writers.incrementAndGet() != 1 || readers.get() != 0) {
                            errors.add("writer beside another holder");
                          }
                          long token = h.fencingToken();
                          if (token <= maxToken.get()) {
                            errors.add("writer token " + token + " after " + maxToken.get());
                          }
                          maxToken.accumulateAndGet(token, Math::max);
                          lastWriter.set(token);
                          Thread.onSpinWait();
                          writers.decrementAndGet();
                        }
                      } else {
                        try (LockHandle h = rw.readLock().acquire()) {
                          maxReaders.accumulateAndGet(readers.incrementAndGet(), Math::max);
                          if (writers.get() != 0) {
                            errors.add("reader beside a writer");
                          }
                          long token = h.fencingToken();
                          if (token <= lastWriter.get()) {
                            errors.add("reader token " + token + " after writer " + lastWriter);
                          }
                          maxToken.accumulateAndGet(token, Math::max);
                          Thread.yield();
                          readers.decrementAndGet();
                        }
                      }
                    }
                    return null;
                  }));
        }
      }
      for (Future<?> f : done) {
        f.get(180, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(errors).as("exclusion or fencing broken").isEmpty();
    awaitNoLockNodes();
  }

  /**
   * A writer of another client queues behind the local read node. Once the read cohort has seen it,
   * local readers may join until the node has had K local grants after its first; the next ones
   * wait in memory, the writer is granted when the last local reader releases, and the waiting
   * readers get a new node behind it.
   */
  @Test
  void kBound_remoteWriterBehindTheReadNode_isGrantedAfterKMoreLocalReaders() throws Exception {
    int k = 3;
    ReadWriteLock local = client("local").readWriteLock("kbound", cohort(k, Duration.ofHours(1)));
    ReadWriteLock remote = client("remote").readWriteLock("kbound", cohort(k, Duration.ofHours(1)));
    DistributedLock read = local.readLock();
    LockHandle r0 = read.acquire();
    await("the listing after the grant")
        .atMost(WAIT)
        .until(() -> part(read).remoteSeen() || lockNodes().size() == 1);
    LockHandle free = read.tryAcquire().orElseThrow(); // no writer behind: no bound (grant 1)
    free.release();
    CompletableFuture<LockHandle> w = remote.writeLock().acquireAsync();
    await().atMost(WAIT).until(part(read)::remoteSeen);

    List<LockHandle> joined = new ArrayList<>();
    for (int i = 1; i < k; i++) { // grants 2..K
      joined.add(read.tryAcquire().orElseThrow(() -> new AssertionError("within the bound")));
    }
    assertThat(joined).extracting(LockHandle::path).containsOnly(r0.path());
    assertThat(read.tryAcquire()).as("past the bound: busy").isEmpty();
    assertThat(read.tryAcquire(Duration.ofMillis(50))).as("waits in memory, times out").isEmpty();
    CompletableFuture<LockHandle> late = read.acquireAsync();
    await().atMost(WAIT).until(() -> part(read).localWaiters() == 1);
    assertThat(lockNodes()).hasSize(2);

    r0.release();
    joined.get(0).release();
    assertThat(w).as("a local reader still holds").isNotDone();
    joined.get(1).release(); // the last local holder: the node goes back
    LockHandle wh = w.get(10, TimeUnit.SECONDS);
    await().atMost(WAIT).until(() -> lockNodes().size() == 2); // the late reader's new node
    assertThat(late).isNotDone();
    wh.release();
    LockHandle lh = late.get(10, TimeUnit.SECONDS);
    assertThat(lh.path()).isNotEqualTo(r0.path()).contains("/cr-");
    assertThat(lh.fencingToken()).isGreaterThan(wh.fencingToken());
    assertThat(wh.fencingToken()).isGreaterThan(joined.get(1).fencingToken());
    lh.release();
    assertNoLockNodes();
  }

  /** The T bound: T after the read node's grant, with a writer seen behind, new readers wait. */
  @Test
  void tBound_afterTWithAWriterBehind_newLocalReadersWait() throws Exception {
    Duration t = Duration.ofMillis(100);
    ReadWriteLock local = client("local").readWriteLock("tbound", cohort(1000, t));
    ReadWriteLock remote = client("remote").readWriteLock("tbound", cohort(1000, t));
    DistributedLock read = local.readLock();
    LockHandle r0 = read.acquire();
    long start = System.nanoTime(); // after the node's grant: T has passed once this is T ago
    CompletableFuture<LockHandle> w = remote.writeLock().acquireAsync();
    await().atMost(WAIT).until(part(read)::remoteSeen);
    Thread.sleep(Math.max(0, t.toMillis() - (System.nanoTime() - start) / 1_000_000) + 1);
    assertThat(read.tryAcquire()).as("T has passed since the grant: busy").isEmpty();
    CompletableFuture<LockHandle> late = read.acquireAsync();
    await().atMost(WAIT).until(() -> part(read).localWaiters() == 1);
    r0.release();
    LockHandle wh = w.get(10, TimeUnit.SECONDS);
    assertThat(late).isNotDone();
    wh.release();
    late.get(10, TimeUnit.SECONDS).release();
    assertNoLockNodes();
  }

  /** This client's own writer behind its read node bounds its readers as a remote one does. */
  @Test
  void ownWriterBehindTheReadNode_boundsLocalReadersToo() throws Exception {
    ReadWriteLock rw = client().readWriteLock("own", cohort(0, Duration.ofHours(1)));
    LockHandle r0 = rw.readLock().acquire();
    CompletableFuture<LockHandle> w = rw.writeLock().acquireAsync();
    await().atMost(WAIT).until(part(rw.readLock())::remoteSeen);
    assertThat(rw.readLock().tryAcquire()).as("K = 0: no reader joins").isEmpty();
    CompletableFuture<LockHandle> late = rw.readLock().acquireAsync();
    await().atMost(WAIT).until(() -> part(rw.readLock()).localWaiters() == 1);
    r0.release();
    LockHandle wh = w.get(10, TimeUnit.SECONDS);
    assertThat(late).isNotDone();
    wh.release();
    LockHandle lh = late.get(10, TimeUnit.SECONDS);
    assertThat(lh.fencingToken()).isGreaterThan(wh.fencingToken());
    lh.release();
    assertNoLockNodes();
  }

  /** Readers of another client behind the read node hold beside it, and bound nothing. */
  @Test
  void remoteReadersBehind_doNotBoundLocalReaders() throws Exception {
    ReadWriteLock local = client("local").readWriteLock("readers", cohort(0, Duration.ZERO));
    ReadWriteLock remote = client("remote").readWriteLock("readers", cohort(0, Duration.ZERO));
    LockHandle r0 = local.readLock().acquire();
    LockHandle rr = remote.readLock().acquire();
    await().atMost(WAIT).until(() -> lockNodes().size() == 2);
    for (int i = 0; i < 3; i++) {
      LockHandle again = local.readLock().tryAcquire().orElseThrow();
      assertThat(again.path()).isEqualTo(r0.path());
      again.release();
    }
    assertThat(part(local.readLock()).remoteWaiting()).isFalse();
    rr.release();
    r0.release();
    assertNoLockNodes();
  }

  @Test
  void sessionExpires_localReadersHolding_areTold_localWriterWaitingQueuesAgain() throws Exception {
    ZkLocks locks = client("local");
    ReadWriteLock rw = locks.readWriteLock("rexp", LockOptions.cohort());
    LockHandle r1 = rw.readLock().acquire();
    LockHandle r2 = rw.readLock().acquire();
    CompletableFuture<LockHandle> w = rw.writeLock().acquireAsync();
    await().atMost(WAIT).until(() -> lockNodes().size() == 2);
    long oldSession = locks.sessionId();

    server.expireSession(oldSession);

    for (LockHandle r : List.of(r1, r2)) {
      LockLostException lost = r.lost().get(10, TimeUnit.SECONDS);
      assertThat(lost.reason()).isEqualTo(LockLostException.Reason.SESSION_EXPIRED);
      assertThat(r.isHeld()).isFalse();
    }
    LockHandle wh = w.get(20, TimeUnit.SECONDS); // queued again on the new session
    assertThat(locks.sessionId()).isNotEqualTo(oldSession);
    assertThat(wh.fencingToken()).isGreaterThan(r2.fencingToken());
    assertThat(wh.lost()).isNotDone();
    r1.release(); // harmless after the loss
    r2.release();
    LockHandle r3 = rw.readLock().tryAcquire().orElse(null);
    assertThat(r3).as("the local writer holds").isNull();
    wh.release();
    assertNoLockNodes();
  }

  /**
   * A local reader waits in memory behind the bound when the session expires: the holding reader is
   * told, the remote writer gets the lock, and the waiting reader queues again behind it.
   */
  @Test
  void sessionExpires_localReaderWaitingBehindTheBound_queuesAgainBehindTheWriter()
      throws Exception {
    ZkLocks locks = client("local");
    ReadWriteLock rw = locks.readWriteLock("bexp", cohort(0, Duration.ofHours(1)));
    LockHandle r0 = rw.readLock().acquire();
    CompletableFuture<LockHandle> w =
        client("remote")
            .readWriteLock("bexp", cohort(0, Duration.ofHours(1)))
            .writeLock()
            .acquireAsync();
    await().atMost(WAIT).until(part(rw.readLock())::remoteSeen);
    CompletableFuture<LockHandle> late = rw.readLock().acquireAsync();
    await().atMost(WAIT).until(() -> part(rw.readLock()).localWaiters() == 1);
    long oldSession = locks.sessionId();

    server.expireSession(oldSession);

    assertThat(r0.lost().get(10, TimeUnit.SECONDS).reason())
        .isEqualTo(LockLostException.Reason.SESSION_EXPIRED);
    LockHandle wh = w.get(10, TimeUnit.SECONDS);
    await()
        .atMost(WAIT)
        .until(
            () ->
                locks.sessionState() == SessionState.CONNECTED && locks.sessionId() != oldSession);
    await().atMost(WAIT).until(() -> lockNodes().size() == 2); // queued again, on the new session
    assertThat(late).isNotDone();
    wh.release();
    LockHandle lh = late.get(10, TimeUnit.SECONDS);
    assertThat(lh.fencingToken()).isGreaterThan(wh.fencingToken());
    assertThat(lh.lost()).isNotDone();
    lh.release();
    r0.release();
    assertNoLockNodes();
  }

  @Test
  void sessionExpires_localWriterHolding_isTold_localWaitersOfBothSidesGetTheLockLater()
      throws Exception {
    ZkLocks locks = client("local");
    ReadWriteLock rw = locks.readWriteLock("wexp", LockOptions.cohort());
    LockHandle w1 = rw.writeLock().acquire();
    CompletableFuture<LockHandle> w2 = rw.writeLock().acquireAsync();
    CompletableFuture<LockHandle> r = rw.readLock().acquireAsync();
    await().atMost(WAIT).until(() -> part(rw.writeLock()).localWaiters() == 1);
    await().atMost(WAIT).until(() -> lockNodes().size() == 2);
    long oldSession = locks.sessionId();

    server.expireSession(oldSession);

    assertThat(w1.lost().get(10, TimeUnit.SECONDS).reason())
        .isEqualTo(LockLostException.Reason.SESSION_EXPIRED);
    await()
        .atMost(WAIT)
        .until(
            () ->
                locks.sessionState() == SessionState.CONNECTED && locks.sessionId() != oldSession);
    // both sides queue again on the new session, in either order; each is granted in turn
    CompletableFuture.anyOf(w2, r).get(20, TimeUnit.SECONDS);
    LockHandle first = w2.isDone() ? w2.get() : r.get();
    assertThat(first.fencingToken()).isGreaterThan(w1.fencingToken());
    assertThat(w2.isDone() && r.isDone()).as("never both at once").isFalse();
    first.release();
    LockHandle second = (first == w2.getNow(null) ? r : w2).get(20, TimeUnit.SECONDS);
    assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
    second.release();
    w1.release();
    assertNoLockNodes();
  }

  @Test
  void timeoutInterruptCancel_ofLocalReadersAndWriters_leaveNothingBehind() throws Exception {
    LockHandle remoteHeld =
        client("remote").readWriteLock("withdraw", LockOptions.cohort()).writeLock().acquire();
    ReadWriteLock rw = client("local").readWriteLock("withdraw", LockOptions.cohort());
    DistributedLock read = rw.readLock();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      assertThat(read.tryAcquire()).isEmpty();
      assertThat(read.tryAcquire(Duration.ofMillis(200))).isEmpty();
      assertThat(rw.writeLock().tryAcquire(Duration.ofMillis(200))).isEmpty();
      // a local waiter that gives up hears at once, and its node request is withdrawn right after
      // (CohortLock.giveUp): the node's delete may still be on its way when the caller returns
      await().atMost(WAIT).until(() -> lockNodes().size() == 1);
      CompletableFuture<LockHandle> c1 = read.acquireAsync();
      CompletableFuture<LockHandle> c2 = read.acquireAsync();
      CompletableFuture<LockHandle> cw = rw.writeLock().acquireAsync();
      await().atMost(WAIT).until(() -> lockNodes().size() == 3);
      c1.cancel(true);
      assertThat(lockNodes()).as("another local reader still waits").hasSize(3);
      c2.cancel(true);
      cw.cancel(true);
      await().atMost(WAIT).until(() -> lockNodes().size() == 1);
      CountDownLatch started = new CountDownLatch(1);
      Future<Object> interrupted =
          pool.submit(
              () -> {
                started.countDown();
                try {
                  return read.acquire();
                } catch (InterruptedException e) {
                  return e;
                }
              });
      started.await();
      await().atMost(WAIT).until(() -> lockNodes().size() == 2);
      interrupted.cancel(true);
      await().atMost(WAIT).until(() -> lockNodes().size() == 1);
      assertThat(part(read).localWaiters()).isZero();
    } finally {
      pool.shutdownNow();
    }
    remoteHeld.release();
    try (LockHandle h = read.acquire()) {
      assertThat(h.isHeld()).isTrue();
    }
    assertNoLockNodes();
  }

  @Test
  void asReadWriteLock_readersShareANode_upgradeRefused_writeReentrant() throws Exception {
    ReadWriteLock rw = client().readWriteLock("view", LockOptions.cohort());
    java.util.concurrent.locks.ReadWriteLock view = rw.asReadWriteLock();
    assertThat(rw.asReadWriteLock()).isSameAs(view);
    Lock r = view.readLock();
    Lock w = view.writeLock();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      r.lock();
      r.lock();
      assertThat(pool.submit(() -> r.tryLock(5, TimeUnit.SECONDS)).get(10, TimeUnit.SECONDS))
          .as("another thread reads too")
          .isTrue();
      assertThat(lockNodes()).as("one read node for both threads").hasSize(1);
      assertThatThrownBy(w::lock)
          .isInstanceOf(IllegalMonitorStateException.class)
          .hasMessageContaining("upgrade");
      pool.submit(r::unlock).get(10, TimeUnit.SECONDS);
      r.unlock();
      r.unlock();
      assertThatThrownBy(r::unlock).isInstanceOf(IllegalMonitorStateException.class);
      w.lock();
      w.lock();
      assertThatThrownBy(r::lock)
          .as("a downgrade through the view")
          .isInstanceOf(UnsupportedOperationException.class);
      assertThat(pool.submit(() -> r.tryLock(100, TimeUnit.MILLISECONDS)).get(10, TimeUnit.SECONDS))
          .as("a writer holds")
          .isFalse();
      w.unlock();
      w.unlock();
      assertThat(pool.submit(() -> w.tryLock(5, TimeUnit.SECONDS)).get(10, TimeUnit.SECONDS))
          .isTrue();
      pool.submit(w::unlock).get(10, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }
    awaitNoLockNodes();
  }

  @Test
  void inspect_showsCohortReadAndWriteNodes_asAReadWriteLock() throws Exception {
    ReadWriteLock local = client("local").readWriteLock("insp", LockOptions.cohort());
    LockHandle r1 = local.readLock().acquire();
    LockHandle r2 = local.readLock().acquire();
    CompletableFuture<LockHandle> w =
        client("writer").readWriteLock("insp", LockOptions.cohort()).writeLock().acquireAsync();
    ZkLocks viewer = client("viewer");
    await()
        .atMost(WAIT)
        .until(() -> viewer.inspect("insp").map(i -> i.waiters().size() == 1).orElse(false));
    LockInfo info = viewer.inspect("insp").orElseThrow();
    assertThat(info.kind()).isEqualTo(LockInfo.Kind.READ_WRITE);
    assertThat(info.holders()).hasSize(1);
    assertThat(info.holders().get(0).kind()).isEqualTo(LockNode.Kind.COHORT_READ);
    assertThat(info.holders().get(0).path()).isEqualTo(r1.path());
    assertThat(info.waiters().get(0).kind()).isEqualTo(LockNode.Kind.COHORT_WRITE);
    assertThat(info.waiters().get(0).kind().label()).isEqualTo("cohort-write");
    assertThat(info.holders().get(0).data()).containsEntry("tokens", "(czxid<<16)|k");
    assertThat(info.holders().get(0).fencingToken())
        .as("the node's czxid, the upper bits of its readers' tokens")
        .isEqualTo(r1.fencingToken() >>> CohortToken.LOCAL_BITS);
    r1.release();
    r2.release();
    LockHandle wh = w.get(10, TimeUnit.SECONDS);
    LockInfo after = viewer.inspect("insp").orElseThrow();
    assertThat(after.holders()).extracting(LockNode::path).containsExactly(wh.path());
    assertThat(after.waiters()).isEmpty();
    wh.release();
    assertNoLockNodes();
  }

  @Test
  void inspect_cohortMutex_showsItsNodeAsACohortMutex() throws Exception {
    DistributedLock m = client("local").mutex("insm", LockOptions.cohort());
    LockHandle h = m.acquire();
    CompletableFuture<LockHandle> remote =
        client("remote").mutex("insm", LockOptions.cohort()).acquireAsync();
    ZkLocks viewer = client("viewer");
    await()
        .atMost(WAIT)
        .until(() -> viewer.inspect("insm").map(i -> i.waiters().size() == 1).orElse(false));
    LockInfo info = viewer.inspect("insm").orElseThrow();
    assertThat(info.kind()).isEqualTo(LockInfo.Kind.MUTEX);
    assertThat(info.holders()).extracting(LockNode::kind).containsExactly(LockNode.Kind.COHORT);
    assertThat(info.holders().get(0).path()).isEqualTo(h.path());
    assertThat(info.holders().get(0).kind().label()).isEqualTo("cohort");
    assertThat(info.holders().get(0).data()).containsEntry("tokens", "(czxid<<16)|k");
    h.release();
    remote.get(10, TimeUnit.SECONDS).release();
    assertNoLockNodes();
  }
}
