package io.zklock.internal.recipe;

import org.apache.zookeeper.ZooKeeper;

/**
 * Not a test: a recipe class that calls ZooKeeper's handle instead of the seam, on purpose, for
 * {@link io.zklock.internal.ArchitectureTest} to show that its seam rule fails on it.
 */
final class CrossingSeam {
  boolean exists(ZooKeeper zk) throws Exception {
    return zk.exists("/", false) != null;
  }
}
