package io.zklock;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A snapshot of one lock, returned by {@link ZkLocks#inspect(String)}: who holds it and who waits,
 * each in queue order, as decided by the same ordering rules the lock's clients follow.
 *
 * <p>It is read with several requests to ZooKeeper, not atomically: a release or a grant between
 * them may show in one node and not in another. A holder is a request the lock's rule grants at the
 * time of the read; its owner may hear of the grant a moment later.
 *
 * @param name the lock's name, relative to the namespace, as given to {@link ZkLocks}
 * @param path the lock's directory
 * @param kind which kind of lock uses the directory
 * @param permits a semaphore's permit count (as stored with the semaphore, or else as written by
 *     its leases); 0 for other kinds
 * @param holders the requests that hold the lock, in queue order: at most one for exclusive kinds
 *     (the leader, for an election), every reader before the first writer for a read-write lock, up
 *     to {@code permits} leases for a semaphore
 * @param waiters the requests that wait, in queue order (the followers of an election). A simple
 *     lock's waiters have no node and are not shown. A semaphore's waiters are the request admitted
 *     and waiting for a permit ({@link LockNode.State#ADMITTED}: its lease, or its admission node
 *     while it has no lease yet), then those still queued for admission ({@link
 *     LockNode.State#QUEUED}). Each request shows once, whichever library made it: a lease is not
 *     shown again as the admission node it came in by (zklock's leases name it; a Curator client's
 *     lease is matched to its session's admission node). A semaphore request for several permits
 *     shows one node per permit, all among the waiters until all of them are granted
 * @param state what a coordination recipe's entry shows instead of holders, as text fields: for
 *     {@link Kind#LATCH} {@code count}, {@code remaining} and {@code open} ({@code true}/{@code
 *     false}); for {@link Kind#BARRIER} {@code set} (always {@code true}: a barrier that is not set
 *     has no node, and no entry); for {@link Kind#DOUBLE_BARRIER} {@code members} (expected),
 *     {@code round}, {@code phase} ({@code entering}/{@code open}) and {@code entered} (the round's
 *     members present); for {@link Kind#CONDITION} {@code lock} (the lock's name), {@code
 *     condition} (the condition's name) and {@code waiting} (how many wait on it). For the lock
 *     kinds it is empty, unless the directory mixes nodes of recipes that order it differently (a
 *     Curator {@code LeaderSelector}'s or {@code InterProcessMutex}'s beside a {@code
 *     LeaderLatch}'s, a plain zklock lock's beside a Curator recipe's): then {@code mix} lists
 *     their kinds ({@link LockNode.Kind#label()}, sorted, joined with {@code ","}), and the holders
 *     shown are those zklock's rules decide, which the other recipe's clients do not follow
 *     (docs/migrating-from-curator.md)
 */
public record LockInfo(
    String name,
    String path,
    Kind kind,
    int permits,
    List<LockNode> holders,
    List<LockNode> waiters,
    Map<String, String> state) {

  /** The kinds of lock. */
  public enum Kind {
    /** {@link ZkLocks#mutex}. */
    MUTEX,
    /** {@link ZkLocks#readWriteLock}: its nodes say which side. */
    READ_WRITE,
    /** {@link ZkLocks#simpleLock}. */
    SIMPLE,
    /** {@link ZkLocks#semaphore}. */
    SEMAPHORE,
    /** {@link ZkLocks#leaderElection}: the holder is the leader. */
    ELECTION,
    /** {@link ZkLocks#countDownLatch}: no holders or waiters; see {@link #state()}. */
    LATCH,
    /** {@link ZkLocks#barrier}, while set: no holders or waiters; see {@link #state()}. */
    BARRIER,
    /** {@link ZkLocks#doubleBarrier}: no holders or waiters; see {@link #state()}. */
    DOUBLE_BARRIER,
    /**
     * The waiters of one {@link DistributedCondition} of a lock, under the name {@code
     * <lock>.cond-<condition>} (its directory's): no holders; see {@link #state()}. Only a
     * condition with waiters shows.
     */
    CONDITION
  }

  /** Checks that no component is null, and copies the lists. */
  public LockInfo {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(kind, "kind");
    holders = List.copyOf(holders);
    waiters = List.copyOf(waiters);
    state = Map.copyOf(state);
  }

  /** A lock's snapshot, without {@link #state()} (empty). */
  public LockInfo(
      String name,
      String path,
      Kind kind,
      int permits,
      List<LockNode> holders,
      List<LockNode> waiters) {
    this(name, path, kind, permits, holders, waiters, Map.of());
  }

  /** Whether anyone held the lock when it was read. */
  public boolean isHeld() {
    return !holders.isEmpty();
  }
}
