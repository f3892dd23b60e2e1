package io.zklock.testkit;

/** Placeholder. */
public final class ZooKeeperEnsemble {
  /** Placeholder. */
  public static final class Builder {
    Builder(int n) {}
  }
}
