package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

class ReadWriteLockTest extends ZkTestSupport {

  private void awaitNodes(int n) {
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == n);
  }

  @Test
  void readers_shareTheLock_writerExcludesThem() throws Exception {
    LockHandle r1 = client().readWriteLock("rw").readLock().acquire();
    LockHandle r2 = client().readWriteLock("rw").readLock().acquire();
    ReadWriteLock third = client().readWriteLock("rw");

    assertThat(r1.isHeld() && r2.isHeld()).as("two readers at once").isTrue();
    assertThat(r1.path()).contains("/rw/r-");
    assertThat(third.writeLock().tryAcquire()).as("a writer while readers hold").isEmpty();

    r1.release();
    r2.release();
    LockHandle w = third.writeLock().tryAcquire().orElseThrow();
    assertThat(w.path()).contains("/rw/w-");
    assertThat(client().readWriteLock("rw").readLock().tryAcquire())
        .as("a reader while a writer holds")
        .isEmpty();
    w.release();
    assertNoLockNodes();
  }

  @Test
  void writerQueuedBeforeReader_goesFirst() throws Exception {
    LockHandle r1 = client().readWriteLock("fifo").readLock().acquire();
    CompletableFuture<LockHandle> writer =
        client().readWriteLock("fifo").writeLock().acquireAsync();
    awaitNodes(2);
    CompletableFuture<LockHandle> reader = client().readWriteLock("fifo").readLock().acquireAsync();
    awaitNodes(3);

    assertThat(reader).as("a reader queued behind a writer waits, though readers hold").isNotDone();
    r1.release();
    LockHandle w = writer.get(10, TimeUnit.SECONDS);
    assertThat(reader).as("the writer goes before the later reader").isNotDone();
    w.release();
    reader.get(10, TimeUnit.SECONDS).release();
    assertNoLockNodes();
  }

  @Test
  void eightSessionsOfRandomOperations_readersOverlap_writersExclude() throws Exception {
    int sessions = 8;
    int rounds = 12;
    List<ReadWriteLock> locks = new ArrayList<>();
    for (int i = 0; i < sessions; i++) {
      locks.add(client("rw-" + i).readWriteLock("random"));
    }
    AtomicInteger readers = new AtomicInteger();
    AtomicInteger writers = new AtomicInteger();
    AtomicInteger maxReaders = new AtomicInteger();
    List<String> violations = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(sessions);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int i = 0; i < sessions; i++) {
        ReadWriteLock rw = locks.get(i);
        Random random = new Random(i);
        futures.add(
            pool.submit(
                () -> {
                  for (int r = 0; r < rounds; r++) {
                    boolean write = random.nextInt(3) == 0;
                    int op = random.nextInt(3);
                    DistributedLock side = write ? rw.writeLock() : rw.readLock();
                    LockHandle h;
                    if (op == 0) {
                      h = side.acquire();
                    } else if (op == 1) {
                      h = side.tryAcquire(Duration.ofMillis(200)).orElse(null);
                    } else {
                      h = side.tryAcquire().orElse(null);
                    }
                    if (h == null) {
                      continue;
                    }
                    try (h) {
                      if (write) {
                        int w = writers.incrementAndGet();
                        if (w != 1 || readers.get() != 0) {
                          violations.add("writer with " + w + " writers, " + readers + " readers");
                        }
                        Thread.sleep(1);
                        writers.decrementAndGet();
                      } else {
                        int n = readers.incrementAndGet();
                        maxReaders.accumulateAndGet(n, Math::max);
                        if (writers.get() != 0) {
                          violations.add("reader with a writer");
                        }
                        Thread.sleep(2);
                        readers.decrementAndGet();
                      }
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(violations).as("a writer never overlaps anyone").isEmpty();
    awaitNoLockNodes();
  }

  @Test
  void downgrade_writerQueuedMeanwhile_waitsUntilTheReadHoldIsReleased() throws Exception {
    ReadWriteLock rw = client().readWriteLock("down");
    LockHandle w = rw.writeLock().acquire();
    CompletableFuture<LockHandle> writer =
        client().readWriteLock("down").writeLock().acquireAsync();
    awaitNodes(2);

    LockHandle r = rw.downgrade(w);
    w.release();

    assertThat(w.isHeld()).as("the write handle is released").isFalse();
    assertThat(r.isHeld()).as("the downgraded read hold is held").isTrue();
    assertThat(r.fencingToken()).isEqualTo(w.fencingToken());
    assertThat(raw().exists(w.path(), false)).as("the node stays as the read hold's").isNotNull();
    assertThat(writer).as("the queued writer still waits (CURATOR-276)").isNotDone();
    assertThat(client().readWriteLock("down").readLock().tryAcquire())
        .as("a reader arriving after the downgrade waits too (documented)")
        .isEmpty();

    r.release();
    LockHandle w2 = writer.get(10, TimeUnit.SECONDS);
    assertThat(w2.fencingToken()).isGreaterThan(r.fencingToken());
    assertThat(r.lost()).as("released, not lost").isNotDone();
    assertThat(w.lost()).as("released, not lost").isNotDone();
    w2.release();
    assertNoLockNodes();
  }

  @Test
  void downgrade_sessionExpires_bothHandlesLost_nothingCreatedAgain_theWriterBehindHolds()
      throws Exception {
    // Given a write hold downgraded (its read hold shares the node) and a writer queued behind
    ZkLocks c = client("down-expires");
    ReadWriteLock rw = c.readWriteLock("down3");
    LockHandle w = rw.writeLock().acquire();
    LockHandle r = rw.downgrade(w);
    CompletableFuture<LockHandle> writer =
        client().readWriteLock("down3").writeLock().acquireAsync();
    awaitNodes(2);

    // When the session of the downgraded hold expires
    long expired = c.sessionId();
    server.expireSession(expired);

    // Then both handles are lost, the writer behind holds, and the client makes no node again
    assertThat(r.lost().get(20, TimeUnit.SECONDS).reason())
        .isEqualTo(LockLostException.Reason.SESSION_EXPIRED);
    assertThat(w.lost().get(20, TimeUnit.SECONDS).reason())
        .isEqualTo(LockLostException.Reason.SESSION_EXPIRED);
    LockHandle w2 = writer.get(20, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(20)).until(() -> c.sessionId() != expired);
    assertThat(lockNodes()).as("only the new writer's node").containsExactly(w2.path());
    w2.release();
    assertNoLockNodes();
  }

  @Test
  void downgrade_readReleasedFirst_nodeGoesWithTheWriteHandle() throws Exception {
    ReadWriteLock rw = client().readWriteLock("down2");
    LockHandle w = rw.writeLock().acquire();
    LockHandle r = rw.downgrade(w);
    r.release();
    assertThat(w.isHeld()).as("still the writer").isTrue();
    assertThat(client().readWriteLock("down2").readLock().tryAcquire()).isEmpty();
    w.release();
    assertNoLockNodes();
  }

  @Test
  void downgrade_badHandles_areRefused() throws Exception {
    ZkLocks locks = client();
    ReadWriteLock rw = locks.readWriteLock("bad");
    LockHandle m = locks.mutex("bad-m").acquire();
    assertThatThrownBy(() -> rw.downgrade(m))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a write handle");
    LockHandle read = rw.readLock().acquire();
    assertThatThrownBy(() -> rw.downgrade(read)).isInstanceOf(IllegalArgumentException.class);
    read.release();
    LockHandle w = rw.writeLock().acquire();
    w.release();
    assertThatThrownBy(() -> rw.downgrade(w))
        .isInstanceOf(IllegalMonitorStateException.class)
        .hasMessageContaining("no longer holds");
    assertThatThrownBy(() -> rw.downgrade(null)).isInstanceOf(NullPointerException.class);
    m.release();
  }

  @Test
  void jdkView_downgradeByLockingReadWhileHoldingWrite() throws Exception {
    java.util.concurrent.locks.ReadWriteLock view = client().readWriteLock("jdk").asReadWriteLock();
    CompletableFuture<LockHandle> writer = new CompletableFuture<>();
    CompletableFuture<Void> done =
        CompletableFuture.runAsync(
            () -> {
              view.writeLock().lock();
              view.readLock().lock(); // downgrade: granted at once
              client()
                  .readWriteLock("jdk")
                  .writeLock()
                  .acquireAsync()
                  .whenComplete((h, e) -> writer.complete(h));
              awaitNodes(2);
              view.writeLock().unlock();
              assertThat(writer).as("the queued writer waits for the read hold").isNotDone();
              view.readLock().unlock();
            });
    done.get(20, TimeUnit.SECONDS);
    writer.get(10, TimeUnit.SECONDS).release();
    assertNoLockNodes();
  }

  @Test
  void jdkView_readUnlock_afterTheReadNodeWasDeleted_throwsLockLost() throws Exception {
    ZkLocks locks = client();
    Lock read = locks.readWriteLock("gone").asReadWriteLock().readLock();
    read.lock();
    await()
        .atMost(Duration.ofSeconds(10))
        .alias("the holder watches its own node")
        .until(() -> Long.parseLong(server.mntr().getOrDefault("zk_watch_count", "0")) >= 1);
    raw().delete(lockNodes().get(0), -1);
    // The same session's next reply comes after the deletion's watch event: the holder has heard.
    assertThat(locks.readWriteLock("gone").writeLock().tryAcquire())
        .hasValueSatisfying(LockHandle::release);

    assertThatThrownBy(read::unlock)
        .as("the read node was deleted by someone else while held: the unlock says so")
        .isInstanceOf(LockLostException.class)
        .satisfies(
            e ->
                assertThat(((LockLostException) e).reason())
                    .isEqualTo(LockLostException.Reason.NODE_DELETED));
    assertThatThrownBy(read::unlock)
        .as("the hold is cleared")
        .isInstanceOf(IllegalMonitorStateException.class)
        .isNotInstanceOf(LockLostException.class);
  }

  @Test
  void jdkView_upgradeIsRefused_insteadOfDeadlocking() throws Exception {
    java.util.concurrent.locks.ReadWriteLock view = client().readWriteLock("up").asReadWriteLock();
    Lock read = view.readLock();
    Lock write = view.writeLock();
    read.lock();
    read.lock();

    assertThatThrownBy(write::lock)
        .isInstanceOf(IllegalMonitorStateException.class)
        .hasMessageContaining("upgrade not supported");
    assertThatThrownBy(write::tryLock)
        .isInstanceOf(IllegalMonitorStateException.class)
        .hasMessageContaining("upgrade not supported");
    assertThatThrownBy(() -> write.tryLock(1, TimeUnit.SECONDS))
        .isInstanceOf(IllegalMonitorStateException.class);

    CompletableFuture<Boolean> otherThreadReads =
        CompletableFuture.supplyAsync(
            () -> {
              boolean got = read.tryLock();
              if (got) {
                read.unlock();
              }
              return got;
            });
    assertThat(otherThreadReads.get(10, TimeUnit.SECONDS))
        .as("another thread of the process may read at once")
        .isTrue();
    read.unlock();
    read.unlock();
    assertThatThrownBy(read::unlock).isInstanceOf(IllegalMonitorStateException.class);
    assertThat(write.tryLock()).as("free after the reads").isTrue();
    write.unlock();
    assertNoLockNodes();
  }
}
