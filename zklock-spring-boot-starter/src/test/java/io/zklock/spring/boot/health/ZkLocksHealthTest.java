package io.zklock.spring.boot.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.ZkLocks;
import io.zklock.spring.boot.ZkLocksAutoConfiguration;
import io.zklock.testkit.EmbeddedZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The "zklock" health contributor on Spring Boot 4 (spring-boot-health). */
class ZkLocksHealthTest {
  private static EmbeddedZooKeeper zk;

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ZkLocksAutoConfiguration.class, ZkLocksHealthAutoConfiguration.class));

  @BeforeAll
  static void startServer() {
    zk = EmbeddedZooKeeper.standalone().start();
  }

  @AfterAll
  static void stopServer() {
    zk.close();
  }

  private ApplicationContextRunner connected() {
    return runner.withPropertyValues("zklock.connect-string=" + zk.connectString());
  }

  @Test
  void oneZkLocks_itsIndicator_upWhenConnected_outOfServiceWhenClosed() {
    connected()
        .run(
            ctx -> {
              HealthContributor contributor =
                  ctx.getBean("zklockHealthContributor", HealthContributor.class);
              assertThat(contributor).isInstanceOf(ZkLocksHealthIndicator.class);
              HealthIndicator health = (HealthIndicator) contributor;
              Health up = health.health();
              assertThat(up.getStatus()).isEqualTo(Status.UP);
              assertThat(up.getDetails()).containsEntry("state", "CONNECTED");
              assertThat(up.getDetails()).containsKey("sessionId");

              ctx.getBean(ZkLocks.class).close();

              assertThat(health.health().getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
            });
  }

  @Test
  void twoZkLocks_aCompositeOfOneIndicatorPerBean_namedByTheBeans() {
    runner
        .withBean("ordersLocks", ZkLocks.class, () -> ZkLocks.builder(zk.connectString()).build())
        .withBean("billingLocks", ZkLocks.class, () -> ZkLocks.builder(zk.connectString()).build())
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              HealthContributor contributor =
                  ctx.getBean("zklockHealthContributor", HealthContributor.class);
              assertThat(contributor).isInstanceOf(CompositeHealthContributor.class);
              CompositeHealthContributor composite = (CompositeHealthContributor) contributor;
              HealthIndicator orders = (HealthIndicator) composite.getContributor("ordersLocks");
              HealthIndicator billing = (HealthIndicator) composite.getContributor("billingLocks");
              assertThat(orders.health().getStatus()).isEqualTo(Status.UP);
              assertThat(billing.health().getStatus()).isEqualTo(Status.UP);

              ctx.getBean("billingLocks", ZkLocks.class).close();
              assertThat(billing.health().getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
              assertThat(orders.health().getStatus()).isEqualTo(Status.UP);
            });
  }

  @Test
  void canBeDisabled() {
    connected()
        .withPropertyValues("management.health.zklock.enabled=false")
        .run(ctx -> assertThat(ctx).doesNotHaveBean("zklockHealthContributor"));
  }

  @Test
  void applicationsOwnIndicator_wins() {
    HealthIndicator own = () -> Health.up().build();
    connected()
        .withBean("zklockHealthIndicator", HealthIndicator.class, () -> own)
        .run(ctx -> assertThat(ctx).doesNotHaveBean("zklockHealthContributor"));
  }

  @Test
  void withoutSpringBootHealth_noContributor_andTheRestStarts() {
    connected()
        .withClassLoader(new FilteredClassLoader("org.springframework.boot.health"))
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx).hasSingleBean(ZkLocks.class);
              assertThat(ctx).doesNotHaveBean("zklockHealthContributor");
            });
  }
}
