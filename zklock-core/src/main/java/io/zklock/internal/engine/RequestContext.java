package io.zklock.internal.engine;

import io.zklock.SuspensionPolicy;
import io.zklock.internal.protocol.ProtocolContext;
import io.zklock.internal.protocol.SharedListings;
import io.zklock.internal.rules.Clock;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.RandomIds;
import io.zklock.internal.rules.WallClock;
import io.zklock.internal.zk.Deleter;
import io.zklock.internal.zk.Dirs;
import io.zklock.internal.zk.SessionPort;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.zookeeper.data.ACL;

/**
 * What a lock request needs, handed in as one value: the session, the guaranteed deleter, the
 * directory guard, the registry that tells requests the session's news, the shared directory
 * listings, how node data is written, the ACL of new nodes, the suspension policy, the clock and
 * the library's threads. The {@code ZkLocks} implementation makes one per instance; the engine's
 * tests make one around a fake session. A request's {@link
 * io.zklock.internal.protocol.NodeProtocol} sees it as its {@link ProtocolContext}.
 *
 * @param executor where callers' futures complete and listeners run: never ZooKeeper's event thread
 * @param scheduler for timeouts and delayed steps
 * @param events the instance's lock event listeners ({@link Events#NONE} for none)
 * @param ids the random ids of this instance's node names
 * @param wallClock this process's wall clock, for what is only displayed (a lock-delay's mark)
 */
public record RequestContext(
    SessionPort session,
    Deleter deleter,
    Dirs dirs,
    Requests requests,
    SharedListings listings,
    NodeData nodeData,
    List<ACL> acl,
    SuspensionPolicy suspensionPolicy,
    Clock clock,
    Executor executor,
    ScheduledExecutorService scheduler,
    Events events,
    RandomIds ids,
    WallClock wallClock)
    implements ProtocolContext {

  /** Writes a lock node's data: small UTF-8 JSON about the owner, fixed while held. */
  @FunctionalInterface
  public interface NodeData {
    byte[] of(NodeKind kind, long sessionId, Map<String, String> extra);
  }
}
