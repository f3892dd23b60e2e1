package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zklock.testkit.FaultProxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link ZkLocks#stop()} and {@link ZkLocks#start()}: a stop ends the session as a close does
 * (holds released at once, waiters failed), but keeps the instance, and a start opens a new session
 * for the same lock objects.
 */
class StopStartTest extends ZkTestSupport {

  @Test
  void stop_releasesTheHoldsAtOnce_failsTheWaiters_andRefusesRequestsUntilStarted()
      throws Exception {
    ZkLocks locks = client("stopping");
    ZkLocks other = client("other");
    LockHandle held = locks.mutex("held").acquire();
    LockHandle blocker = other.mutex("waited").acquire();
    CompletableFuture<LockHandle> waiting = locks.mutex("waited").acquireAsync();

    locks.stop();

    assertThat(held.lost().get(10, TimeUnit.SECONDS).reason())
        .isEqualTo(LockLostException.Reason.CLOSED);
    assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(ZkLockException.class);
    assertThat(other.mutex("held").tryAcquire())
        .as("released at once, not after the session timeout")
        .hasValueSatisfying(LockHandle::release);
    assertThat(locks.sessionState()).isEqualTo(SessionState.CLOSED);
    assertThatThrownBy(() -> locks.mutex("held").tryAcquire(Duration.ofSeconds(1)))
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("stopped");
    blocker.release();
  }

  @Test
  void start_opensANewSession_theSameLockObjectsWorkAgain() throws Exception {
    ZkLocks locks = client("restarting");
    DistributedLock mutex = locks.mutex("job");
    ReadWriteLock rw = locks.readWriteLock("data");
    long first = locks.sessionId();
    mutex.acquire().release();

    locks.stop();
    locks.start();

    assertThat(locks.sessionState()).isEqualTo(SessionState.CONNECTED);
    assertThat(locks.sessionId()).as("a new session").isNotZero().isNotEqualTo(first);
    try (LockHandle h = mutex.acquire()) {
      assertThat(h.isHeld()).isTrue();
    }
    rw.readLock().acquire().release();
    assertThat(locks.mutex("new").tryAcquire()).hasValueSatisfying(LockHandle::release);
  }

  @Test
  void stopAndStart_threeTimes_andTheListenersHearEachSession() throws Exception {
    List<String> states = new CopyOnWriteArrayList<>();
    ZkLocks locks = client("cycling");
    locks.addSessionListener((state, id) -> states.add(state.name()));
    for (int i = 0; i < 3; i++) {
      locks.stop();
      locks.stop(); // idempotent
      locks.start();
      locks.start(); // running: nothing to do
      locks.mutex("cycle").acquire().release();
    }
    org.awaitility.Awaitility.await().until(() -> states.size() >= 6);
    assertThat(states)
        .containsExactly("CLOSED", "CONNECTED", "CLOSED", "CONNECTED", "CLOSED", "CONNECTED");
  }

  @Test
  void aCohortLock_afterARestart_isANewOne_andWorks() throws Exception {
    ZkLocks locks = client("cohort");
    DistributedLock before = locks.mutex("cohort", LockOptions.cohort());
    before.acquire().release();
    locks.stop();
    locks.start();
    try (LockHandle h = locks.mutex("cohort", LockOptions.cohort()).acquire()) {
      assertThat(h.isHeld()).isTrue();
    }
  }

  @Test
  void closeWhileStopped_closes_andStartThenRefuses() {
    ZkLocks locks = client("closing");
    locks.stop();
    locks.close();
    assertThat(locks.sessionState()).isEqualTo(SessionState.CLOSED);
    assertThatThrownBy(locks::start)
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void start_whenNoServerAnswers_failsInTime_andStaysStopped_thenStartsOnceItIsBack()
      throws Exception {
    try (FaultProxy proxy = FaultProxy.start(server.connectString())) {
      ZkLocks locks =
          track(
              ZkLocks.builder(proxy.connectString())
                  .namespace(namespace)
                  .connectTimeout(Duration.ofSeconds(2))
                  .build());
      locks.stop();
      proxy.refuse();

      assertThatThrownBy(locks::start).isInstanceOf(ZkLockException.class);
      assertThat(locks.sessionState()).isEqualTo(SessionState.CLOSED);
      assertThatThrownBy(() -> locks.mutex("x").tryAcquire())
          .isInstanceOf(ZkLockException.class)
          .hasMessageContaining("stopped");

      proxy.pass();
      locks.start();
      locks.mutex("x").acquire().release();
    }
  }
}
