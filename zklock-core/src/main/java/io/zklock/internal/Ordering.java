package io.zklock.internal;

import java.util.List;

/**
 * The ordering rules of the queue recipes: who holds, and whom a waiter watches. Each is a pure
 * function of the sorted queue and the index of our node in it.
 */
public final class Ordering {
  private Ordering() {}

  /** What a request does after looking at the queue. */
  public sealed interface Decision permits Hold, Watch {}

  /** The request holds the lock. */
  public record Hold() implements Decision {}

  /**
   * The request waits for {@code node} to go. If {@code allAheadGone} is true, nothing else stood
   * before us: when {@code node} is deleted, we hold without looking again (new nodes always queue
   * behind us).
   */
  public record Watch(QueueNode node, boolean allAheadGone) implements Decision {}

  private static final Hold HOLD = new Hold();

  /** A rule deciding for the node at {@code index} of {@code queue}. */
  @FunctionalInterface
  public interface Rule {
    Decision decide(List<QueueNode> queue, int index);
  }

  /**
   * Exclusive (mutex, write lock, election): the first node holds; every other watches its
   * immediate predecessor, whatever its kind.
   */
  public static Decision exclusive(List<QueueNode> queue, int index) {
    checkIndex(queue, index);
    if (index == 0) {
      return HOLD;
    }
    return new Watch(queue.get(index - 1), index - 1 == 0);
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

  /** The rule for a node kind. */
  public static Rule forKind(NodeKind kind) {
    switch (kind) {
      case READ:
        return Ordering::shared;
      case MUTEX:
      case WRITE:
      case ELECTION:
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
