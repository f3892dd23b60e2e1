package io.zklock.sim;

import io.zklock.internal.zk.ZkOps;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.Watcher.WatcherType;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.proto.CheckVersionRequest;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.DeleteRequest;
import org.apache.zookeeper.proto.GetChildrenRequest;
import org.apache.zookeeper.proto.GetDataRequest;
import org.apache.zookeeper.proto.SetDataRequest;

/**
 * A simulated ZooKeeper client handle, as ZooKeeper 3.9's {@code ClientCnxn}, {@code
 * ZKWatchManager} and event thread behave (read from their source):
 *
 * <ul>
 *   <li>States CONNECTING, CONNECTED, CLOSED. A new connection goes to the next server of a
 *       shuffled list, after a random sleep of up to 1 s (none the first time) and 1 s more once
 *       every server was tried since the last success. A connect attempt times out after T/n; a
 *       connection that hears nothing for 2T/3 is dropped; a client that hears nothing for 4T/3
 *       expires its session itself (ZOOKEEPER-4508). A ping goes out after T/3 - 1 s of silence.
 *   <li>A server behind the client's last seen zxid refuses it: the client tries the next one.
 *   <li>Requests made while not connected wait and go out on the next connection, or fail with
 *       CONNECTIONLOSS when the next attempt fails; every request in flight fails so on a
 *       disconnection; after the close or an expiry every request fails with SESSIONEXPIRED.
 *   <li>Watches are kept by the client (data, exist, child, persistent, recursive) and set again on
 *       the server with {@code SetWatches} after a reconnection; a watch is registered only when
 *       its request succeeds (exists: also on NONODE); every watcher hears None events
 *       (SyncConnected, Disconnected, Expired, Closed); watchers of one event are called in an
 *       arbitrary order (ZooKeeper keeps them in a hash set), here drawn from the seed.
 *   <li>Callbacks and events run on one event thread, in the order the replies and events arrived.
 * </ul>
 */
public final class SimZkClient implements ZkOps {
  enum State {
    CONNECTING,
    CONNECTED,
    CLOSED;

    boolean alive() {
      return this != CLOSED;
    }
  }

  private static final long MAX_PING_INTERVAL = 10 * Sim.SEC;

  final SimProcess process;
  private final Sim sim;
  private final SimEnsemble ens;
  private final Net net;
  private final Watcher defaultWatcher;
  private final int requestedMs;
  private final String label;
  private State state = State.CONNECTING;
  private boolean closing;
  private boolean firstConnect = true;
  private long sessionId;
  private int negotiatedMs;
  private long lastZxid;
  private final List<Integer> hosts;
  private int current = -1;
  private int lastIndex = -1;
  private Link link;
  private boolean linkUp; // the current link has its ConnectResp
  private final ArrayDeque<Packet> outgoing = new ArrayDeque<>();
  private final ArrayDeque<Packet> pending = new ArrayDeque<>();
  private int xid;
  private long lastSend; // process clock
  private long lastRecv;
  private long attemptStart;
  // when the current attempt's server was chosen (HostProvider.next returned), process clock
  private long attemptChosenAt;
  private long connectedChosenAt; // attemptChosenAt of the attempt that connected last
  private long readTimeout; // process clock ns
  private long connectTimeout;
  private long expirationTimeout;
  private Sim.Ev timer;
  private long timerAt = Long.MAX_VALUE;
  private Sim.Ev reconnect;
  private final EventThread events;

  private final Map<String, Set<Watcher>> dataWatches = new LinkedHashMap<>();
  private final Map<String, Set<Watcher>> existWatches = new LinkedHashMap<>();
  private final Map<String, Set<Watcher>> childWatches = new LinkedHashMap<>();
  private final Map<String, Set<Watcher>> persistentWatches = new LinkedHashMap<>();
  private final Map<String, Set<Watcher>> recursiveWatches = new LinkedHashMap<>();

  /** Told of every request sent (the checker counts, e.g. listings). */
  BiConsumer<SimZkClient, Req> onSend = (c, r) -> {};

  /** Told of every request's answer as it arrives (the request, its code). */
  BiConsumer<Req, Integer> onAnswer = (r, rc) -> {};

  private static long handles;

  SimZkClient(
      SimProcess process, SimEnsemble ens, Net net, int sessionTimeoutMs, Watcher defaultWatcher) {
    this.process = process;
    this.sim = process.sim;
    this.ens = ens;
    this.net = net;
    this.defaultWatcher = defaultWatcher;
    this.requestedMs = sessionTimeoutMs;
    this.label = process.name + "/zk" + ++handles;
    List<Integer> h = new ArrayList<>();
    for (int i = 0; i < ens.servers.length; i++) {
      h.add(i);
    }
    Collections.shuffle(h, new java.util.Random(process.rnd.nextLong()));
    this.hosts = h;
    // before the first connection: the timeouts of the session asked for
    setTimeouts(sessionTimeoutMs);
    this.events = new EventThread();
    long now = process.clock.nanoTime();
    lastSend = now;
    lastRecv = now;
    connectedChosenAt = now;
    sim.after(0, process, "connect", this::startConnect);
  }

  private void setTimeouts(int sessionMs) {
    long t = sessionMs * Sim.MS;
    readTimeout = t * 2 / 3;
    connectTimeout = t / hosts().size();
    expirationTimeout = t * 4 / 3;
  }

  private List<Integer> hosts() {
    return hosts == null ? List.of(0, 1, 2) : hosts;
  }

  private void trace(String what) {
    if (sim.trace.on()) {
      sim.trace.add(sim.now(), label, what);
    }
  }

  // ------------------------------------------------------------------ the handle's API

  public long getSessionId() {
    return sessionId;
  }

  public int getSessionTimeout() {
    return negotiatedMs > 0 ? negotiatedMs : requestedMs;
  }

  /**
   * When the attempt that made the latest connection began, on the process's clock: when it chose
   * its server (ZooKeeper's {@code HostProvider.next}), before the back-off and the connect
   * request.
   */
  public long connectBeganNanos() {
    return connectedChosenAt;
  }

  public String label() {
    return label;
  }

  /** ZooKeeper.States: CONNECTING, CONNECTED or CLOSED. */
  public org.apache.zookeeper.ZooKeeper.States getState() {
    return switch (state) {
      case CONNECTING -> org.apache.zookeeper.ZooKeeper.States.CONNECTING;
      case CONNECTED -> org.apache.zookeeper.ZooKeeper.States.CONNECTED;
      case CLOSED -> org.apache.zookeeper.ZooKeeper.States.CLOSED;
    };
  }

  @Override
  public boolean connected() {
    return state == State.CONNECTED;
  }

  private int connections; // connections made so far (the checker tells one from the next)

  /** How many times this handle has connected: a new value means a new connection. */
  int connections() {
    return connections;
  }

  /**
   * {@code ZooKeeper.close()}, without blocking the caller: ends the session (a connected handle
   * sends closeSession, which deletes its ephemerals at once) and fails whatever is left.
   */
  public void close() {
    if (!state.alive() || closing) {
      return;
    }
    if (linkUp && link != null) {
      trace("close: closeSession sent");
      Packet p = new Packet(new Req.CloseSession(), (rc, res) -> {}, null, null, "closeSession");
      p.onDone = this::disconnectClosed;
      closing = true;
      sendNow(p);
      // ZooKeeper.close() waits for the answer; it may never come: give up after the read timeout
      sim.after(process.simDelay(readTimeout), process, "close-wait", this::disconnectClosed);
    } else {
      trace("close");
      closing = true;
      disconnectClosed();
    }
  }

  private void disconnectClosed() {
    if (!state.alive()) {
      return;
    }
    if (link != null) {
      link.closeByClient();
      link = null;
      linkUp = false;
    }
    cancelTimer();
    if (reconnect != null) {
      reconnect.cancel();
    }
    // after the close nothing is alive: what is left fails with SESSIONEXPIRED
    state = State.CLOSED;
    cleanup();
    queueNone(KeeperState.Closed);
    trace("closed");
  }

  /** A flaky network: until then, each reply is lost with the connection at this percentage. */
  long flakyUntil;

  int flakyPercent;

  /** Whether the next reply to this client is lost with its connection (a flaky network). */
  boolean loseReply() {
    return sim.now() < flakyUntil && process.rnd.nextInt(100) < flakyPercent;
  }

  /**
   * Whether this handle's connection is down by {@code clockNanos} (its process's clock) if it
   * hears nothing more: it is not up now, or its read timeout comes first.
   */
  boolean dropsBefore(long clockNanos) {
    return !linkUp || link == null || lastRecv + readTimeout <= clockNanos;
  }

  /** The last zxid this client has seen (its session reads no state older than that). */
  long lastZxid() {
    return lastZxid;
  }

  /** The server this client is connected to, or -1. */
  int serverId() {
    return linkUp && link != null ? link.server.id : -1;
  }

  /** The server closes this client's connection now (a reset): replies in flight are lost. */
  public void resetConnection() {
    if (link != null && link.serverOpen) {
      trace("connection reset by the server");
      link.closeByServer();
    }
  }

  // ------------------------------------------------------------------ connecting

  private void startConnect() {
    reconnect = null;
    if (!state.alive() || closing) {
      return;
    }
    if (!firstConnect && sessionId != 0 && expired()) {
      return;
    }
    int next = nextHost();
    long sleep = firstConnect ? 0 : process.rnd.nextLong(Sim.SEC);
    // HostProvider.next returns now, or after its spin delay: then the random back-off follows
    long chosenAt = process.clock.nanoTime();
    if (next < 0) {
      sleep += Sim.SEC; // every server tried since the last success: HostProvider's spin delay
      chosenAt += Sim.SEC;
      next = -next - 1;
    }
    int host = next;
    long chosen = chosenAt;
    reconnect =
        sim.after(
            process.simDelay(sleep),
            process,
            "connect",
            () -> {
              reconnect = null;
              if (!state.alive() || closing) {
                return;
              }
              if (state == State.CONNECTED) {
                state = State.CONNECTING; // set by startConnect, after the sleep
              }
              attemptChosenAt = chosen;
              attempt(host);
            });
  }

  /** The next server; negative ({@code -host - 1}) when the list came round to the last success. */
  private int nextHost() {
    current = (current + 1) % hosts.size();
    if (current == lastIndex) {
      return -hosts.get(current) - 1;
    }
    return hosts.get(current);
  }

  private void attempt(int host) {
    SimServer s = ens.servers[host];
    link = new Link(sim, net, this, s);
    linkUp = false;
    trace("connects to s" + host + " (last zxid 0x" + Long.toHexString(lastZxid) + ")");
    attemptStart = process.clock.nanoTime();
    lastSend = attemptStart;
    link.send(new Link.Connect(lastZxid, requestedMs, sessionId));
    armTimer();
  }

  /** The client's own expiry: nothing heard for 4T/3 (ZooKeeper 3.9 clients). */
  private boolean expired() {
    long idle = process.clock.nanoTime() - lastRecv;
    if (sessionId != 0 && idle >= expirationTimeout) {
      trace("expires its session itself: nothing heard for " + idle / Sim.MS + " ms");
      if (link != null) {
        link.closeByClient();
        link = null;
        linkUp = false;
      }
      cancelTimer();
      state = State.CLOSED;
      cleanup();
      queueNone(KeeperState.Expired);
      return true;
    }
    return false;
  }

  void receive(Link l, Link.ToClient m) {
    if (l != link || !state.alive()) {
      return;
    }
    lastRecv = process.clock.nanoTime();
    if (m instanceof Link.ConnectResp r) {
      onConnected(r);
    } else if (m instanceof Link.Reply r) {
      onReply(r);
    } else if (m instanceof Link.Notify n) {
      onNotify(n);
    } else if (m instanceof Link.PingResp p) {
    } else if (m instanceof Link.Eof e) {
      connectionLost("the server closed the connection");
    }
    armTimer();
  }

  private void onConnected(Link.ConnectResp r) {
    if (r.timeoutMs() <= 0) {
      trace("hears that session 0x" + Long.toHexString(sessionId) + " expired");
      state = State.CLOSED;
      link.closeByClient();
      link = null;
      cancelTimer();
      cleanup();
      queueNone(KeeperState.Expired);
      return;
    }
    negotiatedMs = r.timeoutMs();
    connectedChosenAt = attemptChosenAt; // HostProvider.onConnected
    setTimeouts(negotiatedMs);
    sessionId = r.session();
    lastIndex = current;
    firstConnect = false;
    state = State.CONNECTED;
    connections++;
    linkUp = true;
    trace(
        "connected to s"
            + link.server.id
            + ", session 0x"
            + Long.toHexString(sessionId)
            + ", "
            + negotiatedMs
            + " ms");
    queueNone(KeeperState.SyncConnected);
    // primeConnection: the watches first, then what waited for the connection
    if (!dataWatches.isEmpty()
        || !existWatches.isEmpty()
        || !childWatches.isEmpty()
        || !persistentWatches.isEmpty()
        || !recursiveWatches.isEmpty()) {
      link.send(
          new Link.SetWatches(
              lastZxid,
              List.copyOf(dataWatches.keySet()),
              List.copyOf(existWatches.keySet()),
              List.copyOf(childWatches.keySet()),
              List.copyOf(persistentWatches.keySet()),
              List.copyOf(recursiveWatches.keySet())));
    }
    while (!outgoing.isEmpty()) {
      transmit(outgoing.poll());
    }
  }

  private void onReply(Link.Reply r) {
    Packet p = pending.poll();
    if (p == null) {
      throw new IllegalStateException(label + ": a reply with nothing pending: " + r);
    }
    if (p.xid != r.xid()) {
      throw new IllegalStateException(label + ": xid out of order: " + r.xid() + " for " + p.xid);
    }
    if (r.zxid() > 0) {
      lastZxid = r.zxid();
    }
    finish(p, r.rc(), r.result());
  }

  private void onNotify(Link.Notify n) {
    Set<Watcher> ws = materialize(n.type(), n.path());
    if (ws.isEmpty()) {
      return;
    }
    WatchedEvent e = new WatchedEvent(n.type(), KeeperState.SyncConnected, n.path());
    deliver(ws, e);
  }

  private void connectionLost(String why) {
    if (link == null) {
      return;
    }
    trace("connection lost: " + why);
    link.closeByClient();
    link = null;
    linkUp = false;
    cancelTimer();
    cleanup();
    if (state.alive()) {
      queueNone(KeeperState.Disconnected);
    }
    if (closing) {
      disconnectClosed();
      return;
    }
    // the state stays as it was until the next attempt starts, after its sleep
    startConnect();
  }

  // ------------------------------------------------------------------ the send thread's timer

  private void armTimer() {
    if (!state.alive() || link == null) {
      return;
    }
    long now = process.clock.nanoTime();
    long due;
    if (linkUp) {
      long fail = lastRecv + readTimeout;
      long ping = lastSend + pingDelay();
      due = Math.min(fail, ping);
    } else {
      due = attemptStart + connectTimeout;
    }
    if (sessionId != 0) {
      due = Math.min(due, lastRecv + expirationTimeout);
    }
    long at = sim.now() + process.simDelay(Math.max(0, due - now));
    if (timer != null && !timer.isDone() && timerAt <= at) {
      return;
    }
    cancelTimer();
    timerAt = at;
    timer = sim.at(at, process, "cnxn-timer", this::onTimer);
  }

  /**
   * How long after the last send a ping goes out: when {@code readTimeout/2 - idleSend - (idleSend
   * > 1 s ? 1 s : 0)} reaches zero, as ClientCnxn's loop computes it, or after 10 s at most.
   */
  private long pingDelay() {
    long half = readTimeout / 2;
    long d = half <= Sim.SEC ? half : Math.max(Sim.SEC + Sim.MS, half - Sim.SEC);
    return Math.min(d, MAX_PING_INTERVAL);
  }

  private void cancelTimer() {
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
    timerAt = Long.MAX_VALUE;
  }

  private void onTimer() {
    timer = null;
    timerAt = Long.MAX_VALUE;
    if (!state.alive() || link == null) {
      return;
    }
    long now = process.clock.nanoTime();
    if (expired()) {
      return;
    }
    if (linkUp) {
      if (now - lastRecv >= readTimeout) {
        connectionLost("nothing heard for " + (now - lastRecv) / Sim.MS + " ms");
        return;
      }
      if (now - lastSend >= pingDelay()) {
        link.send(new Link.Ping());
        lastSend = now;
      }
    } else if (now - attemptStart >= connectTimeout) {
      connectionLost("connect attempt timed out");
      return;
    }
    armTimer();
  }

  // ------------------------------------------------------------------ requests

  /** One request: its callback adapter, and the watch it sets or removes on success. */
  private final class Packet {
    int xid;
    final Req req;
    final BiConsumer<Integer, Object> cb;
    final WatchReg reg;
    final WatchDereg dereg;
    final String what;
    Runnable onDone;

    Packet(Req req, BiConsumer<Integer, Object> cb, WatchReg reg, WatchDereg dereg, String what) {
      this.req = req;
      this.cb = cb;
      this.reg = reg;
      this.dereg = dereg;
      this.what = what;
    }
  }

  private record WatchReg(
      Map<String, Set<Watcher>> onOk, Map<String, Set<Watcher>> onNoNode, String path, Watcher w) {}

  private record WatchDereg(String path, Watcher w, WatcherType type) {}

  private void submit(Packet p) {
    onSend.accept(this, p.req);
    if (!state.alive() || closing) {
      conLoss(p);
      return;
    }
    if (linkUp && link != null) {
      sendNow(p);
    } else {
      outgoing.add(p);
    }
  }

  private void sendNow(Packet p) {
    transmit(p);
    armTimer();
  }

  private void transmit(Packet p) {
    p.xid = ++xid;
    pending.add(p);
    lastSend = process.clock.nanoTime();
    if (sim.trace.on()) {
      trace("sends " + p.what);
    }
    link.send(new Link.Request(p.xid, p.req));
  }

  private void conLoss(Packet p) {
    int rc =
        state == State.CLOSED ? Code.SESSIONEXPIRED.intValue() : Code.CONNECTIONLOSS.intValue();
    finish(p, rc, null);
  }

  /** Every request in flight or waiting fails (a lost connection, the close, an expiry). */
  private void cleanup() {
    List<Packet> all = new ArrayList<>(pending);
    pending.clear();
    all.addAll(outgoing);
    outgoing.clear();
    for (Packet p : all) {
      conLoss(p);
    }
  }

  private void finish(Packet p, int rc, Object result) {
    onAnswer.accept(p.req, rc);
    int code = rc;
    if (p.reg != null) {
      Map<String, Set<Watcher>> into = null;
      if (rc == 0) {
        into = p.reg.onOk();
      } else if (rc == Code.NONODE.intValue()) {
        into = p.reg.onNoNode();
      }
      if (into != null) {
        into.computeIfAbsent(p.reg.path(), k -> new LinkedHashSet<>()).add(p.reg.w());
      }
    }
    if (p.dereg != null) {
      code = deregister(p.dereg, rc);
    }
    if (p.onDone != null) {
      p.onDone.run();
    }
    int c = code;
    events.queue(
        () -> {
          if (sim.trace.on()) {
            trace("callback " + p.what + " " + Code.get(c));
          }
          p.cb.accept(c, result);
        });
  }

  // ------------------------------------------------------------------ watches (ZKWatchManager)

  private Set<Watcher> materialize(EventType type, String path) {
    Set<Watcher> result = new LinkedHashSet<>();
    switch (type) {
      case NodeDataChanged, NodeCreated -> {
        addTo(dataWatches.remove(path), result);
        addTo(existWatches.remove(path), result);
      }
      case NodeChildrenChanged -> addTo(childWatches.remove(path), result);
      case NodeDeleted -> {
        addTo(dataWatches.remove(path), result);
        addTo(existWatches.remove(path), result);
        addTo(childWatches.remove(path), result);
      }
      default -> throw new IllegalStateException("unexpected event " + type);
    }
    addTo(persistentWatches.get(path), result);
    if (type != EventType.NodeChildrenChanged) {
      String p = path;
      while (true) {
        addTo(recursiveWatches.get(p), result);
        if (p.equals("/")) {
          break;
        }
        p = SimTree.parent(p);
      }
    }
    return result;
  }

  private static void addTo(Set<Watcher> from, Set<Watcher> to) {
    if (from != null) {
      to.addAll(from);
    }
  }

  /** A None event (a state change): the default watcher and every watcher hear it. */
  private void queueNone(KeeperState s) {
    Set<Watcher> ws = new LinkedHashSet<>();
    ws.add(defaultWatcher);
    for (Map<String, Set<Watcher>> m :
        List.of(dataWatches, existWatches, childWatches, persistentWatches, recursiveWatches)) {
      for (Set<Watcher> set : m.values()) {
        ws.addAll(set);
      }
    }
    deliver(ws, new WatchedEvent(EventType.None, s, null));
  }

  /** The watchers of one event, called on the event thread in an order drawn from the seed. */
  private void deliver(Set<Watcher> ws, WatchedEvent e) {
    List<Watcher> order = new ArrayList<>(ws);
    if (order.size() > 1) {
      Collections.shuffle(order, new java.util.Random(process.rnd.nextLong()));
    }
    events.queue(
        () -> {
          if (sim.trace.on()) {
            trace(
                "event "
                    + e.getType()
                    + " "
                    + e.getState()
                    + " "
                    + (e.getPath() == null ? "" : e.getPath())
                    + " to "
                    + order.size());
          }
          for (Watcher w : order) {
            w.process(e);
          }
        });
  }

  /**
   * WatchDeregistration.unregister with {@code local} true: removed here whatever the server said.
   */
  private int deregister(WatchDereg d, int rc) {
    List<Map<String, Set<Watcher>>> maps =
        switch (d.type()) {
          case Children -> List.of(childWatches);
          case Data -> List.of(dataWatches, existWatches);
          case Persistent -> List.of(persistentWatches);
          case PersistentRecursive -> List.of(recursiveWatches);
          case Any ->
              List.of(childWatches, dataWatches, existWatches, persistentWatches, recursiveWatches);
        };
    boolean contains = false;
    for (Map<String, Set<Watcher>> m : maps) {
      Set<Watcher> s = m.get(d.path());
      if (s != null && (d.w() == null ? !s.isEmpty() : s.contains(d.w()))) {
        contains = true;
      }
    }
    if (!contains) {
      return Code.NOWATCHER.intValue();
    }
    Set<Watcher> child = new LinkedHashSet<>();
    Set<Watcher> data = new LinkedHashSet<>();
    Set<Watcher> persistent = new LinkedHashSet<>();
    for (Map<String, Set<Watcher>> m : maps) {
      Set<Watcher> into =
          m == childWatches
              ? child
              : (m == persistentWatches || m == recursiveWatches) ? persistent : data;
      if (d.w() == null) {
        Set<Watcher> s = m.remove(d.path());
        if (s != null) {
          into.addAll(s);
        }
      } else {
        Set<Watcher> s = m.get(d.path());
        if (s != null && s.remove(d.w())) {
          into.add(d.w());
          if (s.isEmpty()) {
            m.remove(d.path());
          }
        }
      }
    }
    boolean removed = !child.isEmpty() || !data.isEmpty() || !persistent.isEmpty();
    if (!removed) {
      return Code.NOWATCHER.intValue();
    }
    if (!child.isEmpty()) {
      deliver(
          child,
          new WatchedEvent(EventType.ChildWatchRemoved, KeeperState.SyncConnected, d.path()));
    }
    if (!data.isEmpty()) {
      deliver(
          data, new WatchedEvent(EventType.DataWatchRemoved, KeeperState.SyncConnected, d.path()));
    }
    if (!persistent.isEmpty()) {
      deliver(
          persistent,
          new WatchedEvent(EventType.PersistentWatchRemoved, KeeperState.SyncConnected, d.path()));
    }
    return 0; // removed locally: OK whatever the server answered
  }

  // ------------------------------------------------------------------ ZkOps

  @Override
  public void create(
      String path, byte[] data, List<ACL> acl, CreateMode mode, AsyncCallback.Create2Callback cb) {
    Req r =
        new Req.Create(
            path,
            data == null ? new byte[0] : data.clone(),
            mode.isEphemeral(),
            mode.isSequential(),
            mode.isContainer());
    submit(
        new Packet(
            r,
            (rc, res) -> {
              if (rc == 0) {
                Object[] o = (Object[]) res;
                cb.processResult(rc, path, null, (String) o[0], (Stat) o[1]);
              } else {
                cb.processResult(rc, path, null, null, null);
              }
            },
            null,
            null,
            "create " + path + " " + mode));
  }

  @Override
  public void getChildren(String path, Watcher watcher, AsyncCallback.Children2Callback cb) {
    submit(
        new Packet(
            new Req.GetChildren(path, watcher != null),
            (rc, res) -> {
              if (rc == 0) {
                Object[] o = (Object[]) res;
                @SuppressWarnings("unchecked")
                List<String> kids = (List<String>) o[0];
                cb.processResult(rc, path, null, new ArrayList<>(kids), (Stat) o[1]);
              } else {
                cb.processResult(rc, path, null, null, null);
              }
            },
            watcher == null ? null : new WatchReg(childWatches, null, path, watcher),
            null,
            "getChildren " + path + (watcher != null ? " watch" : "")));
  }

  @Override
  public void getData(String path, Watcher watcher, AsyncCallback.DataCallback cb) {
    submit(
        new Packet(
            new Req.GetData(path, watcher != null),
            (rc, res) -> {
              if (rc == 0) {
                Object[] o = (Object[]) res;
                cb.processResult(rc, path, null, (byte[]) o[0], (Stat) o[1]);
              } else {
                cb.processResult(rc, path, null, null, null);
              }
            },
            watcher == null ? null : new WatchReg(dataWatches, null, path, watcher),
            null,
            "getData " + path + (watcher != null ? " watch" : "")));
  }

  @Override
  public void exists(String path, Watcher watcher, AsyncCallback.StatCallback cb) {
    submit(
        new Packet(
            new Req.Exists(path, watcher != null),
            (rc, res) -> cb.processResult(rc, path, null, rc == 0 ? (Stat) res : null),
            watcher == null ? null : new WatchReg(dataWatches, existWatches, path, watcher),
            null,
            "exists " + path + (watcher != null ? " watch" : "")));
  }

  @Override
  public void delete(String path, int version, AsyncCallback.VoidCallback cb) {
    submit(
        new Packet(
            new Req.Delete(path, version),
            (rc, res) -> cb.processResult(rc, path, null),
            null,
            null,
            "delete " + path));
  }

  @Override
  public void setData(String path, byte[] data, int version, AsyncCallback.StatCallback cb) {
    submit(
        new Packet(
            new Req.SetData(path, data.clone(), version),
            (rc, res) -> cb.processResult(rc, path, null, rc == 0 ? (Stat) res : null),
            null,
            null,
            "setData " + path));
  }

  @Override
  public void removeWatches(
      String path, Watcher watcher, WatcherType type, AsyncCallback.VoidCallback cb) {
    submit(
        new Packet(
            new Req.RemoveWatches(path, type.getIntValue(), false),
            (rc, res) -> cb.processResult(rc, path, null),
            null,
            new WatchDereg(path, watcher, type),
            "removeWatches " + path + " " + type));
  }

  @Override
  public void removeAllWatches(String path, WatcherType type, AsyncCallback.VoidCallback cb) {
    submit(
        new Packet(
            new Req.RemoveWatches(path, type.getIntValue(), true),
            (rc, res) -> cb.processResult(rc, path, null),
            null,
            new WatchDereg(path, null, type),
            "removeAllWatches " + path + " " + type));
  }

  @Override
  public void sync(String path, AsyncCallback.VoidCallback cb) {
    submit(
        new Packet(
            new Req.Sync(path),
            (rc, res) -> cb.processResult(rc, path, null),
            null,
            null,
            "sync " + path));
  }

  @Override
  public void multi(List<Op> ops, AsyncCallback.MultiCallback cb) {
    boolean read = !ops.isEmpty();
    for (Op op : ops) {
      if (op.getType() != ZooDefs.OpCode.getChildren && op.getType() != ZooDefs.OpCode.getData) {
        read = false;
      }
    }
    List<Req> reqs = new ArrayList<>();
    for (Op op : ops) {
      reqs.add(toReq(op));
    }
    Req r = read ? new Req.MultiRead(List.copyOf(reqs)) : new Req.Multi(List.copyOf(reqs));
    submit(
        new Packet(
            r,
            (rc, res) -> {
              if (rc != 0) {
                cb.processResult(rc, null, null, null);
                return;
              }
              @SuppressWarnings("unchecked")
              List<OpResult> results = (List<OpResult>) res;
              int newRc = rc;
              for (OpResult x : results) {
                if (x instanceof OpResult.ErrorResult e && (newRc = e.getErr()) != 0) {
                  break;
                }
              }
              cb.processResult(newRc, null, null, new ArrayList<>(results));
            },
            null,
            null,
            (read ? "multiRead " : "multi ") + describe(reqs)));
  }

  private static String describe(List<Req> reqs) {
    StringBuilder b = new StringBuilder("[");
    for (Req r : reqs) {
      if (b.length() > 1) {
        b.append(", ");
      }
      b.append(r.getClass().getSimpleName()).append(' ').append(pathOf(r));
    }
    return b.append(']').toString();
  }

  static String pathOf(Req r) {
    if (r instanceof Req.Create c) {
      return c.path();
    } else if (r instanceof Req.Delete d) {
      return d.path();
    } else if (r instanceof Req.SetData s) {
      return s.path();
    } else if (r instanceof Req.Check c) {
      return c.path();
    } else if (r instanceof Req.GetData g) {
      return g.path();
    } else if (r instanceof Req.GetChildren g) {
      return g.path();
    } else if (r instanceof Req.Exists e) {
      return e.path();
    }
    return r.toString();
  }

  private static Req toReq(Op op) {
    return switch (op.getType()) {
      case ZooDefs.OpCode.create, ZooDefs.OpCode.create2, ZooDefs.OpCode.createContainer -> {
        CreateRequest c = (CreateRequest) op.toRequestRecord();
        CreateMode mode = CreateMode.fromFlag(c.getFlags(), CreateMode.PERSISTENT);
        yield new Req.Create(
            c.getPath(),
            c.getData() == null ? new byte[0] : c.getData().clone(),
            mode.isEphemeral(),
            mode.isSequential(),
            mode.isContainer(),
            op.getType() != ZooDefs.OpCode.create);
      }
      case ZooDefs.OpCode.delete -> {
        DeleteRequest d = (DeleteRequest) op.toRequestRecord();
        yield new Req.Delete(d.getPath(), d.getVersion());
      }
      case ZooDefs.OpCode.setData -> {
        SetDataRequest s = (SetDataRequest) op.toRequestRecord();
        yield new Req.SetData(s.getPath(), s.getData().clone(), s.getVersion());
      }
      case ZooDefs.OpCode.check -> {
        CheckVersionRequest c = (CheckVersionRequest) op.toRequestRecord();
        yield new Req.Check(c.getPath(), c.getVersion());
      }
      case ZooDefs.OpCode.getChildren -> {
        GetChildrenRequest g = (GetChildrenRequest) op.toRequestRecord();
        yield new Req.GetChildren(g.getPath(), false);
      }
      case ZooDefs.OpCode.getData -> {
        GetDataRequest g = (GetDataRequest) op.toRequestRecord();
        yield new Req.GetData(g.getPath(), false);
      }
      default -> throw new UnsupportedOperationException("the simulated client's multi: " + op);
    };
  }

  @Override
  public void addWatch(
      String path, Watcher watcher, AddWatchMode mode, AsyncCallback.VoidCallback cb) {
    Map<String, Set<Watcher>> into =
        mode == AddWatchMode.PERSISTENT_RECURSIVE ? recursiveWatches : persistentWatches;
    submit(
        new Packet(
            new Req.AddWatch(path, mode),
            (rc, res) -> cb.processResult(rc, path, null),
            new WatchReg(into, null, path, watcher),
            null,
            "addWatch " + path + " " + mode));
  }

  @Override
  public void getACL(String path, AsyncCallback.ACLCallback cb) {
    submit(
        new Packet(
            new Req.GetAcl(path),
            (rc, res) -> {
              if (rc == 0) {
                Object[] o = (Object[]) res;
                @SuppressWarnings("unchecked")
                List<ACL> acl = (List<ACL>) o[0];
                cb.processResult(rc, path, null, acl, (Stat) o[1]);
              } else {
                cb.processResult(rc, path, null, null, null);
              }
            },
            null,
            null,
            "getACL " + path));
  }

  /** The number of watches this handle keeps (the checker's leak test). */
  int watchCount() {
    int n = 0;
    for (Map<String, Set<Watcher>> m :
        List.of(dataWatches, existWatches, childWatches, persistentWatches, recursiveWatches)) {
      for (Set<Watcher> s : m.values()) {
        n += s.size();
      }
    }
    return n;
  }

  boolean closed() {
    return !state.alive();
  }

  @Override
  public String toString() {
    return label + "[" + state + ", 0x" + Long.toHexString(sessionId) + "]";
  }

  /**
   * ZooKeeper's event thread for this handle: callbacks and events run one at a time in the order
   * queued, each a short while after the one before.
   */
  private final class EventThread {
    private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    private boolean scheduled;

    void queue(Runnable r) {
      queue.add(r);
      if (!scheduled) {
        scheduled = true;
        sim.after(process.threadDelay(), process, "event-thread", this::runOne);
      }
    }

    private void runOne() {
      Runnable r = queue.poll();
      try {
        if (r != null) {
          r.run();
        }
      } finally {
        if (queue.isEmpty()) {
          scheduled = false;
        } else {
          sim.after(process.threadDelay() / 4, process, "event-thread", this::runOne);
        }
      }
    }
  }
}
