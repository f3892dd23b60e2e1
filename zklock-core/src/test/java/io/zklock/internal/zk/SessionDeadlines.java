package io.zklock.internal.zk;

import io.zklock.SessionState;
import io.zklock.ZkLocks;
import io.zklock.internal.Internals;
import io.zklock.internal.rules.SessionDeadline;
import java.util.concurrent.TimeUnit;

/**
 * Where the session of an instance stands against zklock's own deadline, for the simulation's
 * faults that are timed against it (a partition that heals just before the deadline).
 */
public final class SessionDeadlines {
  private SessionDeadlines() {}

  /**
   * The instant, on the instance's clock, at which its current session is declared lost if nothing
   * newer is heard ({@link SessionDeadline#dueNanos} of its last answered heartbeat), or {@code
   * Long.MIN_VALUE} when it is not connected.
   */
  public static long dueNanos(ZkLocks locks, int negotiatedMillis) {
    Session s = Internals.session(locks);
    if (s.state() != SessionState.CONNECTED) {
      return Long.MIN_VALUE;
    }
    return SessionDeadline.dueNanos(
        s.lastHeardNanos(), TimeUnit.MILLISECONDS.toNanos(negotiatedMillis));
  }
}
