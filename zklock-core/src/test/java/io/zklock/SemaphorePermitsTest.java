package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The semaphore's stored permit count, and several permits at once. */
class SemaphorePermitsTest extends ZkTestSupport {

  private String dirData(String name) throws Exception {
    return new String(raw().getData(dir(name), false, null), StandardCharsets.UTF_8);
  }

  @Test
  void permitCount_isStoredWithTheSemaphore() throws Exception {
    LockHandle h = client().semaphore("quota", 3).acquire();
    assertThat(dirData("quota")).isEqualTo("{\"kind\":\"semaphore\",\"permits\":3}");
    h.release();
  }

  @Test
  void otherCount_isRefusedClearly_byEveryWayToAcquire_andLeavesNothing() throws Exception {
    LockHandle a = client("a").semaphore("quota", 3).acquire();
    DistributedSemaphore wrong = client("b").semaphore("quota", 2);

    assertThatThrownBy(wrong::acquire)
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("3 permits")
        .hasMessageContaining("asked for 2")
        .hasMessageContaining(dir("quota"))
        .as("a caller's mistake: its cause says so")
        .hasCauseInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(wrong::tryAcquire).isInstanceOf(ZkLockException.class);
    assertThatThrownBy(() -> wrong.tryAcquire(Duration.ofSeconds(5)))
        .isInstanceOf(ZkLockException.class);
    CompletableFuture<LockHandle> f = wrong.acquireAsync();
    assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(ZkLockException.class);

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(lockNodes())
                    .as("only the rightful lease; the refused requests left nothing")
                    .containsExactly(a.path()));
    assertThat(dirData("quota")).contains("\"permits\":3");
    a.release();
  }

  @Test
  void directoryWithoutACount_isClaimedByTheFirstRequest() throws Exception {
    ZkLocks c = client(); // makes the namespace
    createDir("old"); // as an older zklock made it: no data
    LockHandle h = c.semaphore("old", 2).acquire();
    assertThat(dirData("old")).contains("\"permits\":2");
    assertThatThrownBy(() -> client().semaphore("old", 5).tryAcquire())
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("2 permits");
    h.release();
  }

  @Test
  void afterTheServerReapsAnIdleSemaphore_aNewCountMayStart_andTheOldInstanceIsRefused()
      throws Exception {
    DistributedSemaphore three = client("three").semaphore("quota", 3);
    three.acquire().release();
    await("the server reaps the idle semaphore's directory")
        .atMost(Duration.ofSeconds(20))
        .until(() -> raw().exists(dir("quota"), false) == null);

    LockHandle two = client("two").semaphore("quota", 2).acquire();

    assertThat(dirData("quota")).contains("\"permits\":2");
    assertThatThrownBy(three::acquire)
        .as("the instance that checked before must check again")
        .isInstanceOf(ZkLockException.class)
        .hasMessageContaining("2 permits");
    two.release();
  }

  @Test
  void acquireSeveral_waitsUntilAllAreFree_thenHoldsThemAsOneLease() throws Exception {
    ZkLocks c = client("big");
    LockHandle a = client("a").semaphore("quota", 3).acquire();
    LockHandle b = client("b").semaphore("quota", 3).acquire();
    CompletableFuture<LockHandle> two = c.semaphore("quota", 3).acquireAsync(2);
    ZkLocks viewer = client("viewer");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> viewer.inspect("quota").orElseThrow().waiters().size() == 2);
    LockInfo waiting = viewer.inspect("quota").orElseThrow();
    assertThat(waiting.holders()).extracting(LockNode::path).containsExactly(a.path(), b.path());
    assertThat(waiting.waiters())
        .as("both permits of the request wait, although one is free")
        .extracting(LockNode::clientName)
        .containsExactly("big", "big");
    assertThat(two).isNotDone();

    a.release();
    LockHandle h = two.get(10, TimeUnit.SECONDS);

    assertThat(h.isHeld()).isTrue();
    assertThat(h.fencingToken()).isGreaterThan(b.fencingToken());
    assertThat(viewer.inspect("quota").orElseThrow().holders())
        .extracting(LockNode::clientName)
        .containsExactly("b", "big", "big");
    assertThat(client().semaphore("quota", 3).tryAcquire()).as("all 3 in use").isEmpty();
    h.release();
    assertThat(client().semaphore("quota", 3).tryAcquire(2))
        .as("both freed by one release")
        .isPresent()
        .get()
        .satisfies(LockHandle::release);
    b.release();
    awaitNoLockNodes();
  }

  @Test
  void tryAcquireSeveral_timeout_allOrNothing_thePermitFreeMeanwhileIsGivenBack() throws Exception {
    LockHandle a = client().semaphore("quota", 3).acquire();
    LockHandle b = client().semaphore("quota", 3).acquire();

    assertThat(client().semaphore("quota", 3).tryAcquire(2, Duration.ofMillis(300))).isEmpty();
    assertThat(client().semaphore("quota", 3).tryAcquire(2)).isEmpty();

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(lockNodes()).containsExactlyInAnyOrder(a.path(), b.path()));
    assertThat(client().semaphore("quota", 3).tryAcquire())
        .as("the third permit is free again")
        .isPresent()
        .get()
        .satisfies(LockHandle::release);
    a.release();
    b.release();
  }

  @Test
  void largeRequest_isNotStarvedBySmallOnesBehindIt() throws Exception {
    LockHandle a = client("a").semaphore("quota", 3).acquire();
    CompletableFuture<LockHandle> all = client("all").semaphore("quota", 3).acquireAsync(3);
    ZkLocks viewer = client("viewer");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> viewer.inspect("quota").orElseThrow().waiters().size() == 3);
    CompletableFuture<LockHandle> one = client("one").semaphore("quota", 3).acquireAsync();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> viewer.inspect("quota").orElseThrow().waiters().size() == 4);
    assertThat(one).as("two permits are free, but the earlier request comes first").isNotDone();

    a.release();
    LockHandle h = all.get(10, TimeUnit.SECONDS);
    assertThat(one).isNotDone();
    h.release();
    one.get(10, TimeUnit.SECONDS).release();
  }

  @Test
  void cancellingARequestForSeveral_withdrawsIt_keepingNothing() throws Exception {
    LockHandle a = client().semaphore("quota", 2).acquire();
    CompletableFuture<LockHandle> f = client().semaphore("quota", 2).acquireAsync(2);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> lockNodes().size() == 4); // + mutex, 2 leases
    f.cancel(true);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(lockNodes()).containsExactly(a.path()));
    a.release();
  }

  @Test
  void countOutOfRange_isRefused() {
    DistributedSemaphore s = client().semaphore("quota", 3);
    assertThatThrownBy(() -> s.acquire(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("between 1 and 3")
        .hasMessageContaining(": 0");
    assertThatThrownBy(() -> s.tryAcquire(4)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> s.tryAcquire(-1, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> s.acquireAsync(4)).isInstanceOf(IllegalArgumentException.class);
  }
}
