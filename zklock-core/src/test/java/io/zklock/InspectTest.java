package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link ZkLocks#inspect}: who holds and who waits, for every kind, under contention. */
class InspectTest extends ZkTestSupport {

  private static List<String> paths(List<LockNode> nodes) {
    return nodes.stream().map(LockNode::path).toList();
  }

  private static List<String> clients(List<LockNode> nodes) {
    return nodes.stream().map(LockNode::clientName).toList();
  }

  /** Waits until {@code name} shows {@code holders} holders and {@code waiters} waiters. */
  private LockInfo awaitShape(ZkLocks viewer, String name, int holders, int waiters) {
    await("inspect(" + name + ") shows " + holders + " holders and " + waiters + " waiters")
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                viewer
                    .inspect(name)
                    .map(i -> i.holders().size() == holders && i.waiters().size() == waiters)
                    .orElse(false));
    return viewer.inspect(name).orElseThrow();
  }

  @Test
  void mutex_holderThenWaitersInArrivalOrder_withOwnerData() throws Exception {
    ZkLocks a = track(builder().clientName("alpha").ownerData("job 17 on shard 3").build());
    Instant before = Instant.now().minusSeconds(5);
    LockHandle held = a.mutex("orders/42").acquire();
    CompletableFuture<LockHandle> b = client("beta").mutex("orders/42").acquireAsync();
    awaitShape(a, "orders/42", 1, 1);
    CompletableFuture<LockHandle> c = client("gamma").mutex("orders/42").acquireAsync();

    LockInfo info = awaitShape(client("viewer"), "orders/42", 1, 2);

    assertThat(info.name()).isEqualTo("orders/42");
    assertThat(info.path()).isEqualTo(dir("orders/42"));
    assertThat(info.kind()).isEqualTo(LockInfo.Kind.MUTEX);
    assertThat(info.permits()).isZero();
    assertThat(info.isHeld()).isTrue();
    LockNode h = info.holders().get(0);
    assertThat(h.path()).isEqualTo(held.path());
    assertThat(h.name()).isEqualTo(held.path().substring(held.path().lastIndexOf('/') + 1));
    assertThat(h.kind()).isEqualTo(LockNode.Kind.MUTEX);
    assertThat(h.clientName()).isEqualTo("alpha");
    assertThat(h.host()).isNotEmpty();
    assertThat(h.pid()).isEqualTo(ProcessHandle.current().pid());
    assertThat(h.sessionId()).isEqualTo(a.sessionId());
    assertThat(h.fencingToken()).isEqualTo(held.fencingToken());
    assertThat(h.since()).isAfter(before).isBefore(Instant.now().plusSeconds(5));
    assertThat(h.ownerData()).isEqualTo("job 17 on shard 3");
    assertThat(h.releaseRequested()).isFalse();
    assertThat(clients(info.waiters()))
        .as("waiters in arrival order")
        .containsExactly("beta", "gamma");
    assertThat(info.waiters().get(0).ownerData()).isEmpty();
    assertThat(info.waiters().get(0).fencingToken())
        .isLessThan(info.waiters().get(1).fencingToken());

    held.release();
    LockHandle got = b.get(10, TimeUnit.SECONDS);
    LockInfo after = awaitShape(a, "orders/42", 1, 1);
    assertThat(paths(after.holders())).containsExactly(got.path());
    assertThat(clients(after.waiters())).containsExactly("gamma");
    got.release();
    c.get(10, TimeUnit.SECONDS).release();
    await().atMost(Duration.ofSeconds(10)).until(() -> a.inspect("orders/42").isEmpty());
  }

  @Test
  void readWrite_readersBeforeTheWriterHold_laterReaderWaitsBehindTheWriter() throws Exception {
    LockHandle r1 = client("r1").readWriteLock("inventory").readLock().acquire();
    LockHandle r2 = client("r2").readWriteLock("inventory").readLock().acquire();
    ZkLocks viewer = client("viewer");
    CompletableFuture<LockHandle> w =
        client("w").readWriteLock("inventory").writeLock().acquireAsync();
    awaitShape(viewer, "inventory", 2, 1);
    CompletableFuture<LockHandle> r3 =
        client("r3").readWriteLock("inventory").readLock().acquireAsync();

    LockInfo info = awaitShape(viewer, "inventory", 2, 2);

    assertThat(info.kind()).isEqualTo(LockInfo.Kind.READ_WRITE);
    assertThat(paths(info.holders())).containsExactly(r1.path(), r2.path());
    assertThat(info.holders()).extracting(LockNode::kind).containsOnly(LockNode.Kind.READ);
    assertThat(clients(info.waiters())).containsExactly("w", "r3");
    assertThat(info.waiters())
        .extracting(LockNode::kind)
        .containsExactly(LockNode.Kind.WRITE, LockNode.Kind.READ);
    assertThat(r3).as("the reader waits behind the writer").isNotDone();

    r1.release();
    r2.release();
    LockHandle wh = w.get(10, TimeUnit.SECONDS);
    LockInfo writing = awaitShape(viewer, "inventory", 1, 1);
    assertThat(paths(writing.holders())).containsExactly(wh.path());
    wh.release();
    r3.get(10, TimeUnit.SECONDS).release();
  }

  @Test
  void simpleLock_showsItsHolder_waitersHaveNoNode() throws Exception {
    ZkLocks a = client("alpha");
    LockHandle held = a.simpleLock("nightly").acquire();
    CompletableFuture<LockHandle> waiting = client("beta").simpleLock("nightly").acquireAsync();

    LockInfo info = client("viewer").inspect("nightly").orElseThrow();

    assertThat(info.kind()).isEqualTo(LockInfo.Kind.SIMPLE);
    assertThat(info.holders()).hasSize(1);
    LockNode h = info.holders().get(0);
    assertThat(h.kind()).isEqualTo(LockNode.Kind.SIMPLE);
    assertThat(h.path()).isEqualTo(held.path());
    assertThat(h.clientName()).isEqualTo("alpha");
    assertThat(h.sessionId()).isEqualTo(a.sessionId());
    assertThat(h.fencingToken()).isEqualTo(held.fencingToken());
    assertThat(info.waiters()).isEmpty();
    held.release();
    waiting.get(10, TimeUnit.SECONDS).release();
  }

  @Test
  void semaphore_threePermitsFiveRequests_threeHoldersTwoWaiters() throws Exception {
    List<LockHandle> held = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      held.add(client("holder-" + i).semaphore("api-quota", 3).acquire());
    }
    ZkLocks viewer = client("viewer");
    CompletableFuture<LockHandle> w1 = client("waiter-1").semaphore("api-quota", 3).acquireAsync();
    awaitShape(viewer, "api-quota", 3, 1);
    CompletableFuture<LockHandle> w2 = client("waiter-2").semaphore("api-quota", 3).acquireAsync();

    LockInfo info = awaitShape(viewer, "api-quota", 3, 2);

    assertThat(info.kind()).isEqualTo(LockInfo.Kind.SEMAPHORE);
    assertThat(info.name()).isEqualTo("api-quota");
    assertThat(info.permits()).isEqualTo(3);
    assertThat(paths(info.holders()))
        .containsExactly(held.get(0).path(), held.get(1).path(), held.get(2).path());
    assertThat(clients(info.holders())).containsExactly("holder-0", "holder-1", "holder-2");
    assertThat(info.holders()).extracting(LockNode::kind).containsOnly(LockNode.Kind.SEMAPHORE);
    assertThat(clients(info.waiters()))
        .as("in arrival order")
        .containsExactly("waiter-1", "waiter-2");
    assertThat(w1).isNotDone();
    assertThat(w2).isNotDone();

    held.get(1).release();
    LockHandle got = w1.get(10, TimeUnit.SECONDS);
    LockInfo after = awaitShape(viewer, "api-quota", 3, 1);
    assertThat(paths(after.holders())).contains(got.path());
    assertThat(clients(after.waiters())).containsExactly("waiter-2");
    got.release();
    w2.get(10, TimeUnit.SECONDS).release();
    held.get(0).release();
    held.get(2).release();
  }

  @Test
  void granted_heldFromItsCreation_exact_grantedAfterAWait_boundedByTheNextArrival()
      throws Exception {
    ZkLocks viewer = client("viewer");
    LockHandle first = client("first").mutex("jobs/report").acquire();
    LockHandle simple = client("simple").simpleLock("nightly").acquire();
    LockHandle lease = client("lease").semaphore("quota", 2).acquire();
    LockInfo uncontended = awaitShape(viewer, "jobs/report", 1, 0);
    LockNode.Grant exact = uncontended.holders().get(0).granted().orElseThrow();
    assertThat(exact.exact()).as("held from its creation: " + exact).isTrue();
    assertThat(exact.earliest()).isEqualTo(uncontended.holders().get(0).since());
    assertThat(viewer.inspect("nightly").orElseThrow().holders().get(0).granted().orElseThrow())
        .as("a simple lock's node is created holding")
        .matches(LockNode.Grant::exact);
    assertThat(viewer.inspect("quota").orElseThrow().holders().get(0).granted().orElseThrow())
        .matches(LockNode.Grant::exact);

    // a second request queues at t1, is granted by the release at t2 > t1
    CompletableFuture<LockHandle> second = client("second").mutex("jobs/report").acquireAsync();
    LockNode queued = awaitShape(viewer, "jobs/report", 1, 1).waiters().get(0);
    assertThat(queued.granted()).as("a waiter has no grant").isEmpty();
    Thread.sleep(30); // the release comes visibly later than the request's creation
    Instant beforeRelease = Instant.now();
    first.release();
    LockHandle granted = second.get(10, TimeUnit.SECONDS);
    LockNode.Grant afterWait =
        viewer.inspect("jobs/report").orElseThrow().holders().get(0).granted().orElseThrow();
    assertThat(afterWait.exact()).as("granted by a deletion: " + afterWait).isFalse();
    assertThat(afterWait.earliest()).isEqualTo(queued.since());
    assertThat(afterWait.latest()).as("nothing came after the deletion: only the read").isEmpty();

    // a third request arrives after the grant: its creation bounds the grant from above
    CompletableFuture<LockHandle> third = client("third").mutex("jobs/report").acquireAsync();
    LockInfo withThird = awaitShape(viewer, "jobs/report", 1, 1);
    LockNode.Grant bounded = withThird.holders().get(0).granted().orElseThrow();
    assertThat(bounded.latest()).contains(withThird.waiters().get(0).since());
    assertThat(bounded.latest().orElseThrow())
        .as("no earlier than the release that granted it (same machine's clock)")
        .isAfterOrEqualTo(beforeRelease.minusMillis(1));
    granted.release();
    third.get(10, TimeUnit.SECONDS).release();
    simple.release();
    lease.release();
  }

  @Test
  void election_leaderThenFollowersInOrder() throws Exception {
    List<LeaderElection> es = new ArrayList<>();
    ZkLocks viewer = client("viewer");
    for (int i = 0; i < 3; i++) {
      LeaderElection e = track(client("p" + i).leaderElection("scheduler", "node-" + i));
      e.start();
      es.add(e);
      awaitShape(viewer, "scheduler", 1, i); // joins one after the other, in this order
    }
    assertThat(es.get(0).awaitLeadership(Duration.ofSeconds(10))).isTrue();

    LockInfo info = viewer.inspect("scheduler").orElseThrow();

    assertThat(info.kind()).isEqualTo(LockInfo.Kind.ELECTION);
    assertThat(info.holders()).hasSize(1);
    assertThat(info.holders().get(0).participantId()).contains("node-0");
    assertThat(info.holders().get(0).fencingToken()).isEqualTo(es.get(0).epoch().orElseThrow());
    assertThat(info.waiters())
        .extracting(n -> n.participantId().orElseThrow())
        .containsExactly("node-1", "node-2");
    assertThat(info.waiters()).extracting(LockNode::kind).containsOnly(LockNode.Kind.ELECTION);

    es.get(0).close();
    LockInfo next = awaitShape(viewer, "scheduler", 1, 1);
    assertThat(next.holders().get(0).participantId()).contains("node-1");
  }

  @Test
  void missingOrIdleLock_isEmpty_badNameIsRefused() throws Exception {
    ZkLocks c = client();
    assertThat(c.inspect("never/made")).isEmpty();
    c.mutex("idle").acquire().release();
    assertThat(c.inspect("idle")).as("released: nobody holds or waits").isEmpty();
    assertThatThrownBy(() -> c.inspect("a//b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a//b");
    assertThatThrownBy(() -> c.inspectAll("../x")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void closedInstance_refusesToInspect() {
    ZkLocks c = client();
    c.close();
    assertThatThrownBy(() -> c.inspect("x")).isInstanceOf(ZkLockException.class);
  }

  @Test
  void inspectAll_everyKindOnceByName_semaphoreNotSplitIntoItsParts() throws Exception {
    ZkLocks c = client("all");
    LockHandle m = c.mutex("orders/42").acquire();
    LockHandle m2 = c.mutex("orders").acquire(); // a lock whose name is a prefix of another's
    LockHandle r = c.readWriteLock("inventory").readLock().acquire();
    LockHandle s = c.simpleLock("nightly").acquire();
    LockHandle q = c.semaphore("api-quota", 2).acquire();
    LeaderElection e = track(c.leaderElection("scheduler", "me"));
    e.start();
    assertThat(e.awaitLeadership(Duration.ofSeconds(10))).isTrue();

    List<LockInfo> all = client("viewer").inspectAll("");

    assertThat(all)
        .extracting(LockInfo::name)
        .containsExactly("api-quota", "inventory", "nightly", "orders", "orders/42", "scheduler");
    assertThat(all)
        .extracting(LockInfo::kind)
        .containsExactly(
            LockInfo.Kind.SEMAPHORE,
            LockInfo.Kind.READ_WRITE,
            LockInfo.Kind.SIMPLE,
            LockInfo.Kind.MUTEX,
            LockInfo.Kind.MUTEX,
            LockInfo.Kind.ELECTION);
    assertThat(all).allMatch(LockInfo::isHeld);
    assertThat(client().inspectAll("orders"))
        .extracting(LockInfo::name)
        .containsExactly("orders", "orders/42");
    assertThat(client().inspectAll("orders/42"))
        .extracting(LockInfo::name)
        .containsExactly("orders/42");
    assertThat(client().inspectAll("nothing/here")).isEmpty();
    for (LockHandle h : List.of(m, m2, r, s, q)) {
      h.release();
    }
  }

  @Test
  void ownerData_tooLong_isRefusedWithItsSize() {
    String big = "x".repeat(1025);
    assertThatThrownBy(() -> builder().ownerData(big))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1025 bytes")
        .hasMessageContaining("1024");
    assertThatThrownBy(() -> builder().ownerData(null))
        .isInstanceOf(IllegalArgumentException.class);
    builder().ownerData("x".repeat(1024)); // the limit itself is fine
    builder().ownerData("é".repeat(512)); // 1024 bytes in UTF-8
    assertThatThrownBy(() -> builder().ownerData("é".repeat(513)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void ownerData_withQuotesAndNewlines_comesBackAsWritten() throws Exception {
    String data = "{\"job\": 7}\n\ttab \\ \u00e9";
    ZkLocks a = track(builder().ownerData(data).build());
    LockHandle h = a.semaphore("q", 1).acquire();
    assertThat(a.inspect("q").orElseThrow().holders().get(0).ownerData()).isEqualTo(data);
    h.release();
  }
}
