package io.zklock.sim;

import io.zklock.SuspensionPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Semaphore;

/**
 * One simulated world: the ensemble, the network, the client processes (zklock's and foreign ones),
 * their user threads, the checker; all driven by one {@link Sim} from one seed.
 */
final class SimWorld implements AutoCloseable {
  final Sim sim;
  final Net net;
  final SimEnsemble ens;
  final Checker checker;
  final EventChecker events;
  final List<SimProcess> processes = new ArrayList<>();
  final List<ZkNode> nodes = new ArrayList<>();
  final List<SimActor> actors = new ArrayList<>();
  int plannedActors;

  /** Whether the zklock clients made from now on batch their requests (the plan says). */
  boolean batched = Boolean.getBoolean(io.zklock.internal.ZkLocksFactory.BATCHING_PROPERTY);

  private final Semaphore baton = new Semaphore(0);
  private final SplittableRandom clocks;
  private SimFailure failure;

  SimWorld(long seed, Trace trace, int servers, long tickMs, long containerCheckMs) {
    this.sim = new Sim(seed, trace);
    this.net = new Net(sim);
    this.ens = new SimEnsemble(sim, net, servers, tickMs, containerCheckMs);
    this.checker = new Checker(sim, ens);
    this.checker.net = net;
    this.events = new EventChecker(sim);
    this.clocks = sim.split();
    ens.onCommit =
        e -> {
          checker.committed(e);
          barrier(e.txn(), e.zxid(), "/zklock/" + Coordination.NAME);
        };
    ens.start();
    checker.zklockSession =
        session -> {
          for (ZkNode n : nodes) {
            for (SimZkClient c : n.handles) {
              if (c.getSessionId() == session) {
                return true;
              }
            }
          }
          return false;
        };
  }

  /** The barrier's node: the zxids from which it was absent, and until which ([from, until)). */
  private final List<long[]> barrierDown = new ArrayList<>();

  private long barrierGoneSince = 0; // absent from the start
  private boolean barrierUp;

  void barrier(Txn t, long zxid, String path) {
    if (t instanceof Txn.Multi m) {
      for (Txn op : m.ops()) {
        barrier(op, zxid, path);
      }
    } else if (t instanceof Txn.Create c && c.path().equals(path) && !barrierUp) {
      barrierUp = true;
      barrierDown.add(new long[] {barrierGoneSince, zxid});
    } else if (t instanceof Txn.Delete d && d.path().equals(path) && barrierUp) {
      barrierUp = false;
      barrierGoneSince = zxid;
    }
  }

  /**
   * Whether the barrier's node was absent in some state of the log from zxid {@code from} to the
   * leader's last now: a session reads no state older than the last zxid it has seen, and no newer
   * than the leader's; any between (ZooKeeper's reads are sequentially consistent, not
   * linearizable: a follower may answer from a state the leader has moved past).
   */
  boolean barrierDownBetween(long from) {
    long to = ens.lastZxid();
    if (!barrierUp && barrierGoneSince <= to) {
      return true;
    }
    for (long[] d : barrierDown) {
      if (d[0] <= to && d[1] > from) {
        return true;
      }
    }
    return false;
  }

  /**
   * HANDOFF_READ: within one session a handoff is the holder's own delete, and the waiter behind it
   * is granted on it without a listing (docs/engine.md): with one client of two threads, every
   * listing of the lock's directory goes out with a create (pipelined), none after a release.
   */
  void handoffReads(ZkNode node, String dir) {
    int[] creates = {0};
    int[] listings = {0};
    node.onSend =
        (c, r) -> {
          if (r instanceof Req.Create cr && SimTree.parent(cr.path()).equals(dir)) {
            creates[0]++;
          } else if (r instanceof Req.GetChildren g && g.path().equals(dir)) {
            listings[0]++;
            if (listings[0] > creates[0]) {
              fail(
                  new SimFailure(
                      "HANDOFF_READ",
                      node.name
                          + " listed "
                          + dir
                          + " "
                          + listings[0]
                          + " times for "
                          + creates[0]
                          + " creates: a same-session handoff read the directory"));
            }
          }
        };
  }

  /**
   * DELAY_READ (docs/guarantees.md, lock-delay): a waiter that waited out a delay holds on one read
   * of its own node, answered after the delay began: the timer alone proves neither that its
   * session lives nor that its node stands. The delay's start shows as the waiter's mark on its
   * node ({@code lockDelayUntil}).
   */
  void delayReads(ZkNode node) {
    java.util.Map<String, Long> marked = new java.util.HashMap<>();
    java.util.Map<String, Long> read = new java.util.HashMap<>();
    node.onSend =
        (c, r) -> {
          if (r instanceof Req.SetData sd
              && new String(sd.data(), java.nio.charset.StandardCharsets.UTF_8)
                  .contains("lockDelayUntil")) {
            marked.put(sd.path(), sim.now());
          }
        };
    node.onAnswer =
        (r, rc) -> {
          if (rc == 0 && r instanceof Req.Exists e) {
            read.put(e.path(), sim.now());
          } else if (rc == 0 && r instanceof Req.GetData g) {
            read.put(g.path(), sim.now());
          }
        };
    node.onGrant =
        path -> {
          Long m = marked.get(path);
          if (m == null) {
            return;
          }
          Long r = read.get(path);
          if (r == null || r < m) {
            fail(
                new SimFailure(
                    "DELAY_READ",
                    node.name
                        + " granted "
                        + path
                        + " after waiting out a lock-delay (marked at "
                        + Trace.fmt(m)
                        + ") without a read of its own node answered since"));
          }
        };
  }

  /** A new client process whose clock runs at a rate within 1 % of the world's. */
  SimProcess process(String name) {
    double rate = 1.0 + (clocks.nextDouble() * 2 - 1) * 0.01;
    SimProcess p = new SimProcess(sim, name, sim.split(), rate);
    p.onUncaught = t -> fail(new SimFailure("UNCAUGHT", name + ": a library task threw " + t, t));
    processes.add(p);
    return p;
  }

  /** A zklock client process. */
  ZkNode zklock(String name, int sessionTimeoutMs, SuspensionPolicy policy) {
    SimProcess p = process(name);
    ZkNode[] node = new ZkNode[1];
    ZkNode n = new ZkNode(this, name, p, sessionTimeoutMs, policy, e -> events.event(node[0], e));
    node[0] = n;
    nodes.add(n);
    return n;
  }

  /** A user thread of {@code process}, started now. */
  SimActor actor(SimProcess process, String name, SimActor.Body body) {
    SimActor a =
        new SimActor(
            sim,
            process,
            name,
            baton,
            body,
            (actor, t) ->
                fail(
                    t instanceof SimFailure f
                        ? f
                        : new SimFailure("UNCAUGHT", actor.name + " threw " + t + stackOf(t), t)));
    actors.add(a);
    a.start();
    return a;
  }

  static String stackOf(Throwable t) {
    StringBuilder b = new StringBuilder();
    for (StackTraceElement e : t.getStackTrace()) {
      if (b.length() > 1500) {
        break;
      }
      b.append("\n    at ").append(e);
    }
    return b.toString();
  }

  void fail(SimFailure f) {
    if (failure == null) {
      failure = f;
    }
    sim.fail(f);
  }

  /** Runs the world until {@code until}, checking as it goes; throws the first violation. */
  void runUntil(long until) {
    sim.runUntil(until);
    if (failure != null) {
      throw failure;
    }
  }

  /** Starts the periodic checks (every 50 ms of simulated time). */
  void startChecks(long progressBound) {
    sim.after(
        50 * Sim.MS,
        Sim.WORLD,
        "check",
        new Runnable() {
          @Override
          public void run() {
            checker.periodic();
            checker.stall();
            checker.orphans(nodes);
            checker.progress(progressBound);
            sim.after(50 * Sim.MS, Sim.WORLD, "check", this);
          }
        });
  }

  @Override
  public void close() {
    for (SimActor a : actors) {
      a.abandon();
    }
  }
}
