package io.zklock.internal;

import io.zklock.ZkLocks;
import io.zklock.internal.recipe.RecipeContext;
import io.zklock.internal.zk.Session;

/** The parts of an instance that tests in the internal packages build around or look through. */
public final class Internals {
  private Internals() {}

  /** What the recipes of {@code locks} share (recipe tests that build a recipe around fakes). */
  public static RecipeContext recipes(ZkLocks locks) {
    return ((ZkLocksImpl) locks).recipes();
  }

  /** The session of {@code locks} (tests that look at the server through the same connection). */
  public static Session session(ZkLocks locks) {
    return ((ZkLocksImpl) locks).session();
  }
}
