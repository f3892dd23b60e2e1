package io.zklock.internal.recipe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.ReadWriteLock;
import io.zklock.ZkLocks;
import io.zklock.ZkTestSupport;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

/**
 * A thread that re-enters a lock it has lost is told so: the reentrant acquisition throws {@link
 * LockLostException} instead of counting one more hold on a lock that is gone (a leader re-locking
 * on every heartbeat would otherwise go on leading beside the new leader).
 */
class ReentryAfterLossTest extends ZkTestSupport {

  @Test
  void mutexView_reenterAfterSessionExpired_throwsLockLost_andClearsTheHold() throws Exception {
    ZkLocks locks = client();
    Lock lock = locks.mutex("re-lost").asLock();
    lock.lock();
    LockHandle held = ((ReentrantView) lock).handle();
    server.expireSession(locks.sessionId());
    await("the holder hears of the loss")
        .atMost(Duration.ofSeconds(20))
        .until(() -> !held.isHeld());

    assertThatThrownBy(lock::lock)
        .isInstanceOf(LockLostException.class)
        .satisfies(
            e ->
                assertThat(((LockLostException) e).reason())
                    .isEqualTo(LockLostException.Reason.SESSION_EXPIRED));
    assertThatThrownBy(lock::unlock)
        .as("the hold was cleared by the failed re-entry")
        .isInstanceOf(IllegalMonitorStateException.class)
        .isNotInstanceOf(LockLostException.class);
    assertThat(lock.tryLock(10, TimeUnit.SECONDS)).as("a fresh acquisition works").isTrue();
    lock.unlock();
  }

  @Test
  void tryLockReentry_afterNodeDeleted_throwsLockLost() throws Exception {
    ZkLocks locks = client();
    Lock lock = locks.mutex("re-deleted").asLock();
    assertThat(lock.tryLock()).isTrue();
    LockHandle held = ((ReentrantView) lock).handle();
    raw().delete(lockNodes().get(0), -1);
    await("the holder hears of the deletion")
        .atMost(Duration.ofSeconds(20))
        .until(() -> !held.isHeld());

    assertThatThrownBy(lock::tryLock).isInstanceOf(LockLostException.class);
    assertThat(lockNodes()).isEmpty();
  }

  @Test
  void readView_reenterAfterSessionExpired_throwsLockLost() throws Exception {
    ZkLocks locks = client();
    ReadWriteLock rw = locks.readWriteLock("re-read");
    Lock read = rw.asReadWriteLock().readLock();
    read.lock();
    LockHandle held = ((ReentrantView) read).handle();
    server.expireSession(locks.sessionId());
    await("the session was renewed")
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                locks.sessionState() == io.zklock.SessionState.CONNECTED && lockNodes().isEmpty());
    await("the reader hears of the loss")
        .atMost(Duration.ofSeconds(20))
        .until(() -> !held.isHeld());

    assertThatThrownBy(read::lock).isInstanceOf(LockLostException.class);
    assertThatThrownBy(read::unlock).isInstanceOf(IllegalMonitorStateException.class);
  }
}
