package io.zklock.soak;

import io.zklock.DistributedCondition;
import io.zklock.DistributedCountDownLatch;
import io.zklock.DistributedLock;
import io.zklock.DistributedSemaphore;
import io.zklock.GuardedTransaction;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.ReadWriteLock;
import io.zklock.ZkLockException;
import io.zklock.ZkLocks;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A soak client process: one {@link ZkLocks} session (through the orchestrator's fault proxies) and
 * several worker threads that loop request, grant, fenced write, hold, fenced write, release — and
 * log every step. Started by {@link SoakRun} as a child JVM; arguments are {@code key=value}.
 */
public final class SoakClient {
  private final Map<String, String> args;
  private final EventLog log;
  private final String proc;
  private final Path stopFile;
  private final Path tailFile;
  private final int storePort;
  private final Duration acquireTimeout;
  private final long seed;
  private final Map<Side, Acquirer> locks = new EnumMap<>(Side.class);
  private ZkLocks zk;
  private DistributedLock condLock;
  private DistributedCondition condition;

  /** The count of every soak latch: a latch opens once three workers have counted it down. */
  static final int LATCH_COUNT = 3;

  /** How long a latch or Condition waiter waits. */
  static final Duration COORDINATION_WAIT = Duration.ofSeconds(2);

  /** How a worker acquires one kind of lock: a DistributedLock or a DistributedSemaphore. */
  @FunctionalInterface
  interface Acquirer {
    Optional<LockHandle> tryAcquire(Duration timeout) throws InterruptedException;
  }

  private SoakClient(Map<String, String> args) {
    this.args = args;
    this.proc = required("proc");
    this.log = new EventLog(Path.of(required("log")), false);
    this.stopFile = Path.of(required("stop"));
    this.tailFile = Path.of(required("tail"));
    this.storePort = Integer.parseInt(required("store"));
    this.acquireTimeout = Duration.ofMillis(Long.parseLong(required("acquireMs")));
    this.seed = Long.parseLong(required("seed"));
  }

  public static void main(String[] argv) throws Exception {
    Map<String, String> args = new HashMap<>();
    for (String a : argv) {
      int eq = a.indexOf('=');
      args.put(a.substring(0, eq), a.substring(eq + 1));
    }
    int code = new SoakClient(args).run();
    System.exit(code);
  }

  private String required(String key) {
    String v = args.get(key);
    if (v == null) {
      throw new IllegalArgumentException("missing argument " + key + "=...");
    }
    return v;
  }

  private int run() throws InterruptedException {
    long base = Long.parseLong(required("base"));
    long now = System.nanoTime();
    long pid = ProcessHandle.current().pid();
    if (now < base || now - base > Duration.ofMinutes(10).toNanos()) {
      // the orchestrator's nanoTime and ours do not share an origin: the logs cannot be merged
      log.log("CLOCK_MISMATCH", "proc", proc, "pid", pid, "base", base, "now", now);
      return 3;
    }
    log.log("PROC_START", "proc", proc, "pid", pid);
    watchOrchestrator(Long.parseLong(required("parent")));
    zk =
        ZkLocks.builder(required("connect"))
            .namespace(required("namespace"))
            .sessionTimeout(Duration.ofMillis(Long.parseLong(required("sessionMs"))))
            .connectTimeout(Duration.ofSeconds(60))
            .clientName("soak-" + proc)
            .build();
    zk.addSessionListener(
        (state, session) ->
            log.log("SESSION", "proc", proc, "state", state, "session", Long.toHexString(session)));
    log.log(
        "SESSION", "proc", proc, "state", "CONNECTED", "session", Long.toHexString(zk.sessionId()));
    openLocks(zk);
    int workers = Integer.parseInt(required("workers"));
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < workers; w++) {
      int worker = w;
      Thread t = new Thread(() -> work(worker), "soak-worker-" + w);
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    // quiesced: every worker has released or withdrawn; the orchestrator now looks for nodes
    // of this live session (orphans) before it lets us close
    log.log("QUIESCED", "proc", proc, "session", Long.toHexString(zk.sessionId()));
    Path closeFile = Path.of(required("close"));
    while (!Files.exists(closeFile)) {
      Thread.sleep(50);
    }
    log.log("STOPPING", "proc", proc);
    zk.close();
    log.log("CLOSED", "proc", proc);
    log.close();
    return 0;
  }

  /** The lock kinds of the workload; a kind the library does not offer yet is skipped. */
  private void openLocks(ZkLocks zk) {
    locks.put(Side.MUTEX, zk.mutex(Side.MUTEX.dir())::tryAcquire);
    locks.put(Side.COHORT, zk.mutex(Side.COHORT.dir(), io.zklock.LockOptions.cohort())::tryAcquire);
    ReadWriteLock rw = zk.readWriteLock(Side.WRITE.dir());
    DistributedLock write = rw.writeLock();
    DistributedLock read = rw.readLock();
    locks.put(Side.WRITE, write::tryAcquire);
    locks.put(Side.READ, read::tryAcquire);
    ReadWriteLock cohortRw =
        zk.readWriteLock(Side.COHORT_WRITE.dir(), io.zklock.LockOptions.cohort());
    locks.put(Side.COHORT_WRITE, cohortRw.writeLock()::tryAcquire);
    locks.put(Side.COHORT_READ, cohortRw.readLock()::tryAcquire);
    condLock = zk.mutex("soak/cond");
    condition = condLock.newCondition();
    try {
      DistributedSemaphore sem = zk.semaphore(Side.SEMAPHORE.dir(), Side.SEMAPHORE_PERMITS);
      locks.put(Side.SEMAPHORE, sem::tryAcquire);
    } catch (UnsupportedOperationException e) {
      log.log("UNSUPPORTED", "proc", proc, "side", Side.SEMAPHORE, "why", e.getMessage());
    }
  }

  private void work(int worker) {
    Random random = new Random(seed * 31 + worker);
    List<Side> sides = new ArrayList<>(locks.keySet());
    int n = 0;
    int latches = 0;
    try (StoreConnection store = new StoreConnection(storePort)) {
      while (!Files.exists(stopFile)) {
        String h = proc + "/w" + worker + "/" + n++;
        // in the run's quiet tail, only the Condition (see SoakRun#quietTail)
        int kind = Files.exists(tailFile) ? 1 : random.nextInt(10);
        if (kind == 0) {
          // the worker's j-th latch is "soak-latch-j": it opens once three workers reached it
          latch(worker, "soak-latch-" + latches++, h);
        } else if (kind == 1) {
          condition(random, worker, h);
        } else {
          Side side = sides.get(random.nextInt(sides.size()));
          once(store, random, worker, side, h);
        }
        Thread.sleep(random.nextInt(30));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      log.log("WORKER_CRASH", "proc", proc, "w", worker, "err", e.toString());
    }
  }

  private void once(StoreConnection store, Random random, int worker, Side side, String h)
      throws InterruptedException {
    log.log(
        "REQUEST",
        "proc",
        proc,
        "w",
        worker,
        "h",
        h,
        "lock",
        side.dir(),
        "side",
        side,
        "session",
        Long.toHexString(zk.sessionId()));
    Optional<LockHandle> got;
    try {
      got = locks.get(side).tryAcquire(acquireTimeout);
    } catch (RuntimeException e) {
      log.log("ACQUIRE_ERROR", "proc", proc, "h", h, "err", e.toString());
      return;
    }
    if (got.isEmpty()) {
      log.log("TIMEOUT", "proc", proc, "h", h);
      return;
    }
    LockHandle held = got.get();
    long token = held.fencingToken();
    log.log(
        "GRANT",
        "proc",
        proc,
        "w",
        worker,
        "h",
        h,
        "lock",
        side.dir(),
        "side",
        side,
        "token",
        token,
        "session",
        Long.toHexString(zk.sessionId()),
        "path",
        held.path());
    held.lost()
        .thenAccept(
            e ->
                log.log(
                    "LOSS",
                    "proc",
                    proc,
                    "h",
                    h,
                    "reason",
                    e.reason(),
                    "session",
                    Long.toHexString(e.sessionId()),
                    "token",
                    token));
    // most holds are short; one in five is medium; one in forty outlasts every fault (12 s), so
    // that a fault during it ends while the holder still holds and must hear of the loss
    int roll = random.nextInt(40);
    long holdMs =
        roll == 0 ? 12_000 : roll < 8 ? 300 + random.nextInt(600) : 10 + random.nextInt(110);
    write(store, side, token, h, holdMs >= 10_000 ? "begin-long" : "begin");
    guardedWrite(held, side, token, h, "begin");
    boolean lost;
    try {
      held.lost().get(holdMs, TimeUnit.MILLISECONDS);
      lost = true;
    } catch (TimeoutException e) {
      lost = false;
    } catch (ExecutionException e) {
      throw new IllegalStateException("lost() failed", e);
    }
    if (!lost) {
      write(store, side, token, h, "end");
      guardedWrite(held, side, token, h, "end");
    } else {
      // a holder that hears of its loss stops: no further writes
      store.write(side.dir(), side.storeSide(), token, h, "abandon");
    }
    log.log("RELEASE_START", "proc", proc, "h", h, "held", held.isHeld());
    try {
      held.release();
      log.log("RELEASE_DONE", "proc", proc, "h", h);
    } catch (RuntimeException e) {
      log.log("RELEASE_ERROR", "proc", proc, "h", h, "err", e.toString());
    }
  }

  /**
   * Counts a latch down, then awaits it: {@code LATCH_COUNTDOWN} is logged before the count-down is
   * sent, {@code LATCH_PASS} after the await returned true (the checker's LATCH rule).
   */
  private void latch(int worker, String name, String h) throws InterruptedException {
    try {
      DistributedCountDownLatch latch = zk.countDownLatch(name, LATCH_COUNT);
      log.log("LATCH_COUNTDOWN", "proc", proc, "w", worker, "h", h, "latch", name);
      latch.countDown();
      log.log("LATCH_AWAIT", "proc", proc, "h", h, "latch", name);
      if (latch.await(COORDINATION_WAIT)) {
        log.log("LATCH_PASS", "proc", proc, "h", h, "latch", name, "count", LATCH_COUNT);
      } else {
        log.log("LATCH_TIMEOUT", "proc", proc, "h", h, "latch", name);
      }
    } catch (RuntimeException e) {
      log.log("LATCH_ERROR", "proc", proc, "h", h, "latch", name, "err", e.toString());
    }
  }

  /**
   * Takes the Condition's lock, then either awaits a signal for up to two seconds or signals all
   * waiters, and releases: the events of the checker's SIGNAL rule.
   */
  private void condition(Random random, int worker, String h) throws InterruptedException {
    String name = condLock.name() + "#" + condition.name();
    Optional<LockHandle> got;
    try {
      got = condLock.tryAcquire(acquireTimeout);
    } catch (RuntimeException e) {
      log.log("COND_ERROR", "proc", proc, "h", h, "err", e.toString());
      return;
    }
    if (got.isEmpty()) {
      log.log("COND_TIMEOUT", "proc", proc, "h", h);
      return;
    }
    LockHandle held = got.get();
    try {
      if (random.nextBoolean()) {
        log.log(
            "COND_AWAIT",
            "proc",
            proc,
            "w",
            worker,
            "h",
            h,
            "cond",
            name,
            "timeoutMs",
            COORDINATION_WAIT.toMillis());
        DistributedCondition.Wakeup wakeup = condition.await(held, COORDINATION_WAIT);
        held = wakeup.handle();
        log.log("COND_WOKEN", "proc", proc, "h", h, "cond", name, "signalled", wakeup.signalled());
      } else {
        log.log("COND_SIGNAL_ALL", "proc", proc, "w", worker, "h", h, "cond", name);
        condition.signalAll(held);
        log.log("COND_SIGNAL_DONE", "proc", proc, "h", h, "cond", name);
      }
    } catch (RuntimeException e) {
      log.log("COND_ERROR", "proc", proc, "h", h, "err", e.toString());
    }
    try {
      held.release();
    } catch (RuntimeException e) {
      log.log("COND_RELEASE_ERROR", "proc", proc, "h", h, "err", e.toString());
    }
  }

  private void write(StoreConnection store, Side side, long token, String h, String phase) {
    boolean ok = store.write(side.dir(), side.storeSide(), token, h, phase);
    log.log("WRITE", "proc", proc, "h", h, "phase", phase, "token", token, "ok", ok);
  }

  /**
   * The ZooKeeper store node of an exclusive lock, written only by guarded writes of its holders:
   * one flat node per lock, made by the first guarded write that finds it missing.
   */
  static String zstorePath(Side side) {
    return "/soak-zstore-" + side.dir().replace('/', '-');
  }

  /**
   * A guarded write ({@link LockHandle#transaction()}) of this holder's token to its lock's store
   * node, logged as {@code ZWRITE} with the zxid the ensemble applied it at, or why it was refused.
   * The checker's GUARDED rule judges the committed ones.
   */
  private void guardedWrite(LockHandle held, Side side, long token, String h, String phase) {
    if (!side.exclusive() || side == Side.SEMAPHORE) {
      return;
    }
    long czxid = side == Side.COHORT || side == Side.COHORT_WRITE ? token >>> 16 : token;
    byte[] data = (h + " " + token).getBytes(StandardCharsets.UTF_8);
    String path = zstorePath(side);
    try {
      GuardedTransaction.Result r;
      try {
        r = held.transaction().setData(path, data).commit().get(0);
      } catch (ZkLockException e) {
        if (e.getMessage().contains("NONODE")) {
          // the first write to this lock's node: make it, guarded too (a race with another
          // holder's creation cannot happen: only the holder writes)
          held.transaction().create(path, data).commit();
          r = held.transaction().setData(path, data).commit().get(0);
        } else {
          throw e;
        }
      }
      log.log(
          "ZWRITE",
          "proc",
          proc,
          "h",
          h,
          "key",
          side.dir(),
          "phase",
          phase,
          "token",
          token,
          "czxid",
          czxid,
          "ok",
          true,
          "mzxid",
          r.stat().mzxid());
    } catch (LockLostException e) {
      log.log(
          "ZWRITE",
          "proc",
          proc,
          "h",
          h,
          "key",
          side.dir(),
          "phase",
          phase,
          "token",
          token,
          "czxid",
          czxid,
          "ok",
          false,
          "reason",
          e.reason());
    } catch (RuntimeException e) {
      log.log(
          "ZWRITE",
          "proc",
          proc,
          "h",
          h,
          "key",
          side.dir(),
          "phase",
          phase,
          "token",
          token,
          "czxid",
          czxid,
          "ok",
          false,
          "err",
          e.toString());
    }
  }

  /** Exits if the orchestrator dies, so no client outlives a crashed test JVM. */
  private void watchOrchestrator(long parentPid) {
    Thread t =
        new Thread(
            () -> {
              Optional<ProcessHandle> parent = ProcessHandle.of(parentPid);
              while (parent.isPresent() && parent.get().isAlive()) {
                try {
                  Thread.sleep(1000);
                } catch (InterruptedException e) {
                  return;
                }
              }
              Runtime.getRuntime().halt(4);
            },
            "soak-orphan-guard");
    t.setDaemon(true);
    t.start();
  }

  /** One worker's connection to the fenced store. */
  private static final class StoreConnection implements AutoCloseable {
    private final Socket socket;
    private final BufferedReader in;
    private final OutputStream out;

    StoreConnection(int port) {
      try {
        socket = new Socket(InetAddress.getLoopbackAddress(), port);
        socket.setTcpNoDelay(true);
        in =
            new BufferedReader(
                new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        out = socket.getOutputStream();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot reach the fenced store on port " + port, e);
      }
    }

    boolean write(String key, String side, long token, String h, String phase) {
      try {
        String line = "WRITE " + key + " " + side + " " + token + " " + h + " " + phase + "\n";
        out.write(line.getBytes(StandardCharsets.UTF_8));
        out.flush();
        String reply = in.readLine();
        if (reply == null) {
          throw new IOException("the store closed the connection");
        }
        return reply.equals("OK");
      } catch (IOException e) {
        throw new UncheckedIOException("fenced store write failed", e);
      }
    }

    @Override
    public void close() {
      try {
        socket.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
  }
}
