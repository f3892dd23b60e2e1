package io.zklock;

import io.zklock.internal.recipe.NodeLock;

/**
 * Not a test: an API class that names a recipe instead of going through the factory, on purpose,
 * for {@code io.zklock.internal.ArchitectureTest} to show that its one-entry-point rule fails on
 * it.
 */
final class CrossingEntry {
  NodeLock lock;
}
