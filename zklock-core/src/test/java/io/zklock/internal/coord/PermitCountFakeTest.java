package io.zklock.internal.coord;

import static io.zklock.internal.engine.EngineFixture.NS;
import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.ZkLockException;
import io.zklock.internal.engine.EngineFixture;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException.Code;
import org.junit.jupiter.api.Test;

/**
 * The semaphore's stored permit count without a server: through the session's seam on the engine's
 * {@code FakeZooKeeper}.
 */
class PermitCountFakeTest {
  private static final String SEM = NS + "/jobs";

  private final EngineFixture f = new EngineFixture();

  /** The coordination context of the fixture's instance: its fake session, without a lifecycle. */
  private final CoordContext coord = FakeCoord.of(f);

  private static byte[] count(int permits) {
    return ("{\"kind\":\"semaphore\",\"permits\":" + permits + "}")
        .getBytes(StandardCharsets.UTF_8);
  }

  private static Throwable failure(CompletableFuture<Void> check) {
    assertThat(check).isCompletedExceptionally();
    return check.handle((v, e) -> e).join();
  }

  @Test
  void firstClient_storesItsCount_thenTheSameSessionDoesNotReadAgain() {
    PermitCount permits = new PermitCount(coord, SEM, 3);

    CompletableFuture<Void> first = permits.check();
    f.settle();

    assertThat(first).isCompleted().isNotCompletedExceptionally();
    assertThat(PermitCount.storedIn(f.zk.data(SEM))).isEqualTo(3);
    f.zk.clearSent();
    assertThat(permits.check()).as("known on this session").isCompleted();
    assertThat(f.zk.sent()).isEmpty();
  }

  @Test
  void anotherCount_stored_refusedAsTheCallersMistake() {
    f.zk.mkdirs(SEM);
    f.zk.setData(SEM, count(2));

    CompletableFuture<Void> check = new PermitCount(coord, SEM, 3).check();
    f.settle();

    assertThat(failure(check))
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("semaphore has 2 permits")
        .hasCauseInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void directoryWithoutACount_claimed() {
    f.zk.mkdirs(SEM); // made as the queue's parent, say

    CompletableFuture<Void> check = new PermitCount(coord, SEM, 4).check();
    f.settle();

    assertThat(check).isCompleted().isNotCompletedExceptionally();
    assertThat(PermitCount.storedIn(f.zk.data(SEM))).isEqualTo(4);
  }

  @Test
  void anotherRecipesDirectory_refused_itsDataKept() {
    byte[] latch =
        "{\"kind\":\"latch\",\"count\":3,\"remaining\":2}".getBytes(StandardCharsets.UTF_8);
    f.zk.mkdirs(SEM);
    f.zk.setData(SEM, latch);

    CompletableFuture<Void> check = new PermitCount(coord, SEM, 3).check();
    f.settle();

    assertThat(failure(check))
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining(SEM + " is a latch, not a semaphore")
        .hasCauseInstanceOf(IllegalArgumentException.class);
    assertThat(f.zk.data(SEM)).isEqualTo(latch);
  }

  @Test
  void countChangedUnderUs_readAgain_andRefused() {
    PermitCount permits = new PermitCount(coord, SEM, 3);
    permits.check();
    f.settle();

    f.zk.setData(SEM, count(5)); // the watch on the count fires
    f.settle();
    CompletableFuture<Void> again = permits.check();
    f.settle();

    assertThat(failure(again)).hasMessageContaining("semaphore has 5 permits");
  }

  @Test
  void connectionLost_readAgainOnceBack() {
    PermitCount permits = new PermitCount(coord, SEM, 3);
    CompletableFuture<Void> check = permits.check();
    f.session.disconnect();
    f.settle();
    assertThat(check).as("waits for the connection").isNotDone();

    f.session.reconnect();
    f.settle();

    assertThat(check).isCompleted().isNotCompletedExceptionally();
  }

  @Test
  void notAuthorized_failsWithTheReason() {
    f.zk.failNextRequest(Code.NOAUTH);

    CompletableFuture<Void> check = new PermitCount(coord, SEM, 3).check();
    f.settle();

    assertThat(failure(check)).hasMessageContaining("not authorized");
  }
}
