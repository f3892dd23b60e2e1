package io.zklock.spring.boot;

import io.zklock.ZkLocks;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * The {@code zklock} Actuator endpoint ({@link ZkLocksEndpoint}) of the {@link ZkLocks} bean, when
 * Actuator is on the classpath and there is one ZkLocks bean (or a primary one). Whether it is
 * reachable is Actuator's exposure settings' call.
 */
@AutoConfiguration(after = ZkLocksAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
@ConditionalOnSingleCandidate(ZkLocks.class)
public class ZkLocksEndpointAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  ZkLocksEndpoint zkLocksEndpoint(ZkLocks locks) {
    return new ZkLocksEndpoint(locks);
  }
}
