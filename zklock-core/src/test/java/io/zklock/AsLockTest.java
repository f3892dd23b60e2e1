package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

/** The java.util.concurrent.locks.Lock view: reentrant per thread, like ReentrantLock. */
class AsLockTest extends ZkTestSupport {

  @Test
  void sameView_everyCall() {
    DistributedLock lock = client().mutex("v");
    assertThat(lock.asLock()).isSameAs(lock.asLock());
  }

  @Test
  void reentrant_onlyTheLastUnlockReleases() throws Exception {
    Lock lock = client().mutex("re").asLock();

    lock.lock();
    lock.lock();
    assertThat(lock.tryLock()).isTrue();
    assertThat(lockNodes()).as("one node however deep the nesting").hasSize(1);
    lock.unlock();
    lock.unlock();
    assertThat(lockNodes()).hasSize(1);
    lock.unlock();

    assertNoLockNodes();
  }

  @Test
  void unlock_byANonOwner_throwsIllegalMonitorState() throws Exception {
    Lock lock = client().mutex("owner").asLock();
    assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);

    lock.lock();
    CompletableFuture<Throwable> other =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                lock.unlock();
                return null;
              } catch (Throwable t) {
                return t;
              }
            });
    assertThat(other.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalMonitorStateException.class);
    lock.unlock();
  }

  @Test
  void otherThreadsOfTheSameView_wait_likeReentrantLock() throws Exception {
    Lock lock = client().mutex("threads").asLock();
    lock.lock();
    CompletableFuture<Boolean> other =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return lock.tryLock(200, TimeUnit.MILLISECONDS);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    assertThat(other.get(10, TimeUnit.SECONDS)).as("another thread cannot enter").isFalse();
    lock.unlock();
  }

  @Test
  void lockInterruptibly_honoursInterruption_andLeavesNoNode() throws Exception {
    LockHandle held = client().mutex("int").acquire();
    Lock lock = client().mutex("int").asLock();
    CompletableFuture<Throwable> outcome = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              try {
                lock.lockInterruptibly();
                outcome.complete(null);
              } catch (Throwable e) {
                outcome.complete(e);
              }
            });
    t.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 2);
    t.interrupt();
    assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 1);
    held.release();
  }

  @Test
  void lock_isNotInterruptible_butRestoresTheInterruptStatus() throws Exception {
    LockHandle held = client().mutex("unint").acquire();
    Lock lock = client().mutex("unint").asLock();
    CompletableFuture<Boolean> interruptedAfter = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              lock.lock();
              interruptedAfter.complete(Thread.currentThread().isInterrupted());
              lock.unlock();
            });
    t.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().size() == 2);
    t.interrupt();
    await()
        .during(Duration.ofMillis(200))
        .atMost(Duration.ofSeconds(5))
        .until(() -> !interruptedAfter.isDone());
    held.release();
    assertThat(interruptedAfter.get(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void unlock_afterTheLockWasLost_throwsLockLost() throws Exception {
    ZkLocks locks = client();
    Lock lock = locks.mutex("lost").asLock();
    lock.lock();
    String node = lockNodes().get(0);
    raw().delete(node, -1);
    await().atMost(Duration.ofSeconds(10)).until(() -> lockNodes().isEmpty());

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(locks.mutex("lost").tryAcquire())
                    .hasValueSatisfying(LockHandle::release));
    assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
    assertThatThrownBy(lock::unlock)
        .as("the hold is cleared")
        .isInstanceOf(IllegalMonitorStateException.class);
  }

  @Test
  void newCondition_isTheLocksCondition_butUnsupportedForSharedKinds() {
    Lock lock = client().mutex("cond").asLock();
    assertThat(lock.newCondition()).as("issue 29: see ConditionTest").isNotNull();
    Lock read = client().readWriteLock("rw").readLock().asLock();
    assertThatThrownBy(read::newCondition).isInstanceOf(UnsupportedOperationException.class);
  }
}
