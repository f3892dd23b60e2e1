package io.zklock.spring.boot;

import io.zklock.ZkLocks;
import io.zklock.spring.integration.ZkLockRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * zklock-spring-integration: a {@link ZkLockRegistry} as the application's Spring Integration
 * LockRegistry, unless it has one; lock names are {@code zklock.integration.prefix/key}, and {@code
 * zklock.integration.time-to-live} (unset by default) gives its holds a time to live, {@code
 * zklock.integration.cache-capacity} bounds its lock cache. Only where the context has one {@link
 * ZkLocks} bean, or one primary among several: with several, define the registry yourself.
 */
@AutoConfiguration(after = ZkLocksAutoConfiguration.class)
@ConditionalOnClass(ZkLockRegistry.class)
@ConditionalOnSingleCandidate(ZkLocks.class)
public class ZkLockRegistryAutoConfiguration {
  @Bean
  @ConditionalOnMissingBean(type = "org.springframework.integration.support.locks.LockRegistry")
  public ZkLockRegistry zkLockRegistry(ZkLocks locks, ZkLockProperties properties) {
    ZkLockRegistry registry = new ZkLockRegistry(locks, properties.getIntegration().getPrefix());
    registry.setTimeToLive(properties.getIntegration().getTimeToLive());
    registry.setCacheCapacity(properties.getIntegration().getCacheCapacity());
    return registry;
  }
}
