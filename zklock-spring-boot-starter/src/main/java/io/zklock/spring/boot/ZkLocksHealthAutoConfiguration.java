package io.zklock.spring.boot;

import io.zklock.ZkLocks;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;

/** The ZkLocks session's health, as the "zklock" indicator (management.health.zklock.enabled). */
@AutoConfiguration(after = ZkLocksAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
@ConditionalOnBean(ZkLocks.class)
@ConditionalOnEnabledHealthIndicator("zklock")
public class ZkLocksHealthAutoConfiguration {
  @Bean
  @ConditionalOnMissingBean(name = "zklockHealthIndicator")
  public ZkLocksHealthIndicator zklockHealthIndicator(ZkLocks locks) {
    return new ZkLocksHealthIndicator(locks);
  }
}
