package io.zklock.spring.boot;

import io.zklock.ZkLocks;
import io.zklock.spring.integration.ZkLockRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * zklock-spring-integration: a {@link ZkLockRegistry} as the application's Spring Integration
 * LockRegistry, unless it has one; lock names are {@code zklock.integration.prefix/key}, and {@code
 * zklock.integration.time-to-live} (unset by default) gives its holds a time to live.
 */
@AutoConfiguration(after = ZkLocksAutoConfiguration.class)
@ConditionalOnClass(ZkLockRegistry.class)
@ConditionalOnBean(ZkLocks.class)
public class ZkLockRegistryAutoConfiguration {
  @Bean
  @ConditionalOnMissingBean(type = "org.springframework.integration.support.locks.LockRegistry")
  public ZkLockRegistry zkLockRegistry(ZkLocks locks, ZkLockProperties properties) {
    ZkLockRegistry registry = new ZkLockRegistry(locks, properties.getIntegration().getPrefix());
    registry.setTimeToLive(properties.getIntegration().getTimeToLive());
    return registry;
  }
}
