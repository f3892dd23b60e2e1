package io.zklock.internal.zk;

import java.util.List;
import org.apache.zookeeper.data.ClientInfo;

/**
 * One client of the ensemble, as the {@link Session} uses it: the handle of one session. The live
 * one wraps ZooKeeper's handle ({@link ZkConnector#LIVE}); a simulation gives its own. Nothing
 * outside this package sees it: the layers above get a {@link Session.Conn}, whose calls are the
 * client's {@link #ops()}.
 */
public interface ZkClient {
  /**
   * The calls made on this client. The session asks once per connection: what keys on the calls'
   * identity (the shared listings) then starts anew after a reconnection, as it did with a handle's
   * calls per connection.
   */
  ZkOps ops();

  /** The session's id once connected; 0 before. */
  long sessionId();

  /** The session timeout the ensemble granted, ms, once connected (the one asked before). */
  int sessionTimeoutMillis();

  /**
   * When the connection attempt began that made this client's latest connection, on the clock the
   * client was opened with ({@link ZkConnector#open}): the moment the client chose the server to
   * try, before its connect request went out. The ensemble made a new session no earlier (the
   * leader's {@code createSession} follows the connect request), so it cannot expire it before this
   * + T. Known once connected; before, a time no later than the client's opening.
   */
  long connectBeganNanos();

  /**
   * The identities the server knows this session by ({@code whoAmI}, ZooKeeper 3.7+), or null when
   * the server did not answer. Blocks until it answers.
   */
  List<ClientInfo> whoAmI() throws InterruptedException;

  /**
   * The server this client is connected to, {@code host:port}, or empty when it is not connected or
   * cannot tell.
   */
  default String server() {
    return "";
  }

  /** Whether this client logs in with SASL (its identity is then the server's to tell). */
  boolean saslLogin();

  /**
   * Closes the client, which ends its session on the ensemble; may wait for a server that does not
   * answer. Never throws.
   */
  void close();
}
