package io.zklock.spring.boot;

import io.zklock.ZkLocks;

/**
 * Wraps the auto-configured {@link ZkLocks} before it becomes a bean (the metrics of
 * zklock-micrometer are one). Beans of this type are applied in their order.
 */
@FunctionalInterface
public interface ZkLocksDecorator {
  /** Returns {@code locks} or a {@link ZkLocks} that delegates to it. */
  ZkLocks decorate(ZkLocks locks);
}
