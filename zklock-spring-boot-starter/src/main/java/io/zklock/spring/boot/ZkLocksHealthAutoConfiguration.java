package io.zklock.spring.boot;

import io.zklock.ZkLocks;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The ZkLocks session's health, as the "zklock" indicator (management.health.zklock.enabled). */
@AutoConfiguration(after = ZkLocksAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
public class ZkLocksHealthAutoConfiguration {

  // nested, so that spring-boot-health's condition is read only when spring-boot-health is there
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnBean(ZkLocks.class)
  @ConditionalOnEnabledHealthIndicator("zklock")
  static class Indicator {
    @Bean
    @ConditionalOnMissingBean(name = "zklockHealthIndicator")
    ZkLocksHealthIndicator zklockHealthIndicator(ZkLocks locks) {
      return new ZkLocksHealthIndicator(locks);
    }
  }
}
