package io.zklock;

/** Hears when this participant of a {@link LeaderElection} gains or loses leadership. */
public interface LeadershipListener {
  /**
   * This participant became the leader.
   *
   * @param epoch the fencing token of this term of leadership, greater than every earlier term's
   */
  void elected(long epoch);

  /**
   * This participant is no longer the leader (it resigned, closed, or its session expired).
   *
   * @param epoch the epoch of the term that ended
   */
  void revoked(long epoch);
}
