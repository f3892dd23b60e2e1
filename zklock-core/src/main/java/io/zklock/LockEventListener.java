package io.zklock;

/**
 * Hears every step of every lock request of one {@link ZkLocks} and every change of its session:
 * the one observation seam of zklock, on which its metrics, traces and Flight Recorder events are
 * built. Added with {@link ZkLocks.Builder#eventListener}; see {@link LockEvent} for the steps and
 * their order.
 *
 * <p>Besides lock requests, the blocking waits of the coordination recipes (a latch's or barrier's
 * {@code await}, a double barrier's {@code enter} and {@code leave}, a condition's {@code await})
 * are told, each as a request that never holds: it ends with {@link LockEvent.Type#PASSED} when
 * what it waited for happened, and a {@code condition} wait may end {@link LockEvent.Type#LOST}
 * ({@link LockEvent#isCoordination()} tells these from a grant's loss). A listener that switches on
 * {@link LockEvent.Type} must expect both.
 *
 * <p><b>Isolation.</b> A listener cannot break or stall a lock:
 *
 * <ul>
 *   <li>An exception thrown by a listener is caught; the first one of each listener is logged
 *       (warning, with its stack trace), later ones at debug level. The lock goes on as if the
 *       listener had returned.
 *   <li>By default ({@link #isNonBlocking()} false) a listener is called on a thread of its own,
 *       one per listener and {@code ZkLocks}, through a bounded queue of {@value #QUEUE_CAPACITY}
 *       events: a listener that blocks only delays its own later events. When its queue is full,
 *       new events for it are dropped and counted ({@link ZkLocks#droppedEvents()}); the lock is
 *       never held back. Events reach it in the order they happened for each request.
 *   <li>A listener whose {@link #isNonBlocking()} is true is called on the thread where the step
 *       happened (the caller's thread for {@link LockEvent.Type#REQUESTED}; a thread of the library
 *       for most others, which it must never block): no hand-off, no drop, and it sees the caller's
 *       thread context at the request (a tracing span, for example). It must return quickly and
 *       never block: Micrometer meters and JDK Flight Recorder events are such listeners. It has
 *       heard of a grant before the caller gets the handle, and of a loss before the handle's
 *       {@link LockHandle#lost()} completes.
 * </ul>
 *
 * <p>With no listener, nothing is made or called for a step: no event, no hand-off.
 */
@FunctionalInterface
public interface LockEventListener {

  /** How many events a blocking listener's queue holds before new ones are dropped. */
  int QUEUE_CAPACITY = 4096;

  /** Called once per event, as the class documentation says. */
  void onEvent(LockEvent event);

  /**
   * Whether this listener returns quickly and never blocks, and so may be called on the thread
   * where the step happened. Default false: called on a thread of its own (see the class
   * documentation).
   */
  default boolean isNonBlocking() {
    return false;
  }
}
