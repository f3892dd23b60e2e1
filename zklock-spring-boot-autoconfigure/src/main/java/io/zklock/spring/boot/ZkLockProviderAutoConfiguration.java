package io.zklock.spring.boot;

import io.zklock.ZkLocks;
import io.zklock.shedlock.ZkLockProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * zklock-shedlock: a {@link ZkLockProvider} as the application's ShedLock LockProvider, unless it
 * has one; lock names are {@code zklock.shedlock.prefix/name}. Only where the context has one
 * {@link ZkLocks} bean, or one primary among several: with several, define the provider yourself.
 */
@AutoConfiguration(after = ZkLocksAutoConfiguration.class)
@ConditionalOnClass(
    value = ZkLockProvider.class,
    name = "net.javacrumbs.shedlock.core.LockProvider") // zklock-shedlock brings no ShedLock
@ConditionalOnSingleCandidate(ZkLocks.class)
public class ZkLockProviderAutoConfiguration {
  @Bean
  @ConditionalOnMissingBean(type = "net.javacrumbs.shedlock.core.LockProvider")
  public ZkLockProvider zkLockProvider(ZkLocks locks, ZkLockProperties properties) {
    return new ZkLockProvider(locks, properties.getShedlock().getPrefix());
  }
}
