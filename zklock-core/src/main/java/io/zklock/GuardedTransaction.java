package io.zklock;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * ZooKeeper writes that commit only while a grant still holds: a small transaction made from a
 * {@link LockHandle#transaction()} (or {@link LeaderElection#transaction()}), committed as one
 * ZooKeeper {@code multi} whose first operation checks that the grant's own lock node still exists.
 * ZooKeeper applies a {@code multi} atomically, in its one order of writes: either the check and
 * every write commit together, while the lock node exists, or nothing commits. One request, one
 * round trip.
 *
 * <pre>{@code
 * try (LockHandle held = locks.mutex("orders/42").acquire()) {
 *   List<GuardedTransaction.Result> done =
 *       held.transaction()
 *           .setData("/app/orders/42/state", "shipped".getBytes(UTF_8))
 *           .create("/app/orders/42/events/e-", event, GuardedTransaction.Mode.PERSISTENT_SEQUENTIAL)
 *           .commit();
 * }
 * }</pre>
 *
 * <h2>What it guarantees</h2>
 *
 * <ul>
 *   <li>A committed transaction was applied by the ensemble while the grant's lock node existed:
 *       between the grant and the node's deletion, in ZooKeeper's order of writes. Since every
 *       other holder's grant comes after that deletion in the same order, no write of this
 *       transaction is ordered inside another holder's hold — also when this process was paused
 *       past its session, and also when it does not know yet that it lost the lock.
 *   <li>When the grant is gone (the session expired, the node was deleted by someone else, the
 *       lease ran out, the connection was suspended under {@link SuspensionPolicy#TREAT_AS_LOST},
 *       or the {@link ZkLocks} was closed) nothing is committed and the commit fails with a {@link
 *       LockLostException} carrying the reason. A grant already known to be lost or released is
 *       refused without a request to the server.
 * </ul>
 *
 * <h2>What it does not guarantee</h2>
 *
 * <ul>
 *   <li>It guards ZooKeeper writes only. Any other resource must check the {@link
 *       LockHandle#fencingToken()} itself (see docs/guarantees.md, "Fencing your resource").
 *   <li>A commit that meets a connection loss may or may not have been applied: it fails with a
 *       {@link ZkLockException} that says so, and is not sent again (its writes need not be
 *       idempotent). If it was applied, it was applied under the grant.
 *   <li>The writes of a {@link ZkLocks#simpleLock simple lock}, whose node name every holder
 *       reuses, are checked by name: if an operator deletes the node and another client creates it
 *       again before this holder hears of the deletion (at most about 75 ms plus a round trip after
 *       the grant, see {@link LockHandle#onReleaseRequested}), a write sent in that window commits
 *       under the other client's node. The queued locks (mutex, read-write, semaphore, election,
 *       cohort) name each node once and have no such window.
 *   <li>A cohort grant ({@link LockOptions}) shares one node among the threads of one {@link
 *       ZkLocks}; its transactions check that node and, locally, that this handle still holds when
 *       the commit is sent. Releasing a handle while its own commit is in flight lets the next
 *       local holder's writes be sent before it.
 * </ul>
 *
 * <p>A transaction is not thread-safe while it is built; {@link #commit()} and {@link
 * #commitAsync()} may be called once. Paths are absolute ZooKeeper paths (below the connect
 * string's chroot, not below the lock namespace); nodes are created with the {@link ZkLocks}'s ACL.
 */
public interface GuardedTransaction {

  /** How {@link #create(String, byte[], Mode)} creates a node. */
  enum Mode {
    /** A node that stays until deleted. */
    PERSISTENT,
    /** A node that stays until deleted, its name suffixed with a sequence number. */
    PERSISTENT_SEQUENTIAL,
    /** A node deleted with this client's session. */
    EPHEMERAL,
    /** A node deleted with this client's session, its name suffixed with a sequence number. */
    EPHEMERAL_SEQUENTIAL
  }

  /** The kind of one operation of the transaction. */
  enum Kind {
    CREATE,
    SET_DATA,
    DELETE,
    CHECK
  }

  /**
   * The state of a node after a write, as the server returned it.
   *
   * @param czxid the zxid of the node's creation
   * @param mzxid the zxid of its last data change
   * @param version its data version
   */
  record NodeStat(long czxid, long mzxid, int version) {}

  /**
   * What one operation of a committed transaction did, in the order of the operations added.
   *
   * @param kind the operation
   * @param path the node's path: for a create, the path the server made (with its sequence number
   *     for a sequential mode)
   * @param stat the node's state after a {@link #setData setData}; {@code null} for the other
   *     operations
   */
  record Result(Kind kind, String path, NodeStat stat) {}

  /** Creates a {@link Mode#PERSISTENT} node. */
  GuardedTransaction create(String path, byte[] data);

  /**
   * Creates a node in {@code mode}. Its parent must exist (or be created by an earlier operation of
   * this transaction).
   *
   * @throws IllegalArgumentException if {@code path} is not a valid absolute ZooKeeper path
   */
  GuardedTransaction create(String path, byte[] data, Mode mode);

  /** Sets the data of {@code path}, whatever its version. */
  GuardedTransaction setData(String path, byte[] data);

  /** Sets the data of {@code path} if its data version is {@code version} ({@code -1}: any). */
  GuardedTransaction setData(String path, byte[] data, int version);

  /** Deletes {@code path}, whatever its version (it must have no children). */
  GuardedTransaction delete(String path);

  /** Deletes {@code path} if its data version is {@code version} ({@code -1}: any). */
  GuardedTransaction delete(String path, int version);

  /** Commits only if {@code path} exists with data version {@code version} ({@code -1}: any). */
  GuardedTransaction check(String path, int version);

  /**
   * Commits the operations, all or none, while the grant holds, and waits for the server's answer.
   * A transaction with no operation checks the grant on the server and commits nothing.
   *
   * <ul>
   *   <li>Without a connection it waits for the connection to come back, or for the session to end
   *       (at the latest at zklock's session deadline), whichever is first.
   *   <li>Interrupted while waiting, it keeps the interrupt status and throws a {@link
   *       ZkLockException}; the transaction may still commit.
   * </ul>
   *
   * @return the results, one per operation, in order
   * @throws LockLostException if the grant is gone; nothing was committed
   * @throws IllegalMonitorStateException if the handle was released by its holder
   * @throws ZkLockException if an operation failed (its message names the operation, its index,
   *     path and ZooKeeper's code; nothing was committed), or the connection was lost while the
   *     commit was in flight (it may or may not have been applied)
   * @throws IllegalStateException if this transaction was committed already
   */
  List<Result> commit();

  /**
   * Commits as {@link #commit()} does, without blocking. The future completes on the library's
   * executor with the results, or exceptionally with the exception {@link #commit()} would throw.
   * Cancelling the future does not withdraw a commit already sent.
   */
  CompletableFuture<List<Result>> commitAsync();
}
