package io.zklock.internal.protocol;

import io.zklock.ZkLockException;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.zk.Session;
import io.zklock.internal.zk.ZkOps;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.WatcherType;

/**
 * One step of a lock request, handed to its {@link NodeProtocol}: the connection to work on, and
 * the reports the protocol makes. The request owns its state; a protocol only reports what it
 * found, and a report on a step the request has moved past is dropped, so a protocol never checks
 * what happened meanwhile. The request engine implements it.
 */
public interface Step {
  /** The ZooKeeper calls of this step's connection. */
  ZkOps zk();

  /** This step's connection. */
  Session.Conn conn();

  /** The session this step works in. */
  long session();

  /** Names the node of this request's latest create. */
  String attemptId();

  /** Our node, or null if the request has none now. */
  Node node();

  /** Whether the request may wait for a holder (false for {@code tryAcquire()}). */
  boolean mayWait();

  /** The watcher a protocol sets on our own node when it adopts it. */
  Watcher ownWatcher();

  /** The watcher to set for the wait this step was made by {@link #watch} for. */
  Watcher watcher();

  /** The data of a new node of this request. */
  byte[] nodeData(NodeKind kind, Map<String, String> extra);

  /** What the protocol needs of the request's instance. */
  ProtocolContext ctx();

  /** Our create made {@code path}: the node is known, the request waits to be judged. */
  void created(String path, long czxid);

  /**
   * After a lost reply, our node was found: {@code ownWatched} if the protocol set {@link
   * #ownWatcher()} on it while looking.
   */
  void adopted(String path, long czxid, boolean ownWatched);

  /** The create failed with {@code code}. */
  void createFailed(Code code);

  /** The request's turn has come: the node is ours. */
  void granted();

  /** The lock is held by others: a {@code tryAcquire()} ends here, without waiting. */
  void busy();

  /**
   * The request is about to wait behind {@code position} others (told to the lock event listeners;
   * changes nothing).
   */
  default void queued(int position) {}

  /**
   * The request waits for a change at {@code path}: returns the step for that wait, whose {@link
   * #watcher()} the protocol sets; when it fires, {@code onEvent} runs with that step. Returns null
   * if the request moved on, or ends it if it may not wait ({@code tryAcquire()}).
   */
  Step watch(String path, WatcherType type, BiConsumer<Step, WatchedEvent> onEvent);

  /**
   * Also watches {@code path} for the wait this step was made for by {@link #watch}, without moving
   * the request on: returns the watcher to set, or null if the request moved on. When it fires,
   * {@code onEvent} runs (the protocol checks {@link #isLive()}). Removed with the wait's watch; a
   * later call replaces it (the protocol calls again only once the earlier one fired).
   */
  Watcher alsoWatch(String path, WatcherType type, Consumer<WatchedEvent> onEvent);

  /** A new step on the same connection, to judge again; null if the request moved on. */
  Step next();

  /**
   * A read of this step met a connection loss: runs {@code action} with a new step once connected
   * again, if the request is still here and the session the same (a new session re-queues it).
   */
  void whenConnected(Consumer<Step> action);

  /** Create anew: the create never happened, our node was deleted, or the holder's went. */
  void again();

  /** Whether the request is still at this step. */
  boolean isLive();

  /** The request cannot go on. */
  void fail(ZkLockException e);
}
