package io.zklock.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * What one run does, drawn from its seed: the ensemble, the clients, which recipe they use, their
 * user threads, and the faults with their times. A failure is shrunk by dropping items of the plan
 * (and shortening faults); every item draws its own choices from a stream of its own, so dropping
 * one does not change what the others choose.
 */
final class Plan {
  /** The recipe a run exercises (its lock is shared by every client of the run). */
  enum Focus {
    MUTEX,
    READ_WRITE,
    SEMAPHORE,
    SIMPLE,
    MULTI,
    LEASE,
    LOCK_DELAY,
    COHORT,
    COHORT_READ_WRITE,
    ELECTION,
    CURATOR_MUTEX,
    CURATOR_READ_WRITE,
    CURATOR_SEMAPHORE,
    CURATOR_ELECTION,
    LATCH,
    BARRIER,
    DOUBLE_BARRIER,
    CONDITION,
    /** Several recipes on one name by mistake: each refuses the others' (STORED_KIND). */
    MIXED,
    /**
     * Two threads of one client on one mutex, no fault: every handoff is within one session, and
     * needs no listing (HANDOFF_READ).
     */
    SAME_SESSION
  }

  /** The focuses the workload drives so far. */
  static final Focus[] IMPLEMENTED = {
    Focus.MUTEX,
    Focus.READ_WRITE,
    Focus.SEMAPHORE,
    Focus.SIMPLE,
    Focus.MULTI,
    Focus.LEASE,
    Focus.LOCK_DELAY,
    Focus.COHORT,
    Focus.COHORT_READ_WRITE,
    Focus.ELECTION,
    Focus.CURATOR_MUTEX,
    Focus.CURATOR_READ_WRITE,
    Focus.CURATOR_SEMAPHORE,
    Focus.CURATOR_ELECTION,
    Focus.LATCH,
    Focus.BARRIER,
    Focus.DOUBLE_BARRIER,
    Focus.CONDITION,
    Focus.MIXED,
    Focus.SAME_SESSION,
  };

  /** Whether the focus is one of the coordination recipes (or the mixed name). */
  boolean coordination() {
    return focus == Focus.LATCH
        || focus == Focus.BARRIER
        || focus == Focus.DOUBLE_BARRIER
        || focus == Focus.CONDITION
        || focus == Focus.MIXED;
  }

  /** One item: a user thread, or a fault. */
  record Item(int index, String kind, long at, int target, int arg, long duration, long seed) {
    @Override
    public String toString() {
      return "#"
          + index
          + " "
          + kind
          + " at "
          + Trace.fmt(at)
          + (target >= 0 ? " target " + target : "")
          + (arg != 0 ? " arg " + arg : "")
          + (duration > 0 ? " for " + Trace.fmt(duration) : "");
    }
  }

  final long seed;
  final Focus focus;
  final int servers;
  final long tickMs;
  final long containerCheckMs;
  final int permits;
  final long lockDelayMs;
  final int[] sessionMs; // per zklock client
  final int curatorClients;
  final long faultsUntil;
  final long runUntil;
  final List<Item> items;

  /**
   * Whether the run's zklock clients batch their requests ({@code ZkLocks.Builder#batching}):
   * {@code -Dio.zklock.batching=true} by default, else off; {@link #batched(boolean)} sets it.
   */
  final boolean batched;

  private Plan(
      long seed,
      Focus focus,
      int servers,
      long tickMs,
      long containerCheckMs,
      int permits,
      long lockDelayMs,
      int[] sessionMs,
      int curatorClients,
      long faultsUntil,
      long runUntil,
      List<Item> items,
      boolean batched) {
    this.seed = seed;
    this.focus = focus;
    this.servers = servers;
    this.tickMs = tickMs;
    this.containerCheckMs = containerCheckMs;
    this.permits = permits;
    this.lockDelayMs = lockDelayMs;
    this.sessionMs = sessionMs;
    this.curatorClients = curatorClients;
    this.faultsUntil = faultsUntil;
    this.runUntil = runUntil;
    this.items = items;
    this.batched = batched;
  }

  static final String[] FAULTS = {
    "partition", // a client cut off from some or all servers
    "reset", // a client's connection closed: replies in flight lost
    "expire", // the leader expires a client's session now
    "lag", // a follower applies late; a client's connection reset (it may land there)
    "crash", // a server crashes, restarts later
    "failover", // the leader crashes, restarts later
    "isolate", // a server cut off from the others
    "pause", // a client process stops (GC), maybe past its session timeout
    "flaky", // a client's replies lost with its connection, now and then, for a while
  };

  /** Salts the stream of the deadline fault (the plan's other draws stay as they were). */
  private static final long DEADLINE_STREAM = 0x646561646c696e65L;

  /** One plan with faults in this many also has a deadline fault. */
  static final int DEADLINE_ONE_IN = 2;

  /** How long a deadline fault waits for a holder with another client waiting behind it. */
  static final long DEADLINE_WAIT = 5 * Sim.SEC;

  /** The plan of {@code seed}, for {@code only} (null: any focus). */
  static Plan of(long seed, Focus only) {
    return of(seed, only == null ? IMPLEMENTED : new Focus[] {only});
  }

  /** The plan of {@code seed}, its focus drawn from {@code from}. */
  static Plan of(long seed, Focus[] from) {
    SplittableRandom r = new SplittableRandom(seed ^ 0x5DEECE66DL);
    Focus focus = from[r.nextInt(from.length)];
    int servers = r.nextInt(10) < 8 ? 3 : (r.nextBoolean() ? 1 : 5);
    long tickMs = 50 + 50 * r.nextInt(6);
    long containerCheckMs = r.nextBoolean() ? 0 : 200 + 100 * r.nextInt(30);
    int permits = 1 + r.nextInt(3);
    long lockDelayMs = 100 + 50 * r.nextInt(10);
    int clients = focus == Focus.SAME_SESSION ? 1 : 2 + r.nextInt(3);
    int[] sessionMs = new int[clients];
    for (int i = 0; i < clients; i++) {
      sessionMs[i] = 1500 + 500 * r.nextInt(8);
    }
    boolean curator = focus.name().startsWith("CURATOR");
    int curatorClients = curator ? 1 + r.nextInt(2) : 0;
    long faultsUntil = (10 + r.nextInt(20)) * Sim.SEC;
    long runUntil = faultsUntil + 60 * Sim.SEC;
    List<Item> items = new ArrayList<>();
    int actors = clients + curatorClients;
    for (int c = 0; c < actors; c++) {
      int threads = focus == Focus.SAME_SESSION ? 2 : 1 + r.nextInt(3);
      for (int t = 0; t < threads; t++) {
        items.add(
            new Item(
                items.size(),
                "thread",
                Sim.between(r, 0, 2 * Sim.SEC),
                c,
                4 + r.nextInt(12),
                0,
                r.nextLong()));
      }
    }
    int faults = focus == Focus.SAME_SESSION ? 0 : r.nextInt(10);
    for (int f = 0; f < faults; f++) {
      String kind = FAULTS[r.nextInt(FAULTS.length)];
      long at = Sim.between(r, Sim.SEC, faultsUntil - Sim.SEC);
      int target;
      long duration;
      switch (kind) {
        case "partition", "reset", "expire", "pause", "flaky" -> target = r.nextInt(actors);
        default -> target = r.nextInt(servers);
      }
      long maxSession = 0;
      for (int s : sessionMs) {
        maxSession = Math.max(maxSession, s);
      }
      duration =
          switch (kind) {
            case "partition", "pause" ->
                r.nextBoolean()
                    ? Sim.between(r, 100 * Sim.MS, maxSession * Sim.MS / 2)
                    : Sim.between(r, maxSession * Sim.MS / 2, 3 * maxSession * Sim.MS);
            case "lag" -> Sim.between(r, 200 * Sim.MS, 4 * Sim.SEC);
            case "flaky" -> Sim.between(r, Sim.SEC, 8 * Sim.SEC);
            case "crash", "failover", "isolate" -> Sim.between(r, 500 * Sim.MS, 8 * Sim.SEC);
            default -> 0;
          };
      int arg =
          kind.equals("partition")
              ? 1 + r.nextInt((1 << servers) - 1)
              : kind.equals("flaky") ? 5 + r.nextInt(30) : 0;
      items.add(new Item(items.size(), kind, at, target, arg, duration, r.nextLong()));
    }
    // a partition timed against zklock's session deadline (SimRun#deadline), in one plan of
    // DEADLINE_ONE_IN that has faults: drawn from a stream of its own, after the others, so that
    // the items above (and their indices) stay as they were
    SplittableRandom d = new SplittableRandom(seed ^ DEADLINE_STREAM);
    if (faults > 0 && d.nextInt(DEADLINE_ONE_IN) == 0) {
      long maxSession = 0;
      for (int s : sessionMs) {
        maxSession = Math.max(maxSession, s);
      }
      items.add(
          new Item(
              items.size(),
              "deadline",
              Sim.between(d, Sim.SEC, faultsUntil - Sim.SEC),
              d.nextInt(clients),
              0,
              DEADLINE_WAIT + maxSession * Sim.MS, // the latest its cut can end
              d.nextLong()));
    }
    return new Plan(
        seed,
        focus,
        servers,
        tickMs,
        containerCheckMs,
        permits,
        lockDelayMs,
        sessionMs,
        curatorClients,
        faultsUntil,
        runUntil,
        List.copyOf(items),
        Boolean.getBoolean(io.zklock.internal.ZkLocksFactory.BATCHING_PROPERTY));
  }

  /** This plan without the items whose indices are in {@code drop}, and with shortened ones. */
  Plan with(List<Item> kept) {
    return new Plan(
        seed,
        focus,
        servers,
        tickMs,
        containerCheckMs,
        permits,
        lockDelayMs,
        sessionMs,
        curatorClients,
        faultsUntil,
        runUntil,
        List.copyOf(kept),
        batched);
  }

  /** This plan with its zklock clients batching their requests or not. */
  Plan batched(boolean on) {
    return new Plan(
        seed,
        focus,
        servers,
        tickMs,
        containerCheckMs,
        permits,
        lockDelayMs,
        sessionMs,
        curatorClients,
        faultsUntil,
        runUntil,
        items,
        on);
  }

  @Override
  public String toString() {
    StringBuilder b =
        new StringBuilder(
            "seed "
                + seed
                + ": "
                + focus
                + ", "
                + servers
                + " servers, tick "
                + tickMs
                + " ms, containers "
                + (containerCheckMs == 0
                    ? "never reaped"
                    : "reaped every " + containerCheckMs + " ms")
                + ", sessions "
                + java.util.Arrays.toString(sessionMs)
                + " ms"
                + (curatorClients > 0 ? ", " + curatorClients + " Curator clients" : "")
                + (focus == Focus.SEMAPHORE || focus == Focus.CURATOR_SEMAPHORE
                    ? ", " + permits + " permits"
                    : "")
                + (focus == Focus.LOCK_DELAY ? ", lock-delay " + lockDelayMs + " ms" : "")
                + (batched ? ", batched" : "")
                + ", faults until "
                + Trace.fmt(faultsUntil));
    for (Item i : items) {
      b.append("\n  ").append(i);
    }
    return b.toString();
  }
}
