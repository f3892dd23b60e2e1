package io.zklock.internal.protocol;

import io.zklock.internal.zk.Deleter;
import io.zklock.internal.zk.SessionPort;
import java.util.List;
import org.apache.zookeeper.data.ACL;

/**
 * What a {@link NodeProtocol} needs of its request's instance, besides the {@link Step} it is
 * handed: the session, the guaranteed deleter, the shared listings and the ACL of new nodes. The
 * engine's request context is one.
 */
public interface ProtocolContext {
  SessionPort session();

  Deleter deleter();

  SharedListings listings();

  List<ACL> acl();

  /** The clock of timeouts and delays. */
  io.zklock.internal.rules.Clock clock();

  /** The wall clock, for what is only displayed (a lock-delay's mark); never for a decision. */
  io.zklock.internal.rules.WallClock wallClock();

  /** For delayed steps (a lock-delay). */
  java.util.concurrent.ScheduledExecutorService scheduler();
}
