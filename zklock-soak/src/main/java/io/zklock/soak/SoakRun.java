package io.zklock.soak;

import io.zklock.testkit.EmbeddedZooKeeper;
import io.zklock.testkit.FaultProxy;
import io.zklock.testkit.ZooKeeperEnsemble;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * The orchestrator of a soak run: starts the ensemble (three child JVMs), the fenced store, the
 * client processes (each behind its own three fault proxies), injects the seeded fault schedule,
 * stops everything, checks cleanliness, and hands every log to the {@link Checker}.
 */
public final class SoakRun {
  static final String NAMESPACE = "/soak";

  private final SoakConfig config;
  private final Random random;
  private final EventLog log;
  private final List<Slot> slots = new ArrayList<>();
  private final Path stopFile;
  private final Path tailFile;
  private final Path closeFile;
  private ZooKeeperEnsemble ensemble;
  private FencedStore store;

  /** One client position: its proxies and its current process (replaced after a kill). */
  private final class Slot {
    final int index;
    final List<FaultProxy> proxies;
    int incarnation;
    String proc;
    Process process;
    final List<Path> logs = new ArrayList<>();

    Slot(int index, List<FaultProxy> proxies) {
      this.index = index;
      this.proxies = proxies;
    }
  }

  public SoakRun(SoakConfig config) {
    this.config = config;
    this.random = new Random(config.seed());
    try {
      Files.createDirectories(config.workDir());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.log = new EventLog(config.workDir().resolve("orchestrator.log"), true);
    this.stopFile = config.workDir().resolve("stop");
    this.tailFile = config.workDir().resolve("tail");
    this.closeFile = config.workDir().resolve("close");
  }

  /** Runs the soak and checks it; the report's violations must be empty. */
  public Checker.Report run() throws InterruptedException {
    long t0 = System.nanoTime();
    log.log(
        "RUN_START",
        "seed",
        config.seed(),
        "seconds",
        config.duration().toSeconds(),
        "clients",
        config.clients(),
        "workers",
        config.workers(),
        "sessionMs",
        config.sessionTimeout().toMillis(),
        "tickMs",
        config.tickTime().toMillis());
    try {
      ensemble =
          EmbeddedZooKeeper.ensemble(3)
              .childProcesses()
              .tickTime(config.tickTime())
              .jvmOptions(List.of("-XX:TieredStopAtLevel=1"))
              .start();
      store = FencedStore.start(config.workDir().resolve("store.log"));
      for (int i = 0; i < config.clients(); i++) {
        Slot slot = new Slot(i, FaultProxy.forEnsemble(ensemble));
        slots.add(slot);
        spawn(slot);
      }
      awaitStarted();
      injectFaults(t0 + config.duration().toNanos());
      quietTail();
      stopClients();
      checkFinalCleanliness();
    } finally {
      for (Slot s : slots) {
        if (s.process != null && s.process.isAlive()) {
          s.process.destroyForcibly();
        }
        s.proxies.forEach(FaultProxy::close);
      }
      if (store != null) {
        store.close();
      }
      if (ensemble != null) {
        ensemble.close();
      }
      log.close();
    }
    List<Event> events = new ArrayList<>(log.events());
    events.addAll(store.events());
    for (Slot s : slots) {
      for (Path p : s.logs) {
        if (Files.exists(p)) {
          events.addAll(EventLog.read(p));
        }
      }
    }
    Checker.Report report = new Checker(config).check(events);
    try {
      Files.writeString(config.workDir().resolve("summary.txt"), report.summary());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return report;
  }

  /** System properties of this JVM passed on to every client process, when set. */
  static final List<String> CLIENT_PROPERTIES =
      List.of("io.zklock.batching", "io.zklock.batchAtOnceBelow", "io.zklock.batchHoldFrom");

  private void spawn(Slot slot) {
    slot.proc = "c" + slot.index + "." + slot.incarnation++;
    Path logFile = config.workDir().resolve(slot.proc + ".log");
    slot.logs.add(logFile);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd =
        new ArrayList<>(
            List.of(
                java,
                "-Xmx96m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Xshare:auto",
                "-XX:-UsePerfData"));
    // the library's own switches reach the clients: -Dio.zklock.batching=true soaks them batched
    for (String p : CLIENT_PROPERTIES) {
      String v = System.getProperty(p);
      if (v != null) {
        cmd.add("-D" + p + "=" + v);
      }
    }
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), SoakClient.class.getName()));
    Map<String, Object> args = new HashMap<>();
    args.put("proc", slot.proc);
    args.put("log", logFile);
    args.put("stop", stopFile);
    args.put("tail", tailFile);
    args.put("close", closeFile);
    args.put("store", store.port());
    args.put("acquireMs", config.acquireTimeout().toMillis());
    args.put("seed", config.seed() * 1000 + slot.index * 100 + slot.incarnation);
    args.put("base", System.nanoTime());
    args.put("parent", ProcessHandle.current().pid());
    args.put("connect", FaultProxy.connectString(slot.proxies));
    args.put("namespace", NAMESPACE);
    args.put("sessionMs", config.sessionTimeout().toMillis());
    args.put("workers", config.workers());
    args.forEach((k, v) -> cmd.add(k + "=" + v));
    try {
      slot.process =
          new ProcessBuilder(cmd)
              .redirectErrorStream(true)
              .redirectOutput(
                  Redirect.appendTo(config.workDir().resolve(slot.proc + ".out").toFile()))
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start soak client " + slot.proc, e);
    }
    log.log("PROC_SPAWN", "proc", slot.proc, "pid", slot.process.pid());
  }

  /** Waits until every client has logged its first session (so faults hit running clients). */
  private void awaitStarted() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    for (Slot s : slots) {
      Path p = s.logs.get(s.logs.size() - 1);
      while (!Files.exists(p)
          || EventLog.read(p).stream().noneMatch(e -> e.ev().equals("SESSION"))) {
        if (!s.process.isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "soak client " + s.proc + " did not start; see " + config.workDir());
        }
        Thread.sleep(100);
      }
    }
  }

  /**
   * Injects faults, one at a time with 1.5-4 s of quiet between them, until the deadline has passed
   * and at least one full round (every kind once) is done.
   */
  private void injectFaults(long deadline) throws InterruptedException {
    List<Fault> round = new ArrayList<>();
    int injected = 0;
    int kinds = config.faults().size();
    while (System.nanoTime() < deadline || injected < kinds) {
      if (round.isEmpty()) {
        round.addAll(config.faults());
        Collections.shuffle(round, random);
      }
      sleepMillis(1500 + random.nextInt(2500));
      if (System.nanoTime() >= deadline && injected >= kinds) {
        break;
      }
      inject(round.remove(0));
      injected++;
    }
  }

  /**
   * After the last fault, the workers do only the Condition's awaits and signals for {@link
   * #quietTailMillis}. The SIGNAL rule checks a waiter and a signal only when no fault and no
   * session event of their processes fell from a session timeout before the await to the wake-up;
   * with at most 4 s between faults, the run itself may leave no such window (under load it left
   * none: 36 signals, every pair blurred). The tail is that window, so that every run checks the
   * rule.
   */
  private void quietTail() throws InterruptedException {
    long ms = quietTailMillis(config);
    log.log("QUIET_TAIL", "ms", ms);
    touch(tailFile);
    sleepMillis(ms);
  }

  /**
   * A session timeout and the checker's grace on both sides, within which a pair is blurred by the
   * last fault, then five of a waiter's waits.
   */
  static long quietTailMillis(SoakConfig config) {
    return config.sessionTimeout().toMillis()
        + 2 * TimeUnit.NANOSECONDS.toMillis(Checker.GRACE)
        + 5 * SoakClient.COORDINATION_WAIT.toMillis();
  }

  private void inject(Fault fault) throws InterruptedException {
    long session = config.sessionTimeout().toMillis();
    switch (fault) {
      case KILL_LEADER, KILL_FOLLOWER -> {
        int leader = ensemble.awaitQuorum(Duration.ofSeconds(60));
        int victim = leader;
        if (fault == Fault.KILL_FOLLOWER) {
          do {
            victim = random.nextInt(ensemble.size());
          } while (victim == leader);
        }
        log.log("FAULT_START", "kind", fault, "target", "zk" + victim);
        ensemble.kill(victim);
        sleepMillis(1000 + random.nextInt(2000));
        ensemble.restart(victim);
        ensemble.awaitQuorum(Duration.ofSeconds(60));
        log.log("FAULT_END", "kind", fault, "target", "zk" + victim);
      }
      case CUT_CLIENT -> {
        Slot s = slots.get(random.nextInt(slots.size()));
        log.log("FAULT_START", "kind", fault, "target", s.proc);
        s.proxies.forEach(FaultProxy::cut);
        log.log("FAULT_END", "kind", fault, "target", s.proc);
      }
      case LOSE_REPLIES -> loseReplies(fault, session);
      case ISOLATE_HOLDER -> isolateHolder(fault);
      case BLACKHOLE_SHORT, BLACKHOLE_LONG -> {
        Slot s = pickHolder(fault == Fault.BLACKHOLE_LONG);
        long ms =
            fault == Fault.BLACKHOLE_SHORT
                ? session * (30 + random.nextInt(50)) / 100
                : session * (150 + random.nextInt(100)) / 100;
        log.log("FAULT_START", "kind", fault, "target", s.proc, "ms", ms);
        s.proxies.forEach(FaultProxy::blackhole);
        sleepMillis(ms);
        s.proxies.forEach(FaultProxy::pass);
        log.log("FAULT_END", "kind", fault, "target", s.proc);
      }
      case REFUSE_LONG -> {
        Slot s = pickHolder(true);
        long ms = session * (150 + random.nextInt(50)) / 100;
        log.log("FAULT_START", "kind", fault, "target", s.proc, "ms", ms);
        s.proxies.forEach(FaultProxy::refuse);
        sleepMillis(ms);
        s.proxies.forEach(FaultProxy::pass);
        log.log("FAULT_END", "kind", fault, "target", s.proc);
      }
      case PAUSE_CLIENT -> {
        Slot s = pickHolder(true);
        long ms = session * (150 + random.nextInt(100)) / 100;
        log.log("FAULT_START", "kind", fault, "target", s.proc, "pid", s.process.pid(), "ms", ms);
        signal(s.process, "STOP");
        sleepMillis(ms);
        signal(s.process, "CONT");
        log.log("FAULT_END", "kind", fault, "target", s.proc);
      }
      case KILL_CLIENT -> {
        Slot s = pickHolder(false);
        log.log("FAULT_START", "kind", fault, "target", s.proc, "pid", s.process.pid());
        s.process.destroyForcibly();
        if (!s.process.waitFor(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException(s.proc + " survived SIGKILL");
        }
        log.log("PROC_KILLED", "proc", s.proc, "pid", s.process.pid());
        log.log("FAULT_END", "kind", fault, "target", s.proc);
        spawn(s);
      }
      default -> throw new IllegalArgumentException("unknown fault " + fault);
    }
  }

  /**
   * Mutes one client's replies while a create is in flight, then cuts its connections. A worker
   * sends its next create 0-30 ms after it finished an iteration ({@code RELEASE_DONE} or {@code
   * TIMEOUT} in its log), and nothing else but a new request gets through a muted connection (a
   * release waits for its reply, a waiter for its notification): so the replies are muted as soon
   * as an iteration ends, and the fault is aimed once the client logs a {@code REQUEST} under the
   * mute (its create reaches the server, which applies it; its reply is never delivered). If no
   * request comes within 150 ms the held replies are let through (a delay, harmless) and the next
   * iteration's end is awaited, for up to 5 s; then the replies are muted regardless. The mute
   * lasts 0.2-0.6 session timeouts in all, at least 100 ms after the request, then the cut.
   */
  private void loseReplies(Fault fault, long session) throws InterruptedException {
    Slot s = slots.get(random.nextInt(slots.size()));
    long ms = session * (20 + random.nextInt(40)) / 100;
    log.log("FAULT_START", "kind", fault, "target", s.proc, "ms", ms);
    LogTail tail = new LogTail(s.logs.get(s.logs.size() - 1));
    long budget = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    long requestT = -1;
    long mutedT = -1;
    int tries = 0;
    while (requestT < 0 && System.nanoTime() < budget) {
      if (tail.await(Set.of("RELEASE_DONE", "TIMEOUT"), 0, budget) < 0) {
        break;
      }
      tries++;
      s.proxies.forEach(FaultProxy::muteReplies);
      mutedT = log.log("MUTE", "target", s.proc, "try", tries).t();
      requestT = tail.await(Set.of("REQUEST"), mutedT, System.nanoTime() + 150_000_000L);
      if (requestT < 0) {
        s.proxies.forEach(FaultProxy::pass);
        log.log("UNMUTE", "target", s.proc, "try", tries);
      }
    }
    if (requestT < 0) {
      s.proxies.forEach(FaultProxy::muteReplies);
      mutedT = log.log("MUTE", "target", s.proc, "try", "none").t();
    }
    long cutAt = Math.max(mutedT + ms * 1_000_000L, System.nanoTime() + 100_000_000L);
    sleepMillis(Math.max(0, (cutAt - System.nanoTime()) / 1_000_000L));
    s.proxies.forEach(FaultProxy::cut);
    s.proxies.forEach(FaultProxy::pass);
    log.log("FAULT_END", "kind", fault, "target", s.proc, "aimed", requestT >= 0);
  }

  /**
   * Black-holes a holder (see {@link Fault#ISOLATE_HOLDER}) until another process has been granted
   * a conflicting lock (its {@code begin} accepted by the store) and at least 1.2 session timeouts
   * have passed, or for 20 s if nobody else comes. Without a holder to pick, black-holes any client
   * for two session timeouts.
   */
  private void isolateHolder(Fault fault) throws InterruptedException {
    FencedStore.Section victim = pickSection();
    Slot s = victim == null ? slots.get(random.nextInt(slots.size())) : slotOf(victim.proc());
    long start = System.nanoTime();
    log.log(
        "FAULT_START",
        "kind",
        fault,
        "target",
        s.proc,
        "h",
        victim == null ? "-" : victim.handle(),
        "lock",
        victim == null ? "-" : victim.key());
    s.proxies.forEach(FaultProxy::blackhole);
    long minimum = start + config.sessionTimeout().toNanos() * 12 / 10;
    long cap = start + TimeUnit.SECONDS.toNanos(20);
    String granted = "-";
    if (victim == null) {
      sleepMillis(2 * config.sessionTimeout().toMillis());
    } else {
      while (System.nanoTime() < cap) {
        var other = store.conflictingBeginSince(victim, start);
        if (other.isPresent() && System.nanoTime() >= minimum) {
          granted = other.get().handle();
          break;
        }
        Thread.sleep(10);
      }
    }
    s.proxies.forEach(FaultProxy::pass);
    log.log("FAULT_END", "kind", fault, "target", s.proc, "granted", granted);
  }

  /**
   * An open critical section of a mutex, writer or reader (not a semaphore lease): a 12 s hold that
   * began less than 2 s ago if one comes within 10 s, else any within 2 s; null if none.
   */
  private FencedStore.Section pickSection() throws InterruptedException {
    for (boolean longHold : new boolean[] {true, false}) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(longHold ? 10 : 2);
      while (System.nanoTime() < deadline) {
        long now = System.nanoTime();
        List<FencedStore.Section> candidates =
            store.openSections().stream()
                .filter(x -> !x.side().equals("S"))
                .filter(x -> slotOrNull(x.proc()) != null)
                .filter(
                    x ->
                        !longHold
                            || x.phase().equals("begin-long")
                                && now - x.t() < TimeUnit.SECONDS.toNanos(2))
                .sorted(java.util.Comparator.comparing(FencedStore.Section::handle))
                .toList();
        if (!candidates.isEmpty()) {
          return candidates.get(random.nextInt(candidates.size()));
        }
        Thread.sleep(5);
      }
    }
    return null;
  }

  private Slot slotOrNull(String proc) {
    return slots.stream().filter(x -> x.proc.equals(proc)).findFirst().orElse(null);
  }

  private Slot slotOf(String proc) {
    Slot s = slotOrNull(proc);
    if (s == null) {
      throw new IllegalStateException("no client slot runs " + proc);
    }
    return s;
  }

  /** Reads a client's event log as it grows, from the end it had when the tail was made. */
  private static final class LogTail {
    private final Path file;
    private long offset;
    private final StringBuilder partial = new StringBuilder();

    LogTail(Path file) {
      this.file = file;
      try {
        this.offset = Files.exists(file) ? Files.size(file) : 0;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /**
     * Waits until the log gains an event of one of {@code kinds} stamped at or after {@code
     * notBefore}; returns its time, or -1 at {@code deadline} (nanoTime). Polls every millisecond.
     */
    long await(Set<String> kinds, long notBefore, long deadline) throws InterruptedException {
      while (true) {
        for (String line : newLines()) {
          Event e = Event.parse(line);
          if (e != null && kinds.contains(e.ev()) && e.t() >= notBefore) {
            return e.t();
          }
        }
        if (System.nanoTime() >= deadline) {
          return -1;
        }
        Thread.sleep(1);
      }
    }

    private List<String> newLines() {
      List<String> lines = new ArrayList<>();
      try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(file.toFile(), "r")) {
        long length = f.length();
        if (length <= offset) {
          return lines;
        }
        byte[] bytes = new byte[(int) (length - offset)];
        f.seek(offset);
        f.readFully(bytes);
        offset = length;
        partial.append(new String(bytes, java.nio.charset.StandardCharsets.UTF_8));
      } catch (java.io.FileNotFoundException e) {
        return lines;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      int nl;
      while ((nl = partial.indexOf("\n")) >= 0) {
        lines.add(partial.substring(0, nl));
        partial.delete(0, nl + 1);
      }
      return lines;
    }
  }

  /**
   * A client process in its critical section (it has written "begin" and not yet "end"): with
   * {@code preferLongHold}, one that began a 12-second hold less than 2 s ago, if one comes within
   * 10 s (a fault on it ends while it still holds, so it must hear of its loss); else any holder
   * within 2 s; else any client. Faulting a holder is what tests fencing, loss reporting and
   * handover.
   */
  private Slot pickHolder(boolean preferLongHold) throws InterruptedException {
    if (preferLongHold) {
      Slot s = findHolder(true, 10);
      if (s != null) {
        return s;
      }
    }
    Slot s = findHolder(false, 2);
    return s != null ? s : slots.get(random.nextInt(slots.size()));
  }

  private Slot findHolder(boolean longHold, int seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < deadline) {
      Set<String> holders = store.processesInCriticalSection(longHold);
      List<Slot> candidates = slots.stream().filter(s -> holders.contains(s.proc)).toList();
      if (!candidates.isEmpty()) {
        return candidates.get(random.nextInt(candidates.size()));
      }
      Thread.sleep(5);
    }
    return null;
  }

  private static void signal(Process p, String signal) throws InterruptedException {
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + p.pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run kill", e);
    }
  }

  /**
   * Stops the workers (stop file), looks for lock nodes owned by the quiesced live sessions
   * (orphans: every worker released or withdrew), then lets the clients close and waits for them.
   */
  private void stopClients() throws InterruptedException {
    log.log("RUN_STOP");
    touch(stopFile);
    long stopDeadline =
        System.nanoTime() + config.acquireTimeout().toNanos() + TimeUnit.SECONDS.toNanos(30);
    Map<String, String> liveSessions = new HashMap<>();
    for (Slot s : slots) {
      Path p = s.logs.get(s.logs.size() - 1);
      while (true) {
        Event q =
            EventLog.read(p).stream()
                .filter(e -> e.ev().equals("QUIESCED"))
                .findFirst()
                .orElse(null);
        if (q != null) {
          liveSessions.put(q.get("session"), s.proc);
          break;
        }
        if (!s.process.isAlive() || System.nanoTime() > stopDeadline) {
          log.log("NOT_QUIESCED", "proc", s.proc, "alive", s.process.isAlive());
          break;
        }
        Thread.sleep(100);
      }
    }
    // withdrawals and releases are complete when tryAcquire/release return; allow one session
    // timeout for a background deletion all the same
    long orphanDeadline = System.nanoTime() + config.sessionTimeout().toNanos();
    List<String> orphans;
    while (true) {
      orphans = new ArrayList<>();
      for (Map.Entry<String, Long> node : lockNodes().entrySet()) {
        String owner = Long.toHexString(node.getValue());
        if (liveSessions.containsKey(owner)) {
          orphans.add(node.getKey() + "@" + liveSessions.get(owner));
        }
      }
      if (orphans.isEmpty() || System.nanoTime() > orphanDeadline) {
        break;
      }
      Thread.sleep(200);
    }
    log.log("CLEAN_LIVE", "orphans", orphans.size(), "nodes", String.join(",", orphans));
    touch(closeFile);
    for (Slot s : slots) {
      long left = Math.max(0, stopDeadline - System.nanoTime()) + TimeUnit.SECONDS.toNanos(10);
      if (!s.process.waitFor(left, TimeUnit.NANOSECONDS)) {
        log.log("PROC_HUNG", "proc", s.proc, "pid", s.process.pid());
        s.process.destroyForcibly();
        s.process.waitFor(30, TimeUnit.SECONDS);
      }
      log.log("PROC_EXIT", "proc", s.proc, "code", s.process.exitValue());
    }
  }

  /**
   * After every client has closed, waits up to two session timeouts plus ten seconds (killed
   * clients' sessions expire in that time) for the lock nodes to go; logs what remains.
   */
  private void checkFinalCleanliness() throws InterruptedException {
    long start = System.nanoTime();
    long deadline = start + 2 * config.sessionTimeout().toNanos() + TimeUnit.SECONDS.toNanos(10);
    Map<String, Long> nodes;
    while (true) {
      nodes = lockNodes();
      if (nodes.isEmpty() || System.nanoTime() > deadline) {
        break;
      }
      Thread.sleep(200);
    }
    log.log(
        "CLEAN_FINAL",
        "remaining",
        nodes.size(),
        "ms",
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
        "nodes",
        String.join(",", nodes.keySet()));
  }

  /**
   * Every lock node under the namespace and its owner: every ephemeral node, read with a plain
   * ZooKeeper client rather than through zklock. The only ephemeral nodes zklock creates are lock
   * nodes (the queue nodes of every recipe, and a simple lock's one node); directories are
   * containers or persistent. So this finds each node a zklock request left behind, whatever its
   * name, without relying on zklock's own parsing of node names.
   */
  private Map<String, Long> lockNodes() throws InterruptedException {
    CountDownLatch connected = new CountDownLatch(1);
    Map<String, Long> out = new HashMap<>();
    ZooKeeper zk;
    try {
      zk =
          new ZooKeeper(
              ensemble.connectString(),
              10_000,
              e -> {
                if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                  connected.countDown();
                }
              });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      if (!connected.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("cannot connect to the ensemble to list lock nodes");
      }
      walk(zk, NAMESPACE, out);
    } catch (KeeperException e) {
      throw new IllegalStateException("cannot list lock nodes: " + e, e);
    } finally {
      zk.close();
    }
    return out;
  }

  private static void walk(ZooKeeper zk, String path, Map<String, Long> out)
      throws KeeperException, InterruptedException {
    List<String> children;
    try {
      children = zk.getChildren(path, false);
    } catch (KeeperException.NoNodeException e) {
      return;
    }
    for (String child : children) {
      String p = path + "/" + child;
      Stat stat = zk.exists(p, false);
      if (stat == null) {
        continue;
      }
      if (stat.getEphemeralOwner() != 0) {
        out.put(p, stat.getEphemeralOwner());
      } else {
        walk(zk, p, out);
      }
    }
  }

  private static void touch(Path p) {
    try {
      Files.writeString(p, "");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void sleepMillis(long ms) throws InterruptedException {
    Thread.sleep(ms);
  }

  /** Deletes a work directory of an earlier run. */
  static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Collections.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
