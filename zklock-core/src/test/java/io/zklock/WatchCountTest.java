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
 * No herd: the server's own count of triggered watches stays at one per handoff, whatever the
 * number of waiters (the seeds' naive parent watch fires once per waiter).
 */
class WatchCountTest extends ZkTestSupport {

  @Test
  void handoffChain_triggersAtMostOneWatchPerAcquisition() throws Exception {
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
    assertThat(events).as("watch events for %d handoffs", waiters).isLessThanOrEqualTo(waiters);
    assertNoLockNodes();
  }
}
