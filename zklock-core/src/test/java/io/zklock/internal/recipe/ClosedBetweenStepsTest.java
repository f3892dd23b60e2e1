package io.zklock.internal.recipe;

import static io.zklock.internal.engine.EngineFixture.DIR;
import static io.zklock.internal.engine.EngineFixture.NS;
import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.LockHandle;
import io.zklock.ZkLockException;
import io.zklock.internal.engine.EngineFixture;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.Ordering;
import io.zklock.internal.rules.Waiting;
import io.zklock.internal.zk.Lifecycle;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A request made of steps (a semaphore's admission, then its leases; a multi-lock's parts, one
 * after the other) whose instance is closed between two steps: the next step cannot start, and the
 * request ends with the instance's closing instead of never. On the fake server, the close falls
 * where a loaded machine can put it: {@code ZkLocksImpl.close} marks the instance closed, then
 * tells its requests; the step before is granted in between (on ZooKeeper's event thread), so the
 * next step is refused at its start.
 */
class ClosedBetweenStepsTest {
  private final EngineFixture f = new EngineFixture();
  private final Lifecycle lifecycle = new Lifecycle(null, null);
  private final RecipeContext rc = new RecipeContext(f.ctx, null, lifecycle, NS, null);

  private static void assertEndedClosed(CompletableFuture<LockHandle> result) {
    assertThat(result).as("the request ended").isDone();
    assertThat(result)
        .as("with the instance's closing")
        .failsWithin(java.time.Duration.ZERO)
        .withThrowableOfType(java.util.concurrent.ExecutionException.class)
        .havingCause()
        .isInstanceOf(ZkLockException.class)
        .withMessageContaining("closed");
  }

  @Test
  void semaphore_admittedAsTheInstanceCloses_endsClosed() {
    // Given another client holds the admission; our request waits behind it
    String ahead = f.otherQueues(NodeKind.MUTEX);
    NodeLock admission = NodeLock.queue(rc, "orders", NodeKind.MUTEX);
    NodeLock leases =
        NodeLock.queue(
            rc,
            "orders",
            DIR + "/leases",
            NodeKind.SEMAPHORE,
            Ordering.lease(1),
            Map.of(),
            ReentrantView::new);
    SemaphoreRequest r =
        new SemaphoreRequest(
            f.ctx,
            "orders",
            admission,
            node -> leases,
            1,
            CompletableFuture.completedFuture(null),
            Waiting.FOREVER,
            null);
    r.start();
    f.settle();
    assertThat(r.result).as("waits for admission").isNotDone();

    // When the instance is marked closed, the admission is granted, then the requests are told
    lifecycle.close();
    f.zk.delete(ahead);
    f.settle();
    f.close();
    f.settle();

    // Then
    assertEndedClosed(r.result);
    assertThat(f.nodes()).as("nothing left in the lock's directory").isEmpty();
  }

  @Test
  void semaphore_admissionLostToTheClosingBeforeItsLeases_endsClosed() {
    // Given an admitted request whose permit check has not answered yet
    NodeLock admission = NodeLock.queue(rc, "orders", NodeKind.MUTEX);
    NodeLock leases =
        NodeLock.queue(
            rc,
            "orders",
            DIR + "/leases",
            NodeKind.SEMAPHORE,
            Ordering.lease(1),
            Map.of(),
            ReentrantView::new);
    CompletableFuture<Void> checked = new CompletableFuture<>();
    SemaphoreRequest r =
        new SemaphoreRequest(
            f.ctx, "orders", admission, node -> leases, 1, checked, Waiting.FOREVER, null);
    r.start();
    f.settle();
    assertThat(f.nodes()).as("admitted").hasSize(1);

    // When the instance closes (the admission is lost with it), then the check answers: a lost
    // admission sends the request to queue for admission again, which a closed instance refuses
    lifecycle.close();
    f.close();
    f.settle();
    checked.complete(null);
    f.settle();

    // Then
    assertEndedClosed(r.result);
    assertThat(f.nodes()).as("nothing left in the lock's directory").isEmpty();
  }

  @Test
  void multiLock_firstPartGrantedAsTheInstanceCloses_endsClosed() {
    // Given another client holds the first part; ours waits behind it
    String ahead = f.otherQueues(NodeKind.MUTEX);
    MultiLock both =
        MultiLock.of(
            rc,
            NodeLock.queue(rc, "orders", NodeKind.MUTEX),
            NodeLock.queue(rc, "stock", NodeKind.MUTEX));
    CompletableFuture<LockHandle> result = both.start(Waiting.FOREVER);
    f.settle();
    assertThat(result).as("waits for the first part").isNotDone();

    // When the instance is marked closed, the first part is granted, then the requests are told
    lifecycle.close();
    f.zk.delete(ahead);
    f.settle();
    f.close();
    f.settle();

    // Then
    assertEndedClosed(result);
    assertThat(f.nodes()).as("nothing left in the first part's directory").isEmpty();
  }
}
