package io.zklock.internal.recipe;

import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.ThreadHolds;

/**
 * The per-thread holds of a thread-reentrant lock view, for every view ({@link ReentrantView}),
 * counted by the public {@link ThreadHolds} (so that adapters outside the core count the same way):
 * which threads hold, how many times each locked, and the {@link LockHandle} each one's first
 * acquisition obtained.
 *
 * <ul>
 *   <li>{@link #enter}: a thread that holds counts one more hold and keeps its handle (and so its
 *       fencing token); a thread that does not runs the acquisition once and holds what it got.
 *   <li>{@link #exit}: one hold less; the last one releases the handle. A thread that does not hold
 *       is refused with an {@link IllegalMonitorStateException}.
 *   <li>A thread whose handle was lost meanwhile is told so: its re-entry and its last exit throw
 *       the {@link LockLostException}, and the re-entry clears its hold (a reentrant acquisition
 *       never succeeds on a lock that is gone).
 * </ul>
 *
 * Several threads may hold at once (the read side of a read-write lock); an exclusive lock simply
 * never grants a second thread while one holds. Each thread's entry is written by that thread only;
 * other threads read the map to learn that they do not hold.
 */
final class ReentrantHolds {
  /** One thread's first acquisition: a handle, or null when it was not granted (a try). */
  @FunctionalInterface
  interface Acquisition<X extends Exception> {
    LockHandle acquire() throws X;
  }

  private final ThreadHolds holds;

  /**
   * @param lock what the holds are of, named in the messages of refusals
   */
  ReentrantHolds(Object lock) {
    this.holds = new ThreadHolds(lock);
  }

  /**
   * Counts one more hold if the current thread holds, else runs {@code acquisition} and holds what
   * it returns.
   *
   * @return {@code true} if the current thread now holds; {@code false} if it did not hold and
   *     {@code acquisition} returned null
   * @throws LockLostException (or an {@link IllegalMonitorStateException} if the loss's reason is
   *     unknown) if the current thread holds a handle that was lost; its hold is cleared
   * @throws X what {@code acquisition} throws; nothing is held then
   */
  <X extends Exception> boolean enter(Acquisition<X> acquisition) throws X {
    return holds.enter(acquisition::acquire);
  }

  /**
   * Releases one hold of the current thread; the last one releases its handle and returns once the
   * release did ({@link LockHandle#release()}).
   *
   * @throws IllegalMonitorStateException if the current thread does not hold
   * @throws LockLostException if the last hold's handle was lost while held (the hold is cleared
   *     and the node is gone: the critical section was not protected to the end)
   */
  void exit() {
    holds.exit();
  }

  /** The handle the current thread holds, or null. */
  LockHandle handle() {
    return holds.handle();
  }

  /** How many holds the current thread has: 0 if it does not hold. */
  int holdCount() {
    return holds.holdCount();
  }

  /** Whether the current thread holds. */
  boolean isHeldByCurrentThread() {
    return holds.isHeldByCurrentThread();
  }

  /** Who holds, in words: "unlocked", "held by main", "held by 3 threads". */
  String describeHolders() {
    return holds.toString();
  }
}
