package io.zklock.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.zklock.micrometer.LockNameTags;
import io.zklock.micrometer.ZkLockMetrics;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * zklock-micrometer, where the application has a {@link MeterRegistry} bean (Spring Boot's metrics
 * auto-configuration makes one with Actuator): a {@link ZkLockMetrics} bean, which Spring Boot
 * binds to the application's registries as it binds every {@link MeterBinder} bean, is added as a
 * lock event listener to the ZkLocks the starter builds (through a {@link
 * ZkLocksBuilderCustomizer}). Ordered after Spring Boot's own metrics auto-configurations, of
 * either Boot line, so that their registry is seen. Lock names are tagged as {@code
 * zklock.metrics.lock-names} lists them, or else the first {@code zklock.metrics.max-lock-names}
 * distinct ones; by default none. Where the application defines its own ZkLocks beans (no {@code
 * zklock.connect-string}), add a {@link ZkLockMetrics} to their builders yourself.
 */
@AutoConfiguration(
    after = ZkLocksAutoConfiguration.class,
    afterName = {
      // Spring Boot 4
      "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
      // Spring Boot 3
      "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
      "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration"
    })
@ConditionalOnClass({ZkLockMetrics.class, MeterBinder.class})
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnProperty(value = "zklock.metrics.enabled", matchIfMissing = true)
public class ZkLocksMetricsAutoConfiguration {

  /** The meters, bound by Spring Boot to its registries. */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnProperty("zklock.connect-string") // only where the starter builds the ZkLocks
  public ZkLockMetrics zkLockMetrics(ZkLockProperties properties) {
    return ZkLockMetrics.builder().lockNameTags(lockNameTags(properties.getMetrics())).build();
  }

  /** Adds the meters' listener to the ZkLocks the starter builds. */
  @Bean
  public ZkLocksBuilderCustomizer zkLockMetricsCustomizer(ObjectProvider<ZkLockMetrics> metrics) {
    return builder -> metrics.ifAvailable(builder::eventListener);
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
