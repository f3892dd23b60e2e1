package io.zklock.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.MeterObservationHandler;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.zklock.ZkLocks;
import io.zklock.micrometer.DefaultLockObservationConvention;
import io.zklock.micrometer.LockNameTags;
import io.zklock.micrometer.LockObservationContext;
import io.zklock.micrometer.LockObservationConvention;
import io.zklock.micrometer.ZkLockMetrics;
import io.zklock.micrometer.ZkLockObservations;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * Adds zklock-micrometer's observations and meters to every {@link ZkLocks} bean as it is made (a
 * {@link ZkLocks#addEventListener lock event listener} each), whoever defined the bean: see {@link
 * ZkLocksMetricsAutoConfiguration}. The registries and properties are looked up at the first
 * ZkLocks bean, not when this post-processor is made.
 */
public class ZkLocksInstrumentation implements BeanPostProcessor {
  private final ConfigurableListableBeanFactory beanFactory;
  private final ObjectProvider<ZkLockProperties> properties;
  private final ObjectProvider<ObservationRegistry> observationRegistry;
  private final ObjectProvider<MeterRegistry> meterRegistry;
  private final ObjectProvider<LockObservationConvention> conventions;
  private LockNameTags names; // one guard for every bean: a limit counts names across them

  ZkLocksInstrumentation(
      ConfigurableListableBeanFactory beanFactory,
      ObjectProvider<ZkLockProperties> properties,
      ObjectProvider<ObservationRegistry> observationRegistry,
      ObjectProvider<MeterRegistry> meterRegistry,
      ObjectProvider<LockObservationConvention> conventions) {
    this.beanFactory = beanFactory;
    this.properties = properties;
    this.observationRegistry = observationRegistry;
    this.meterRegistry = meterRegistry;
    this.conventions = conventions;
  }

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    if (bean instanceof ZkLocks locks) {
      instrument(locks, beanName);
    }
    return bean;
  }

  private void instrument(ZkLocks locks, String beanName) {
    ZkLockProperties p = properties.getIfAvailable(ZkLockProperties::new);
    List<LockObservationConvention> own = conventions.orderedStream().toList();
    LockNameTags guard = guard(p);
    ObservationRegistry observations = observationRegistry.getIfUnique();
    boolean observed = observations != null && !observations.isNoop();
    if (observed) {
      ZkLockObservations.Builder o = ZkLockObservations.builder(observations).lockNameTags(guard);
      own.forEach(o::convention);
      locks.addEventListener(o.build());
    }
    MeterRegistry meters = meterRegistry.getIfUnique();
    if (meters != null && p.getMetrics().isEnabled()) {
      ZkLockMetrics.Builder m =
          ZkLockMetrics.builder()
              .lockNameTags(guard)
              .client(beanName)
              .lockMeters(!(observed && metersFromObservations(observations, own)));
      own.forEach(m::convention);
      ZkLockMetrics metrics = m.build();
      metrics.bindTo(meters);
      locks.addEventListener(metrics);
    }
  }

  private synchronized LockNameTags guard(ZkLockProperties p) {
    if (names == null) {
      names = ZkLocksMetricsAutoConfiguration.lockNameTags(p.getMetrics());
    }
    return names;
  }

  /**
   * Whether the observation registry makes meters of zklock's observations: it has a meter handler
   * (Spring Boot registers one where there is a meter registry) and does not turn them off ({@code
   * management.observations.enable.zklock=false}).
   */
  private boolean metersFromObservations(
      ObservationRegistry observations, List<LockObservationConvention> own) {
    if (beanFactory.getBeanNamesForType(MeterObservationHandler.class, true, false).length == 0) {
      return false;
    }
    LockObservationContext wait =
        new LockObservationContext(
            LockObservationContext.Phase.WAIT, "", LockNameTags.OTHER, "mutex");
    LockObservationConvention convention =
        own.stream()
            .filter(c -> c.supportsContext(wait))
            .findFirst()
            .orElse(DefaultLockObservationConvention.WAIT);
    return !Observation.createNotStarted(convention, () -> wait, observations).isNoop();
  }
}
