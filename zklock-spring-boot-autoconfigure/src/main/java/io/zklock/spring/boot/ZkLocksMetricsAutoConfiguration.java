package io.zklock.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.observation.ObservationRegistry;
import io.zklock.micrometer.LockNameTags;
import io.zklock.micrometer.LockObservationConvention;
import io.zklock.micrometer.ZkLockMetrics;
import io.zklock.micrometer.ZkLockObservations;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * zklock-micrometer on every {@link io.zklock.ZkLocks} bean of the context, the application's own
 * as well as the one the starter builds ({@link ZkLocksInstrumentation}): observations into the
 * application's {@link ObservationRegistry} (with Micrometer Tracing, spans), and meters into its
 * {@link MeterRegistry} (Spring Boot makes both with Actuator). One set of meters either way, with
 * one vocabulary ({@link io.zklock.micrometer.DefaultLockObservationConvention}, or the
 * application's {@link LockObservationConvention} beans): where the observation registry has
 * Micrometer's meter handler (Spring Boot's), the lock meters are made of the observations, and
 * {@link ZkLockMetrics} adds only the session gauge, tagged {@code client} with the bean's name;
 * otherwise {@link ZkLockMetrics} makes the same meters itself. Lock names are tagged as {@code
 * zklock.metrics.lock-names} lists them, or else the first {@code zklock.metrics.max-lock-names}
 * distinct ones; by default none.
 *
 * <p>Off switches: {@code zklock.metrics.enabled=false} (or Spring Boot's {@code
 * management.metrics.enable.zklock=false}) removes the meters and keeps the observations' spans;
 * Spring Boot's {@code management.observations.enable.zklock=false} removes the observations, and
 * the meters then come from {@link ZkLockMetrics}. An application that defines a {@link
 * ZkLockMetrics} or {@link ZkLockObservations} bean instruments its clients itself.
 */
@AutoConfiguration(after = ZkLocksAutoConfiguration.class)
@ConditionalOnClass(
    value = ZkLockObservations.class,
    name = {
      "io.micrometer.core.instrument.MeterRegistry",
      "io.micrometer.observation.ObservationRegistry"
    })
public class ZkLocksMetricsAutoConfiguration {

  /** Adds the observations and meters to every ZkLocks bean as it is made. */
  @Bean
  @ConditionalOnMissingBean({ZkLockMetrics.class, ZkLockObservations.class})
  static ZkLocksInstrumentation zkLocksInstrumentation(
      ConfigurableListableBeanFactory beanFactory,
      ObjectProvider<ZkLockProperties> properties,
      ObjectProvider<ObservationRegistry> observationRegistry,
      ObjectProvider<MeterRegistry> meterRegistry,
      ObjectProvider<LockObservationConvention> conventions) {
    return new ZkLocksInstrumentation(
        beanFactory, properties, observationRegistry, meterRegistry, conventions);
  }

  /**
   * {@code zklock.metrics.enabled=false}: no zklock meter, in any registry Spring Boot configures
   * (those made of the observations included).
   */
  @Bean
  @ConditionalOnProperty(value = "zklock.metrics.enabled", havingValue = "false")
  MeterFilter zklockMetricsDisabled() {
    return MeterFilter.denyNameStartsWith("zklock.");
  }

  static LockNameTags lockNameTags(ZkLockProperties.Metrics m) {
    if (!m.getLockNames().isEmpty() && m.getMaxLockNames() > 0) {
      throw new IllegalArgumentException(
          "set zklock.metrics.lock-names or zklock.metrics.max-lock-names, not both");
    }
    if (!m.getLockNames().isEmpty()) {
      return LockNameTags.allow(m.getLockNames());
    }
    return m.getMaxLockNames() > 0
        ? LockNameTags.firstDistinct(m.getMaxLockNames())
        : LockNameTags.none();
  }
}
