package io.zklock.spring.boot;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.zklock.ZkLocks;
import io.zklock.micrometer.LockNameTags;
import io.zklock.micrometer.MeteredZkLocks;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * zklock-micrometer: the auto-configured ZkLocks is measured ({@link MeteredZkLocks}) and a {@link
 * MeterBinder} bean binds it to the application's registries (Spring Boot binds every MeterBinder
 * bean). Lock names are tagged as {@code zklock.metrics.lock-names} lists them, or else the first
 * {@code zklock.metrics.max-lock-names} distinct ones; by default none.
 */
@AutoConfiguration(after = ZkLocksAutoConfiguration.class)
@ConditionalOnClass({MeteredZkLocks.class, MeterBinder.class})
@ConditionalOnProperty(value = "zklock.metrics.enabled", matchIfMissing = true)
public class ZkLocksMetricsAutoConfiguration {

  @Bean
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
  @ConditionalOnBean(ZkLocks.class)
  public MeterBinder zkLocksMeterBinder(ZkLocks locks) {
    return registry -> {
      if (locks instanceof MeteredZkLocks) {
        ((MeteredZkLocks) locks).bindTo(registry);
      }
    };
  }
}
