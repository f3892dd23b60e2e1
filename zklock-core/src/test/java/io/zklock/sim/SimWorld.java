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
  private final Semaphore baton = new Semaphore(0);
  private final SplittableRandom clocks;
  private SimFailure failure;

  SimWorld(long seed, Trace trace, int servers, long tickMs, long containerCheckMs) {
    this.sim = new Sim(seed, trace);
    this.net = new Net(sim);
    this.ens = new SimEnsemble(sim, net, servers, tickMs, containerCheckMs);
    this.checker = new Checker(sim, ens);
    this.events = new EventChecker(sim);
    this.clocks = sim.split();
    ens.onCommit = checker::committed;
    ens.start();
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
