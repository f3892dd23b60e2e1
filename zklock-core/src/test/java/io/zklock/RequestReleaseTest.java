package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link ZkLocks#requestRelease} and {@link LockHandle#onReleaseRequested}. */
class RequestReleaseTest extends ZkTestSupport {

  @Test
  void honoured_holderReleases_nextWaiterGranted_noLoss() throws Exception {
    LockHandle held = client("holder").mutex("job").acquire();
    held.onReleaseRequested(held::releaseAsync);
    CompletableFuture<LockHandle> next = client("next").mutex("job").acquireAsync();
    ZkLocks operator = client("operator");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> operator.inspect("job").orElseThrow().waiters().size() == 1);

    List<LockNode> asked = operator.requestRelease("job");

    assertThat(asked).extracting(LockNode::path).containsExactly(held.path());
    LockHandle got = next.get(10, TimeUnit.SECONDS);
    assertThat(held.isHeld()).isFalse();
    assertThat(held.isReleaseRequested()).isTrue();
    assertThat(held.lost()).as("a release, not a loss").isNotDone();
    got.release();
    awaitNoLockNodes();
  }

  @Test
  void ignored_holderKeepsTheLock_andStillHearsAForcedReleaseAfterwards() throws Exception {
    LockHandle held = client("holder").mutex("job").acquire();
    AtomicInteger told = new AtomicInteger();
    held.onReleaseRequested(told::incrementAndGet);
    ZkLocks operator = client("operator");

    assertThat(operator.requestRelease("job")).hasSize(1);
    await().atMost(Duration.ofSeconds(10)).until(held::isReleaseRequested);
    assertThat(operator.requestRelease("job")).as("asking twice is harmless").hasSize(1);

    await().atMost(Duration.ofSeconds(10)).until(() -> told.get() == 1);
    assertThat(held.isHeld()).isTrue();
    assertThat(operator.mutex("job").tryAcquire()).as("still held").isEmpty();
    LockInfo info = operator.inspect("job").orElseThrow();
    assertThat(info.holders().get(0).releaseRequested()).isTrue();
    assertThat(info.holders().get(0).data()).containsEntry("releaseRequestedBy", "operator");
    assertThat(info.holders().get(0).clientName())
        .as("the data keeps its fields")
        .isEqualTo("holder");

    // the own-node watch fired on the request: it must have been set again
    operator.forceRelease("job");
    assertThat(held.lost().get(10, TimeUnit.SECONDS).reason())
        .isEqualTo(LockLostException.Reason.NODE_DELETED);
    assertThat(told.get()).as("each action runs once").isEqualTo(1);
  }

  @Test
  void requestedRightAfterGrant_beforeTheOwnNodeWatch_isHeard() throws Exception {
    ZkLocks operator = client("operator");
    CountDownLatch told = new CountDownLatch(1);
    // asked from the grant's own callback, well inside the 50 ms before the holder's own-node
    // watch is set: the holder must learn of it when it sets the watch
    LockHandle h =
        client("holder")
            .mutex("job")
            .acquireAsync()
            .thenApply(
                granted -> {
                  assertThat(operator.requestRelease("job")).hasSize(1);
                  return granted;
                })
            .get(10, TimeUnit.SECONDS);
    h.onReleaseRequested(told::countDown);
    assertThat(told.await(10, TimeUnit.SECONDS)).as("the holder heard the request").isTrue();
    assertThat(h.isHeld()).isTrue();
    h.release();
  }

  @Test
  void actionRegisteredAfterTheRequest_runsAtOnce() throws Exception {
    LockHandle h = client("holder").readWriteLock("rw").writeLock().acquire();
    client("operator").requestRelease("rw");
    await().atMost(Duration.ofSeconds(10)).until(h::isReleaseRequested);
    CountDownLatch told = new CountDownLatch(1);
    h.onReleaseRequested(told::countDown);
    assertThat(told.await(10, TimeUnit.SECONDS)).isTrue();
    h.release();
  }

  @Test
  void simpleLock_honoured_andItsReleaseStillChecksTheNodeIsOurs() throws Exception {
    LockHandle held = client("holder").simpleLock("nightly").acquire();
    held.onReleaseRequested(held::releaseAsync);
    ZkLocks operator = client("operator");

    assertThat(operator.requestRelease("nightly")).hasSize(1);

    await().atMost(Duration.ofSeconds(10)).until(() -> !held.isHeld());
    assertThat(held.lost()).isNotDone();
    assertThat(operator.simpleLock("nightly").tryAcquire(Duration.ofSeconds(10)))
        .isPresent()
        .get()
        .satisfies(LockHandle::release);
  }

  @Test
  void semaphore_everyLeaseHolderIsAsked_waiterUnaffected() throws Exception {
    LockHandle a = client("a").semaphore("quota", 2).acquire();
    LockHandle b = client("b").semaphore("quota", 2).acquire();
    CompletableFuture<LockHandle> w = client("w").semaphore("quota", 2).acquireAsync();
    ZkLocks operator = client("operator");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> operator.inspect("quota").orElseThrow().waiters().size() == 1);
    CountDownLatch told = new CountDownLatch(2);
    a.onReleaseRequested(told::countDown);
    b.onReleaseRequested(told::countDown);

    assertThat(operator.requestRelease("quota")).hasSize(2);

    assertThat(told.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(w).isNotDone();
    a.release();
    w.get(10, TimeUnit.SECONDS).release();
    b.release();
  }

  @Test
  void multiLock_aRequestToAnyPart_runsTheActionOnce() throws Exception {
    ZkLocks c = client("holder");
    LockHandle both = c.multiLock(c.mutex("a"), c.mutex("b")).acquire();
    AtomicInteger told = new AtomicInteger();
    both.onReleaseRequested(told::incrementAndGet);
    ZkLocks operator = client("operator");

    operator.requestRelease("b");
    await().atMost(Duration.ofSeconds(10)).until(() -> told.get() == 1);
    // a witness of the same client, asked after "a": its action runs after "a"'s request reached
    // the holder (a session's watch events arrive in the order of the changes)
    LockHandle witness = c.mutex("w").acquire();
    AtomicInteger witnessTold = new AtomicInteger();
    witness.onReleaseRequested(witnessTold::incrementAndGet);
    awaitDataWatch(witness.path());
    awaitDataWatch(both.path());
    operator.requestRelease("a");
    operator.requestRelease("w");
    await().atMost(Duration.ofSeconds(10)).until(() -> witnessTold.get() == 1);
    assertThat(told.get()).isEqualTo(1);
    assertThat(both.isReleaseRequested()).isTrue();
    both.release();
  }

  @Test
  void cohortHolder_hearsARequestToReleaseItsNode() throws Exception {
    DistributedLock lock = client("cohort").mutex("job", LockOptions.cohort());
    LockHandle held = lock.acquire();
    AtomicInteger told = new AtomicInteger();
    held.onReleaseRequested(told::incrementAndGet);
    ZkLocks operator = client("operator");

    assertThat(operator.requestRelease("job")).hasSize(1);

    await().atMost(Duration.ofSeconds(10)).until(() -> told.get() == 1);
    assertThat(held.isReleaseRequested()).isTrue();
    assertThat(held.isHeld()).as("a request is advice: still held").isTrue();
    held.release();
    assertThat(told.get()).as("each action runs once").isEqualTo(1);
    awaitNoLockNodes();
  }
}
