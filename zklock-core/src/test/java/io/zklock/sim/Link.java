package io.zklock.sim;

import java.util.ArrayDeque;
import java.util.List;

/**
 * One TCP connection between a simulated client handle and a server: messages each way arrive in
 * the order sent, each after its latency (later while the link is cut). Either end may close it;
 * what the closing end sent before still arrives, then the other end sees the close.
 */
final class Link {
  /** What a client sends. */
  sealed interface ToServer {}

  record Connect(long lastZxid, int timeoutMs, long session) implements ToServer {}

  record Request(int xid, Req req) implements ToServer {}

  record Ping() implements ToServer {}

  record SetWatches(
      long relativeZxid,
      List<String> data,
      List<String> exist,
      List<String> child,
      List<String> persistent,
      List<String> recursive)
      implements ToServer {}

  record Fin() implements ToServer {}

  /** What a server sends. */
  sealed interface ToClient {}

  /** {@code timeoutMs} 0: the session expired. */
  record ConnectResp(int timeoutMs, long session) implements ToClient {}

  record Reply(int xid, long zxid, int rc, Object result) implements ToClient {}

  record Notify(String path, org.apache.zookeeper.Watcher.Event.EventType type, long zxid)
      implements ToClient {}

  record PingResp() implements ToClient {}

  record Eof() implements ToClient {}

  private static long ids;

  final long id = ++ids;
  final SimZkClient client;
  final SimServer server;
  private final Sim sim;
  private final Net net;
  boolean clientOpen = true;
  boolean serverOpen = true;
  private long lastToServer;
  private long lastToClient;

  // ---- the server's side of it
  /** The session this connection serves, once established (0 before). */
  long session;

  boolean established;

  /** Requests of this connection in the order received, answered in that order. */
  final ArrayDeque<SimServer.Pending> queue = new ArrayDeque<>();

  Link(Sim sim, Net net, SimZkClient client, SimServer server) {
    this.sim = sim;
    this.net = net;
    this.client = client;
    this.server = server;
  }

  String process() {
    return client.process.name();
  }

  /** From the client. */
  void send(ToServer m) {
    if (!clientOpen) {
      return;
    }
    transmitToServer(m);
  }

  private void transmitToServer(ToServer m) {
    long t = Math.max(net.arrival(process(), server.id), lastToServer);
    lastToServer = t;
    sim.at(
        t,
        server,
        "recv",
        () -> {
          if (serverOpen) {
            server.receive(this, m);
          }
        });
  }

  /** From the server. */
  void reply(ToClient m) {
    if (!serverOpen) {
      return;
    }
    transmitToClient(m);
  }

  private void transmitToClient(ToClient m) {
    long t = Math.max(net.arrival(process(), server.id), lastToClient);
    lastToClient = t;
    sim.at(
        t,
        client.process,
        "recv",
        () -> {
          if (clientOpen) {
            client.receive(this, m);
          }
        });
  }

  /** The client closes its end: what it sent arrives, then the server sees the close. */
  void closeByClient() {
    if (!clientOpen) {
      return;
    }
    transmitToServer(new Fin());
    clientOpen = false;
  }

  /** The server closes its end: what it sent arrives, then the client sees the end of stream. */
  void closeByServer() {
    if (!serverOpen) {
      return;
    }
    serverOpen = false;
    server.dropLink(this);
    transmitToClient(new Eof());
  }

  @Override
  public String toString() {
    return "link" + id + "(" + process() + "->s" + server.id + ")";
  }
}
