package io.zklock;

import java.util.Objects;

/**
 * Who leads a {@link LeaderElection}, as an observer hears it ({@link LeaderObserver}).
 *
 * @param participantId the leader's id, as given to {@link ZkLocks#leaderElection}
 * @param epoch the leader's term: its node's creation zxid, the {@link LeaderElection#epoch()} the
 *     leader itself sees and the fencing token it should present; greater than every earlier term's
 * @param node the leader's node, as {@link ZkLocks#inspect} shows it (client name, host, pid,
 *     session)
 */
public record Leader(String participantId, long epoch, LockNode node) {
  /** Checks that no component is null. */
  public Leader {
    Objects.requireNonNull(participantId, "participantId");
    Objects.requireNonNull(node, "node");
  }
}
