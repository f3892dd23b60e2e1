package io.zklock;

import java.util.Optional;

/**
 * Hears who leads a {@link LeaderElection}, whether or not its own participant takes part; see
 * {@link LeaderElection#addObserver}.
 */
@FunctionalInterface
public interface LeaderObserver {
  /**
   * The leader changed: another participant (or the same one, on a new node, with a greater epoch)
   * leads now, or nobody takes part any more. Also called once, first, with the leader at the time
   * the observer starts observing.
   *
   * @param leader the leader now, or empty if no participant is queued
   */
  void leaderChanged(Optional<Leader> leader);
}
