package io.zklock.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.zklock.ZkLocks;
import io.zklock.micrometer.LockNameTags;
import io.zklock.micrometer.MeteredZkLocks;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * zklock-micrometer, where the application has a {@link MeterRegistry} bean (Spring Boot's metrics
 * auto-configuration makes one with Actuator): the auto-configured ZkLocks is measured ({@link
 * MeteredZkLocks}) and a {@link MeterBinder} bean binds it to the application's registries (Spring
 * Boot binds every MeterBinder bean). Ordered after Spring Boot's own metrics auto-configurations,
 * of either Boot line, so that their registry is seen. Lock names are tagged as {@code
 * zklock.metrics.lock-names} lists them, or else the first {@code zklock.metrics.max-lock-names}
 * distinct ones; by default none. The binder is made only where the context has one ZkLocks bean,
 * or one primary among several.
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
@ConditionalOnClass({MeteredZkLocks.class, MeterBinder.class})
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnProperty(value = "zklock.metrics.enabled", matchIfMissing = true)
public class ZkLocksMetricsAutoConfiguration {

  /**
   * Wraps the auto-configured ZkLocks (a {@link ZkLocksDecorator}, until zklock-micrometer measures
   * through a seam of the builder).
   */
  @Bean
  @SuppressWarnings("deprecation")
  public ZkLocksDecorator zkLocksMetrics(ZkLockProperties properties) {
    LockNameTags tags = lockNameTags(properties.getMetrics());
    return locks -> MeteredZkLocks.builder(locks).lockNameTags(tags).build();
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

  @Bean
  @ConditionalOnSingleCandidate(ZkLocks.class)
  public MeterBinder zkLocksMeterBinder(ZkLocks locks) {
    return registry -> {
      if (locks instanceof MeteredZkLocks) {
        ((MeteredZkLocks) locks).bindTo(registry);
      }
    };
  }
}
