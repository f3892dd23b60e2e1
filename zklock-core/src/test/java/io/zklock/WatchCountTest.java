package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * No herd: the server's own count of triggered watches stays at most {@link #PER_ACQUISITION} per
 * handoff, whatever the number of waiters (a naive watch on the lock directory fires once per
 * waiter). Each node's deletion triggers at most two watches of exclusive waiters: the one right
 * behind it waits for it, the one behind that looks ahead to it (Ordering.Watch#lookAhead), so as
 * to hand off without a read at any depth.
 */
class WatchCountTest extends ZkTestSupport {
  /** Watch events per acquisition, at most: the bench's Target.WATCH_EVENTS_BOUND. */
  static final int PER_ACQUISITION = 2;

  @Test
  void handoffChain_triggersAtMostTwoWatchesPerAcquisition() throws Exception {
    int waiters = 20;
    LockHandle first = client().mutex("herd").acquire();
    List<CompletableFuture<LockHandle>> queue = new ArrayList<>();
    for (int i = 0; i < waiters; i++) {
      queue.add(client().mutex("herd").acquireAsync());
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> lockNodes().size() == waiters + 1);
    long before = server.watchEventsTriggered();

    first.release();
    for (CompletableFuture<LockHandle> f : queue) {
      f.get(20, TimeUnit.SECONDS).release();
    }

    long events = server.watchEventsTriggered() - before;
    assertThat(events)
        .as("watch events for %d handoffs, each waiter its own session", waiters)
        .isLessThanOrEqualTo((long) PER_ACQUISITION * waiters);
    assertNoLockNodes();
  }
}
