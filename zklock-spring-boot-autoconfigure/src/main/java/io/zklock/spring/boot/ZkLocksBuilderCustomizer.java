package io.zklock.spring.boot;

import io.zklock.ZkLocks;

/**
 * Shapes the {@link ZkLocks.Builder} of the auto-configured {@link ZkLocks} after the {@code
 * zklock.*} properties and before it is built: for settings that have no property (an ACL, the
 * owner data, a TLS configuration of your own) or that you compute. Beans of this type are applied
 * in their order ({@link org.springframework.core.Ordered}, {@link
 * org.springframework.core.annotation.Order}); a later one sees, and may override, what the earlier
 * ones set.
 *
 * <pre>{@code
 * @Bean ZkLocksBuilderCustomizer ownerData() {
 *   return builder -> builder.ownerData("job=" + jobId);
 * }
 * }</pre>
 */
@FunctionalInterface
public interface ZkLocksBuilderCustomizer {
  /** Customizes the builder; the properties have been applied already. */
  void customize(ZkLocks.Builder builder);
}
