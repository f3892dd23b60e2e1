package io.zklock;

/**
 * A watch on the locks under a namespace, from {@link ZkLocks#watchLocks}: tells which lock
 * changed, so that a view can read it again with {@link ZkLocks#inspect}. One watch serves any
 * number of readers of the view; it costs the ensemble one watch on a 3.6+ server.
 */
public interface LockWatch extends AutoCloseable {

  /** How the watch is set on the server. */
  enum Mode {
    /** Not yet set: no connected session yet, or the server has not answered. */
    PENDING,
    /**
     * One persistent recursive watch on the root (ZooKeeper 3.6+): every create, delete and data
     * change below it is told, release requests included.
     */
    RECURSIVE,
    /**
     * The fallback for a ZooKeeper 3.5 server, which lacks persistent watches: a one-shot child
     * watch on every directory below the root, set again after each event. Grants, releases and
     * losses are told; a release request, which changes a node's data only, is not.
     */
    PER_DIRECTORY
  }

  /** How the watch is set now. */
  Mode mode();

  /** How many ZooKeeper requests the watch has sent so far (to set it and keep it set). */
  long requests();

  /** Removes the watch; no change is told after this returns. Idempotent. */
  @Override
  void close();
}
