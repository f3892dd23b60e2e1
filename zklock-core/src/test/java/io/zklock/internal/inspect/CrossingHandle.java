package io.zklock.internal.inspect;

import org.apache.zookeeper.ZooKeeper;

/**
 * Not a test: an inspection class that only keeps ZooKeeper's handle (no call on it), on purpose,
 * for {@link io.zklock.internal.ArchitectureTest} to show that its seam rule fails on a class that
 * merely names the handle outside the session layer.
 */
final class CrossingHandle {
  ZooKeeper zk;
}
