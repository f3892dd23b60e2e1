package io.zklock.internal.protocol;

import io.zklock.internal.rules.NodeKind;
import java.util.concurrent.CompletableFuture;

/**
 * How one kind of lock node is made, found again and judged: the part of a request that differs
 * between the queue of sequential nodes ({@link QueueProtocol}) and the single node of the simple
 * lock ({@link SingleNodeProtocol}). A protocol keeps no state of its own: it makes ZooKeeper calls
 * on a {@link Step} and reports what it found through that step, and the request engine decides
 * what happens to the request. A report on a step the request has moved past is dropped.
 */
public interface NodeProtocol {
  /** The directory the node is made in: its ACL is checked, and it is created when missing. */
  String dir();

  /** The kind of node the protocol makes. */
  NodeKind kind();

  /**
   * Whether every holder's node has the same name (the simple lock's): then a node is deleted only
   * after reading back that it is still the one this request created.
   */
  default boolean reusesNodeNames() {
    return false;
  }

  /** What a handle's {@code toString} calls the lock's kind. */
  default String label() {
    return kind().label();
  }

  /**
   * Sends the create of the request's node, and reports: {@link Step#created}, then {@link
   * Step#granted} or a wait ({@link Step#watch}), or {@link Step#busy}; or {@link
   * Step#createFailed} with the create's error.
   */
  void create(Step step);

  /**
   * The create's reply was lost to a connection loss; the connection is back on the same session.
   * Finds out whether the create happened: adopts the node ({@link Step#adopted}) and goes on as
   * after a create, or reports {@link Step#again} to create anew.
   */
  void recover(Step step);

  /** Decides again where the request stands: something it waited on changed. */
  void judge(Step step);

  /**
   * A request withdrawn while its create was in flight or its reply lost: deletes the node the
   * create made, if it made one.
   *
   * @return completes once no node of the request is left
   */
  CompletableFuture<Void> deleteUnknown(ProtocolContext ctx, String attemptId, long session);

  /**
   * The ops a release of our held node {@code path} sends ahead of its delete, in one {@code
   * multi}, or null for a plain delete (the default): the lock-delay's record of a clean release
   * ({@link io.zklock.internal.rules.LockDelay}).
   */
  default java.util.List<org.apache.zookeeper.Op> releaseOps(String path) {
    return null;
  }

  /**
   * The ops a withdrawal of our not-granted node {@code path} sends ahead of its delete, in one
   * {@code multi}, or null for a plain delete (the default): the lock-delay's record of a delay
   * under way, written by a request that stood first.
   */
  default java.util.List<org.apache.zookeeper.Op> withdrawOps(String path) {
    return null;
  }
}
