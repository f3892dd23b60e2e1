package io.zklock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.LockHandle;
import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code /actuator/zklock}: the application's own locks, held and waiting, with tokens and times,
 * and its session, the same data as {@link ZkLocks#localLocks()}.
 */
class ZkLocksEndpointTest {
  private static EmbeddedZooKeeper zk;

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ZkLocksAutoConfiguration.class, ZkLocksEndpointAutoConfiguration.class));

  @BeforeAll
  static void startServer() {
    zk = EmbeddedZooKeeper.standalone().start();
  }

  @AfterAll
  static void stopServer() {
    zk.close();
  }

  @Test
  void endpoint_listsHeldAndWaitingLocks_withTokensTimesAndSession() {
    runner
        .withPropertyValues(
            "zklock.connect-string=" + zk.connectString(),
            "management.endpoints.web.exposure.include=zklock",
            "zklock.namespace=/endpoint-test",
            "zklock.client-name=orders-service")
        .run(
            ctx -> {
              ZkLocks locks = ctx.getBean(ZkLocks.class);
              ZkLocksEndpoint endpoint = ctx.getBean(ZkLocksEndpoint.class);
              LockHandle held = locks.mutex("orders/42").acquire();
              try (ZkLocks other =
                  ZkLocks.builder(zk.connectString()).namespace("/endpoint-test").build()) {
                LockHandle blocking = other.mutex("billing").acquire();
                CompletableFuture<LockHandle> waiting = locks.mutex("billing").acquireAsync();
                Awaitility.await()
                    .atMost(10, TimeUnit.SECONDS)
                    .until(
                        () ->
                            locks.localLocks().requests().stream()
                                .allMatch(r -> !r.path().isEmpty()));

                Map<String, Object> view = endpoint.locks();

                assertThat(view)
                    .containsEntry("clientName", "orders-service")
                    .containsEntry("sessionState", "CONNECTED")
                    .containsEntry("connectedServer", locks.localLocks().connectedServer())
                    .containsKey("sessionStateForMillis")
                    .containsEntry("held", 1)
                    .containsEntry("waiting", 1)
                    .containsEntry("sessionId", "0x" + Long.toHexString(locks.sessionId()))
                    .containsEntry(
                        "negotiatedSessionTimeoutMillis",
                        locks.negotiatedSessionTimeout().toMillis());
                @SuppressWarnings("unchecked")
                List<Map<String, Object>> requests =
                    (List<Map<String, Object>>) view.get("requests");
                assertThat(requests)
                    .anySatisfy(
                        r -> {
                          assertThat(r).containsEntry("lock", "orders/42");
                          assertThat(r).containsEntry("state", "held");
                          assertThat(r).containsEntry("token", held.fencingToken());
                          assertThat(r).containsEntry("kind", "mutex");
                        })
                    .anySatisfy(
                        r -> {
                          assertThat(r).containsEntry("lock", "billing");
                          assertThat(r).containsEntry("state", "waiting");
                          assertThat(r).containsEntry("heldMillis", 0L);
                        });
                assertThat(locks.localLocks().connectedServer())
                    .as("the server it is connected to")
                    .endsWith(":" + zk.clientPort());
                // held counts from the grant: a request that waited 1 s and was granted just now
                Awaitility.await()
                    .atMost(10, TimeUnit.SECONDS)
                    .until(() -> locks.localLocks().waiting().get(0).waited().toMillis() >= 1_000);
                long beforeGrant = System.nanoTime();
                blocking.release();
                LockHandle granted = waiting.get(10, TimeUnit.SECONDS);
                @SuppressWarnings("unchecked")
                Map<String, Object> billing =
                    ((List<Map<String, Object>>) endpoint.locks().get("requests"))
                        .stream()
                            .filter(r -> r.get("lock").equals("billing"))
                            .findFirst()
                            .orElseThrow();
                long sinceRelease = (System.nanoTime() - beforeGrant) / 1_000_000 + 1;
                assertThat((Long) billing.get("waitedMillis")).isGreaterThanOrEqualTo(1_000L);
                assertThat((Long) billing.get("heldMillis"))
                    .as("held since the grant, not since the request: " + billing)
                    .isLessThanOrEqualTo(sinceRelease);
                granted.release();
              }
              held.release();
            });
  }

  @Test
  void noZkLocks_noEndpoint() {
    runner
        .withPropertyValues("management.endpoints.web.exposure.include=zklock")
        .run(ctx -> assertThat(ctx).doesNotHaveBean(ZkLocksEndpoint.class));
  }

  @Test
  void notExposed_orAccessNone_noEndpoint_asSpringBootsOwn() {
    ApplicationContextRunner connected =
        runner.withPropertyValues("zklock.connect-string=" + zk.connectString());
    connected.run(ctx -> assertThat(ctx).doesNotHaveBean(ZkLocksEndpoint.class));
    connected
        .withPropertyValues("management.endpoints.web.exposure.include=health,zklock")
        .run(ctx -> assertThat(ctx).hasSingleBean(ZkLocksEndpoint.class));
    connected
        .withPropertyValues(
            "management.endpoints.web.exposure.include=zklock",
            "management.endpoint.zklock.access=NONE")
        .run(ctx -> assertThat(ctx).doesNotHaveBean(ZkLocksEndpoint.class));
    connected
        .withPropertyValues("management.endpoints.jmx.exposure.include=zklock")
        .run(ctx -> assertThat(ctx).doesNotHaveBean(ZkLocksEndpoint.class).as("JMX is off"));
  }
}
