package io.zklock.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and key values of zklock's observations of one phase (a wait, or a hold), and so of the
 * meters and spans made from them: a convention of your own renames or reshapes them. Give it to
 * {@link ZkLockObservations.Builder#convention} and {@link ZkLockMetrics.Builder#convention}, or,
 * with Spring Boot, define it as a bean; its {@link #supportsContext} says which phase it names.
 * Extend {@link DefaultLockObservationConvention} to change only part of it, for example:
 *
 * <pre>{@code
 * @Bean LockObservationConvention teamTaggedWaits() {
 *   return new DefaultLockObservationConvention(LockObservationContext.Phase.WAIT) {
 *     @Override
 *     public KeyValues getLowCardinalityKeyValues(LockObservationContext c) {
 *       return super.getLowCardinalityKeyValues(c).and("team", "payments");
 *     }
 *   };
 * }
 * }</pre>
 *
 * A low-cardinality key value becomes a tag of every meter: keep its values few (use {@link
 * LockObservationContext#lockTag()}, the guarded name, not {@link
 * LockObservationContext#lockName()}), and give a meter name the same keys in every case.
 */
public interface LockObservationConvention extends ObservationConvention<LockObservationContext> {
  @Override
  default boolean supportsContext(Observation.Context context) {
    return context instanceof LockObservationContext;
  }
}
