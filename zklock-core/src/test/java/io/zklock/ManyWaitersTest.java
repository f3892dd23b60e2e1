package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.internal.rules.QueueNode;
import io.zklock.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Many pending {@code acquireAsync()} on one {@link ZkLocks}: the requests of one session share
 * their listings of the lock directory (a burst costs a few {@code getChildren}, not one per
 * request), and are still granted one at a time, in the order they were made.
 *
 * <p>The burst is made while the session's traffic is held by a proxy: the first request's listing
 * is then in flight for the whole burst, and every later request joins the one listing sent when it
 * returns. That is the mechanism under load too (requests join while a listing is in flight); the
 * proxy only makes its timing certain. Listings are counted by the server (its {@code getChildren}
 * response cache counts each reply as a hit or a miss).
 */
class ManyWaitersTest extends ZkTestSupport {

  @Test
  void twoThousandPendingAcquireAsync_shareListings_grantedInFifoOrder_oneHolderAtATime()
      throws Exception {
    int n = 2_000;
    try (FaultProxy proxy = FaultProxy.start(server.connectString())) {
      ZkLocks locks =
          track(
              ZkLocks.builder(proxy.connectString())
                  .namespace(namespace)
                  .sessionTimeout(Duration.ofSeconds(20))
                  .connectTimeout(Duration.ofSeconds(10))
                  .build());
      DistributedLock lock = locks.mutex("many");
      LockHandle head = lock.acquire();

      long listingsBefore = getChildrenReplies();
      List<CompletableFuture<LockHandle>> pending = new ArrayList<>(n);
      proxy.blackhole();
      try {
        for (int i = 0; i < n; i++) {
          pending.add(lock.acquireAsync());
        }
      } finally {
        proxy.pass();
      }
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> raw().getAllChildrenNumber(dir("many")) == n + 1);
      // every waiter has its node; each set its watch after reading its listing
      await().atMost(Duration.ofSeconds(60)).until(() -> watchCount() >= n - 1);
      long listings = getChildrenReplies() - listingsBefore;
      // two rounds: the first request's listing, held with the burst, and the one listing all the
      // others joined while it was in flight (a few more if the held traffic cost a reconnect)
      assertThat(listings)
          .as("getChildren sent to queue %d requests of one session", n)
          .isLessThanOrEqualTo(10);

      drainInOrder(head, pending, 120, "grants in the order the requests were made");
      awaitNoLockNodes();
    }
  }

  @Test
  void burstAfterSequenceOverflow_sharesListings_andKeepsCreationOrder() throws Exception {
    int n = 30;
    try (FaultProxy proxy = FaultProxy.start(server.connectString())) {
      ZkLocks locks =
          track(
              ZkLocks.builder(proxy.connectString())
                  .namespace(namespace)
                  .sessionTimeout(Duration.ofSeconds(20))
                  .connectTimeout(Duration.ofSeconds(10))
                  .build());
      // persistent, not a container: an empty container whose child counter was moved looks to the
      // server like one whose children all left, and it may reap it before the first create
      raw()
          .create(
              dir("wrap"),
              new byte[0],
              org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
              org.apache.zookeeper.CreateMode.PERSISTENT);
      server.setChildSequence(dir("wrap"), Integer.MAX_VALUE - 3);
      DistributedLock lock = locks.mutex("wrap");
      LockHandle head = lock.acquire();
      List<CompletableFuture<LockHandle>> pending = new ArrayList<>();
      proxy.blackhole();
      try {
        for (int i = 0; i < n; i++) {
          pending.add(lock.acquireAsync());
        }
      } finally {
        proxy.pass();
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> raw().getAllChildrenNumber(dir("wrap")) == n + 1);
      List<String> suffixes = new ArrayList<>();
      for (String child : raw().getChildren(dir("wrap"), false)) {
        suffixes.add(String.valueOf(QueueNode.parse(child).sequence()));
      }
      assertThat(suffixes.stream().filter(s -> s.equals("2147483647") || s.startsWith("-")))
          .as("the counter overflowed: %s", suffixes)
          .hasSizeGreaterThanOrEqualTo(n / 2);

      drainInOrder(
          head, pending, 60, "grants in creation order, whatever the overflowed suffixes say");
      awaitNoLockNodes();
    }
  }

  @Test
  void grants_wakeBlockedCallers_whileAsyncCallbacksNeverRunOnZooKeepersEventThread()
      throws Exception {
    ZkLocks locks = client();
    DistributedLock lock = locks.mutex("threads");
    LockHandle head = lock.acquire();
    List<String> callbackThreads = Collections.synchronizedList(new ArrayList<>());
    List<CompletableFuture<Void>> async = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      async.add(
          lock.acquireAsync()
              .thenAccept(
                  h -> {
                    callbackThreads.add(Thread.currentThread().getName());
                    h.releaseAsync();
                  }));
    }
    CompletableFuture<LockHandle> blocked = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              try {
                blocked.complete(lock.acquire());
              } catch (Throwable e) {
                blocked.completeExceptionally(e);
              }
            });
    t.start();
    await().atMost(Duration.ofSeconds(20)).until(() -> lockNodes().size() == 7);
    head.release();
    CompletableFuture.allOf(async.toArray(new CompletableFuture<?>[0])).get(20, TimeUnit.SECONDS);
    LockHandle last = blocked.get(20, TimeUnit.SECONDS);
    assertThat(last.isHeld()).as("the blocked caller holds, after the five async ones").isTrue();
    last.release();
    assertThat(callbackThreads)
        .as("acquireAsync() callbacks run on the library's executor")
        .hasSize(5)
        .noneMatch(name -> name.contains("EventThread"));
    assertNoLockNodes();
  }

  /** getChildren replies the server has sent (its response cache sees each one). */
  private static long getChildrenReplies() {
    Map<String, String> m = server.mntr();
    return Long.parseLong(m.getOrDefault("zk_response_packet_get_children_cache_hits", "0"))
        + Long.parseLong(m.getOrDefault("zk_response_packet_get_children_cache_misses", "0"));
  }

  private static long watchCount() {
    return Long.parseLong(server.mntr().getOrDefault("zk_watch_count", "0"));
  }

  /**
   * Releases {@code head} and lets every pending request be granted and release in turn: asserts
   * that no grant came while another request held the lock, and that the grants came in the order
   * of {@code pending} ({@code why} says which order that is).
   */
  private static void drainInOrder(
      LockHandle head, List<CompletableFuture<LockHandle>> pending, int timeoutSeconds, String why)
      throws Exception {
    int n = pending.size();
    List<Integer> order = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger holders = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    AtomicReference<LockHandle> last = new AtomicReference<>(head);
    List<CompletableFuture<Void>> handled = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int index = i;
      handled.add(
          pending
              .get(i)
              .thenAccept(
                  h -> {
                    LockHandle previous = last.getAndSet(h);
                    // each holder releases before the next can be granted: none still holds
                    if (holders.incrementAndGet() != 1 || previous.isHeld()) {
                      overlaps.incrementAndGet();
                    }
                    order.add(index);
                    holders.decrementAndGet();
                    h.releaseAsync();
                  }));
    }
    head.release();
    // wait for the callbacks themselves: the futures complete before their callbacks have run
    CompletableFuture.allOf(handled.toArray(new CompletableFuture<?>[0]))
        .get(timeoutSeconds, TimeUnit.SECONDS);
    assertThat(overlaps.get()).as("grants while another request held the lock").isZero();
    assertThat(order).as(why).containsExactlyElementsOf(IntStream.range(0, n).boxed().toList());
  }
}
