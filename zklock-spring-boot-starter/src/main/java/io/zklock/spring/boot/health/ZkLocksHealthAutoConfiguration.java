package io.zklock.spring.boot.health;

import io.zklock.ZkLocks;
import io.zklock.spring.boot.ZkLocksAutoConfiguration;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.CompositeHealthContributorConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The health of every {@link ZkLocks} bean's session, as the "zklock" contributor ({@code
 * management.health.zklock.enabled}), in Spring Boot's way for a component that can have several
 * beans: with one ZkLocks bean it is that bean's {@link ZkLocksHealthIndicator}, with several a
 * composite of one indicator per bean, named by the bean names.
 */
@AutoConfiguration(after = ZkLocksAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
public class ZkLocksHealthAutoConfiguration {

  // nested, so that spring-boot-health's condition is read only when spring-boot-health is there
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnBean(ZkLocks.class)
  @ConditionalOnEnabledHealthIndicator("zklock")
  static class Contributor
      extends CompositeHealthContributorConfiguration<ZkLocksHealthIndicator, ZkLocks> {

    Contributor() {
      super(ZkLocksHealthIndicator::new);
    }

    /** The "zklock" contributor, unless the application defines its own under either name. */
    @Bean
    @ConditionalOnMissingBean(name = {"zklockHealthIndicator", "zklockHealthContributor"})
    HealthContributor zklockHealthContributor(ConfigurableListableBeanFactory beanFactory) {
      return createContributor(beanFactory, ZkLocks.class);
    }
  }
}
