package io.zklock.internal.coord;

import io.zklock.internal.engine.Events;
import io.zklock.internal.engine.Observation;
import io.zklock.internal.rules.Clock;
import io.zklock.internal.rules.RandomIds;
import io.zklock.internal.zk.Dirs;
import io.zklock.internal.zk.Lifecycle;
import io.zklock.internal.zk.SessionPort;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.zookeeper.data.ACL;

/**
 * What the coordination recipes of one {@code ZkLocks} need, handed in as one value, apart from the
 * lock engine's: the session (its live connection, word of it, and its id), the directories and the
 * ACL of the nodes they make, the random ids of their node names, the lock event listeners, the
 * clock, the library's executor and scheduler, the instance's {@link Lifecycle} (null where a test
 * drives a recipe without one) and the namespace.
 *
 * @param namespace the parent of every directory, {@code ""} for the root
 */
public record CoordContext(
    SessionPort session,
    Dirs dirs,
    List<ACL> acl,
    RandomIds ids,
    Events events,
    Clock clock,
    Executor executor,
    ScheduledExecutorService scheduler,
    Lifecycle lifecycle,
    String namespace) {

  /** The directory of the recipe {@code name}. */
  public String dirOf(String name) {
    return namespace + "/" + name;
  }

  /**
   * @throws io.zklock.ZkLockException if the instance is closed
   */
  void checkOpen() {
    lifecycle.checkOpen();
  }

  /** Runs {@code wait}, told to the lock event listeners as a coordination wait. */
  boolean observed(String name, String kind, Observation.PassingWait wait)
      throws InterruptedException {
    return Observation.observed(events, clock, session::sessionId, name, kind, wait);
  }
}
