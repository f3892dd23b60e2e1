package io.zklock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.zklock.ZkLocks;
import io.zklock.micrometer.DefaultLockObservationConvention;
import io.zklock.micrometer.LockObservationContext;
import io.zklock.micrometer.LockObservationConvention;
import io.zklock.testkit.EmbeddedZooKeeper;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * zklock's meters and observations on every ZkLocks bean of a context, as Spring Boot sets them up
 * (a meter registry; an observation registry whose meter handler makes meters of observations): one
 * set of meters, one vocabulary, whichever are on; the application's own ZkLocks beans too.
 */
class ZkLocksMetricsTest {
  private static EmbeddedZooKeeper zk;

  private final ApplicationContextRunner runner = ZkLocksAutoConfigurationTest.RUNNER;

  @BeforeAll
  static void startServer() {
    zk = EmbeddedZooKeeper.standalone().start();
  }

  @AfterAll
  static void stopServer() {
    zk.close();
  }

  /** Spring Boot's setup: both registries, the meter handler a bean and in the registry. */
  private ApplicationContextRunner metricsAndObservations() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    DefaultMeterObservationHandler handler = new DefaultMeterObservationHandler(meters);
    ObservationRegistry observations = ObservationRegistry.create();
    observations.observationConfig().observationHandler(handler);
    return runner
        .withBean(MeterRegistry.class, () -> meters)
        .withBean(DefaultMeterObservationHandler.class, () -> handler)
        .withBean(ObservationRegistry.class, () -> observations);
  }

  private ApplicationContextRunner connected(ApplicationContextRunner r) {
    return r.withPropertyValues(
        "zklock.connect-string=" + zk.connectString(), "zklock.metrics.lock-names=orders");
  }

  private static Set<String> zklockMeterNames(MeterRegistry registry) {
    Set<String> out = new TreeSet<>();
    for (Meter m : registry.getMeters()) {
      out.add(m.getId().getName());
    }
    return out;
  }

  private static double waits(MeterRegistry registry, String lock) {
    return registry
        .find("zklock.lock.wait")
        .tags("lock", lock, "outcome", "granted")
        .timers()
        .stream()
        .mapToLong(t -> t.count())
        .sum();
  }

  @Test
  void metricsAndObservationsBothOn_oneSetOfMeters_oneVocabulary_eachWaitCountedOnce() {
    connected(metricsAndObservations())
        .run(
            ctx -> {
              ZkLocks locks = ctx.getBean(ZkLocks.class);
              for (int i = 0; i < 3; i++) {
                locks.mutex("orders").acquire().release();
              }
              MeterRegistry registry = ctx.getBean(MeterRegistry.class);
              assertThat(waits(registry, "orders"))
                  .as("three waits, counted once each")
                  .isEqualTo(3);
              assertThat(zklockMeterNames(registry))
                  .containsExactlyInAnyOrder(
                      "zklock.lock.wait",
                      "zklock.lock.wait.active",
                      "zklock.lock.hold",
                      "zklock.lock.hold.active",
                      "zklock.session.state");
              assertThat(registry.get("zklock.lock.hold").tags("lock", "orders", "end", "released"))
                  .satisfies(s -> assertThat(s.timer().count()).isEqualTo(3));
            });
  }

  @Test
  void theApplicationsOwnZkLocksBeans_areMeasuredAndObservedToo_eachGaugeNamedByItsBean() {
    List<String> observed = new CopyOnWriteArrayList<>();
    metricsAndObservations()
        .withPropertyValues("zklock.metrics.lock-names=orders")
        .withBean("ordersLocks", ZkLocks.class, () -> ZkLocks.builder(zk.connectString()).build())
        .withBean("billingLocks", ZkLocks.class, () -> ZkLocks.builder(zk.connectString()).build())
        .run(
            ctx -> {
              ctx.getBean(ObservationRegistry.class)
                  .observationConfig()
                  .observationHandler(recorder(observed));
              ctx.getBean("ordersLocks", ZkLocks.class).mutex("orders").acquire().release();
              ctx.getBean("billingLocks", ZkLocks.class).mutex("orders").acquire().release();
              MeterRegistry registry = ctx.getBean(MeterRegistry.class);
              assertThat(waits(registry, "orders")).as("both beans' waits").isEqualTo(2);
              for (String bean : List.of("ordersLocks", "billingLocks")) {
                assertThat(
                        registry
                            .get("zklock.session.state")
                            .tags("client", bean, "state", "connected")
                            .gauge()
                            .value())
                    .as("%s's session", bean)
                    .isEqualTo(1.0);
              }
              assertThat(observed).containsOnly("zklock.lock.wait", "zklock.lock.hold").hasSize(4);
            });
  }

  @Test
  void metricsOnly_zklocksOwnMetersMakeTheSameSet() {
    connected(runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new))
        .run(
            ctx -> {
              ctx.getBean(ZkLocks.class).mutex("orders").acquire().release();
              MeterRegistry registry = ctx.getBean(MeterRegistry.class);
              assertThat(waits(registry, "orders")).isEqualTo(1);
              assertThat(zklockMeterNames(registry))
                  .containsExactlyInAnyOrder(
                      "zklock.lock.wait",
                      "zklock.lock.wait.active",
                      "zklock.lock.hold",
                      "zklock.lock.hold.active",
                      "zklock.session.state");
            });
  }

  @Test
  void observationsTurnedOff_theMetersStill_oneSet() {
    // as management.observations.enable.zklock=false does
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    DefaultMeterObservationHandler handler = new DefaultMeterObservationHandler(meters);
    ObservationRegistry observations = ObservationRegistry.create();
    observations.observationConfig().observationHandler(handler);
    observations.observationConfig().observationPredicate((name, c) -> !name.startsWith("zklock"));
    connected(
            runner
                .withBean(MeterRegistry.class, () -> meters)
                .withBean(DefaultMeterObservationHandler.class, () -> handler)
                .withBean(ObservationRegistry.class, () -> observations))
        .run(
            ctx -> {
              ctx.getBean(ZkLocks.class).mutex("orders").acquire().release();
              assertThat(waits(meters, "orders")).isEqualTo(1);
            });
  }

  @Test
  void metricsTurnedOff_noZklockMeter_theObservationsStay() {
    List<String> observed = new CopyOnWriteArrayList<>();
    connected(metricsAndObservations())
        .withPropertyValues("zklock.metrics.enabled=false")
        .run(
            ctx -> {
              ctx.getBean(ObservationRegistry.class)
                  .observationConfig()
                  .observationHandler(recorder(observed));
              // Spring Boot applies MeterFilter beans to the registries it configures
              MeterRegistry registry = ctx.getBean(MeterRegistry.class);
              ctx.getBeansOfType(MeterFilter.class)
                  .values()
                  .forEach(registry.config()::meterFilter);
              ctx.getBean(ZkLocks.class).mutex("orders").acquire().release();
              assertThat(zklockMeterNames(registry)).noneMatch(n -> n.startsWith("zklock."));
              assertThat(observed).containsExactly("zklock.lock.wait", "zklock.lock.hold");
            });
  }

  @Test
  void aConventionBean_namesAndKeysTheMeters() {
    connected(metricsAndObservations())
        .withBean(
            LockObservationConvention.class,
            () ->
                new DefaultLockObservationConvention(LockObservationContext.Phase.WAIT) {
                  @Override
                  public String getName() {
                    return "locks.acquire";
                  }

                  @Override
                  public KeyValues getLowCardinalityKeyValues(LockObservationContext c) {
                    return super.getLowCardinalityKeyValues(c).and("team", "payments");
                  }
                })
        .run(
            ctx -> {
              ctx.getBean(ZkLocks.class).mutex("orders").acquire().release();
              MeterRegistry registry = ctx.getBean(MeterRegistry.class);
              assertThat(
                      registry
                          .get("locks.acquire")
                          .tags("lock", "orders", "team", "payments", "outcome", "granted")
                          .timer()
                          .count())
                  .isEqualTo(1);
              assertThat(zklockMeterNames(registry))
                  .contains("zklock.lock.hold")
                  .doesNotContain("zklock.lock.wait");
            });
  }

  private static ObservationHandler<Observation.Context> recorder(List<String> names) {
    return new ObservationHandler<>() {
      @Override
      public boolean supportsContext(Observation.Context context) {
        return context instanceof LockObservationContext;
      }

      @Override
      public void onStop(Observation.Context context) {
        names.add(context.getName());
      }
    };
  }
}
