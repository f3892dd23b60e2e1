package io.zklock.curator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.LockInfo;
import io.zklock.LockNode;
import io.zklock.LockOptions;
import io.zklock.ReadWriteLock;
import io.zklock.ZkLocks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Curator-compatible read-write lock ({@link LockOptions#curatorCompatible()}) in one queue
 * with real Curator 5.9 {@link InterProcessReadWriteLock} clients on the same path.
 */
class CuratorReadWriteLockTest extends CuratorTestBase {
  private static final LockOptions COMPAT = LockOptions.curatorCompatible();
  private static final long SECONDS = WAIT.toSeconds();

  private static Void run(InterProcessMutex side, boolean acquire) throws Exception {
    if (acquire) {
      side.acquire();
    } else {
      side.release();
    }
    return null;
  }

  /** One side of a Curator client's read-write lock on {@code name}, run on the client's thread. */
  private record CuratorSide(CuratorClient client, InterProcessMutex lock) {
    /** Takes it, within 10 s. */
    CuratorSide held() throws Exception {
      assertThat(client.run(() -> lock.acquire(10, TimeUnit.SECONDS)).get()).isTrue();
      return this;
    }

    /** Waits for it, up to the tests' wait; true once taken. */
    Future<Boolean> waiting() {
      return client.run(() -> lock.acquire(SECONDS, TimeUnit.SECONDS));
    }

    void release() throws Exception {
      client.call(lock::release);
    }
  }

  private CuratorSide curatorSide(String who, String name, boolean write)
      throws InterruptedException {
    CuratorClient c = curator(who);
    InterProcessReadWriteLock rw = new InterProcessReadWriteLock(c.framework, "/" + name);
    return new CuratorSide(c, write ? rw.writeLock() : rw.readLock());
  }

  @Test
  void nodes_areNamedAsCuratorNamesItsOwn_andReadersShareAcrossLibraries() throws Exception {
    // Given a Curator reader holding
    String name = newName("rw-share");
    CuratorClient c = curator("c");
    InterProcessReadWriteLock crw = new InterProcessReadWriteLock(c.framework, "/" + name);
    c.run(() -> run(crw.readLock(), true)).get(SECONDS, TimeUnit.SECONDS);
    ReadWriteLock zrw = zklock("z").readWriteLock(name, COMPAT);

    // Then a zklock reader shares it at once, a zklock writer cannot take it
    LockHandle read = zrw.readLock().tryAcquire().orElseThrow();
    assertThat(read.path()).matches(".*/_c_[0-9a-f-]{36}-__READ__\\d{10}");
    assertThat(zrw.writeLock().tryAcquire()).isEmpty();
    read.release();
    c.run(() -> run(crw.readLock(), false)).get();

    // and a zklock writer's node is Curator's writer name, which excludes Curator's readers
    try (LockHandle write = zrw.writeLock().acquire()) {
      assertThat(write.path()).matches(".*/_c_[0-9a-f-]{36}-__WRIT__\\d{10}");
      assertThat(c.run(() -> crw.readLock().acquire(0, TimeUnit.MILLISECONDS)).get())
          .as("Curator read while zklock wrote")
          .isFalse();
      assertThat(c.run(() -> crw.writeLock().acquire(0, TimeUnit.MILLISECONDS)).get()).isFalse();
    }
    awaitChildren(c, name, 0);
  }

  @Test
  void mixedQueue_alternatingClients_readersTogether_writersAlone_inArrivalOrder()
      throws Exception {
    // Given a Curator writer holding, then queued: readers and a writer of both libraries
    String name = newName("rw-fifo");
    RwChecker checker = new RwChecker();
    CuratorClient c0 = curator("c0");
    InterProcessReadWriteLock rw0 = new InterProcessReadWriteLock(c0.framework, "/" + name);
    c0.run(
            () -> {
              rw0.writeLock().acquire();
              checker.enterWrite("cw0", -1);
              return null;
            })
        .get(SECONDS, TimeUnit.SECONDS);
    String[] plan = {"zr1", "cr2", "zw3", "cr4", "zr5", "cw6", "zw7"};
    List<Future<?>> done = new ArrayList<>();
    for (int i = 0; i < plan.length; i++) {
      String who = plan[i];
      boolean write = who.charAt(1) == 'w';
      if (who.charAt(0) == 'z') {
        ReadWriteLock zrw = zklock(who).readWriteLock(name, COMPAT);
        DistributedLock side = write ? zrw.writeLock() : zrw.readLock();
        done.add(
            side.acquireAsync()
                .thenAccept(
                    h -> {
                      if (write) {
                        checker.enterWrite(who, h.fencingToken());
                        checker.exitWrite(who);
                      } else {
                        checker.enterRead(who);
                        checker.exitRead(who);
                      }
                      h.releaseAsync();
                    }));
      } else {
        CuratorClient c = curator(who);
        InterProcessReadWriteLock crw = new InterProcessReadWriteLock(c.framework, "/" + name);
        InterProcessMutex side = write ? crw.writeLock() : crw.readLock();
        done.add(
            c.run(
                () -> {
                  side.acquire();
                  if (write) {
                    checker.enterWrite(who, -1);
                    checker.exitWrite(who);
                  } else {
                    checker.enterRead(who);
                    checker.exitRead(who);
                  }
                  side.release();
                  return null;
                }));
      }
      awaitChildren(c0, name, i + 2);
    }

    // When the Curator writer releases
    c0.run(
            () -> {
              checker.exitWrite("cw0");
              rw0.writeLock().release();
              return null;
            })
        .get(SECONDS, TimeUnit.SECONDS);

    // Then: the readers before zw3 (in either order), zw3, the readers before cw6, cw6, zw7
    for (Future<?> f : done) {
      f.get(SECONDS, TimeUnit.SECONDS);
    }
    assertThat(checker.problems()).as("exclusion broken").isEmpty();
    List<String> e = checker.entries();
    assertThat(e).hasSize(8);
    assertThat(e.get(0)).isEqualTo("cw0");
    assertThat(e.subList(1, 3)).containsExactlyInAnyOrder("zr1", "cr2");
    assertThat(e.get(3)).isEqualTo("zw3");
    assertThat(e.subList(4, 6)).containsExactlyInAnyOrder("cr4", "zr5");
    assertThat(e.subList(6, 8)).containsExactly("cw6", "zw7");
    awaitChildren(c0, name, 0);
  }

  @Test
  void mixedClients_readingAndWritingInLoops_neverConflict_andLeaveNothing() throws Exception {
    String name = newName("rw-contend");
    RwChecker checker = new RwChecker();
    int rounds = 8;
    List<Future<?>> done = new ArrayList<>();
    ExecutorService zklockThreads = Executors.newFixedThreadPool(2);
    CuratorClient reader = curator("reader");
    try {
      for (int i = 0; i < 2; i++) {
        String cw = "c" + i;
        CuratorClient c = curator(cw);
        InterProcessReadWriteLock crw = new InterProcessReadWriteLock(c.framework, "/" + name);
        int offset = i;
        done.add(
            c.run(
                () -> {
                  for (int r = 0; r < rounds; r++) {
                    if ((r + offset) % 2 == 0) {
                      crw.writeLock().acquire();
                      checker.enterWrite(cw, -1);
                      checker.exitWrite(cw);
                      crw.writeLock().release();
                    } else {
                      crw.readLock().acquire();
                      checker.enterRead(cw);
                      checker.exitRead(cw);
                      crw.readLock().release();
                    }
                  }
                  return null;
                }));
        String zw = "z" + i;
        ReadWriteLock zrw = zklock(zw).readWriteLock(name, COMPAT);
        done.add(
            zklockThreads.submit(
                () -> {
                  for (int r = 0; r < rounds; r++) {
                    boolean write = (r + offset) % 2 == 1;
                    try (LockHandle h = (write ? zrw.writeLock() : zrw.readLock()).acquire()) {
                      if (write) {
                        checker.enterWrite(zw, h.fencingToken());
                        checker.exitWrite(zw);
                      } else {
                        checker.enterRead(zw);
                        checker.exitRead(zw);
                      }
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
    assertThat(checker.problems()).as("exclusion broken").isEmpty();
    assertThat(checker.entries()).hasSize(4 * rounds);
    awaitChildren(reader, name, 0);
  }

  @Test
  void curatorWriterExpires_zklockReaderBehindIsGranted() throws Exception {
    String name = newName("rw-curator-expires");
    CuratorSide w0 = curatorSide("c0", name, true).held();
    CompletableFuture<LockHandle> waiter =
        zklock("z1").readWriteLock(name, COMPAT).readLock().acquireAsync();
    awaitChildren(w0.client(), name, 2);
    assertThat(waiter).isNotDone();

    server.expireSession(w0.client().sessionId());

    LockHandle h = waiter.get(SECONDS, TimeUnit.SECONDS);
    assertThat(h.isHeld()).isTrue();
    h.release();
  }

  @Test
  void zklockWriterExpires_lossIsTold_andCuratorReaderBehindIsGranted() throws Exception {
    String name = newName("rw-zklock-expires");
    ZkLocks z0 = zklock("z0");
    LockHandle h = z0.readWriteLock(name, COMPAT).writeLock().acquire();
    CuratorClient c1 = curator("c1");
    InterProcessReadWriteLock rw1 = new InterProcessReadWriteLock(c1.framework, "/" + name);
    Future<Boolean> curatorReader = c1.run(() -> rw1.readLock().acquire(SECONDS, TimeUnit.SECONDS));
    awaitChildren(c1, name, 2);

    server.expireSession(z0.sessionId());

    assertThat(h.lost().get(SECONDS, TimeUnit.SECONDS)).isNotNull();
    assertThat(curatorReader.get(SECONDS, TimeUnit.SECONDS))
        .as("Curator's reader was not granted after the zklock writer's session expired")
        .isTrue();
    c1.run(() -> run(rw1.readLock(), false)).get();
  }

  @Test
  void zklockWaitingWriterExpires_queuesAgainBehindTheCuratorReaderQueuedMeanwhile()
      throws Exception {
    // Given a Curator writer holding, a zklock writer waiting behind it
    String name = newName("rw-waiter-expires");
    CuratorSide w0 = curatorSide("c0", name, true).held();
    CuratorClient c0 = w0.client();
    ZkLocks z = zklock("z");
    CompletableFuture<LockHandle> writer = z.readWriteLock(name, COMPAT).writeLock().acquireAsync();
    awaitChildren(c0, name, 2);
    long expired = z.sessionId();

    // When its session expires, and a Curator reader queues before it is back
    server.expireSession(expired);
    awaitChildren(c0, name, 1);
    CuratorSide r1 = curatorSide("c1", name, false);
    Future<Boolean> reader = r1.waiting();
    awaitChildren(c0, name, 2);
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(10))
        .until(() -> z.sessionId() != expired && children(c0, name).size() == 3);

    // Then it has one node, on its new session, behind the reader: the reader is granted first
    List<LockNode> zNodes = nodesOf(z, name, "z");
    assertThat(zNodes).hasSize(1);
    assertThat(zNodes.get(0).sessionId()).isEqualTo(z.sessionId());
    w0.release();
    assertThat(reader.get(SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(writer).isNotDone();
    r1.release();
    holdsWithTokenThenReleases(writer);
    awaitChildren(c0, name, 0);
  }

  @Test
  void zklockWriterCancelled_betweenCuratorNodes_leavesNoNode_andCuratorReaderMovesOn()
      throws Exception {
    // Given a Curator writer holding, a zklock writer waiting, a Curator reader behind it
    String name = newName("rw-cancel");
    CuratorSide w0 = curatorSide("c0", name, true).held();
    CuratorClient c0 = w0.client();
    ZkLocks z1 = zklock("z1");
    CompletableFuture<LockHandle> waiter =
        z1.readWriteLock(name, COMPAT).writeLock().acquireAsync();
    awaitChildren(c0, name, 2);
    CuratorSide r2 = curatorSide("c2", name, false);
    Future<Boolean> reader = r2.waiting();
    awaitChildren(c0, name, 3);

    // inspect sees the three, Curator's writer holding
    LockInfo info = z1.inspect(name).orElseThrow();
    assertThat(info.kind()).isEqualTo(LockInfo.Kind.READ_WRITE);
    assertThat(info.holders())
        .extracting(LockNode::kind)
        .containsExactly(LockNode.Kind.CURATOR_WRITE);
    assertThat(info.waiters())
        .extracting(LockNode::kind)
        .containsExactly(LockNode.Kind.CURATOR_WRITE, LockNode.Kind.CURATOR_READ);

    // When the zklock writer is cancelled
    waiter.cancel(true);

    // Then its node goes, and the Curator reader is granted once the Curator writer releases
    awaitChildren(c0, name, 2);
    w0.release();
    assertThat(reader.get(SECONDS, TimeUnit.SECONDS)).isTrue();
    r2.release();
    awaitChildren(c0, name, 0);
  }

  @Test
  void curatorReaderExpires_zklockWriterBehindIsGranted() throws Exception {
    // Given a Curator reader holding, and a zklock writer waiting behind it
    String name = newName("rw-curator-reader-expires");
    CuratorSide r0 = curatorSide("c0", name, false).held();
    CuratorClient reader = curator("reader");
    CompletableFuture<LockHandle> writer =
        zklock("z1").readWriteLock(name, COMPAT).writeLock().acquireAsync();
    awaitChildren(reader, name, 2);
    assertThat(writer).isNotDone();

    // When the Curator reader's session expires
    server.expireSession(r0.client().sessionId());

    // Then the zklock writer holds, with a token, its node the only one
    LockHandle h = writer.get(SECONDS, TimeUnit.SECONDS);
    assertThat(h.isHeld()).isTrue();
    assertThat(h.fencingToken()).isPositive();
    awaitChildren(reader, name, 1);
    h.release();
    awaitChildren(reader, name, 0);
  }

  @ParameterizedTest(name = "zklock {0} waiting")
  @ValueSource(strings = {"reader", "writer"})
  void zklockWaiterTimesOut_betweenCuratorNodes_leavesNoNode_andCuratorWaiterMovesOn(String side)
      throws Exception {
    // Given a Curator writer holding, a zklock reader or writer waiting with a time-out, and a
    // Curator reader behind it
    String name = newName("rw-timeout-" + side);
    CuratorSide w0 = curatorSide("c0", name, true).held();
    CuratorClient c0 = w0.client();
    ZkLocks z = zklock("z1");
    ReadWriteLock zrw = z.readWriteLock(name, COMPAT);
    DistributedLock zside = side.equals("writer") ? zrw.writeLock() : zrw.readLock();
    CompletableFuture<Optional<LockHandle>> timed =
        inBackground(() -> zside.tryAcquire(Duration.ofSeconds(2)));
    awaitChildren(c0, name, 2);
    CuratorSide r2 = curatorSide("c2", name, false);
    Future<Boolean> behind = r2.waiting();
    awaitChildren(c0, name, 3); // the zklock node stands between two Curator nodes

    // When the zklock waiter times out
    assertThat(timed.get(SECONDS, TimeUnit.SECONDS)).isEmpty();

    // Then its node is gone at once, and the Curator reader is granted when the writer releases
    assertThat(nodesOf(z, name, "z1")).as("the timed-out waiter's node").isEmpty();
    assertThat(children(c0, name)).hasSize(2);
    assertThat(behind).isNotDone();
    w0.release();
    assertThat(behind.get(SECONDS, TimeUnit.SECONDS)).isTrue();
    r2.release();
    awaitChildren(c0, name, 0);
  }
}
