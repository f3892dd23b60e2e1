package io.zklock.spring.boot;

import io.micrometer.observation.ObservationRegistry;
import io.zklock.micrometer.ZkLockObservations;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * zklock-micrometer's observations, where the application has an {@link ObservationRegistry} bean
 * (Spring Boot makes one with Actuator; with Micrometer Tracing, each lock wait and hold is then a
 * span): a {@link ZkLockObservations} is added as a lock event listener to the ZkLocks the starter
 * builds. Lock names are guarded as for the metrics ({@code zklock.metrics.lock-names}, {@code
 * zklock.metrics.max-lock-names}). Spring Boot's {@code
 * management.observations.enable.zklock=false} turns the observations off. Ordered after Spring
 * Boot's own observation auto-configuration, of either Boot line.
 */
@AutoConfiguration(
    after = ZkLocksAutoConfiguration.class,
    afterName = {
      // Spring Boot 4
      "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
      // Spring Boot 3
      "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration"
    })
@ConditionalOnClass({ZkLockObservations.class, ObservationRegistry.class})
@ConditionalOnBean(ObservationRegistry.class)
public class ZkLocksObservationAutoConfiguration {

  /** The observations of the lock requests of the ZkLocks the starter builds. */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnProperty("zklock.connect-string") // only where the starter builds the ZkLocks
  public ZkLockObservations zkLockObservations(
      ObservationRegistry registry, ZkLockProperties properties) {
    return ZkLockObservations.of(
        registry, ZkLocksMetricsAutoConfiguration.lockNameTags(properties.getMetrics()));
  }

  /** Adds the observations' listener to the ZkLocks the starter builds. */
  @Bean
  public ZkLocksBuilderCustomizer zkLockObservationsCustomizer(
      ObjectProvider<ZkLockObservations> observations) {
    return builder -> observations.ifAvailable(builder::eventListener);
  }
}
