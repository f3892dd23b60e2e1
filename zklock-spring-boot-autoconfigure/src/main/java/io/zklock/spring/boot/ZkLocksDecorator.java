package io.zklock.spring.boot;

import io.zklock.ZkLocks;

/**
 * Wraps the auto-configured {@link ZkLocks} before it becomes a bean (the metrics of
 * zklock-micrometer are one). Beans of this type are applied in their order, after every {@link
 * ZkLocksBuilderCustomizer}.
 *
 * @deprecated shape the client before it is built with a {@link ZkLocksBuilderCustomizer}: a
 *     wrapper sees only what passes through it (not the locks of a {@code ZkLocks} obtained
 *     otherwise), and each wrapper must delegate every method of {@link ZkLocks}, present and
 *     future.
 */
@Deprecated
@FunctionalInterface
public interface ZkLocksDecorator {
  /** Returns {@code locks} or a {@link ZkLocks} that delegates to it. */
  ZkLocks decorate(ZkLocks locks);
}
