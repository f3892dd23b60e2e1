package io.zklock;

import java.util.concurrent.CompletableFuture;

/**
 * One grant of a distributed lock (or one lease of a semaphore): proof, as far as the holder can
 * know, that it holds the lock.
 *
 * <p>Ownership belongs to the handle, not to a thread: any thread may release it. Releasing is
 * idempotent, and releasing a handle that was already lost does not throw.
 *
 * <h2>What a distributed lock cannot promise</h2>
 *
 * A ZooKeeper lock is a lease bound to a session. A holder that pauses (a long garbage-collection
 * pause, a stopped VM, a partitioned network) can still believe it holds the lock after the
 * ensemble has expired its session and granted the lock to someone else: {@link #isHeld()} stays
 * {@code true} until the holder's own process runs again and hears of the expiry. No lock library
 * can prevent this. What the holder can do is pass {@link #fencingToken()} to the resource it
 * protects, and have the resource reject any request whose token is lower than one it has already
 * seen; and react to {@link #lost()}. See {@code docs/guarantees.md}.
 */
public interface LockHandle extends AutoCloseable {

  /** The name of the lock this handle holds, as given to {@link ZkLocks}. */
  String lockName();

  /** The full znode path of this holder's lock node. */
  String path();

  /**
   * The fencing token of this grant: the ZooKeeper creation zxid of the lock node. It is 64 bits,
   * assigned by the ensemble, and strictly greater than the token of every earlier holder of the
   * same lock (indeed of every node created earlier anywhere in the ensemble). Pass it to the
   * protected resource with every write, and have the resource reject tokens older than the newest
   * it has seen.
   */
  long fencingToken();

  /**
   * Whether this handle still holds the lock, as far as this process knows: {@code false} once it
   * was released or lost. A {@code true} answer is not a promise: see the class documentation.
   */
  boolean isHeld();

  /**
   * A future that completes with a {@link LockLostException} when the lock is lost while held: the
   * session expired, the node was deleted by someone else, the connection was suspended under
   * {@link SuspensionPolicy#TREAT_AS_LOST}, the {@link ZkLocks} was closed, or the grant's lease
   * ran out ({@link DistributedLock#withLease}). It never completes if the handle is released
   * first. It completes on the library's executor; dependent actions should not block it.
   */
  CompletableFuture<LockLostException> lost();

  /**
   * Registers {@code action} to run when someone asks this holder to release the lock with {@link
   * ZkLocks#requestRelease(String)}, from any process. The request is a change of this holder's
   * lock node, heard through the watch zklock keeps on it: usually within a round trip, and at most
   * about 75 ms plus a round trip after the grant for a request made right after it. Each action
   * runs once, on the library's executor (it should not block it); an action registered after a
   * request was heard runs at once. Actions that throw are logged and ignored.
   *
   * <p>The request is advice: releasing is up to the holder ({@code action} may call {@link
   * #releaseAsync()}), and a holder that ignores it keeps the lock. Nothing runs if the lock is
   * released or lost first. For a multi-lock, a request to any part runs the actions.
   *
   * @param action what to do when a release is requested
   * @throws NullPointerException if {@code action} is null
   */
  void onReleaseRequested(Runnable action);

  /**
   * Whether someone asked this holder to release the lock ({@link ZkLocks#requestRelease}), as far
   * as this process has heard.
   */
  boolean isReleaseRequested();

  /**
   * Extends the lease of a grant made through {@link DistributedLock#withLease}: it now runs out
   * {@code lease} from now (not from its previous end). Call it before the lease runs out, like a
   * heartbeat, from any thread.
   *
   * @param lease how long from now the grant may still be held; at least 1 ms
   * @return {@code true} if extended; {@code false} if this handle no longer holds the lock
   *     (released, lost, or its lease already ran out — too late to extend)
   * @throws IllegalArgumentException if {@code lease} is not positive or too large
   * @throws IllegalStateException if this grant has no lease (it was not made through {@link
   *     DistributedLock#withLease})
   */
  boolean extend(java.time.Duration lease);

  /**
   * Starts a transaction of ZooKeeper writes that commit only while this grant holds: one {@code
   * multi} whose first operation checks this grant's lock node (see {@link GuardedTransaction} for
   * what that guarantees, and what not). Each call returns a new, empty transaction; nothing is
   * sent before {@link GuardedTransaction#commit()}.
   */
  GuardedTransaction transaction();

  /**
   * Releases the lock and returns once the server has acknowledged the deletion of the lock node
   * (or the node is known to be gone with its session). {@link #isHeld()} is {@code false} from the
   * start of the call.
   *
   * <ul>
   *   <li><b>Who:</b> any thread, not only the one that acquired.
   *   <li><b>Idempotent:</b> a later call (from any thread) waits for the same deletion, or returns
   *       at once if it is done; it never deletes anything a second time.
   *   <li><b>After a loss</b> ({@link #lost()} completed) it is harmless. After a session expiry, a
   *       deletion by someone else or a {@link ZkLocks#close()} it returns at once: the node is
   *       gone, or goes with its session. After a loss whose node zklock deletes itself (a
   *       suspension under {@link SuspensionPolicy#TREAT_AS_LOST}, a lease that ran out) it waits
   *       for that deletion, as below.
   *   <li><b>Without a connection</b> it waits for the connection to come back or for the session
   *       to end, whichever is first. The session ends at the latest at zklock's own session
   *       deadline (the negotiated timeout, less a margin, after the ensemble last answered; see
   *       {@link ZkLocks#negotiatedSessionTimeout()}): a release never waits much longer than the
   *       session timeout, even if the ensemble stays unreachable. A deletion that meets a
   *       connection loss is retried.
   *   <li><b>Interrupted</b> while waiting, the deletion goes on in the background (it is
   *       guaranteed), the interrupt status is kept, and this returns.
   *   <li>A write handle with a downgraded read hold returns at once and keeps the node for the
   *       read hold (see {@link ReadWriteLock#downgrade}).
   * </ul>
   *
   * @throws ZkLockException if the server refuses the deletion (for example an operator took away
   *     this client's DELETE permission on the lock directory); the handle is released all the
   *     same, and the node stays until this client's session ends. Never {@link LockLostException}.
   */
  void release();

  /**
   * Starts the release and returns at once, from any thread; idempotent. The deletion of the lock
   * node is guaranteed: a deletion that meets a connection loss is retried until it succeeds or the
   * session is over. The returned future completes when the node is gone (the moment {@link
   * #release()} returns), or exceptionally with the {@link ZkLockException} that {@link #release()}
   * would throw.
   */
  CompletableFuture<Void> releaseAsync();

  /** Same as {@link #release()}. */
  @Override
  void close();
}
