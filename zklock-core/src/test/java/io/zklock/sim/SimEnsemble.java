package io.zklock.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.zookeeper.KeeperException.Code;

/**
 * The simulated ensemble: its servers, one leader per epoch, the committed log, and what only the
 * leader does (orders writes, tracks sessions and expires them by its clock, reaps containers).
 *
 * <p>Simplifications, each stated in docs/reliability.md: a write is committed the moment the
 * leader receives it while it has a quorum (the quorum round trip is folded into the forwarding
 * latency); every committed entry survives any failover; an election picks one of the servers of
 * the quorum at random after a delay; servers only fail by crashing (closing their connections),
 * being cut off from the others, or lagging.
 */
public final class SimEnsemble {
  /** A session as the leader tracks it. */
  static final class Sess {
    final long id;
    final int timeoutMs;
    long expireAtMs; // leader clock
    int owner;
    boolean closing;

    Sess(long id, int timeoutMs) {
      this.id = id;
      this.timeoutMs = timeoutMs;
    }
  }

  private final Sim sim;
  private final Net net;
  final SimServer[] servers;
  private final SplittableRandom rnd;
  private final List<Txn.Entry> log = new ArrayList<>();
  private final TreeMap<Long, Sess> sessions = new TreeMap<>();
  private final TreeMap<Long, Integer> timeouts = new TreeMap<>(); // every session ever made
  private int leader = -1;
  private int epoch;
  private long counter;
  private long sessionCounter;
  private final boolean[] isolated;
  private long leaderTick; // guards timers of an old leader

  final long tickMs;
  final long containerCheckMs; // 0: never

  /** Delays of failure detection and elections, ns. */
  long detectNanos;

  long electMinNanos = 50 * Sim.MS;
  long electMaxNanos = 600 * Sim.MS;

  /** Everything the checker wants to know of the ensemble's history. */
  final List<Txn.Entry> committedView = java.util.Collections.unmodifiableList(log);

  SimEnsemble(Sim sim, Net net, int n, long tickMs, long containerCheckMs) {
    this.sim = sim;
    this.net = net;
    this.rnd = sim.servers;
    this.tickMs = tickMs;
    this.containerCheckMs = containerCheckMs;
    this.detectNanos = 2 * tickMs * Sim.MS; // syncLimit 2
    this.servers = new SimServer[n];
    this.isolated = new boolean[n];
    for (int i = 0; i < n; i++) {
      double rate = 1.0 + (rnd.nextDouble() * 2 - 1) * 0.01;
      servers[i] =
          new SimServer(i, this, sim, rnd.split(), rate, 1_700_000_000_000L + rnd.nextInt(5000));
    }
  }

  List<Txn.Entry> log() {
    return log;
  }

  SimServer leaderServer() {
    return leader < 0 ? null : servers[leader];
  }

  int leaderId() {
    return leader;
  }

  /** The leader's tree: the committed state. */
  SimTree truth() {
    return leader >= 0 ? servers[leader].tree : latestTree();
  }

  private SimTree latestTree() {
    SimServer best = servers[0];
    for (SimServer s : servers) {
      if (s.applied > best.applied) {
        best = s;
      }
    }
    return best.tree;
  }

  long lastZxid() {
    return log.isEmpty() ? 0 : log.get(log.size() - 1).zxid();
  }

  int timeoutOf(long session) {
    Integer t = timeouts.get(session);
    return t == null ? 0 : t;
  }

  /** Whether the leader's session tracker holds {@code session} alive now. */
  boolean sessionAlive(long session) {
    Sess s = sessions.get(session);
    return s != null && !s.closing;
  }

  private void trace(String what) {
    if (sim.trace.on()) {
      sim.trace.add(sim.now(), "ensemble", what);
    }
  }

  // ------------------------------------------------------------------ start, quorum, elections

  /** Elects the first leader at once (the ensemble is up before the clients start). */
  void start() {
    elect();
  }

  private boolean[] component() {
    boolean[] in = new boolean[servers.length];
    for (int i = 0; i < servers.length; i++) {
      in[i] = servers[i].alive && !isolated[i];
    }
    return in;
  }

  private boolean quorum(boolean[] in) {
    int n = 0;
    for (boolean b : in) {
      if (b) {
        n++;
      }
    }
    return n > servers.length / 2;
  }

  /** Whether server {@code i} is cut off from the others now. */
  boolean isolated(int i) {
    return isolated[i];
  }

  /** Whether the leader can commit now: it is up and reaches a quorum. */
  boolean leaderHasQuorum() {
    boolean[] in = component();
    return leader >= 0 && in[leader] && quorum(in);
  }

  /** Something changed (a server died or came back, a cut began or ended): act on it. */
  void reconfigure(String why) {
    boolean[] in = component();
    boolean q = quorum(in);
    if (leader >= 0 && in[leader] && q) {
      // the leader keeps its quorum: servers outside stop, servers back inside sync and serve
      for (int i = 0; i < servers.length; i++) {
        SimServer s = servers[i];
        if (!in[i] && s.serving) {
          int id = i;
          sim.after(
              detectNanos,
              s,
              "lost-leader",
              () -> {
                if (!component()[id]) {
                  s.stopServing("cut off from the leader (" + why + ")");
                }
              });
        } else if (in[i] && !s.serving) {
          int id = i;
          sim.after(
              electDelay(),
              s,
              "sync",
              () -> {
                boolean[] now = component();
                if (now[id] && leader >= 0 && now[leader] && quorum(now) && !s.serving) {
                  s.catchUp();
                  s.serving = true;
                  s.trace("follows s" + leader + " again");
                }
              });
        }
      }
      return;
    }
    if (leader < 0 && !q) {
      return; // nobody leads, and no quorum to elect one
    }
    if (leader >= 0) {
      // the leader is gone or lost its quorum: everyone notices after a while, then elects
      int old = leader;
      leader = -1;
      trace("leader s" + old + " lost (" + why + ")");
      // each notices the loss after a while, unless a leader was elected meanwhile (a lone
      // server restarted at once): a loss noticed late does not stop the new epoch's servers
      long lostTick = leaderTick;
      for (SimServer s : servers) {
        sim.after(
            detectNanos,
            s,
            "looking",
            () -> {
              if (leaderTick == lostTick) {
                s.stopServing("no leader");
              }
            });
      }
      sim.after(detectNanos + electDelay(), Sim.WORLD, "elect", this::electIfQuorum);
    } else {
      sim.after(electDelay(), Sim.WORLD, "elect", this::electIfQuorum);
    }
  }

  private long electDelay() {
    return Sim.between(rnd, electMinNanos, electMaxNanos);
  }

  private void electIfQuorum() {
    if (leader >= 0) {
      return;
    }
    boolean[] in = component();
    if (!quorum(in)) {
      return; // waits for a reconfigure
    }
    elect();
  }

  private void elect() {
    boolean[] in = component();
    List<Integer> cands = new ArrayList<>();
    for (int i = 0; i < servers.length; i++) {
      if (in[i]) {
        cands.add(i);
      }
    }
    leader = cands.get(rnd.nextInt(cands.size()));
    epoch++;
    counter = 0;
    leaderTick++;
    for (int i : cands) {
      servers[i].catchUp();
      servers[i].serving = true;
    }
    for (int i = 0; i < servers.length; i++) {
      if (!in[i]) {
        servers[i].stopServing("not in the quorum");
      }
    }
    // the new leader's session tracker: every live session, with a full timeout from now
    sessions.clear();
    SimTree t = servers[leader].tree;
    for (Map.Entry<Long, Integer> e : timeouts.entrySet()) {
      if (t.hasSession(e.getKey())) {
        Sess s = new Sess(e.getKey(), e.getValue());
        s.owner = -1;
        sessions.put(s.id, s);
        touch(s.id);
      }
    }
    trace("s" + leader + " leads, epoch " + epoch);
    long tick = leaderTick;
    scheduleTick(tick);
    schedulePings(tick);
    if (containerCheckMs > 0) {
      scheduleContainers(tick);
    }
  }

  // ------------------------------------------------------------------ faults

  void crash(int i) {
    SimServer s = servers[i];
    if (!s.alive) {
      return;
    }
    s.trace("crashes");
    s.stopServing("crashed");
    s.alive = false;
    reconfigure("s" + i + " crashed");
  }

  void restart(int i) {
    SimServer s = servers[i];
    if (s.alive) {
      return;
    }
    s.alive = true;
    s.trace("restarts");
    s.data.size(); // watch tables were dropped with the connections
    reconfigure("s" + i + " restarted");
    if (leader < 0) {
      sim.after(electDelay(), Sim.WORLD, "elect", this::electIfQuorum);
    }
  }

  void isolate(int i, boolean cut) {
    isolated[i] = cut;
    servers[i].trace(cut ? "cut off from the other servers" : "reaches the other servers again");
    reconfigure(cut ? "s" + i + " isolated" : "s" + i + " rejoined");
    if (!cut && leader < 0) {
      sim.after(electDelay(), Sim.WORLD, "elect", this::electIfQuorum);
    }
  }

  // ------------------------------------------------------------------ the world's own acts

  /** Creates {@code path} at once through the leader (the world's setup, before any client). */
  void setup(String path, byte[] data, org.apache.zookeeper.CreateMode mode) {
    SimTree.Prepared p =
        servers[leader].tree.prepare(
            new Req.Create(path, data, false, mode.isSequential(), mode.isContainer()), 0);
    commit(null, null, 0, p.txn(), -1);
  }

  /** The leader expires {@code session} now (as if it had heard nothing for its timeout). */
  /** Whether {@link #expireNow} would expire {@code session} now (it lives, a leader leads). */
  boolean canExpireNow(long session) {
    Sess s = sessions.get(session);
    return s != null && !s.closing && leaderHasQuorum();
  }

  void expireNow(long session) {
    Sess s = sessions.get(session);
    if (s == null || s.closing || !leaderHasQuorum()) {
      return;
    }
    s.closing = true;
    sessions.remove(session);
    trace("expires session 0x" + Long.toHexString(session) + " (fault)");
    commit(null, null, session, new Txn.CloseSession(session, true), -1);
  }

  // ------------------------------------------------------------------ the links between servers

  private final long[] lastUp = new long[16]; // per server: its stream to the leader
  private final long[] lastDown = new long[16]; // per server: the leader's stream to it

  /** A message from {@code from} to the leader: one TCP stream, in the order sent. */
  private void toLeader(SimServer from, String what, Runnable r) {
    long t = Math.max(lastUp[from.id], sim.now() + net.serverLatency());
    lastUp[from.id] = t;
    sim.at(t, Sim.WORLD, what, r);
  }

  /** A message from the leader to {@code to}: one TCP stream, in the order sent. */
  private void fromLeader(SimServer to, String what, Runnable r) {
    long t = Math.max(lastDown[to.id], sim.now() + net.serverLatency());
    lastDown[to.id] = t;
    sim.at(t, to, what, r);
  }

  // ------------------------------------------------------------------ the leader's work

  /** A write or sync from {@code from}'s client, arriving at the leader after a server hop. */
  void forward(SimServer from, SimServer.Pending p) {
    toLeader(
        from,
        "forward",
        () -> {
          if (!leaderHasQuorum() || !from.alive || !from.serving || isolated[from.id]) {
            return; // lost with the leader: the client's connection is closed soon
          }
          atLeader(from, p);
        });
  }

  private void atLeader(SimServer from, SimServer.Pending p) {
    long session = p.link.session;
    if (p.req instanceof Req.Sync) {
      long z = lastZxid();
      fromLeader(from, "sync-ok", () -> from.syncTo(p, z));
      return;
    }
    Sess s = sessions.get(session);
    if (s == null || s.closing) {
      // an ended session's write: logged as an error, as PrepRequestProcessor does
      commit(from, p, session, new Txn.Error(Code.SESSIONEXPIRED.intValue()), -1);
      return;
    }
    if (s.owner != from.id && s.owner >= 0) {
      commit(from, p, session, new Txn.Error(Code.SESSIONMOVED.intValue()), -1);
      return;
    }
    if (p.req instanceof Req.CloseSession) {
      s.closing = true;
      sessions.remove(session);
      commit(from, p, session, new Txn.CloseSession(session, false), -1);
      return;
    }
    SimTree.Prepared prep = servers[leader].tree.prepare(p.req, session);
    commit(from, p, session, prep.txn(), prep.failedAt());
  }

  private void commit(SimServer from, SimServer.Pending p, long session, Txn txn, int failedAt) {
    long zxid = ((long) epoch << 32) | ++counter;
    Txn.Entry e = new Txn.Entry(zxid, servers[leader].wallMillis(), session, txn);
    log.add(e);
    if (from != null) {
      from.logged(p, zxid, failedAt);
    }
    if (sim.trace.on()) {
      trace("commit 0x" + Long.toHexString(zxid) + " " + describe(txn));
    }
    if (onCommit != null) {
      onCommit.accept(e); // before the leader applies it: the checker reads what it deletes
    }
    int upTo = log.size();
    SimServer l = servers[leader];
    l.applyUpTo(upTo); // the leader applies at once
    for (SimServer s : servers) {
      if (s != l && s.alive && s.serving) {
        fromLeader(s, "commit", () -> s.commitArrives(upTo));
      }
    }
  }

  /** Told of every committed entry, before the leader applies it (the checker's truth). */
  java.util.function.Consumer<Txn.Entry> onCommit;

  static String describe(Txn t) {
    if (t instanceof Txn.Create c) {
      return "create "
          + c.path()
          + (c.ephemeralOwner() != 0 ? " eph 0x" + Long.toHexString(c.ephemeralOwner()) : "");
    } else if (t instanceof Txn.Delete d) {
      return "delete " + d.path();
    } else if (t instanceof Txn.SetData s) {
      return "setData " + s.path();
    } else if (t instanceof Txn.Check c) {
      return "check " + c.path();
    } else if (t instanceof Txn.Multi m) {
      return "multi " + m.ops().stream().map(SimEnsemble::describe).toList();
    } else if (t instanceof Txn.CreateSession s) {
      return "createSession 0x" + Long.toHexString(s.session()) + " " + s.timeoutMs() + "ms";
    } else if (t instanceof Txn.CloseSession s) {
      return (s.expired() ? "expire" : "closeSession") + " 0x" + Long.toHexString(s.session());
    } else if (t instanceof Txn.Error e) {
      return "error " + Code.get(e.rc());
    }
    return t.toString();
  }

  void createSession(SimServer from, Link l, int requestedMs) {
    toLeader(
        from,
        "createSession",
        () -> {
          if (!leaderHasQuorum() || !from.serving || !l.serverOpen) {
            return;
          }
          int t = (int) Math.max(2 * tickMs, Math.min(20 * tickMs, requestedMs));
          long id = ((long) (leader + 1) << 56) | ((long) epoch << 32) | ++sessionCounter;
          Sess s = new Sess(id, t);
          s.owner = from.id;
          sessions.put(id, s);
          timeouts.put(id, t);
          touch(id);
          commit(null, null, id, new Txn.CreateSession(id, t), -1);
          fromLeader(from, "session-made", () -> from.awaitSession(id, l));
        });
  }

  void revalidate(SimServer from, Link l, long session) {
    toLeader(
        from,
        "revalidate",
        () -> {
          if (!leaderHasQuorum() || !from.serving) {
            return;
          }
          Sess s = sessions.get(session);
          int t;
          if (s == null || s.closing) {
            t = 0;
          } else {
            s.owner = from.id;
            touch(session);
            t = s.timeoutMs;
          }
          fromLeader(from, "revalidated", () -> from.revalidated(l, session, t));
        });
  }

  /** The leader heard from {@code session} now. */
  void touch(long session) {
    Sess s = sessions.get(session);
    if (s == null || s.closing) {
      return;
    }
    long now = servers[leader].wallMillis();
    // ExpiryQueue: the next multiple of the tick after now + timeout
    s.expireAtMs = ((now + s.timeoutMs) / tickMs + 1) * tickMs;
  }

  private long leaderNanos(long ms) {
    return (long) (ms * Sim.MS / servers[leader].clockRate);
  }

  private void scheduleTick(long tick) {
    sim.after(
        leaderNanos(tickMs),
        Sim.WORLD,
        "leader-tick",
        () -> {
          if (tick != leaderTick || leader < 0) {
            return;
          }
          if (leaderHasQuorum()) {
            long now = servers[leader].wallMillis();
            for (Sess s : List.copyOf(sessions.values())) {
              if (!s.closing && s.expireAtMs <= now) {
                s.closing = true;
                sessions.remove(s.id);
                trace("expires session 0x" + Long.toHexString(s.id));
                commit(null, null, s.id, new Txn.CloseSession(s.id, true), -1);
              }
            }
          }
          scheduleTick(tick);
        });
  }

  /**
   * The leader pings every learner every half tick, on its own clock ({@code Leader.lead}: wait
   * tickTime / 2, then {@code LearnerHandler.ping} for each learner, queued on the leader's stream
   * to it, behind what was sent before). A learner answers a ping as it reads it, with the sessions
   * it heard from since its previous answer ({@code Learner.ping}: the touch table, taken and
   * cleared), on its stream to the leader, in order with the requests it forwards; the leader
   * touches each of them as it reads the answer ({@code LearnerHandler}'s {@code PING} case). A
   * forwarded request touches nothing at the leader ({@code submitLearnerRequest} goes straight to
   * the request pipeline): only these answers tell the leader a learner's sessions are alive.
   */
  private void schedulePings(long tick) {
    sim.after(
        (long) (tickMs * Sim.MS / 2 / servers[leader].clockRate),
        Sim.WORLD,
        "leader-ping",
        () -> {
          if (tick != leaderTick || leader < 0) {
            return;
          }
          for (SimServer s : servers) {
            if (s != leaderServer() && s.alive && s.serving) {
              fromLeader(s, "ping", () -> answerPing(s, tick));
            }
          }
          schedulePings(tick);
        });
  }

  /** At learner {@code s}: the leader's ping arrives; the answer carries its touch table. */
  private void answerPing(SimServer s, long tick) {
    if (tick != leaderTick || !s.alive || !s.serving) {
      return;
    }
    if (s.touched.isEmpty()) {
      return; // an empty answer touches nothing
    }
    List<Long> ids = List.copyOf(s.touched);
    s.touched.clear();
    toLeader(
        s,
        "touches",
        () -> {
          if (tick == leaderTick && leaderHasQuorum() && !isolated[s.id]) {
            ids.forEach(this::touch);
          }
        });
  }

  private void scheduleContainers(long tick) {
    sim.after(
        leaderNanos(containerCheckMs),
        Sim.WORLD,
        "containers",
        () -> {
          if (tick != leaderTick || leader < 0) {
            return;
          }
          if (leaderHasQuorum()) {
            SimTree t = servers[leader].tree;
            for (String c : List.copyOf(t.containers())) {
              SimTree.Node n = t.get(c);
              if (n != null && n.children.isEmpty() && n.cversion > 0) {
                trace("reaps container " + c);
                SimTree.Prepared p = t.prepare(new Req.Delete(c, -1), 0);
                commit(null, null, 0, p.txn(), -1);
              }
            }
          }
          scheduleContainers(tick);
        });
  }
}
