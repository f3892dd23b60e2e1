package io.zklock.internal.rules;

import java.util.List;

/**
 * The ordering rules of the queue recipes: who holds, and whom a waiter watches. Each is a pure
 * function of the sorted queue and the index of our node in it.
 */
public final class Ordering {
  private Ordering() {}

  /** What a request does after looking at the queue. */
  public sealed interface Decision permits Hold, Watch, WatchQueue {}

  /** The request holds the lock. */
  public record Hold() implements Decision {}

  /**
   * The request waits for {@code node} to go. If {@code allAheadGone} is true, nothing else stood
   * before us: when {@code node} is deleted, we hold without looking again (new nodes always queue
   * behind us).
   *
   * <p>{@code lookAhead}, when not null, is the node just ahead of {@code node}: the request
   * watches it too, and when it goes, decides again on a new listing while {@code node} still waits
   * or holds. If the rule then names {@code node} again with {@code allAheadGone}, {@code node} has
   * become the head, and its deletion will be our grant without a read after the notification. Null
   * when {@code allAheadGone}, and for the rules that do not look ahead.
   */
  public record Watch(QueueNode node, boolean allAheadGone, QueueNode lookAhead)
      implements Decision {
    /** A watch that does not look ahead. */
    public Watch(QueueNode node, boolean allAheadGone) {
      this(node, allAheadGone, null);
    }
  }

  /**
   * The request waits for any change of the queue (a child watch on the directory), then decides
   * again. Used by the semaphore's leases, where any earlier lease going may admit us; only the one
   * request admitted by the semaphore's internal mutex ever waits this way, so there is no herd.
   */
  public record WatchQueue() implements Decision {}

  private static final Hold HOLD = new Hold();
  private static final WatchQueue WATCH_QUEUE = new WatchQueue();

  /** A rule deciding for the node at {@code index} of {@code queue}. */
  @FunctionalInterface
  public interface Rule {
    Decision decide(List<QueueNode> queue, int index);
  }

  /**
   * Exclusive (mutex, write lock, election): the first node holds; every other watches its
   * immediate predecessor, whatever its kind, and, when that one is not the head, looks ahead to
   * the predecessor's predecessor ({@link Watch#lookAhead()}). Every node is thus watched by at
   * most the two exclusive requests right behind it: its deletion triggers at most two watches of
   * exclusive waiters, whatever the length of the queue.
   */
  public static Decision exclusive(List<QueueNode> queue, int index) {
    checkIndex(queue, index);
    if (index == 0) {
      return HOLD;
    }
    return new Watch(queue.get(index - 1), index == 1, index >= 2 ? queue.get(index - 2) : null);
  }

  /**
   * Whether a request of this kind is granted only at the head of its queue, so that its deletion
   * after it was held leaves nothing ahead of the nodes that queued behind it: true for the kinds
   * that queue by {@link #exclusive} ({@link #forKind}).
   */
  public static boolean heldOnlyAtHead(NodeKind kind) {
    return kind.exclusive() && kind != NodeKind.SIMPLE;
  }

  /**
   * Shared (read lock): holds when no exclusive node is ahead; otherwise watches the last exclusive
   * node ahead of it. Readers behind the same writer all watch that writer, and wake together when
   * it goes, which is right: they can all run.
   */
  public static Decision shared(List<QueueNode> queue, int index) {
    checkIndex(queue, index);
    for (int j = index - 1; j >= 0; j--) {
      if (queue.get(j).kind().exclusive()) {
        return new Watch(queue.get(j), j == 0);
      }
    }
    return HOLD;
  }

  /**
   * Semaphore lease: holds when fewer than {@code permits} leases are queued ahead of it; otherwise
   * waits for the queue to change. Every lease is created before its owner lists the queue, so the
   * holder with the highest position always sees every other holder ahead of it: at most {@code
   * permits} requests hold at once, whatever the interleaving.
   *
   * @throws IllegalArgumentException if {@code permits < 1}
   */
  public static Rule lease(int permits) {
    if (permits < 1) {
      throw new IllegalArgumentException("permits must be at least 1: " + permits);
    }
    return (queue, index) -> {
      checkIndex(queue, index);
      return index < permits ? HOLD : WATCH_QUEUE;
    };
  }

  /**
   * A semaphore request for several permits, all or nothing: it holds when each of its leases holds
   * by {@link #lease(int)}, that is when fewer than {@code permits} leases are ahead of its last
   * one; otherwise it waits for the queue to change. With one lease this is {@link #lease(int)}
   * itself.
   *
   * @param indexes the positions of the request's leases in {@code queue}, at least one
   * @throws IllegalArgumentException if {@code permits < 1}, no index is given or one is not in the
   *     queue
   */
  public static Decision leaseRequest(int permits, List<QueueNode> queue, int... indexes) {
    Rule rule = lease(permits);
    if (indexes.length == 0) {
      throw new IllegalArgumentException("a request has at least one lease");
    }
    for (int index : indexes) {
      if (!(rule.decide(queue, index) instanceof Hold)) {
        return WATCH_QUEUE;
      }
    }
    return HOLD;
  }

  /** The rule for a node kind. */
  public static Rule forKind(NodeKind kind) {
    switch (kind) {
      case READ:
      case COHORT_READ:
      case CURATOR_READ:
      case KAZOO_READ:
        return Ordering::shared;
      case MUTEX:
      case WRITE:
      case ELECTION:
      case COHORT:
      case COHORT_WRITE:
      case CURATOR_MUTEX:
      case CURATOR_WRITE:
      case CURATOR_LATCH:
      case KAZOO_LOCK:
      case GO_LOCK:
        return Ordering::exclusive;
      default:
        throw new IllegalArgumentException("no queue rule for " + kind);
    }
  }

  private static void checkIndex(List<QueueNode> queue, int index) {
    if (index < 0 || index >= queue.size()) {
      throw new IllegalArgumentException("index " + index + " not in a queue of " + queue.size());
    }
  }
}
