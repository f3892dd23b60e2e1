package io.zklock.internal.rules;

import org.apache.zookeeper.Watcher;

/**
 * Not a test: a rule class that holds a ZooKeeper watcher, on purpose, for {@link
 * io.zklock.internal.ArchitectureTest} to show that its rule of pure rules fails on it.
 */
final class CrossingPure {
  Watcher watcher;
}
