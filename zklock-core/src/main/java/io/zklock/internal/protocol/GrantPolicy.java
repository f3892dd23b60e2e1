package io.zklock.internal.protocol;

import io.zklock.internal.rules.QueueNode;
import java.util.List;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.data.Stat;

/**
 * When a request that the queue's rule lets hold is granted: the one hook of the {@link
 * QueueProtocol} at its grant sites, as {@code tryAcquire} is the hook of the JDK's {@code
 * AbstractQueuedSynchronizer}. The queue decides who may hold; the policy decides when the grant is
 * made. {@link #AT_ONCE}, every lock's but one, grants at once and sends nothing; {@link
 * LockDelayGrant} makes a grant that follows a failed one wait out a lock-delay, and keeps the
 * record that tells a failure from a release.
 *
 * <p>The queue tells the policy what it sees on the way (its create, its listings, the head of the
 * queue it waits on); a policy that needs none of it ignores it.
 */
interface GrantPolicy {
  /** The request's create is about to be sent on {@code step}'s connection. */
  default void creating(Step step) {}

  /** The create answered: {@code node} is our node's stat. */
  default void created(Step step, Stat node) {}

  /**
   * A listing that {@code step} decides on answered: {@code dir} is the directory's stat (null
   * unless {@link #readsDirStat()}).
   */
  default void listed(Step step, Stat dir) {}

  /** Whether {@link #listed} reads the directory's stat (else listings are made without it). */
  default boolean readsDirStat() {
    return false;
  }

  /**
   * {@code step} decides on a listing sent after {@code predecessor}, the node it waited for with
   * nothing else ahead of it, was deleted.
   */
  default void afterPredecessor(Step step, String predecessor) {}

  /** The rule, on a listing, says that our node {@code me} holds. */
  void holds(Step step, QueueNode me);

  /**
   * {@code waiting} is about to wait on {@code head}, a node with nothing ahead of it; called
   * before anything of that wait is sent. Returns what the policy keeps about the wait (handed back
   * to {@link #headGone}), or null.
   */
  default Object waitsOnHead(Step waiting, String head) {
    return null;
  }

  /**
   * The head we waited on, a node of another session, was deleted, heard on our connection: our
   * turn. {@code note}: what {@link #waitsOnHead} returned for the wait.
   */
  void headGone(Step step, String head, Object note);

  /**
   * Our own session's delete of the node ahead, the head, was applied: our turn. {@code released}:
   * by its holder's release (not a withdrawal).
   */
  void headDeletedHere(Step step, boolean released);

  /** The ops a release of our held node sends ahead of its delete, or null for none. */
  default List<Op> releaseOps(String path) {
    return null;
  }

  /** The ops a withdrawal of our node sends ahead of its delete, or null for none. */
  default List<Op> withdrawOps(String path) {
    return null;
  }

  /** Grants at once: the queue's turn is the grant. */
  GrantPolicy AT_ONCE =
      new GrantPolicy() {
        @Override
        public void holds(Step step, QueueNode me) {
          step.granted();
        }

        @Override
        public void headGone(Step step, String head, Object note) {
          step.granted();
        }

        @Override
        public void headDeletedHere(Step step, boolean released) {
          step.granted();
        }

        @Override
        public String toString() {
          return "at once";
        }
      };
}
