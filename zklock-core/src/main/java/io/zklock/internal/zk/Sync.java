package io.zklock.internal.zk;

/**
 * The one read-your-writes step after a connection loss. A request whose create (or delete) met a
 * connection loss decides from a read what happened to it; after reconnecting, possibly to another
 * server, that server may not have applied the write yet and would answer "no such node". A {@code
 * sync} sent first makes the server catch up with the leader, and a read sent behind it on the same
 * session is served after it. Costs one pipelined request, only on these recovery paths.
 */
public final class Sync {
  private Sync() {}

  /**
   * Sends a sync of {@code path} on {@code conn}; the next request on {@code conn} sees at least
   * what the leader had committed when the sync reached it. A failed sync (connection loss) fails
   * the read behind it too, which the caller handles.
   */
  public static void sync(Session.Conn conn, String path) {
    conn.ops().sync(path, (rc, p, ctx) -> {});
  }
}
