package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * {@link ZkLocks#watchLocks}: one persistent recursive watch tells which lock changed (queued,
 * granted, released, asked to release), and creates nothing, not even the namespace.
 */
class WatchLocksTest extends ZkTestSupport {

  private static final Duration WAIT = Duration.ofSeconds(10);

  @Test
  void watchLocks_grantsReleasesAndRequests_toldByLockName() throws Exception {
    ZkLocks viewer = client("viewer");
    List<String> told = new CopyOnWriteArrayList<>();
    try (LockWatch watch = viewer.watchLocks("", told::add)) {
      await().atMost(WAIT).until(() -> watch.mode() == LockWatch.Mode.RECURSIVE);
      await().atMost(WAIT).until(() -> told.contains(null)); // the first "read everything"
      told.clear();

      LockHandle h = client("a").mutex("jobs/nightly").acquire();
      await().atMost(WAIT).until(() -> told.contains("jobs/nightly"));
      told.clear();
      CompletableFuture<LockHandle> next = client("b").mutex("jobs/nightly").acquireAsync();
      await().atMost(WAIT).until(() -> told.contains("jobs/nightly"));
      told.clear();
      LockHandle lease = client("c").semaphore("quota", 2).acquire();
      await().atMost(WAIT).until(() -> told.contains("quota"));
      assertThat(told).as("a lease is told by its semaphore's name").doesNotContain("quota/leases");
      told.clear();
      client("operator").requestRelease("jobs/nightly");
      await().atMost(WAIT).until(() -> told.contains("jobs/nightly"));
      h.release();
      next.get().release();
      lease.release();
      assertThat(watch.requests()).as("one request set the watch").isEqualTo(1);
    }
  }

  @Test
  void watchLocks_namespaceMissing_createsNothingAndTellsItsCreation() throws Exception {
    ZkLocks viewer =
        track(
            builder()
                .namespace(namespace + "-absent")
                .clientName("viewer")
                .connectInBackground()
                .build());
    List<String> told = new CopyOnWriteArrayList<>();
    try (LockWatch watch = viewer.watchLocks("", told::add)) {
      await().atMost(WAIT).until(() -> watch.mode() == LockWatch.Mode.RECURSIVE);
      assertThat(raw().exists(namespace + "-absent", false)).as("nothing created").isNull();

      ZkLocks user = track(builder().namespace(namespace + "-absent").clientName("u").build());
      user.mutex("x").acquire().release();
      await().atMost(WAIT).until(() -> told.contains("x"));
    }
  }

  @Test
  void watchLocks_closed_toldNothingMore() throws Exception {
    ZkLocks viewer = client("viewer");
    List<String> told = new CopyOnWriteArrayList<>();
    LockWatch watch = viewer.watchLocks("", told::add);
    await().atMost(WAIT).until(() -> watch.mode() == LockWatch.Mode.RECURSIVE);
    // a witness watch set after the first: once it has heard a change, the first would have too
    List<String> witness = new CopyOnWriteArrayList<>();
    try (LockWatch w2 = viewer.watchLocks("", witness::add)) {
      await().atMost(WAIT).until(() -> w2.mode() == LockWatch.Mode.RECURSIVE);
      watch.close();
      told.clear();
      client("a").mutex("after-close").acquire().release();
      await().atMost(WAIT).until(() -> witness.contains("after-close"));
      assertThat(told).as("nothing told after close").isEmpty();
    }
  }
}
