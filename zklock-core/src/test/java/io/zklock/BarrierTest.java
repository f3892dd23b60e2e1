package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.zklock.testkit.FaultProxy;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The barrier on a real server. */
class BarrierTest extends ZkTestSupport {
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  private long watches() {
    return Long.parseLong(server.mntr().getOrDefault("zk_watch_count", "0"));
  }

  @Test
  void waitersPass_onlyWhenTheBarrierIsRemoved() throws Exception {
    DistributedBarrier setter = client("setter").barrier("gate");
    setter.set();
    setter.set(); // idempotent
    assertThat(setter.isSet()).isTrue();
    DistributedBarrier w = client("waiter").barrier("gate");
    assertThat(w.await(Duration.ofMillis(100))).as("set: the time-out comes first").isFalse();
    assertThat(w.await(Duration.ZERO)).isFalse();
    Future<?> waiting =
        pool.submit(
            () -> {
              w.await();
              return null;
            });
    await().atMost(Duration.ofSeconds(10)).until(() -> watches() >= 1);
    assertThat(waiting.isDone()).isFalse();

    setter.remove();
    waiting.get(10, TimeUnit.SECONDS);
    assertThat(w.isSet()).isFalse();
    assertThat(w.await(Duration.ZERO)).as("not set: at once").isTrue();
    setter.remove(); // idempotent
  }

  @Test
  void aSetBarrier_outlivesItsSetter() throws Exception {
    ZkLocks setterClient = client("setter");
    setterClient.barrier("kept").set();
    setterClient.close();
    assertThat(client().barrier("kept").isSet()).isTrue();
  }

  @Test
  void negativeTimeout_isRefused() {
    assertThatThrownBy(() -> client().barrier("x").await(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aDroppedConnection_doesNotLetAWaiterThrough() throws Exception {
    client("setter").barrier("cut").set();
    try (FaultProxy proxy = FaultProxy.start(server.connectString())) {
      ZkLocks viaProxy =
          track(
              ZkLocks.builder(proxy.connectString())
                  .namespace(namespace)
                  .sessionTimeout(Duration.ofSeconds(20))
                  .build());
      AtomicInteger connects = new AtomicInteger();
      viaProxy.addSessionListener(
          (state, session) -> {
            if (state == SessionState.CONNECTED) {
              connects.incrementAndGet();
            }
          });
      DistributedBarrier w = viaProxy.barrier("cut");
      Future<Boolean> waiting = pool.submit(() -> w.await(Duration.ofSeconds(30)));
      await().atMost(Duration.ofSeconds(10)).until(() -> watches() >= 1);
      int before = connects.get();
      proxy.cut();
      proxy.pass();
      await("reconnected").atMost(Duration.ofSeconds(15)).until(() -> connects.get() > before);
      assertThat(waiting.isDone()).as("a reconnection is not a removal").isFalse();

      client().barrier("cut").remove();
      assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
