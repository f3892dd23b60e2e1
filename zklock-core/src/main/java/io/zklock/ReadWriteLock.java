package io.zklock;

/**
 * A distributed read-write lock: readers share the lock, a writer excludes everyone. Requests are
 * served in arrival order: a writer queued before a reader goes first, so writers do not starve. A
 * reader waits only for the last writer queued before it, a writer only for its immediate
 * predecessor, so a release wakes only the requests that can now run.
 *
 * <h2>Ownership, upgrade and downgrade</h2>
 *
 * As everywhere in zklock, a grant belongs to its {@link LockHandle}, not to a thread or a process.
 * So the two sides know nothing of each other's holders: a write request made while you hold a read
 * handle queues behind every earlier reader, <em>including your own</em>, and waits until you
 * release it. Upgrading a read hold to a write hold is therefore not supported: with {@link
 * DistributedLock#acquire()} it waits forever (use a timeout, or release the read handle first);
 * the thread-aware {@link #asReadWriteLock()} view refuses it with an exception instead.
 *
 * <p>Downgrading is supported, explicitly: {@link #downgrade(LockHandle)} turns a write grant into
 * a read grant with no moment in between when a writer could slip in.
 */
public interface ReadWriteLock {
  /** The lock's name, relative to the namespace. */
  String name();

  /**
   * The shared side: a {@link DistributedLock} with the contract documented there (interruption,
   * timeouts, the failure modes of {@code acquireAsync()}, release from any thread).
   */
  DistributedLock readLock();

  /** The exclusive side, a {@link DistributedLock} like {@link #readLock()}. */
  DistributedLock writeLock();

  /**
   * Grants a read hold at once to the holder of {@code writeHandle}, without queueing: the atomic
   * "write, then read without letting a writer in between" of a downgrade.
   *
   * <p>The write lock node stays in place as the read hold's node until <em>both</em> {@code
   * writeHandle} and the returned handle are released. Releasing {@code writeHandle} first (the
   * usual order) returns at once, makes {@code writeHandle.isHeld()} false, and keeps the node;
   * releasing the read handle then deletes it. While the node stays, every request queued after it
   * waits as it would for a writer: writers queued in the meantime, and also readers arriving after
   * the downgrade (they cannot tell a downgraded node from a writer's). The returned handle has the
   * write grant's path and fencing token; it is lost when the node is lost.
   *
   * @param writeHandle a handle of this lock's {@link #writeLock()} that is held now
   * @return a held read handle
   * @throws NullPointerException if {@code writeHandle} is null
   * @throws IllegalArgumentException if {@code writeHandle} is not a write handle of this lock
   * @throws IllegalMonitorStateException if {@code writeHandle} is released or lost
   */
  LockHandle downgrade(LockHandle writeHandle);

  /**
   * A JDK {@link java.util.concurrent.locks.ReadWriteLock} view made of {@code readLock().asLock()}
   * and {@code writeLock().asLock()}, which know about each other per thread, like {@link
   * java.util.concurrent.locks.ReentrantReadWriteLock}:
   *
   * <ul>
   *   <li>both sides are reentrant per thread; several threads of this process may hold the read
   *       side at once (each with its own read node);
   *   <li>a thread holding the write side may lock the read side: that is a {@link
   *       #downgrade(LockHandle) downgrade}, granted at once; it may then unlock the write side and
   *       keep reading;
   *   <li>a thread holding only the read side that tries to lock the write side gets an {@link
   *       IllegalMonitorStateException} ("upgrade not supported") instead of a silent deadlock.
   * </ul>
   *
   * Otherwise each side behaves as {@link DistributedLock#asLock()} documents: {@code unlock()} by
   * a thread that does not hold that side throws {@link IllegalMonitorStateException}; a loss is
   * told to the holding thread by its next re-entry or its last {@code unlock()} ({@link
   * LockLostException}); {@code lock()} is not interruptible; there are no conditions. Every call
   * returns the same view.
   */
  java.util.concurrent.locks.ReadWriteLock asReadWriteLock();
}
