package io.zklock.sim;

import io.zklock.DistributedLock;
import io.zklock.DistributedSemaphore;
import io.zklock.LeaderElection;
import io.zklock.LeadershipListener;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.LockOptions;
import io.zklock.ReadWriteLock;
import io.zklock.ZkLockException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The user threads of zklock's clients: each takes the run's lock by one of the API's ways
 * (acquire, tryAcquire, tryAcquire with a timeout, acquireAsync with a cancel), may be interrupted
 * or cancel at any step, holds a while (writing through a guarded transaction), and releases by one
 * of the ways; every outcome is told to the {@link Checker}, and every exception is judged against
 * what the API documents.
 */
final class Workload {
  static final String LOCK = "res";
  static final String STORE = "/store";

  private final SimWorld w;
  private final Plan plan;

  Workload(SimWorld w, Plan plan) {
    this.w = w;
    this.plan = plan;
  }

  /** The body of user thread {@code item} of zklock client {@code node}. */
  SimActor.Body thread(ZkNode node, Plan.Item item) {
    SplittableRandom r = new SplittableRandom(item.seed());
    String name = node.name + ".t" + item.index();
    return switch (plan.focus) {
      case ELECTION, CURATOR_ELECTION -> self -> election(self, node, name, r, item.arg());
      default ->
          self ->
              locking(
                  self,
                  node,
                  name,
                  r,
                  new SplittableRandom(item.seed() ^ LONG_HOLDS_STREAM),
                  item.arg());
    };
  }

  /** One way to take the run's lock, with the mode the checker judges it by. */
  private record Target(Object lock, Checker.Mode mode, String kind, int permits, long leaseNanos) {
    Target(Object lock, Checker.Mode mode, String kind, int permits) {
      this(lock, mode, kind, permits, 0L);
    }
  }

  private Target target(ZkNode node, SplittableRandom r) {
    var locks = node.locks;
    return switch (plan.focus) {
      case MUTEX, CURATOR_MUTEX, SAME_SESSION ->
          new Target(
              plan.focus != Plan.Focus.CURATOR_MUTEX
                  ? locks.mutex(LOCK)
                  : locks.mutex(LOCK, LockOptions.curatorCompatible()),
              Checker.Mode.EXCLUSIVE,
              "mutex",
              1);
      case COHORT ->
          new Target(locks.mutex(LOCK, LockOptions.cohort()), Checker.Mode.EXCLUSIVE, "cohort", 1);
      case LOCK_DELAY ->
          new Target(
              locks.mutex(
                  LOCK, LockOptions.defaults().lockDelay(Duration.ofMillis(plan.lockDelayMs))),
              Checker.Mode.EXCLUSIVE,
              "delayed mutex",
              1);
      case LEASE -> {
        long leaseMs = 300 + r.nextInt(1500);
        yield new Target(
            locks.mutex(LOCK).withLease(Duration.ofMillis(leaseMs)),
            Checker.Mode.EXCLUSIVE,
            "leased mutex",
            1,
            leaseMs * Sim.MS);
      }
      case SIMPLE -> new Target(locks.simpleLock(LOCK), Checker.Mode.EXCLUSIVE, "simple", 1);
      case MULTI ->
          new Target(
              locks.multiLock(locks.mutex(LOCK), locks.mutex(LOCK + "-b")),
              Checker.Mode.EXCLUSIVE,
              "multi",
              1);
      case READ_WRITE, COHORT_READ_WRITE, CURATOR_READ_WRITE -> {
        ReadWriteLock rw =
            switch (plan.focus) {
              case COHORT_READ_WRITE -> locks.readWriteLock(LOCK, LockOptions.cohort());
              case CURATOR_READ_WRITE -> locks.readWriteLock(LOCK, LockOptions.curatorCompatible());
              default -> locks.readWriteLock(LOCK);
            };
        boolean read = r.nextInt(10) < 6;
        yield new Target(
            read ? rw.readLock() : rw.writeLock(),
            read ? Checker.Mode.READ : Checker.Mode.EXCLUSIVE,
            read ? "read" : "write",
            1);
      }
      case SEMAPHORE, CURATOR_SEMAPHORE ->
          new Target(
              plan.focus == Plan.Focus.SEMAPHORE
                  ? locks.semaphore(LOCK, plan.permits)
                  : locks.semaphore(LOCK, plan.permits, LockOptions.curatorCompatible()),
              Checker.Mode.LEASE,
              "lease",
              1);
      default -> throw new IllegalStateException("not a lock focus: " + plan.focus);
    };
  }

  /** Salts the stream of a thread's long holds (the thread's other draws stay as they were). */
  private static final long LONG_HOLDS_STREAM = 0x6c6f6e67L;

  /** While the faults go on, one hold in this many lasts one to three session timeouts. */
  static final int LONG_HOLD_ONE_IN = 4;

  private void locking(
      SimActor self,
      ZkNode node,
      String name,
      SplittableRandom r,
      SplittableRandom longHolds,
      int ops)
      throws Exception {
    for (int k = 0; k < ops; k++) {
      self.sleep(Sim.between(r, 0, 400 * Sim.MS));
      Target t = target(node, r);
      int how = r.nextInt(100);
      String way =
          how < 35
              ? "acquire"
              : how < 50 ? "tryAcquire" : how < 75 ? "tryAcquire(t)" : "acquireAsync";
      if (plan.focus == Plan.Focus.SAME_SESSION) {
        way = "acquire"; // handoffs only: a withdrawn predecessor is listed past, by design
      }
      Checker.Hold h =
          w.checker.request(
              name,
              node.process,
              LOCK,
              t.mode(),
              false,
              node.sessionTimeoutNanos,
              t.kind() + " " + way);
      h.leaseNanos = t.leaseNanos();
      boolean interrupt =
          !way.equals("tryAcquire") && r.nextInt(100) < 8 && plan.focus != Plan.Focus.SAME_SESSION;
      long interruptAfter = Sim.between(r, 0, 2 * Sim.SEC);
      LockHandle got;
      try {
        got =
            switch (way) {
              case "acquire" -> {
                if (interrupt) {
                  interruptLater(self, interruptAfter);
                }
                yield t.lock() instanceof DistributedLock l
                    ? l.acquire()
                    : ((DistributedSemaphore) t.lock()).acquire();
              }
              case "tryAcquire" ->
                  (t.lock() instanceof DistributedLock l
                          ? l.tryAcquire()
                          : ((DistributedSemaphore) t.lock()).tryAcquire())
                      .orElse(null);
              case "tryAcquire(t)" -> {
                if (interrupt) {
                  interruptLater(self, interruptAfter);
                }
                Duration d = Duration.ofMillis(Sim.between(r, 1, 6000));
                yield (t.lock() instanceof DistributedLock l
                        ? l.tryAcquire(d)
                        : ((DistributedSemaphore) t.lock()).tryAcquire(d))
                    .orElse(null);
              }
              default -> {
                CompletableFuture<LockHandle> f =
                    t.lock() instanceof DistributedLock l
                        ? l.acquireAsync()
                        : ((DistributedSemaphore) t.lock()).acquireAsync();
                boolean cancel = r.nextInt(100) < 20;
                if (cancel) {
                  long at = Sim.between(r, 0, 3 * Sim.SEC);
                  w.sim.after(
                      self.process.simDelay(at),
                      self.process,
                      "cancel",
                      () -> {
                        if (f.cancel(true)) {
                          h.cancelled = true;
                        }
                      });
                }
                yield waitFor(self, f);
              }
            };
      } catch (InterruptedException e) {
        cancelInterrupt(self);
        documented(h, callOf(way), way, e);
        if (!interrupt) {
          throw new SimFailure("EXCEPTIONS", h + ": interrupted, but nobody interrupted it");
        }
        w.checker.ended(h, "interrupted", true);
        continue;
      } catch (CancellationException e) {
        documented(h, callOf(way), way, e);
        if (!h.cancelled) {
          throw new SimFailure("EXCEPTIONS", h + ": cancelled, but nobody cancelled it");
        }
        w.checker.ended(h, "cancelled", true);
        continue;
      } catch (ZkLockException e) {
        cancelInterrupt(self);
        documented(h, callOf(way), way, e); // tryAcquire() without a connection: it does not guess
        w.checker.ended(h, "not connected", true);
        continue;
      }
      cancelInterrupt(self);
      Thread.interrupted();
      if (got == null) {
        if (h.cancelled) {
          w.checker.ended(h, "cancelled", true);
        } else {
          w.checker.ended(h, way.equals("tryAcquire") ? "busy" : "timed out", true);
        }
        continue;
      }
      node.onGrant.accept(got.path());
      w.checker.granted(h, got.fencingToken(), got.path(), sessionOf(got.path()), 1);
      LockHandle held = got;
      got.lost()
          .whenComplete(
              (e, x) -> {
                if (e != null && held.isHeld()) {
                  // recorded with the world: a dependent action's exception stays in its future
                  w.fail(new SimFailure("LOST", h + ": lost() completed while isHeld() is true"));
                  return;
                }
                if (e != null) {
                  w.checker.lost(h, e.reason().name());
                }
              });
      hold(self, node, r, longHolds, h, got);
      w.checker.releaseStarted(h);
      int rel = r.nextInt(3);
      try {
        switch (rel) {
          case 0 -> got.release();
          case 1 -> got.close();
          default -> waitFor(self, got.releaseAsync());
        }
        w.checker.released(
            h,
            node.locks.sessionId(),
            s -> node.handles.stream().anyMatch(c -> c.getSessionId() == s && c.closed()));
      } catch (ZkLockException | CompletionException e) {
        documented(h, Documented.Call.RELEASE, "release", e); // none is
      }
    }
  }

  /**
   * Holds a while; exclusive holders write their token to the store through a guarded write. Now
   * and then, while the faults go on, a hold lasts longer than the session timeout (a job that
   * holds its lock for seconds): a fault during it finds a holder, and a waiter behind it.
   */
  private void hold(
      SimActor self,
      ZkNode node,
      SplittableRandom r,
      SplittableRandom longHolds,
      Checker.Hold h,
      LockHandle got)
      throws Exception {
    long end = Sim.between(r, 0, 500 * Sim.MS);
    if (w.sim.now() < plan.faultsUntil && longHolds.nextInt(LONG_HOLD_ONE_IN) == 0) {
      end = Sim.between(longHolds, node.sessionTimeoutNanos, 3 * node.sessionTimeoutNanos);
      w.checker.count("hold.long");
    }
    if (h.mode == Checker.Mode.EXCLUSIVE && r.nextInt(100) < 50 && supportsTransactions()) {
      self.sleep(end / 2);
      boolean lostBefore = h.lostAt >= 0;
      try {
        got.transaction()
            .setData(STORE, Long.toString(got.fencingToken()).getBytes(StandardCharsets.UTF_8))
            .commit();
        w.checker.count("guarded.committed");
        if (lostBefore) {
          throw new SimFailure(
              "GUARDED", h + ": a guarded write committed after its grant was told lost");
        }
      } catch (LockLostException e) {
        documented(h, Documented.Call.COMMIT, "commit", e);
        w.checker.count("guarded.refused");
      } catch (ZkLockException e) {
        documented(h, Documented.Call.COMMIT, "commit", e);
        w.checker.count("guarded.inDoubt");
      }
      self.sleep(end / 2);
    } else {
      self.sleep(end);
    }
  }

  private boolean supportsTransactions() {
    return plan.focus != Plan.Focus.MULTI;
  }

  private static Documented.Call callOf(String way) {
    return switch (way) {
      case "tryAcquire" -> Documented.Call.TRY;
      case "acquireAsync" -> Documented.Call.ASYNC_WAIT;
      default -> Documented.Call.WAIT;
    };
  }

  /**
   * EXCEPTIONS: {@code e} is documented for {@code call} (counted by its name), or the run fails.
   */
  private void documented(Checker.Hold h, Documented.Call call, String what, Throwable e) {
    Documented.Entry d = Documented.match(call, e);
    if (d == null) {
      throw new SimFailure(
          "EXCEPTIONS",
          h + ": " + what + " threw " + e + ", not documented for it" + SimWorld.stackOf(e),
          e);
    }
    w.checker.count("exceptions." + call + "." + d.name());
  }

  private long sessionOf(String path) {
    SimTree.Node n = path == null ? null : w.ens.truth().get(path);
    return n == null ? 0 : n.ephemeralOwner;
  }

  // ------------------------------------------------------------------ Curator's clients

  /** The body of user thread {@code item} of Curator client {@code fw}. */
  SimActor.Body curatorThread(Curator.Framework fw, Plan.Item item) {
    long sessionTimeoutNanos = fw.sessionMs * Sim.MS;
    SplittableRandom r = new SplittableRandom(item.seed());
    String name = fw.name + ".t" + item.index();
    String path = "/zklock/" + LOCK;
    if (plan.focus == Plan.Focus.CURATOR_ELECTION) {
      return self -> {
        for (int k = 0; k < item.arg() / 3 + 1; k++) {
          self.sleep(Sim.between(r, 0, 800 * Sim.MS));
          Checker.Hold[] term = new Checker.Hold[1];
          Curator.LeaderLatch latch = new Curator.LeaderLatch(fw, path, name);
          latch.run(
              self,
              w.sim.now() + Sim.between(r, 500 * Sim.MS, 5 * Sim.SEC),
              () -> {
                term[0] =
                    w.checker.request(
                        name,
                        fw.process,
                        LOCK,
                        Checker.Mode.EXCLUSIVE,
                        true,
                        sessionTimeoutNanos,
                        "curator leader");
                w.checker.granted(term[0], 0, latch.ourPath, 0, 1); // its node's session
              },
              () -> w.checker.releaseStarted(term[0]));
        }
      };
    }
    byte[] address = "127.0.0.1".getBytes(StandardCharsets.UTF_8); // Curator's default node data
    return self -> {
      for (int k = 0; k < item.arg(); k++) {
        self.sleep(Sim.between(r, 0, 400 * Sim.MS));
        boolean timed = r.nextInt(100) < 30;
        long wait = timed ? Sim.between(r, 1, 6000) * Sim.MS : -1;
        Checker.Mode mode;
        String what;
        Curator.Mutex mutex = null;
        Curator.SemaphoreV2 sem = null;
        byte[] data = address;
        switch (plan.focus) {
          case CURATOR_SEMAPHORE -> {
            sem = new Curator.SemaphoreV2(fw, path, plan.permits);
            mode = Checker.Mode.LEASE;
            what = "curator lease";
          }
          case CURATOR_READ_WRITE -> {
            boolean read = r.nextInt(10) < 6;
            mutex =
                new Curator.Mutex(
                    fw, path, read ? "__READ__" : "__WRIT__", read ? Integer.MAX_VALUE : 1, read);
            mode = read ? Checker.Mode.READ : Checker.Mode.EXCLUSIVE;
            what = read ? "curator read" : "curator write";
          }
          default -> {
            mutex = new Curator.Mutex(fw, path, "lock-", 1, false);
            mode = Checker.Mode.EXCLUSIVE;
            // a LeaderSelector is this mutex with the participant's id as its node data
            boolean selector = r.nextBoolean();
            what = selector ? "curator leader selector" : "curator mutex";
            if (selector) {
              data = name.getBytes(StandardCharsets.UTF_8);
            }
          }
        }
        Checker.Hold h =
            w.checker.request(
                name,
                fw.process,
                LOCK,
                mode,
                true,
                sessionTimeoutNanos,
                what + (timed ? "(t)" : ""));
        String got;
        try {
          got = sem != null ? sem.acquire(self, wait) : mutex.acquire(self, wait, data);
        } catch (org.apache.zookeeper.KeeperException e) {
          // Curator gives up after its retries: the caller sees the exception
          w.checker.ended(h, "curator gave up: " + e.code(), true);
          continue;
        }
        if (got == null) {
          w.checker.ended(h, "timed out", true);
          continue;
        }
        // the lease's session is its node's (0: the checker reads it), which may have ended by now:
        // Curator hands out a lease whose node went with an expired session
        w.checker.granted(h, 0, got, 0, 1);
        self.sleep(Sim.between(r, 0, 500 * Sim.MS));
        w.checker.releaseStarted(h);
        fw.deleteGuaranteed(self, got);
      }
    };
  }

  // ------------------------------------------------------------------ the election

  private void election(SimActor self, ZkNode node, String name, SplittableRandom r, int ops)
      throws Exception {
    LeaderElection e =
        plan.focus == Plan.Focus.CURATOR_ELECTION
            ? node.locks.leaderElection(LOCK, name, LockOptions.curatorCompatible())
            : node.locks.leaderElection(LOCK, name);
    Checker.Hold[] term = new Checker.Hold[1];
    e.addListener(
        new LeadershipListener() {
          @Override
          public void elected(long epoch) {
            Checker.Hold h =
                w.checker.request(
                    name,
                    node.process,
                    LOCK,
                    Checker.Mode.EXCLUSIVE,
                    false,
                    node.sessionTimeoutNanos,
                    "leader");
            w.checker.granted(h, epoch, null, node.locks.sessionId(), 1);
            term[0] = h;
          }

          @Override
          public void revoked(long epoch) {
            Checker.Hold h = term[0];
            if (h == null || h.token != epoch) {
              // recorded with the world: the library catches what a listener throws
              SimFailure f =
                  new SimFailure("ELECTION", name + ": revoked epoch " + epoch + " never elected");
              w.fail(f);
              throw f;
            }
            w.checker.releaseStarted(h);
            term[0] = null;
          }
        });
    for (int k = 0; k < ops; k++) {
      self.sleep(Sim.between(r, 0, 800 * Sim.MS));
      int what = r.nextInt(3);
      switch (what) {
        case 0 -> e.start();
        case 1 -> e.requeue();
        default -> e.close();
      }
    }
    e.close();
  }

  // ------------------------------------------------------------------ helpers

  private void interruptLater(SimActor self, long after) {
    self.pendingInterrupt =
        w.sim.after(self.process.simDelay(after), self.process, "interrupt", self::interrupt);
  }

  private static void cancelInterrupt(SimActor self) {
    if (self.pendingInterrupt != null) {
      self.pendingInterrupt.cancel();
      self.pendingInterrupt = null;
    }
  }

  /** The user's own wait for a future (not the library's): through the actor, as a join. */
  static <T> T waitFor(SimActor self, CompletableFuture<T> f) throws InterruptedException {
    while (!f.isDone()) {
      self.await(f, false, -1L);
    }
    try {
      return f.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw e;
    }
  }

  static Optional<LockHandle> none() {
    return Optional.empty();
  }
}
