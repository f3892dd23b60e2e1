package io.zklock.internal.recipe;

import io.zklock.internal.coord.CoordContext;
import io.zklock.internal.engine.RequestContext;
import io.zklock.internal.inspect.Inspector;
import io.zklock.internal.rules.Clock;
import io.zklock.internal.zk.Lifecycle;
import io.zklock.internal.zk.Session;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What the recipes of one {@code ZkLocks} need, handed in as one value: what their lock requests
 * need ({@link RequestContext}), the session (for the recipes that follow it or read through it),
 * the instance's {@link Lifecycle} (open or closed, ready to start requests), the namespace their
 * directories live in, and the {@link Inspector} (an election lists its participants with it). The
 * {@code ZkLocks} implementation makes one per instance.
 *
 * @param namespace the parent of every lock directory, {@code ""} for the root
 */
public record RecipeContext(
    RequestContext requests,
    Session session,
    Lifecycle lifecycle,
    String namespace,
    Inspector inspector) {

  /**
   * The coordination context of the same instance, for the recipes here that use coordination's
   * parts (a condition's waits, a semaphore's stored count).
   */
  public CoordContext coord() {
    return new CoordContext(
        requests.session(),
        requests.dirs(),
        requests.acl(),
        requests.ids(),
        requests.events(),
        requests.clock(),
        requests.executor(),
        requests.scheduler(),
        lifecycle,
        namespace);
  }

  /** The directory of the lock {@code name}. */
  public String dirOf(String name) {
    return namespace + "/" + name;
  }

  Clock clock() {
    return requests.clock();
  }

  /** The library's executor, on which user-visible futures complete. */
  Executor executor() {
    return requests.executor();
  }

  ScheduledExecutorService scheduler() {
    return requests.scheduler();
  }

  /**
   * @throws io.zklock.ZkLockException if the instance is closed
   */
  void checkOpen() {
    lifecycle.checkOpen();
  }
}
