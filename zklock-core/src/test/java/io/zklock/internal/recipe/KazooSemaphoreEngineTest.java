package io.zklock.internal.recipe;

import static io.zklock.internal.engine.EngineFixture.NS;
import static io.zklock.internal.engine.EngineFixture.OTHER_SESSION;
import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.LockHandle;
import io.zklock.ZkLockException;
import io.zklock.internal.engine.EngineFixture;
import io.zklock.internal.rules.Waiting;
import io.zklock.internal.zk.Lifecycle;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;

/**
 * The kazoo-compatible semaphore on the fake ZooKeeper, beside clients that do what Python kazoo's
 * {@code Semaphore} does on the same tree: the count as the path's plain-text data, leases as bare
 * {@code <32 hex>} children, admission through {@code <path>-__lock__}.
 */
class KazooSemaphoreEngineTest {
  private static final String NAME = "pool";
  private static final String DIR = NS + "/" + NAME;
  private static final String ADMISSION = DIR + "-__lock__";

  private final EngineFixture f = new EngineFixture();
  private final Random random = new Random(50);

  private SemaphoreImpl semaphore(int permits) {
    return SemaphoreImpl.kazooCompatible(
        new RecipeContext(f.ctx, null, new Lifecycle(null, null), NS, null), NAME, permits);
  }

  private String hex32() {
    byte[] b = new byte[16];
    random.nextBytes(b);
    return HexFormat.of().formatHex(b);
  }

  /** kazoo's ensure_path and its write of max_leases. */
  private void kazooMadeThePath(String count) {
    f.zk.mkdirs(DIR);
    f.zk.setData(DIR, count.getBytes(StandardCharsets.UTF_8));
    f.zk.mkdirs(ADMISSION);
  }

  /** A kazoo client holds a lease. */
  private String kazooLease() {
    return f.zk.create(
        OTHER_SESSION,
        DIR + "/" + hex32(),
        "kazoo-worker".getBytes(StandardCharsets.UTF_8),
        CreateMode.EPHEMERAL);
  }

  /** A kazoo client queues for admission (its Lock on the sibling path). */
  private String kazooQueuesForAdmission() {
    return f.zk.create(
        OTHER_SESSION,
        ADMISSION + "/" + hex32() + "__lock__",
        "kazoo-worker".getBytes(StandardCharsets.UTF_8),
        CreateMode.EPHEMERAL_SEQUENTIAL);
  }

  private List<String> leases() {
    return f.zk.children(DIR);
  }

  private static Throwable failure(CompletableFuture<LockHandle> r) {
    assertThat(r).as("failed").isCompletedExceptionally();
    try {
      r.getNow(null);
      throw new AssertionError("not failed");
    } catch (CompletionException e) {
      return e.getCause();
    }
  }

  @Test
  void onANewPath_theCountIsStoredAsKazooStoresIt_theLeaseIsABareHexChild_andTheAdmissionGoes() {
    CompletableFuture<LockHandle> r = semaphore(2).request(1, Waiting.FOREVER);
    f.settle();

    assertThat(r).isCompleted();
    assertThat(new String(f.zk.data(DIR), StandardCharsets.UTF_8)).isEqualTo("2");
    assertThat(f.zk.stat(DIR).getEphemeralOwner()).as("persistent, as kazoo's").isZero();
    assertThat(f.zk.exists(ADMISSION)).isTrue();
    assertThat(f.zk.stat(ADMISSION).getEphemeralOwner()).isZero();
    assertThat(leases()).singleElement().asString().matches("[0-9a-f]{32}");
    String lease = DIR + "/" + leases().get(0);
    assertThat(f.zk.stat(lease).getEphemeralOwner()).isEqualTo(f.session.sessionId());
    assertThat(f.zk.children(ADMISSION)).as("admission released once leased").isEmpty();
    LockHandle h = r.join();
    assertThat(h.path()).isEqualTo(lease);
    assertThat(h.fencingToken()).isEqualTo(f.zk.stat(lease).getCzxid());

    h.releaseAsync();
    f.settle();
    assertThat(leases()).isEmpty();
  }

  @Test
  void everyPermitHeldByKazoo_theAdmittedRequestWaits_andLeasesWhenOneGoes() {
    kazooMadeThePath("2");
    String first = kazooLease();
    kazooLease();

    CompletableFuture<LockHandle> r = semaphore(2).request(1, Waiting.FOREVER);
    f.settle();

    assertThat(r).as("no permit free").isNotDone();
    assertThat(leases()).hasSize(2);
    assertThat(f.zk.children(ADMISSION)).as("it holds the admission meanwhile").hasSize(1);
    assertThat(f.zk.children(ADMISSION).get(0)).matches("[0-9a-f]{32}__lock__[0-9]{10}");

    f.zk.delete(first);
    f.settle();

    assertThat(r).isCompleted();
    assertThat(leases()).hasSize(2);
    assertThat(f.zk.children(ADMISSION)).isEmpty();
  }

  @Test
  void aKazooClientQueuedFirst_isAdmittedFirst_evenWithAPermitFree() {
    kazooMadeThePath("2");
    String kazoo = kazooQueuesForAdmission();

    CompletableFuture<LockHandle> r = semaphore(2).request(1, Waiting.FOREVER);
    f.settle();

    assertThat(r).as("waits for admission behind kazoo's client").isNotDone();
    assertThat(leases()).isEmpty();

    f.zk.delete(kazoo); // kazoo's client leased (or gave up) and released its lock
    f.settle();

    assertThat(r).isCompleted();
    assertThat(leases()).hasSize(1);
  }

  @Test
  void severalPermits_areLeasedInTurn_eachCounted_andReleasedTogether() {
    kazooMadeThePath("3");
    String k = kazooLease();

    CompletableFuture<LockHandle> r = semaphore(3).request(2, Waiting.FOREVER);
    f.settle();
    assertThat(r).isCompleted();
    assertThat(leases()).hasSize(3);

    CompletableFuture<LockHandle> next = semaphore(3).request(1, Waiting.FOREVER);
    f.settle();
    assertThat(next).isNotDone();

    r.join().releaseAsync();
    f.settle();
    assertThat(next).isCompleted();
    assertThat(leases()).hasSize(2).contains(k.substring(k.lastIndexOf('/') + 1));
  }

  @Test
  void notWaiting_everyPermitHeld_answersEmpty_andLeavesNothing() {
    kazooMadeThePath("1");
    kazooLease();

    CompletableFuture<LockHandle> r = semaphore(1).request(1, Waiting.NOW);
    f.settle();

    assertThat(r).isCompletedWithValue(null);
    assertThat(leases()).hasSize(1);
    assertThat(f.zk.children(ADMISSION)).isEmpty();
  }

  @Test
  void anotherStoredCount_isRefused_namingIt_andNothingIsLeft() {
    kazooMadeThePath("3");

    CompletableFuture<LockHandle> r = semaphore(2).request(1, Waiting.FOREVER);
    f.settle();

    Throwable t = failure(r);
    assertThat(t)
        .isInstanceOf(ZkLockException.class)
        .hasCauseInstanceOf(IllegalArgumentException.class);
    assertThat(t.getMessage()).contains("max_leases 3").contains("asked for 2").contains(DIR);
    assertThat(leases()).isEmpty();
    assertThat(f.zk.children(ADMISSION)).isEmpty();
    assertThat(new String(f.zk.data(DIR), StandardCharsets.UTF_8)).isEqualTo("3");
  }

  @Test
  void zklocksOwnSemaphoreLayout_isRefused_namingTheDataAndThePlainSemaphore() {
    f.zk.mkdirs(DIR);
    f.zk.setData(DIR, "{\"kind\":\"semaphore\",\"permits\":2}".getBytes(StandardCharsets.UTF_8));

    CompletableFuture<LockHandle> r = semaphore(2).request(1, Waiting.FOREVER);
    f.settle();

    assertThat(failure(r).getMessage())
        .contains("{\"kind\":\"semaphore\",\"permits\":2}")
        .contains("locks.semaphore(name, permits)");
    assertThat(leases()).isEmpty();
  }

  @Test
  void aSubDirectoryOfAnotherLayout_isRefused_andTheAdmissionIsGivenBack() {
    kazooMadeThePath("2");
    f.zk.mkdirs(DIR + "/leases");

    CompletableFuture<LockHandle> r = semaphore(2).request(1, Waiting.FOREVER);
    f.settle();

    assertThat(failure(r).getMessage()).contains(DIR + "/leases");
    assertThat(leases()).containsExactly("leases");
    assertThat(f.zk.children(ADMISSION)).isEmpty();
  }

  @Test
  void withdrawnWhileWaitingForALease_leavesNeitherLeaseNorAdmissionNode() {
    kazooMadeThePath("1");
    kazooLease();
    CompletableFuture<LockHandle> r = semaphore(1).request(1, Waiting.FOREVER);
    f.settle();
    assertThat(f.zk.children(ADMISSION)).hasSize(1);

    r.cancel(true);
    f.settle();

    assertThat(leases()).hasSize(1);
    assertThat(f.zk.children(ADMISSION)).isEmpty();
  }

  @Test
  void
      sessionEndsWhileAdmittedAndWaiting_theRequestQueuesForAdmissionAgain_behindWhoCameMeanwhile() {
    kazooMadeThePath("1");
    String held = kazooLease();
    CompletableFuture<LockHandle> r = semaphore(1).request(1, Waiting.FOREVER);
    f.settle();
    assertThat(f.zk.children(ADMISSION)).hasSize(1);

    f.expireAndRenew();
    String kazoo = kazooQueuesForAdmission(); // queued while the session was gone
    f.settle();

    assertThat(r).isNotDone();
    List<String> queue = f.zk.children(ADMISSION);
    assertThat(queue).hasSize(2);
    f.zk.delete(held);
    f.settle();
    assertThat(r).as("kazoo's client is admitted first").isNotDone();
    assertThat(leases()).isEmpty(); // kazoo's model client does not lease here: only the order

    f.zk.delete(kazoo);
    f.settle();
    assertThat(r).isCompleted();
    assertThat(f.zk.stat(r.join().path()).getEphemeralOwner()).isEqualTo(f.session.sessionId());
  }

  @Test
  void aHolderWhoseSessionEnds_isToldOfTheLoss() {
    CompletableFuture<LockHandle> r = semaphore(1).request(1, Waiting.FOREVER);
    f.settle();
    LockHandle h = r.join();

    f.expireAndRenew();
    f.settle();

    assertThat(h.lost()).isDone();
    assertThat(leases()).isEmpty();
  }
}
