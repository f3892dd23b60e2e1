package io.zklock.spring.boot;

import io.zklock.ZkLocks;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * The {@code zklock} Actuator endpoint ({@link ZkLocksEndpoint}) of the {@link ZkLocks} bean, when
 * Actuator is on the classpath, there is one ZkLocks bean (or a primary one), and the endpoint is
 * available: exposed ({@code management.endpoints.web.exposure.include=zklock}, or over JMX) and
 * not turned off ({@code management.endpoint.zklock.access=none} on Spring Boot 4 and 3.5). As
 * Spring Boot's own endpoints: no bean where nothing could reach it.
 */
@AutoConfiguration(after = ZkLocksAutoConfiguration.class)
@ConditionalOnClass(
    name = {
      "org.springframework.boot.actuate.endpoint.annotation.Endpoint",
      "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint"
    })
@ConditionalOnSingleCandidate(ZkLocks.class)
public class ZkLocksEndpointAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnAvailableEndpoint(ZkLocksEndpoint.class)
  ZkLocksEndpoint zkLocksEndpoint(ZkLocks locks) {
    return new ZkLocksEndpoint(locks);
  }
}
