package io.zklock.sim;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.Stat;

/**
 * One server of the simulated ensemble: its own copy of the tree (applied from the committed log,
 * possibly behind the leader), its client connections, their watches, and the requests of each
 * connection answered in the order received.
 */
final class SimServer implements Sim.Owner {
  /** A request of one connection, answered when it reaches the head of the connection's queue. */
  static final class Pending {
    final Link link;
    final int xid;
    final Req req; // null for a ping or a SetWatches
    final Link.SetWatches setWatches;
    boolean ready;
    long waitZxid = -1;
    int rc;
    Object result;
    long zxid;
    int failedAt = -1;
    long sentToLeaderAt;

    Pending(Link link, int xid, Req req, Link.SetWatches sw) {
      this.link = link;
      this.xid = xid;
      this.req = req;
      this.setWatches = sw;
    }

    boolean ping() {
      return req == null && setWatches == null;
    }
  }

  final int id;
  private final SimEnsemble ens;
  private final Sim sim;
  private final SplittableRandom rnd;
  SimTree tree = new SimTree();
  int applied; // entries of the log applied
  boolean alive = true;
  boolean serving;
  long extraLag; // a lagging follower's added delay
  private long lastApplyAt;

  /** Whether it applies the log late now: a lag, or entries it is still due to apply late. */
  boolean lagging() {
    return extraLag > 0 || lastApplyAt > sim.now();
  }

  final LinkedHashSet<Link> links = new LinkedHashSet<>();
  final WatchTable data = new WatchTable();
  final WatchTable child = new WatchTable();
  final TreeSet<Long> touched = new TreeSet<>();
  private final Map<Long, Pending> waitingOn = new HashMap<>();
  private final List<Pending> syncs = new ArrayList<>();
  private final Map<Long, Link> connecting = new HashMap<>(); // new sessions: id -> link
  final double clockRate;
  final long clockOffsetMillis;

  SimServer(int id, SimEnsemble ens, Sim sim, SplittableRandom rnd, double rate, long offsetMs) {
    this.id = id;
    this.ens = ens;
    this.sim = sim;
    this.rnd = rnd;
    this.clockRate = rate;
    this.clockOffsetMillis = offsetMs;
  }

  @Override
  public long pausedUntil() {
    return Long.MIN_VALUE;
  }

  @Override
  public String name() {
    return "s" + id;
  }

  /** This server's wall clock, ms. */
  long wallMillis() {
    return clockOffsetMillis + (long) (sim.now() * clockRate / 1_000_000L);
  }

  void trace(String what) {
    if (sim.trace.on()) {
      sim.trace.add(sim.now(), name(), what);
    }
  }

  // ------------------------------------------------------------------ connections

  void receive(Link l, Link.ToServer m) {
    if (!alive) {
      return;
    }
    if (m instanceof Link.Connect c) {
      connect(l, c);
    } else if (m instanceof Link.Fin f) {
      l.serverOpen = false;
      dropLink(l);
    } else if (m instanceof Link.Ping p) {
      touch(l);
      l.queue.add(new Pending(l, -2, null, null));
      drain(l);
    } else if (m instanceof Link.SetWatches sw) {
      touch(l);
      l.queue.add(new Pending(l, -8, null, sw));
      drain(l);
    } else if (m instanceof Link.Request r) {
      if (!l.established) {
        return;
      }
      touch(l);
      Pending p = new Pending(l, r.xid(), r.req(), null);
      l.queue.add(p);
      if (r.req().write() || r.req() instanceof Req.Sync) {
        p.sentToLeaderAt = sim.now();
        ens.forward(this, p);
      }
      drain(l);
    }
  }

  private void touch(Link l) {
    if (l.session == 0) {
      return;
    }
    if (ens.leaderServer() == this) {
      ens.touch(l.session);
    } else {
      touched.add(l.session);
    }
  }

  private void connect(Link l, Link.Connect c) {
    if (!serving) {
      trace("refuses " + l + ": not serving");
      l.closeByServer();
      return;
    }
    if (c.lastZxid() > tree.lastZxid) {
      trace(
          "refuses "
              + l
              + ": client has seen zxid 0x"
              + Long.toHexString(c.lastZxid())
              + ", ours 0x"
              + Long.toHexString(tree.lastZxid));
      l.closeByServer();
      return;
    }
    links.add(l);
    if (c.session() == 0) {
      ens.createSession(this, l, c.timeoutMs());
    } else {
      ens.revalidate(this, l, c.session());
    }
  }

  /** The leader made session {@code id} for {@code l}; answered once this server applied it. */
  void awaitSession(long id, Link l) {
    connecting.put(id, l);
    if (tree.hasSession(id)) {
      established(id);
    }
  }

  private void established(long id) {
    Link l = connecting.remove(id);
    if (l == null || !l.serverOpen) {
      return;
    }
    l.session = id;
    l.established = true;
    l.reply(new Link.ConnectResp(ens.timeoutOf(id), id));
  }

  /** The leader's answer to a reconnection of an existing session. */
  void revalidated(Link l, long session, int timeoutMs) {
    if (!l.serverOpen || !serving) {
      return;
    }
    if (timeoutMs <= 0) {
      trace("session 0x" + Long.toHexString(session) + " expired: tells " + l);
      l.reply(new Link.ConnectResp(0, 0));
      l.closeByServer();
      return;
    }
    l.session = session;
    l.established = true;
    l.reply(new Link.ConnectResp(timeoutMs, session));
  }

  /** Called by {@link Link#closeByServer} and on the client's close: forgets the connection. */
  void dropLink(Link l) {
    links.remove(l);
    data.removeLink(l);
    child.removeLink(l);
    l.queue.clear();
    waitingOn.values().removeIf(p -> p.link == l);
    syncs.removeIf(p -> p.link == l);
    connecting.values().removeIf(x -> x == l);
  }

  /** Stops serving: every client connection is closed (a crash, an election, a lost quorum). */
  void stopServing(String why) {
    if (serving) {
      trace("stops serving: " + why);
    }
    serving = false;
    for (Link l : List.copyOf(links)) {
      l.closeByServer();
    }
    waitingOn.clear();
    syncs.clear();
    connecting.clear();
    touched.clear();
  }

  // ------------------------------------------------------------------ the log

  /** Applies the log up to entry {@code upTo} (exclusive count), no sooner than its lag allows. */
  void commitArrives(int upTo) {
    long t = Math.max(lastApplyAt, sim.now() + extraLag + lagJitter());
    lastApplyAt = t;
    sim.at(t, this, "apply", () -> applyUpTo(upTo));
  }

  private long lagJitter() {
    return rnd.nextInt(20) == 0 ? Sim.between(rnd, Sim.MS, 20 * Sim.MS) : rnd.nextInt(200_000);
  }

  void applyUpTo(int upTo) {
    if (!alive) {
      return;
    }
    List<Txn.Entry> log = ens.log();
    while (applied < upTo && applied < log.size()) {
      apply(log.get(applied++));
    }
  }

  /** Applies every committed entry at once (a server syncing with a new leader). */
  void catchUp() {
    lastApplyAt = sim.now();
    applyUpTo(ens.log().size());
  }

  private void apply(Txn.Entry e) {
    List<SimTree.Trigger> triggers = tree.apply(e);
    Set<Link> deletedNotified = Set.of();
    String deletedPath = null;
    for (SimTree.Trigger t : triggers) {
      WatchTable table = t.childTable() ? child : data;
      Set<Link> suppress =
          t.childTable() && t.type() == EventType.NodeDeleted && t.path().equals(deletedPath)
              ? deletedNotified
              : Set.of();
      Set<Link> to = table.trigger(t.path(), true, suppress);
      if (!t.childTable() && t.type() == EventType.NodeDeleted) {
        deletedPath = t.path();
        deletedNotified = to;
      }
      for (Link l : to) {
        l.reply(new Link.Notify(t.path(), t.type(), e.zxid()));
      }
    }
    if (e.txn() instanceof Txn.CloseSession cs) {
      for (Link l : List.copyOf(links)) {
        if (l.session == cs.session()) {
          trace("closes " + l + ": session 0x" + Long.toHexString(cs.session()) + " ended");
          l.closeByServer();
        }
      }
    }
    if (e.txn() instanceof Txn.CreateSession cs && connecting.containsKey(cs.session())) {
      established(cs.session());
    }
    Pending p = waitingOn.remove(e.zxid());
    if (p != null && p.link.serverOpen) {
      result(p, e);
      p.ready = true;
      drain(p.link);
    }
    if (!syncs.isEmpty()) {
      for (Pending s : List.copyOf(syncs)) {
        if (s.waitZxid <= tree.lastZxid) {
          syncs.remove(s);
          s.ready = true;
          s.zxid = tree.lastZxid;
          s.rc = 0;
          drain(s.link);
        }
      }
    }
  }

  /** The leader logged {@code p} as the entry with {@code zxid}. */
  void logged(Pending p, long zxid, int failedAt) {
    p.waitZxid = zxid;
    p.failedAt = failedAt;
    if (!p.link.serverOpen) {
      return;
    }
    if (tree.lastZxid >= zxid) {
      throw new IllegalStateException("applied before being told: " + zxid);
    }
    waitingOn.put(zxid, p);
  }

  /** The leader answered a sync: ready once this server applied up to {@code zxid}. */
  void syncTo(Pending p, long zxid) {
    if (!p.link.serverOpen) {
      return;
    }
    p.waitZxid = zxid;
    if (tree.lastZxid >= zxid) {
      p.ready = true;
      p.zxid = tree.lastZxid;
      drain(p.link);
    } else {
      syncs.add(p);
    }
  }

  /**
   * The leader refused a write at once (the session is gone or moved): answered with {@code rc}.
   */
  void refused(Pending p, int rc) {
    if (!p.link.serverOpen) {
      return;
    }
    p.rc = rc;
    p.ready = true;
    p.zxid = tree.lastZxid;
    drain(p.link);
  }

  private void result(Pending p, Txn.Entry e) {
    p.zxid = e.zxid();
    Txn t = e.txn();
    if (t instanceof Txn.Error er) {
      p.rc = er.rc();
      if (p.req instanceof Req.Multi m && p.failedAt >= 0) {
        // a multi whose op failed: the reply itself is OK, each op's result says why
        p.rc = 0;
        List<OpResult> rs = new ArrayList<>();
        for (int i = 0; i < m.ops().size(); i++) {
          int code =
              i < p.failedAt
                  ? Code.OK.intValue()
                  : i == p.failedAt ? er.rc() : Code.RUNTIMEINCONSISTENCY.intValue();
          rs.add(new OpResult.ErrorResult(code));
        }
        p.result = rs;
      }
      return;
    }
    p.rc = 0;
    if (t instanceof Txn.Create c) {
      p.result = new Object[] {c.path(), tree.get(c.path()).stat()};
    } else if (t instanceof Txn.SetData s) {
      p.result = tree.get(s.path()).stat();
    } else if (t instanceof Txn.Multi m) {
      List<OpResult> rs = new ArrayList<>();
      List<Req> asked = p.req instanceof Req.Multi rm ? rm.ops() : List.of();
      for (int i = 0; i < m.ops().size(); i++) {
        Txn op = m.ops().get(i);
        if (op instanceof Txn.Create c) {
          // OpCode.create's result in a multi carries no stat; create2's and createContainer's do
          // (FinalRequestProcessor)
          boolean stat =
              i < asked.size() && asked.get(i) instanceof Req.Create rc ? rc.stat() : c.container();
          rs.add(new OpResult.CreateResult(c.path(), stat ? statOrNull(c.path()) : null));
        } else if (op instanceof Txn.Delete) {
          rs.add(new OpResult.DeleteResult());
        } else if (op instanceof Txn.SetData sd) {
          rs.add(new OpResult.SetDataResult(statOrNull(sd.path())));
        } else {
          rs.add(new OpResult.CheckResult());
        }
      }
      p.result = rs;
    } else {
      p.result = null;
    }
  }

  private Stat statOrNull(String path) {
    SimTree.Node n = tree.get(path);
    return n == null ? null : n.stat();
  }

  // ------------------------------------------------------------------ answering in order

  private void drain(Link l) {
    while (l.serverOpen) {
      Pending p = l.queue.peek();
      if (p == null) {
        return;
      }
      if (p.ping()) {
        l.reply(new Link.PingResp());
      } else if (p.setWatches != null) {
        setWatches(l, p.setWatches);
      } else if (p.req.write() || p.req instanceof Req.Sync) {
        if (!p.ready) {
          return;
        }
        if (l.client.loseReply()) {
          // a flaky network: the request was applied, its reply is lost with the connection
          trace("loses the reply to " + l);
          l.closeByServer();
          return;
        }
        if (p.rc == Code.SESSIONMOVED.intValue()) {
          // FinalRequestProcessor: a connection-level error (ZOOKEEPER-710): no reply, the
          // connection is torn down, and the client revalidates elsewhere
          trace("closes " + l + ": session moved");
          l.closeByServer();
          return;
        }
        l.reply(new Link.Reply(p.xid, p.zxid, p.rc, p.result));
      } else {
        read(l, p);
      }
      l.queue.poll();
    }
  }

  private void read(Link l, Pending p) {
    if (l.client.loseReply()) {
      trace("loses the reply to " + l);
      l.closeByServer();
      return;
    }
    int rc = 0;
    Object result = null;
    if (p.req instanceof Req.GetData g) {
      SimTree.Node n = tree.get(g.path());
      if (n == null) {
        rc = Code.NONODE.intValue();
      } else {
        if (g.watch()) {
          data.add(g.path(), l, WatchTable.STANDARD);
        }
        result = new Object[] {n.data.clone(), n.stat()};
      }
    } else if (p.req instanceof Req.Exists x) {
      SimTree.Node n = tree.get(x.path());
      if (x.watch()) {
        data.add(x.path(), l, WatchTable.STANDARD);
      }
      if (n == null) {
        rc = Code.NONODE.intValue();
      } else {
        result = n.stat();
      }
    } else if (p.req instanceof Req.GetChildren g) {
      SimTree.Node n = tree.get(g.path());
      if (n == null) {
        rc = Code.NONODE.intValue();
      } else {
        if (g.watch()) {
          child.add(g.path(), l, WatchTable.STANDARD);
        }
        result = new Object[] {shuffled(n.children), n.stat()};
      }
    } else if (p.req instanceof Req.MultiRead m) {
      // each op answered on its own; the client takes the first error as the call's code
      List<OpResult> rs = new ArrayList<>();
      for (Req op : m.ops()) {
        SimTree.Node n = tree.get(path(op));
        if (n == null) {
          rs.add(new OpResult.ErrorResult(Code.NONODE.intValue()));
        } else if (op instanceof Req.GetChildren) {
          rs.add(new OpResult.GetChildrenResult(shuffled(n.children)));
        } else {
          rs.add(new OpResult.GetDataResult(n.data.clone(), n.stat()));
        }
      }
      result = rs;
    } else if (p.req instanceof Req.AddWatch a) {
      if (a.mode() == AddWatchMode.PERSISTENT_RECURSIVE) {
        data.add(a.path(), l, WatchTable.RECURSIVE);
      } else {
        data.add(a.path(), l, WatchTable.PERSISTENT);
        child.add(a.path(), l, WatchTable.PERSISTENT);
      }
    } else if (p.req instanceof Req.RemoveWatches r) {
      rc = removeWatches(l, r) ? 0 : Code.NOWATCHER.intValue();
    } else if (p.req instanceof Req.GetAcl a) {
      SimTree.Node n = tree.get(a.path());
      if (n == null) {
        rc = Code.NONODE.intValue();
      } else {
        result = new Object[] {ZooDefs.Ids.OPEN_ACL_UNSAFE, n.stat()};
      }
    } else {
      throw new IllegalStateException("not a read: " + p.req);
    }
    l.reply(new Link.Reply(p.xid, tree.lastZxid, rc, result));
  }

  private static String path(Req r) {
    if (r instanceof Req.GetData g) {
      return g.path();
    } else if (r instanceof Req.GetChildren g) {
      return g.path();
    }
    throw new IllegalArgumentException("not a read op of a multi: " + r);
  }

  private List<String> shuffled(TreeSet<String> names) {
    List<String> out = new ArrayList<>(names);
    Collections.shuffle(out, new java.util.Random(rnd.nextLong()));
    return out;
  }

  /** {@code checkWatches} (one watcher: the server only checks) or {@code removeWatches} (all). */
  private boolean removeWatches(Link l, Req.RemoveWatches r) {
    int dataModes;
    int childModes;
    switch (r.type()) {
      case 1 -> { // Children
        dataModes = 0;
        childModes = WatchTable.STANDARD;
      }
      case 2 -> { // Data
        dataModes = WatchTable.STANDARD;
        childModes = 0;
      }
      case 4 -> { // Persistent
        dataModes = WatchTable.PERSISTENT;
        childModes = WatchTable.PERSISTENT;
      }
      case 5 -> { // PersistentRecursive
        dataModes = WatchTable.RECURSIVE;
        childModes = 0;
      }
      default -> { // Any
        dataModes = WatchTable.STANDARD | WatchTable.PERSISTENT | WatchTable.RECURSIVE;
        childModes = WatchTable.STANDARD | WatchTable.PERSISTENT;
      }
    }
    if (!r.removeAll()) {
      return (dataModes != 0 && data.contains(r.path(), l, dataModes))
          || (childModes != 0 && child.contains(r.path(), l, childModes));
    }
    boolean any = false;
    if (dataModes != 0) {
      any |= data.remove(r.path(), l, dataModes);
    }
    if (childModes != 0) {
      any |= child.remove(r.path(), l, childModes);
    }
    return any;
  }

  /**
   * {@code DataTree.setWatches}: sets again, or fires at once what changed since the client's zxid.
   */
  private void setWatches(Link l, Link.SetWatches sw) {
    long rel = sw.relativeZxid();
    for (String path : sw.data()) {
      SimTree.Node n = tree.get(path);
      if (n == null) {
        l.reply(new Link.Notify(path, EventType.NodeDeleted, -1));
      } else if (n.mzxid > rel) {
        l.reply(new Link.Notify(path, EventType.NodeDataChanged, -1));
      } else {
        data.add(path, l, WatchTable.STANDARD);
      }
    }
    for (String path : sw.exist()) {
      if (tree.get(path) != null) {
        l.reply(new Link.Notify(path, EventType.NodeCreated, -1));
      } else {
        data.add(path, l, WatchTable.STANDARD);
      }
    }
    for (String path : sw.child()) {
      SimTree.Node n = tree.get(path);
      if (n == null) {
        l.reply(new Link.Notify(path, EventType.NodeDeleted, -1));
      } else if (n.pzxid > rel) {
        l.reply(new Link.Notify(path, EventType.NodeChildrenChanged, -1));
      } else {
        child.add(path, l, WatchTable.STANDARD);
      }
    }
    for (String path : sw.persistent()) {
      child.add(path, l, WatchTable.PERSISTENT);
      data.add(path, l, WatchTable.PERSISTENT);
    }
    for (String path : sw.recursive()) {
      data.add(path, l, WatchTable.RECURSIVE);
    }
  }
}
