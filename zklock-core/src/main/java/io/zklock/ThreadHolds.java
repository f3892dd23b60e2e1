package io.zklock;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The per-thread reentrant holds of a lock, counted exactly as {@link DistributedLock#asLock()}
 * counts them: for code that builds its own thread-owned {@link java.util.concurrent.locks.Lock} on
 * zklock's handles (a framework's lock registry, say) and should not count holds a second way.
 *
 * <ul>
 *   <li>{@link #enter}: a thread that holds counts one more hold and keeps its handle (and so its
 *       fencing token); a thread that does not runs the given acquisition once and holds the handle
 *       it returns, or nothing if it returns {@code null} (a try that was not granted).
 *   <li>{@link #exit}: one hold less; the last one releases the handle ({@link
 *       LockHandle#release()}).
 *   <li>A loss is never hidden: if the handle of the current thread's hold was lost (session
 *       expired, node deleted, lease run out), its next {@link #enter} and its last {@link #exit}
 *       throw the {@link LockLostException} that {@link LockHandle#lost()} completed with (or a
 *       plain {@link IllegalMonitorStateException} if the reason cannot be had within 10 s), and
 *       the hold is cleared.
 * </ul>
 *
 * Several threads may hold at once (a shared lock); an exclusive lock simply never grants a second
 * thread while one holds. Each thread's hold is written by that thread only. Thread-safe.
 */
public final class ThreadHolds {
  /**
   * One thread's first acquisition.
   *
   * @param <X> what it may throw, for example {@link InterruptedException}
   */
  @FunctionalInterface
  public interface Acquisition<X extends Exception> {
    /** Returns the handle of the grant, or {@code null} if the lock was not granted. */
    LockHandle acquire() throws X;
  }

  /** Holds of one thread: its handle and how many times it locked. */
  private static final class Hold {
    final LockHandle handle;
    int count = 1;

    Hold(LockHandle handle) {
      this.handle = handle;
    }
  }

  private final Object lock;
  // each thread's entry is written by that thread only; others read it to learn they do not hold
  private final Map<Thread, Hold> holds = new ConcurrentHashMap<>();

  /**
   * @param lock what the holds are of; its {@code toString()} names it in the messages of refusals
   */
  public ThreadHolds(Object lock) {
    this.lock = Objects.requireNonNull(lock, "lock");
  }

  /**
   * Counts one more hold if the current thread holds, else runs {@code acquisition} and holds the
   * handle it returns.
   *
   * @return {@code true} if the current thread now holds; {@code false} if it did not hold and
   *     {@code acquisition} returned {@code null}
   * @throws LockLostException (or an {@link IllegalMonitorStateException} if the loss's reason is
   *     unknown) if the current thread holds a handle that was lost; its hold is cleared and the
   *     handle released
   * @throws Error if the current thread already holds {@link Integer#MAX_VALUE} times
   * @throws X what {@code acquisition} throws; nothing is held then
   */
  public <X extends Exception> boolean enter(Acquisition<X> acquisition) throws X {
    Objects.requireNonNull(acquisition, "acquisition");
    Thread me = Thread.currentThread();
    Hold h = holds.get(me);
    if (h != null) {
      if (!h.handle.isHeld()) {
        holds.remove(me);
        h.handle.release();
        throw lostException(h.handle);
      }
      if (h.count == Integer.MAX_VALUE) {
        throw new Error("maximum lock count exceeded");
      }
      h.count++;
      return true;
    }
    LockHandle got = acquisition.acquire();
    if (got == null) {
      return false;
    }
    holds.put(me, new Hold(got));
    return true;
  }

  /**
   * Releases one hold of the current thread; the last one releases its handle and returns when
   * {@link LockHandle#release()} does.
   *
   * @throws IllegalMonitorStateException if the current thread does not hold
   * @throws LockLostException if the last hold's handle was lost while held (the hold is cleared
   *     and the node is gone: the critical section was not protected to the end)
   * @throws ZkLockException what {@link LockHandle#release()} throws
   */
  public void exit() {
    Thread me = Thread.currentThread();
    Hold h = holds.get(me);
    if (h == null) {
      throw new IllegalMonitorStateException(
          "the current thread does not hold " + lock + " (" + this + ")");
    }
    if (--h.count > 0) {
      return;
    }
    holds.remove(me);
    boolean wasHeld = h.handle.isHeld();
    h.handle.release();
    if (!wasHeld) {
      throw lostException(h.handle);
    }
  }

  /** The handle of the current thread's hold, or {@code null} if it does not hold. */
  public LockHandle handle() {
    Hold h = holds.get(Thread.currentThread());
    return h == null ? null : h.handle;
  }

  /** How many holds the current thread has: 0 if it does not hold. */
  public int holdCount() {
    Hold h = holds.get(Thread.currentThread());
    return h == null ? 0 : h.count;
  }

  /** Whether the current thread holds. */
  public boolean isHeldByCurrentThread() {
    return holds.containsKey(Thread.currentThread());
  }

  /** Whether any thread holds. */
  public boolean isHeld() {
    return !holds.isEmpty();
  }

  /** Who holds, in words: "unlocked", "held by main", "held by 3 threads". */
  @Override
  public String toString() {
    int n = holds.size();
    if (n == 0) {
      return "unlocked";
    }
    if (n > 1) {
      return "held by " + n + " threads";
    }
    return holds.keySet().stream()
        .findFirst()
        .map(t -> "held by " + t.getName())
        .orElse("unlocked"); // released meanwhile
  }

  /**
   * The loss of a handle found not held: the {@link LockLostException} that {@code lost()}
   * completed with (waiting briefly for it, since {@code isHeld()} turns false before the loss's
   * reason is known), else a plain {@link IllegalMonitorStateException}.
   */
  private static IllegalMonitorStateException lostException(LockHandle h) {
    try {
      return h.lost().get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // no reason to give: fall through
    }
    return new IllegalMonitorStateException("the lock " + h.path() + " was no longer held");
  }
}
