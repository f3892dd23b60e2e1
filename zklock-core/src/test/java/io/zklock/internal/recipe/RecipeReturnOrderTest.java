package io.zklock.internal.recipe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.DistributedLock;
import io.zklock.DistributedSemaphore;
import io.zklock.LeaderElection;
import io.zklock.LeadershipListener;
import io.zklock.LockHandle;
import io.zklock.LockOptions;
import io.zklock.ReadWriteLock;
import io.zklock.ZkLocks;
import io.zklock.ZkTestSupport;
import io.zklock.internal.Internals;
import io.zklock.internal.LibraryThreads;
import io.zklock.internal.rules.Waiting;
import io.zklock.internal.zk.BlockingOps;
import io.zklock.testkit.FaultProxy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * When the recipes answer (issue 33): the properties of docs/guarantees.md about the moment a
 * cohort release, a semaphore's failed acquire and a leader's {@code close()}/{@code requeue()}
 * return, on a server, with the other side held back: a client's replies held by a {@link
 * FaultProxy} (the server applies what the client sends, the client hears nothing), a listener that
 * blocks until told. What must not have happened yet is decided at a point that an early answer
 * cannot have passed: once the server shows the effect of the request that the answer must wait
 * for, and the library's executor is drained ({@link LibraryThreads}) or the caller's thread is
 * parked; each answer also records, as it is given, whether the replies were still held.
 */
class RecipeReturnOrderTest extends ZkTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);

  /**
   * How long "at once" may take here: far less than the 13 s after which the client's ZooKeeper
   * handle gives up on a silent connection (two thirds of the 20 s session timeout) and fails what
   * it waited for, which an answer that waited for the server would then be.
   */
  private static final Duration AT_ONCE = Duration.ofSeconds(5);

  /** A client whose connection goes through {@code proxy}. */
  private ZkLocks through(FaultProxy proxy) {
    return track(
        ZkLocks.builder(proxy.connectString())
            .namespace(namespace)
            .sessionTimeout(Duration.ofSeconds(20))
            .connectTimeout(Duration.ofSeconds(10))
            .build());
  }

  private boolean exists(String path) throws Exception {
    return raw().exists(path, false) != null;
  }

  private void awaitGone(String path) {
    await("deleted on the server: " + path).atMost(WAIT).until(() -> !exists(path));
  }

  /** Waits until {@code t} is parked (waiting for something) or has ended. */
  private static void awaitParkedOrEnded(Thread t) {
    await(t.getName() + " parked or ended")
        .atMost(WAIT)
        .until(
            () ->
                switch (t.getState()) {
                  case WAITING, TIMED_WAITING, TERMINATED -> true;
                  default -> false;
                });
  }

  /**
   * Whether {@code future} completed while {@code proxy} still held the replies, read as it
   * completes. Read it with {@link #wasMuted}: a caller woken by {@code future} itself may run
   * before the callbacks of {@code future} that were registered ahead of its wait (a waiting thread
   * is woken first), so the answer is a future of its own, complete once the reading was made.
   */
  private static CompletableFuture<Boolean> answeredWhileMuted(
      CompletableFuture<?> future, FaultProxy proxy) {
    return future.handle((v, t) -> proxy.mode() == FaultProxy.Mode.MUTE_REPLIES);
  }

  /** The reading of {@link #answeredWhileMuted}, once made. */
  private static boolean wasMuted(CompletableFuture<Boolean> muted) throws Exception {
    return muted.get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  // ---------------------------------------------------------------- cohort locks

  @Test
  void cohortRelease_givingTheNodeUp_answersOnlyOnceItsDeletionIsAcknowledged() throws Exception {
    try (FaultProxy proxy = FaultProxy.start(server.connectString())) {
      ZkLocks locks = through(proxy);
      LockHandle h = locks.mutex("cohort", LockOptions.cohort()).acquire();
      String node = h.path();

      // When the only local holder releases (the node is given up) with the replies held
      proxy.muteReplies();
      CompletableFuture<Void> released = h.releaseAsync();
      CompletableFuture<Boolean> early = answeredWhileMuted(released, proxy);
      awaitGone(node);
      LibraryThreads.drain(locks);

      // Then it has not answered: the server applied the delete, the client has not heard
      assertThat(released).as("answered before the deletion was acknowledged").isNotDone();
      proxy.pass();
      released.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(wasMuted(early)).as("answered while the delete's reply was held").isFalse();
    }
  }

  @Test
  void cohortRelease_handingToALocalWaiter_answersAtOnce_withoutTheServer() throws Exception {
    try (FaultProxy proxy = FaultProxy.start(server.connectString())) {
      ZkLocks locks = through(proxy);
      DistributedLock lock = locks.mutex("cohort", LockOptions.cohort());
      LockHandle first = lock.acquire();
      CompletableFuture<LockHandle> second = lock.acquireAsync();
      await().atMost(WAIT).until(() -> ((CohortLock) lock).localWaiters() == 1);

      // When the holder releases with the connection black-holed (nothing is answered)
      proxy.blackhole();
      CompletableFuture<Void> released = first.releaseAsync();

      // Then the release and the local handoff complete without any reply
      released.get(AT_ONCE.toSeconds(), TimeUnit.SECONDS);
      LockHandle h2 = second.get(AT_ONCE.toSeconds(), TimeUnit.SECONDS);
      assertThat(h2.path()).isEqualTo(first.path());
      assertThat(proxy.mode()).isEqualTo(FaultProxy.Mode.BLACKHOLE);
      proxy.pass();
      h2.release();
      awaitNoLockNodes();
    }
  }

  @Test
  void cohortTryAcquire_whileThisClientsCohortHolds_answersEmptyAtOnce_withoutTheServer()
      throws Exception {
    try (FaultProxy proxy = FaultProxy.start(server.connectString())) {
      ZkLocks locks = through(proxy);
      CohortLock lock = (CohortLock) locks.mutex("cohort", LockOptions.cohort());
      LockHandle held = lock.acquire();

      // When a local tryAcquire() is made with the connection black-holed
      proxy.blackhole();
      CompletableFuture<LockHandle> tried = lock.start(Waiting.NOW);

      // Then it answers empty without any reply
      assertThat(tried.get(AT_ONCE.toSeconds(), TimeUnit.SECONDS)).isNull();
      proxy.pass();
      held.release();
    }
  }

  @Test
  void cohortReadRelease_othersAnswerAtOnce_theLastOnlyOnceTheDeletionIsAcknowledged()
      throws Exception {
    try (FaultProxy proxy = FaultProxy.start(server.connectString())) {
      ZkLocks locks = through(proxy);
      ReadWriteLock rw = locks.readWriteLock("cohort-rw", LockOptions.cohort());
      LockHandle r1 = rw.readLock().acquire();
      LockHandle r2 = rw.readLock().acquire();
      assertThat(r2.path()).as("local readers share one node").isEqualTo(r1.path());
      String node = r1.path();

      // When both release with the replies held
      proxy.muteReplies();
      CompletableFuture<Void> firstOut = r1.releaseAsync();
      firstOut.get(
          AT_ONCE.toSeconds(), TimeUnit.SECONDS); // another reader holds: nothing to delete
      CompletableFuture<Void> lastOut = r2.releaseAsync();
      CompletableFuture<Boolean> early = answeredWhileMuted(lastOut, proxy);
      awaitGone(node);
      LibraryThreads.drain(locks);

      // Then the last one has not answered while the deletion is unacknowledged
      assertThat(lastOut).as("the last reader answered before the deletion").isNotDone();
      proxy.pass();
      lastOut.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(wasMuted(early)).as("answered while the delete's reply was held").isFalse();
    }
  }

  // ---------------------------------------------------------------- semaphore

  @Test
  void semaphoreTimesOutWaitingForALease_answersOnlyOnceItsAdmissionIsGivenBack() throws Exception {
    LockHandle other = client().semaphore("sem", 1).acquire();
    try (FaultProxy proxy = FaultProxy.start(server.connectString())) {
      ZkLocks locks = through(proxy);
      DistributedSemaphore sem = locks.semaphore("sem", 1);
      AtomicReference<Optional<LockHandle>> got = new AtomicReference<>();
      AtomicBoolean returnedWhileMuted = new AtomicBoolean();
      Thread caller =
          new Thread(
              () -> {
                try {
                  got.set(sem.tryAcquire(Duration.ofSeconds(4)));
                  returnedWhileMuted.set(proxy.mode() == FaultProxy.Mode.MUTE_REPLIES);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "semaphore-caller");

      // Given it was admitted (holds the admission mutex) and waits for a lease
      caller.start();
      await().atMost(WAIT).until(() -> admissionNodes().size() == 1 && leaseNodes().size() == 2);
      String admission = admissionNodes().get(0);
      proxy.muteReplies();
      assertThat(exists(admission))
          .as("the admission is still held once the replies are held (else the test came late)")
          .isTrue();

      // When its deadline passes: the lease is withdrawn (answered within the grace, unheard),
      // then the admission released
      awaitGone(admission);
      awaitParkedOrEnded(caller);

      // Then it has not returned while the admission's release is unacknowledged
      assertThat(caller.isAlive()).as("returned before its admission was given back").isTrue();
      proxy.pass();
      caller.join(WAIT.toMillis());
      assertThat(got.get()).isEmpty();
      assertThat(returnedWhileMuted).as("returned while the replies were held").isFalse();
    }
    other.release();
  }

  /** The nodes of the semaphore's admission queue ({@code sem/queue}). */
  private List<String> admissionNodes() throws Exception {
    return semNodes("/queue/");
  }

  /** The semaphore's lease nodes, held or waiting ({@code sem/leases}). */
  private List<String> leaseNodes() throws Exception {
    return semNodes("/leases/");
  }

  private List<String> semNodes(String part) throws Exception {
    List<String> out = new java.util.ArrayList<>();
    for (String p : lockNodes()) {
      if (p.startsWith(dir("sem") + part)) {
        out.add(p);
      }
    }
    return out;
  }

  // ---------------------------------------------------------------- leader election

  private static final class BlockingListener implements LeadershipListener {
    final CountDownLatch inRevoked = new CountDownLatch(1);
    final CountDownLatch letGo = new CountDownLatch(1);
    final AtomicReference<Boolean> leaderInRevoked = new AtomicReference<>();
    LeaderElection election;

    @Override
    public void elected(long epoch) {}

    @Override
    public void revoked(long epoch) {
      leaderInRevoked.set(election.isLeader());
      inRevoked.countDown();
      try {
        letGo.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Test
  void electionClose_notLeaderAtOnce_nodeDeletedOnlyAfterRevoked_returnsAfterTheDeletion()
      throws Exception {
    resignInOrder(LeaderElection::close);
  }

  @Test
  void electionRequeue_resignsInTheSameOrderAsClose() throws Exception {
    resignInOrder(LeaderElection::requeue);
  }

  private void resignInOrder(java.util.function.Consumer<LeaderElection> resign) throws Exception {
    try (FaultProxy proxy = FaultProxy.start(server.connectString())) {
      ZkLocks locks = through(proxy);
      LeaderElection e = locks.leaderElection("lead", "p1");
      BlockingListener listener = new BlockingListener();
      listener.election = e;
      e.addListener(listener);
      e.start();
      assertThat(e.awaitLeadership(WAIT)).isTrue();
      String node = locks.inspect("lead").orElseThrow().holders().get(0).path();

      // When the leader resigns on a thread of its own, its listener's revoked blocking
      Thread resigner = new Thread(() -> resign.accept(e), "resigner");
      resigner.start();
      assertThat(listener.inRevoked.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      awaitParkedOrEnded(resigner); // waiting for revoked, or for a delete it sent already

      // Then it was no leader when revoked ran, and its node is still there: a read on its own
      // session, ordered after everything that session sent, still finds it
      assertThat(listener.leaderInRevoked.get()).as("isLeader() inside revoked").isFalse();
      assertThat(new BlockingOps(Internals.session(locks).current().ops()).exists(node))
          .as("the leader's node was deleted before revoked returned")
          .isNotNull();

      // When revoked returns, with the replies held
      proxy.muteReplies();
      listener.letGo.countDown();
      awaitGone(node);
      awaitParkedOrEnded(resigner);

      // Then the resigning call returns only once the deletion is acknowledged
      assertThat(resigner.isAlive()).as("returned before the deletion was acknowledged").isTrue();
      proxy.pass();
      resigner.join(WAIT.toMillis());
      assertThat(resigner.isAlive()).isFalse();
      e.close();
    }
  }

  // ---------------------------------------------------------------- semaphore, several permits

  @Test
  void semaphoreTryAcquireOfSeveral_someBusy_returnsOnlyOnceTheLeasesItGotAreReleased()
      throws Exception {
    // Given another session holds one of two permits
    LockHandle other = client().semaphore("sem2", 2).acquire();
    try (FaultProxy proxy = FaultProxy.start(server.connectString())) {
      ZkLocks locks = through(proxy);
      DistributedSemaphore sem = locks.semaphore("sem2", 2);
      sem.tryAcquire().orElseThrow().release(); // the permit count is stored and checked already
      AtomicReference<Optional<LockHandle>> got = new AtomicReference<>();
      AtomicBoolean returnedWhileMuted = new AtomicBoolean();
      Thread caller =
          new Thread(
              () -> {
                got.set(sem.tryAcquire(2));
                returnedWhileMuted.set(proxy.mode() == FaultProxy.Mode.MUTE_REPLIES);
              },
              "semaphore-caller");

      // When it tries for both, with the library's threads held so that it learns nothing yet: one
      // lease is granted, the other found busy and its node deleted (the server shows both)
      String leasesDir = dir("sem2") + "/leases";
      int before = raw().exists(leasesDir, false).getCversion();
      LibraryThreads.Held busy = LibraryThreads.hold(locks);
      String granted;
      try {
        caller.start();
        // two creates and the busy lease's delete applied (each changes the child version)
        await()
            .atMost(WAIT)
            .until(() -> raw().exists(leasesDir, false).getCversion() >= before + 3);
        assertThat(leases("sem2")).hasSize(2);
        granted = leases("sem2").stream().filter(p -> !p.equals(other.path())).findFirst().get();
        // every reply sent so far has reached the client: a read on its session, answered after
        // them, has been answered
        CompletableFuture<Void> marker = new CompletableFuture<>();
        Internals.session(locks)
            .current()
            .ops()
            .sync(dir("sem2"), (rc, p, c) -> marker.complete(null));
        marker.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        // and the replies from here on are held: the release of the granted lease is unanswered
        proxy.muteReplies();
      } finally {
        busy.release();
      }
      awaitGone(granted);
      awaitParkedOrEnded(caller);

      // Then it has not returned while that release is unacknowledged
      assertThat(caller.isAlive()).as("returned before the lease it got was given back").isTrue();
      proxy.pass();
      caller.join(WAIT.toMillis());
      assertThat(got.get()).isEmpty();
      assertThat(returnedWhileMuted).as("returned while the replies were held").isFalse();
    }
    other.release();
  }

  /** The semaphore {@code name}'s lease nodes. */
  private List<String> leases(String name) throws Exception {
    List<String> out = new java.util.ArrayList<>();
    for (String p : lockNodes()) {
      if (p.startsWith(dir(name) + "/leases/")) {
        out.add(p);
      }
    }
    return out;
  }

  // ---------------------------------------------------------------- read-write downgrade

  @Test
  void downgrade_writeReleaseAnswersAtOnceKeepingTheNode_readReleaseOnceTheDeletionIsAcknowledged()
      throws Exception {
    try (FaultProxy proxy = FaultProxy.start(server.connectString())) {
      ZkLocks locks = through(proxy);
      ReadWriteLock rw = locks.readWriteLock("dg");
      LockHandle write = rw.writeLock().acquire();
      LockHandle read = rw.downgrade(write);
      String node = write.path();

      // When the write handle is released first, with the replies held
      proxy.muteReplies();
      CompletableFuture<Void> writeOut = write.releaseAsync();

      // Then it answers at once (nothing to send) and the node stays, the read hold's
      writeOut.get(AT_ONCE.toSeconds(), TimeUnit.SECONDS);
      assertThat(write.isHeld()).isFalse();
      assertThat(read.isHeld()).isTrue();
      assertThat(exists(node)).as("the downgraded node is kept").isTrue();

      // When the read hold is released: it answers only once the deletion is acknowledged
      CompletableFuture<Void> readOut = read.releaseAsync();
      CompletableFuture<Boolean> early = answeredWhileMuted(readOut, proxy);
      awaitGone(node);
      LibraryThreads.drain(locks);
      assertThat(readOut).as("answered before the deletion was acknowledged").isNotDone();
      proxy.pass();
      readOut.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(wasMuted(early)).as("answered while the delete's reply was held").isFalse();
    }
  }
}
