package io.zklock.sim;

import io.zklock.SuspensionPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.CreateMode;

/**
 * Runs one {@link Plan}: builds the world, starts the user threads, applies the faults at their
 * times, lets the faults stop and the threads finish, closes every client, and checks what must be
 * true at quiescence and after the close. Returns the outcome; never throws a violation.
 */
final class SimRun {
  /** The outcome of one run. */
  record Result(
      Plan plan,
      SimFailure failure,
      List<String> trace,
      long steps,
      long simNanos,
      long wallNanos,
      Map<String, Long> counters) {
    boolean failed() {
      return failure != null;
    }

    String rule() {
      return failure == null ? null : failure.rule;
    }
  }

  private SimRun() {}

  /**
   * How many times a run starts again because a thread descheduled holding a monitor held what
   * another needed (SimActor#preempt); after that, it deschedules no holder from that point on.
   */
  static final int RESTARTS = 2;

  static Result run(Plan plan, int traceKeep, boolean echo) {
    // a preemption of a thread holding a monitor that another thread then needed cannot be played
    // out one thread at a time: the run starts again without it (SimActor#preempt). An echoed run
    // learns which quietly first, so that only the attempt that counts is printed.
    java.util.Set<Integer> skip = new java.util.TreeSet<>();
    long t0 = System.nanoTime();
    Result r;
    do {
      r = attempt(plan, traceKeep, false, skip, t0);
    } while (r == null);
    if (echo) {
      do {
        r = attempt(plan, traceKeep, true, skip, t0);
      } while (r == null);
    }
    return r;
  }

  /** One attempt; null if it met contention (that preemption is then added to {@code skip}). */
  private static Result attempt(
      Plan plan, int traceKeep, boolean echo, java.util.Set<Integer> skip, long t0) {
    Trace trace = new Trace(traceKeep, echo);
    SimWorld w = new SimWorld(plan.seed, trace, plan.servers, plan.tickMs, plan.containerCheckMs);
    w.batched = plan.batched;
    w.sim.noPreemptHolding = java.util.Set.copyOf(skip);
    if (skip.size() >= RESTARTS) {
      w.sim.preemptHoldingBelow = java.util.Collections.max(skip);
    }
    SimFailure failure = null;
    int contended = -1;
    try {
      run(w, plan);
    } catch (Sim.Contended c) {
      contended = c.index;
    } catch (SimFailure f) {
      contended = w.sim.contended; // a failure after the contention is of a run that is over
      failure = f;
    } catch (RuntimeException | Error e) {
      contended = w.sim.contended;
      failure = new SimFailure("CRASH", "the run threw " + e + SimWorld.stackOf(e), e);
    } finally {
      w.close();
    }
    if (contended >= 0) {
      if (w.sim.firstFailure == null) {
        skip.add(contended);
        return null;
      }
      // found before the contention: what led there is an interleaving the JVM can produce
      failure = w.sim.firstFailure;
    }
    if (!skip.isEmpty()) {
      w.checker.count("preempt.holding.restarts", skip.size());
    }
    return new Result(
        plan,
        failure,
        trace.lines(),
        w.sim.steps(),
        w.sim.now(),
        System.nanoTime() - t0,
        w.checker.counters);
  }

  private static void run(SimWorld w, Plan plan) {
    Sim sim = w.sim;
    Workload work = new Workload(w, plan);
    Coordination coord = new Coordination(w, plan);
    // the store the guarded writes go to, made before anyone starts
    sim.after(
        0,
        Sim.WORLD,
        "setup",
        () -> w.ens.setup(Workload.STORE, "0".getBytes(), CreateMode.PERSISTENT));
    sim.runUntil(Sim.MS);
    List<ZkNode> clients = new ArrayList<>();
    long maxSession = 0;
    for (int i = 0; i < plan.sessionMs.length; i++) {
      clients.add(w.zklock("c" + i, plan.sessionMs[i], SuspensionPolicy.WAIT_FOR_EXPIRY));
      maxSession = Math.max(maxSession, plan.sessionMs[i] * Sim.MS);
    }
    List<Curator.Framework> curators = new ArrayList<>();
    for (int i = 0; i < plan.curatorClients; i++) {
      SimProcess p = w.process("curator" + i);
      int ms = 3000 + 500 * (i % 4);
      curators.add(new Curator.Framework("curator" + i, p, w.ens, w.net, ms));
      maxSession = Math.max(maxSession, ms * Sim.MS);
    }
    if (plan.focus == Plan.Focus.SEMAPHORE || plan.focus == Plan.Focus.CURATOR_SEMAPHORE) {
      w.checker.permits(Workload.LOCK, plan.permits);
    }
    long quiet = plan.faultsUntil;
    for (Plan.Item item : plan.items) {
      if (item.kind().equals("thread")) {
        if (item.target() < clients.size()) {
          w.plannedActors++;
          ZkNode n = clients.get(item.target());
          sim.at(
              item.at(),
              Sim.WORLD,
              "start thread",
              () ->
                  w.actor(
                      n.process,
                      n.name + ".t" + item.index(),
                      plan.coordination() ? coord.thread(n, item) : work.thread(n, item)));
        } else if (item.target() - clients.size() < curators.size()) {
          Curator.Framework fw = curators.get(item.target() - clients.size());
          w.plannedActors++;
          sim.at(
              item.at(),
              Sim.WORLD,
              "start thread",
              () ->
                  w.actor(fw.process, fw.name + ".t" + item.index(), work.curatorThread(fw, item)));
        }
      } else {
        quiet = Math.max(quiet, item.at() + item.duration());
        sim.at(item.at(), Sim.WORLD, "fault", () -> fault(w, clients, curators, item));
      }
    }
    w.checker.quietFrom = quiet;
    // ORPHAN judges the lock focuses' directories (-Dsim.orphan=false: not at all, to show what
    // the other rules see without it)
    if (!plan.coordination()
        && !"false".equals(System.getProperty("sim.orphan"))
        && plan.focus != Plan.Focus.ELECTION
        && plan.focus != Plan.Focus.CURATOR_ELECTION) {
      w.checker.orphanDirs = List.of("/zklock/" + Workload.LOCK, "/zklock/" + Workload.LOCK + "-b");
    }
    if (plan.focus == Plan.Focus.SAME_SESSION) {
      w.handoffReads(clients.get(0), "/zklock/" + Workload.LOCK);
    }
    if (plan.focus == Plan.Focus.LOCK_DELAY) {
      clients.forEach(w::delayReads);
    }
    long bound =
        4 * maxSession
            + 20 * Sim.SEC
            + (plan.focus == Plan.Focus.LOCK_DELAY ? 20 * plan.lockDelayMs * Sim.MS : 0);
    // a free lock owes its waiter a grant once the nodes of the sessions the faults ended are gone
    w.checker.stallFrom = quiet + maxSession + 2 * Sim.SEC;
    w.checker.stallBound =
        5 * Sim.SEC + (plan.focus == Plan.Focus.LOCK_DELAY ? 2 * plan.lockDelayMs * Sim.MS : 0);
    w.startChecks(bound);
    // the threads finish their work
    long deadline = Math.max(plan.runUntil, quiet + bound + 5 * Sim.SEC);
    while (sim.now() < deadline && !allDone(w)) {
      w.runUntil(Math.min(deadline, sim.now() + Sim.SEC));
    }
    if (!allDone(w)) {
      w.checker.progress(0); // names the request that still waits
      if (w.checker.stalledByCurator()) {
        return; // Curator's semaphore stuck by its own lease without admission: nothing owed
      }
      StringBuilder busy = new StringBuilder();
      for (SimActor a : w.actors) {
        if (!a.finished()) {
          busy.append("\n    ").append(a.where());
        }
      }
      throw new SimFailure(
          "PROGRESS", "user threads still busy at " + Trace.fmt(sim.now()) + ":" + busy);
    }
    // quiescence: nothing held, nothing queued; background deletions get a session timeout once
    // the faults are over (threads may finish while a fault still holds a deletion up: a paused
    // client, a partition, an ensemble without a leader). Counted from the close alone, the check
    // after it could also come before the ensemble could expire a session its client gave up on: a
    // new leader counts every session's timeout afresh, so crashes after the close put that off
    w.runUntil(Math.max(sim.now(), quiet) + maxSession + 2 * Sim.SEC);
    w.checker.clean(w.nodes, false);
    coord.checkLatchAtEnd();
    for (ZkNode n : clients) {
      sim.after(0, n.process, "close", n.locks::close);
    }
    w.runUntil(sim.now() + 2 * maxSession + 5 * Sim.SEC);
    w.checker.clean(w.nodes, true);
  }

  private static boolean allDone(SimWorld w) {
    if (w.actors.size() < w.plannedActors) {
      return false;
    }
    for (SimActor a : w.actors) {
      if (!a.finished()) {
        return false;
      }
    }
    return true;
  }

  /**
   * A partition timed against zklock's own session deadline (the plan's "deadline" fault): from its
   * time, as soon as a zklock caller holds a lock that a caller of another client waits for
   * (checked every 50 ms, for up to {@link Plan#DEADLINE_WAIT}; then the planned client), that
   * holder's client is cut off from every server until just before zklock declares its session lost
   * ({@link io.zklock.internal.zk.SessionDeadlines}). The answers that would have kept the session
   * arrive just after the deadline, while its connection is up: if it never dropped (something was
   * heard lately), they are the heartbeats held by the partition (the cut ends 0 to 3 ms before the
   * deadline); if it dropped, its connect attempt held by the partition gets through, and the new
   * connection's first heartbeat is the answer (2 to 12 ms before). The session is then declared
   * lost with its handle connected, its lock held, and a waiter of another client next.
   */
  private static void deadline(SimWorld w, List<ZkNode> clients, Plan.Item f, long until) {
    SimProcess holder = w.checker.holderWithAnotherWaiting();
    if (holder == null && w.sim.now() < until) {
      w.sim.after(50 * Sim.MS, Sim.WORLD, "deadline fault", () -> deadline(w, clients, f, until));
      return;
    }
    ZkNode target = clients.get(f.target());
    for (ZkNode n : clients) {
      if (n.process == holder) {
        target = n;
      }
    }
    SimZkClient handle = target.current();
    long due =
        handle == null
            ? Long.MIN_VALUE
            : io.zklock.internal.zk.SessionDeadlines.dueNanos(
                target.locks, handle.getSessionTimeout());
    long nowClock = target.process.clock.nanoTime();
    Sim sim = w.sim;
    if (due == Long.MIN_VALUE || due - nowClock < 50 * Sim.MS) {
      trace(sim, "deadline fault: " + target.name + " has no session deadline to time against");
      return;
    }
    java.util.SplittableRandom r = new java.util.SplittableRandom(f.seed());
    boolean drops = handle.dropsBefore(due);
    long before = drops ? Sim.between(r, 2 * Sim.MS, 12 * Sim.MS) : Sim.between(r, 0, 3 * Sim.MS);
    long heal = sim.now() + target.process.simDelay(due - nowClock) - before;
    for (int s = 0; s < w.ens.servers.length; s++) {
      w.net.cut(target.process.name(), s, sim.now(), heal);
    }
    w.checker.fault(heal);
    w.checker.count(holder != null ? "fault.deadline.holder" : "fault.deadline.planned");
    trace(
        sim,
        "deadline fault: "
            + target.name
            + " cut off from every server until "
            + Trace.fmt(heal)
            + ", "
            + Trace.fmt(before)
            + " s before zklock's deadline for its session"
            + (drops ? " (its connection drops meanwhile)" : "")
            + (holder != null ? "" : " (no holder with another client waiting)"));
  }

  private static void trace(Sim sim, String what) {
    if (sim.trace.on()) {
      sim.trace.add(sim.now(), "fault", what);
    }
  }

  private static void fault(
      SimWorld w, List<ZkNode> clients, List<Curator.Framework> curators, Plan.Item f) {
    Sim sim = w.sim;
    SimEnsemble ens = w.ens;
    if (sim.trace.on()) {
      sim.trace.add(sim.now(), "fault", f.toString());
    }
    w.checker.count("fault." + f.kind());
    w.checker.fault(sim.now() + Math.max(0, f.duration()));
    ZkNode client = f.target() < clients.size() ? clients.get(f.target()) : null;
    Curator.Framework curator =
        f.target() >= clients.size() && f.target() - clients.size() < curators.size()
            ? curators.get(f.target() - clients.size())
            : null;
    SimProcess proc = client != null ? client.process : curator != null ? curator.process : null;
    SimZkClient handle = client != null ? client.current() : curator != null ? curator.zk : null;
    switch (f.kind()) {
      case "partition" -> {
        if (proc != null) {
          for (int s = 0; s < ens.servers.length; s++) {
            if ((f.arg() & (1 << s)) != 0) {
              w.net.cut(proc.name(), s, sim.now(), sim.now() + f.duration());
            }
          }
        }
      }
      case "deadline" -> deadline(w, clients, f, sim.now() + Plan.DEADLINE_WAIT);
      case "reset" -> {
        if (handle != null) {
          handle.resetConnection();
        }
      }
      case "expire" -> {
        // recorded only if it happens (not during an election, nor of a session already gone):
        // the checker excuses the holders of a session expired by force from then on
        if (handle != null && ens.canExpireNow(handle.getSessionId())) {
          long session = handle.getSessionId();
          w.checker.forcedExpiry(session);
          ens.expireNow(session);
        }
      }
      case "lag" -> {
        SimServer s = ens.servers[f.target()];
        s.extraLag = f.duration();
        sim.after(f.duration(), Sim.WORLD, "lag over", () -> s.extraLag = 0);
        for (ZkNode n : clients) {
          if (n.current() != null) {
            n.current().resetConnection(); // a reconnection may land on the lagging server
          }
        }
      }
      case "crash" -> {
        ens.crash(f.target());
        sim.after(f.duration(), Sim.WORLD, "restart", () -> ens.restart(f.target()));
      }
      case "failover" -> {
        int l = ens.leaderId();
        if (l >= 0) {
          ens.crash(l);
          sim.after(f.duration(), Sim.WORLD, "restart", () -> ens.restart(l));
        }
      }
      case "isolate" -> {
        ens.isolate(f.target(), true);
        sim.after(f.duration(), Sim.WORLD, "rejoin", () -> ens.isolate(f.target(), false));
      }
      case "flaky" -> {
        if (handle != null) {
          handle.flakyUntil = sim.now() + f.duration();
          handle.flakyPercent = f.arg();
        }
      }
      case "pause" -> {
        if (proc != null) {
          proc.pause(f.duration());
        }
      }
      default -> throw new IllegalStateException("unknown fault " + f.kind());
    }
  }
}
