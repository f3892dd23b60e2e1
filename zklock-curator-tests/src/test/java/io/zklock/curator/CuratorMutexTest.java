package io.zklock.curator;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.LockInfo;
import io.zklock.LockLostException;
import io.zklock.LockNode;
import io.zklock.LockOptions;
import io.zklock.ZkLocks;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.junit.jupiter.api.Test;

/**
 * The Curator-compatible mutex ({@link LockOptions#curatorCompatible()}) in one queue with real
 * Curator 5.9 {@link InterProcessMutex} clients on the same path.
 */
class CuratorMutexTest extends CuratorTestBase {
  private static final LockOptions COMPAT = LockOptions.curatorCompatible();

  @Test
  void zklockNode_isNamedAsCuratorNamesItsOwn_andCuratorSeesIt() throws Exception {
    // Given a zklock client holding a compatible mutex
    String name = newName("names");
    CuratorClient c = curator("c");
    try (LockHandle h = zklock("z").mutex(name, COMPAT).acquire()) {
      // Then its node has Curator's protected name, and Curator's recipe counts it as a participant
      String node = h.path().substring(h.path().lastIndexOf('/') + 1);
      assertThat(node)
          .as("a zklock node in a compatible queue must be named as Curator's mutex names its own")
          .matches("_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-lock-\\d{10}");
      InterProcessMutex m = new InterProcessMutex(c.framework, "/" + name);
      assertThat(m.getParticipantNodes()).containsExactly(h.path());
      // and a Curator client cannot take it
      assertThat(c.run(() -> m.acquire(0, TimeUnit.MILLISECONDS)).get())
          .as("Curator acquired a mutex held by zklock")
          .isFalse();
    }
  }

  @Test
  void mixedQueue_alternatingClients_grantedInArrivalOrder() throws Exception {
    // Given a Curator holder, and waiters of both libraries queued one after the other
    String name = newName("fifo");
    FencingChecker checker = new FencingChecker();
    CuratorClient c0 = curator("c0");
    InterProcessMutex m0 = new InterProcessMutex(c0.framework, "/" + name);
    c0.run(
            () -> {
              m0.acquire();
              checker.enter("c0", -1);
              return null;
            })
        .get(WAIT.toSeconds(), TimeUnit.SECONDS);
    List<Future<?>> done = new ArrayList<>();
    List<String> order = new ArrayList<>(List.of("c0"));
    for (int i = 1; i <= 6; i++) {
      String who = (i % 2 == 1 ? "z" : "c") + i;
      order.add(who);
      if (i % 2 == 1) {
        DistributedLock lock = zklock(who).mutex(name, COMPAT);
        done.add(
            lock.acquireAsync()
                .thenAccept(
                    h -> {
                      checker.enter(who, h.fencingToken());
                      checker.exit(who);
                      h.releaseAsync();
                    }));
      } else {
        CuratorClient c = curator(who);
        InterProcessMutex m = new InterProcessMutex(c.framework, "/" + name);
        done.add(
            c.run(
                () -> {
                  m.acquire();
                  checker.enter(who, -1);
                  checker.exit(who);
                  m.release();
                  return null;
                }));
      }
      awaitChildren(c0, name, i + 1); // queued behind the previous one
    }

    // When the Curator holder releases
    c0.run(
            () -> {
              checker.exit("c0");
              m0.release();
              return null;
            })
        .get(WAIT.toSeconds(), TimeUnit.SECONDS);

    // Then each is granted in turn, in the order it queued, alone
    for (Future<?> f : done) {
      f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
    assertThat(checker.problems()).as("overlaps or tokens out of order").isEmpty();
    assertThat(checker.entries()).as("grant order across both libraries").isEqualTo(order);
    awaitChildren(c0, name, 0);
  }

  @Test
  void mixedClients_contendingInLoops_neverOverlap_andLeaveNothing() throws Exception {
    // Given three Curator and three zklock clients, each taking the lock 10 times as fast as it can
    String name = newName("contend");
    FencingChecker checker = new FencingChecker();
    int rounds = 10;
    List<Future<?>> done = new ArrayList<>();
    ExecutorService zklockThreads = Executors.newFixedThreadPool(3);
    CuratorClient reader = curator("reader");
    try {
      for (int i = 0; i < 3; i++) {
        String cw = "c" + i;
        CuratorClient c = curator(cw);
        InterProcessMutex m = new InterProcessMutex(c.framework, "/" + name);
        done.add(
            c.run(
                () -> {
                  for (int r = 0; r < rounds; r++) {
                    m.acquire();
                    checker.enter(cw, -1);
                    checker.exit(cw);
                    m.release();
                  }
                  return null;
                }));
        String zw = "z" + i;
        DistributedLock lock = zklock(zw).mutex(name, COMPAT);
        done.add(
            zklockThreads.submit(
                () -> {
                  for (int r = 0; r < rounds; r++) {
                    try (LockHandle h = lock.acquire()) {
                      checker.enter(zw, h.fencingToken());
                      checker.exit(zw);
                    }
                  }
                  return null;
                }));
      }
      // When all have finished
      for (Future<?> f : done) {
        f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      }
    } finally {
      zklockThreads.shutdownNow();
    }
    // Then no two held at once, zklock's tokens rose, and no node is left behind
    assertThat(checker.problems()).as("overlaps or tokens out of order").isEmpty();
    assertThat(checker.entries()).hasSize(6 * rounds);
    awaitChildren(reader, name, 0);
  }

  @Test
  void curatorHolderExpires_zklockWaiterBehindIsGranted() throws Exception {
    // Given a Curator holder and a zklock waiter behind it
    String name = newName("curator-expires");
    CuratorClient c0 = curator("c0");
    InterProcessMutex m0 = new InterProcessMutex(c0.framework, "/" + name);
    assertThat(c0.run(() -> m0.acquire(10, TimeUnit.SECONDS)).get()).isTrue();
    CompletableFuture<LockHandle> waiter = zklock("z1").mutex(name, COMPAT).acquireAsync();
    awaitChildren(c0, name, 2);
    assertThat(waiter).isNotDone();

    // When the Curator holder's session expires
    server.expireSession(c0.sessionId());

    // Then the zklock waiter holds, with a token
    holdsWithTokenThenReleases(waiter);
  }

  @Test
  void zklockHolderExpires_lossIsTold_andCuratorWaiterBehindIsGranted() throws Exception {
    // Given a zklock holder and a Curator waiter behind it
    String name = newName("zklock-expires");
    ZkLocks z0 = zklock("z0");
    LockHandle h = z0.mutex(name, COMPAT).acquire();
    CuratorClient c1 = curator("c1");
    InterProcessMutex m1 = new InterProcessMutex(c1.framework, "/" + name);
    Future<Boolean> curatorWaiter = c1.run(() -> m1.acquire(WAIT.toSeconds(), TimeUnit.SECONDS));
    awaitChildren(c1, name, 2);

    // When the zklock holder's session expires
    server.expireSession(z0.sessionId());

    // Then the holder is told of its loss, and the Curator waiter holds
    LockLostException lost = h.lost().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(lost).isNotNull();
    assertThat(h.isHeld()).isFalse();
    assertThat(curatorWaiter.get(WAIT.toSeconds(), TimeUnit.SECONDS))
        .as("Curator's waiter was not granted after the zklock holder's session expired")
        .isTrue();
    c1.run(
            () -> {
              m1.release();
              return null;
            })
        .get();
  }

  @Test
  void zklockWaiterTimesOut_betweenCuratorNodes_leavesNoNode_andQueueMovesOn() throws Exception {
    // Given a Curator holder, a zklock waiter with a time-out, and a Curator waiter behind it
    String name = newName("timeout");
    CuratorClient c0 = curator("c0");
    InterProcessMutex m0 = new InterProcessMutex(c0.framework, "/" + name);
    assertThat(c0.run(() -> m0.acquire(10, TimeUnit.SECONDS)).get()).isTrue();
    DistributedLock lock = zklock("z1").mutex(name, COMPAT);
    CompletableFuture<Optional<LockHandle>> timed =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return lock.tryAcquire(java.time.Duration.ofSeconds(3));
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    awaitChildren(c0, name, 2);
    CuratorClient c2 = curator("c2");
    InterProcessMutex m2 = new InterProcessMutex(c2.framework, "/" + name);
    Future<Boolean> behind = c2.run(() -> m2.acquire(WAIT.toSeconds(), TimeUnit.SECONDS));
    awaitChildren(c0, name, 3); // the zklock node stands between two Curator nodes

    // When the zklock waiter times out
    assertThat(timed.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEmpty();

    // Then its node is gone at once, and the Curator waiter behind it gets the lock next
    assertThat(children(c0, name)).as("the timed-out waiter's node must be gone").hasSize(2);
    assertThat(behind).isNotDone();
    c0.run(
            () -> {
              m0.release();
              return null;
            })
        .get();
    assertThat(behind.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    c2.run(
            () -> {
              m2.release();
              return null;
            })
        .get();
    awaitChildren(c0, name, 0);
  }

  @Test
  void zklockWaiterCancelled_betweenCuratorNodes_leavesNoNode() throws Exception {
    // Given a Curator holder, a zklock waiter, and a Curator waiter behind it
    String name = newName("cancel");
    CuratorClient c0 = curator("c0");
    InterProcessMutex m0 = new InterProcessMutex(c0.framework, "/" + name);
    assertThat(c0.run(() -> m0.acquire(10, TimeUnit.SECONDS)).get()).isTrue();
    CompletableFuture<LockHandle> waiter = zklock("z1").mutex(name, COMPAT).acquireAsync();
    awaitChildren(c0, name, 2);
    CuratorClient c2 = curator("c2");
    InterProcessMutex m2 = new InterProcessMutex(c2.framework, "/" + name);
    Future<Boolean> behind = c2.run(() -> m2.acquire(WAIT.toSeconds(), TimeUnit.SECONDS));
    awaitChildren(c0, name, 3);

    // When the zklock waiter is cancelled
    waiter.cancel(true);

    // Then its node goes, and the queue moves on past it
    awaitChildren(c0, name, 2);
    c0.run(
            () -> {
              m0.release();
              return null;
            })
        .get();
    assertThat(behind.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    // and a non-waiting tryAcquire while Curator holds leaves nothing either
    assertThat(zklock("z3").mutex(name, COMPAT).tryAcquire()).isEmpty();
    assertThat(children(c0, name)).hasSize(1);
    c2.run(
            () -> {
              m2.release();
              return null;
            })
        .get();
    awaitChildren(c0, name, 0);
  }

  @Test
  void inspect_showsCuratorClientsInTheCompatibleQueue() throws Exception {
    // Given a Curator holder and a zklock waiter
    String name = newName("inspect");
    CuratorClient c0 = curator("c0");
    InterProcessMutex m0 = new InterProcessMutex(c0.framework, "/" + name);
    assertThat(c0.run(() -> m0.acquire(10, TimeUnit.SECONDS)).get()).isTrue();
    ZkLocks z1 = zklock("z1");
    CompletableFuture<LockHandle> waiter = z1.mutex(name, COMPAT).acquireAsync();
    awaitChildren(c0, name, 2);

    // When zklock inspects the lock
    LockInfo info = z1.inspect(name).orElseThrow();

    // Then the Curator client holds, the zklock client waits, both as compatible mutex nodes
    assertThat(info.kind()).isEqualTo(LockInfo.Kind.MUTEX);
    assertThat(info.holders()).hasSize(1);
    LockNode holder = info.holders().get(0);
    assertThat(holder.kind()).isEqualTo(LockNode.Kind.CURATOR_MUTEX);
    assertThat(holder.clientName()).isEqualTo("(curator)");
    assertThat(holder.ownerData()).as("Curator's default node data: its address").isNotEmpty();
    assertThat(holder.sessionId()).isEqualTo(c0.sessionId());
    assertThat(holder.data()).containsKey("curator");
    assertThat(info.waiters()).hasSize(1);
    assertThat(info.waiters().get(0).kind()).isEqualTo(LockNode.Kind.CURATOR_MUTEX);
    assertThat(info.waiters().get(0).clientName()).isEqualTo("z1");
    waiter.cancel(true);
  }
}
