package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.assertj.core.api.ThrowingConsumer;
import org.junit.jupiter.api.Test;

/**
 * One name given to two recipes, where one of them keeps its state in the directory's data (a
 * semaphore's permit count, a latch's count, a double barrier's round): the second is refused as a
 * caller's mistake, and the first one's data is left as it was. So is a directory whose data is a
 * lock's release record or another program's.
 */
class StoredStateNamesTest extends ZkTestSupport {

  private byte[] data(String name) throws Exception {
    return raw().getData(dir(name), false, null);
  }

  /** Every way the recipe of {@code kind} can be used on {@code name}: each is refused. */
  private void assertRefused(String kind, String name, String message) {
    ThrowingConsumer<Throwable> isTheCallersMistake =
        e ->
            assertThat(e)
                .isInstanceOf(ZkLockException.class)
                .hasMessageContaining(message)
                .as("a caller's mistake: its cause says so")
                .hasCauseInstanceOf(IllegalArgumentException.class);
    ZkLocks c = client(kind);
    switch (kind) {
      case "semaphore" -> {
        DistributedSemaphore s = c.semaphore(name, 2);
        assertThatThrownBy(s::acquire).satisfies(isTheCallersMistake);
        assertThatThrownBy(s::tryAcquire).satisfies(isTheCallersMistake);
        CompletableFuture<LockHandle> f = s.acquireAsync(2);
        assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .extracting(Throwable::getCause)
            .satisfies(isTheCallersMistake);
      }
      case "latch" -> {
        DistributedCountDownLatch l = c.countDownLatch(name, 2);
        assertThatThrownBy(l::countDown).satisfies(isTheCallersMistake);
        assertThatThrownBy(l::count).satisfies(isTheCallersMistake);
        assertThatThrownBy(() -> l.await(Duration.ofSeconds(5))).satisfies(isTheCallersMistake);
      }
      case "double-barrier" -> {
        DistributedDoubleBarrier b = c.doubleBarrier(name, 2);
        assertThatThrownBy(() -> b.enter(Duration.ofSeconds(5))).satisfies(isTheCallersMistake);
      }
      default -> throw new IllegalArgumentException(kind);
    }
  }

  @Test
  void aSemaphore_onALatchsOrADoubleBarriersName_isRefused_andTheirStateKept() throws Exception {
    DistributedCountDownLatch latch = client("latch").countDownLatch("shared", 3);
    latch.countDown();
    assertThat(client("barrier").doubleBarrier("group", 2).enter(Duration.ZERO))
        .as("alone, it does not pass; its directory stays, with the barrier's round")
        .isFalse();
    byte[] latchData = data("shared");
    byte[] barrierData = data("group");

    assertRefused("semaphore", "shared", dir("shared") + " is a latch, not a semaphore");
    assertRefused("semaphore", "group", dir("group") + " is a double-barrier, not a semaphore");

    assertThat(data("shared")).as("the latch's count is its own still").isEqualTo(latchData);
    assertThat(data("group")).isEqualTo(barrierData);
    assertThat(latch.count()).isEqualTo(2);
    awaitNoLockNodes();
    await("the semaphore's emptied queue directories reaped by the server")
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              assertThat(raw().getChildren(dir("shared"), false))
                  .as("the latch's count-down marker alone")
                  .singleElement()
                  .satisfies(c -> assertThat(c).startsWith("c-"));
              assertThat(raw().getChildren(dir("group"), false)).isEmpty();
            });
  }

  @Test
  void aLatchOrDoubleBarrier_onASemaphoresName_isRefused() throws Exception {
    LockHandle h = client("semaphore").semaphore("quota", 3).acquire();
    byte[] semaphoreData = data("quota");

    assertRefused("latch", "quota", dir("quota") + " is a semaphore, not a latch");
    assertRefused(
        "double-barrier", "quota", dir("quota") + " is a semaphore, not a double-barrier");

    assertThat(data("quota")).isEqualTo(semaphoreData);
    assertThat(h.isHeld()).isTrue();
    h.release();
  }

  @Test
  void aLatchAndADoubleBarrier_onOneName_refuseEachOther() throws Exception {
    client("first").countDownLatch("a", 2).countDown();
    assertThat(client("first").doubleBarrier("b", 2).enter(Duration.ZERO)).isFalse();
    Map<String, byte[]> before = Map.of("a", data("a"), "b", data("b"));

    assertRefused("double-barrier", "a", dir("a") + " is a latch, not a double-barrier");
    assertRefused("latch", "b", dir("b") + " is a double-barrier, not a latch");

    assertThat(data("a")).isEqualTo(before.get("a"));
    assertThat(data("b")).isEqualTo(before.get("b"));
  }

  @Test
  void aNodeWithAnotherProgramsData_orALocksReleaseRecord_isRefusedByEach() throws Exception {
    ZkLocks locks = client(); // makes the namespace
    raw()
        .create(
            dir("theirs"),
            "10.0.0.7".getBytes(StandardCharsets.UTF_8),
            ZooDefs.Ids.OPEN_ACL_UNSAFE,
            CreateMode.PERSISTENT);
    DistributedLock delayed =
        locks.mutex("delayed", LockOptions.defaults().lockDelay(Duration.ofSeconds(1)));
    delayed.acquire().release(); // writes its release record into the directory
    LockHandle keep = delayed.acquire(); // and keeps the directory from being reaped

    for (String name : List.of("theirs", "delayed")) {
      byte[] before = data(name);
      for (String kind : List.of("semaphore", "latch", "double-barrier")) {
        assertRefused(kind, name, dir(name) + " holds data that is not a " + kind + "'s");
      }
      assertThat(data(name)).as("%s: written over by none", name).isEqualTo(before);
    }
    keep.release();
  }
}
