package io.zklock.cli;

import io.zklock.ZkLocks;
import io.zklock.cli.DemoCoordinator.Event;
import io.zklock.cli.DemoReport.Fault;
import io.zklock.testkit.EmbeddedZooKeeper;
import io.zklock.testkit.FourLetterWords;
import io.zklock.testkit.ZooKeeperEnsemble;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code zklock demo}: why fencing tokens matter, shown on a live ensemble with real faults. */
@Command(
    name = "demo",
    header =
        "A one-minute tour: an ensemble, contending worker processes, injected faults, a ledger"
            + " that checks fencing tokens, a report.",
    mixinStandardHelpOptions = true,
    description = {
      "Starts a 3-server ZooKeeper ensemble (child processes) and worker processes that contend"
          + " for a few locks and append to a shared ledger that checks fencing tokens. Meanwhile"
          + " it SIGKILLs a lock holder, SIGSTOPs one past its session timeout (its late write must"
          + " be rejected, its handle must report the loss) and kills the ZooKeeper leader.",
      "Ends with a report (acquisitions, handoff latency, watch events per acquisition, stale"
          + " writes rejected, the ledger's consistency) and an HTML timeline.",
      "Exit status: 0 if the ledger is consistent, 1 otherwise."
    })
final class DemoCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = {"-c", "--connect"},
      paramLabel = "HOSTS",
      description =
          "Run against this ensemble instead of starting one (the leader fault is then skipped).")
  String connect;

  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "PATH",
      defaultValue = "/zklock-demo",
      description = "Parent znode of the demo's locks (default: ${DEFAULT-VALUE}).")
  String namespace;

  @Option(
      names = {"-d", "--duration"},
      paramLabel = "DURATION",
      defaultValue = "35s",
      converter = Durations.class,
      description =
          "How long the workers run (default: ${DEFAULT-VALUE}); the run lasts until the faults"
              + " have played out.")
  Duration duration;

  @Option(
      names = {"-w", "--workers"},
      paramLabel = "N",
      defaultValue = "5",
      description = "Worker processes, at least 2 (default: ${DEFAULT-VALUE}).")
  int workers;

  @Option(
      names = {"-l", "--locks"},
      paramLabel = "K",
      defaultValue = "3",
      description = "Locks they contend for (default: ${DEFAULT-VALUE}).")
  int lockCount;

  @Option(
      names = "--session-timeout",
      paramLabel = "DURATION",
      defaultValue = "3s",
      converter = Durations.class,
      description = "The workers' session timeout (default: ${DEFAULT-VALUE}).")
  Duration sessionTimeout;

  @Option(
      names = {"-r", "--report"},
      paramLabel = "FILE",
      defaultValue = "zklock-demo.html",
      description = "Where to write the HTML timeline (default: ${DEFAULT-VALUE}).")
  Path report;

  @Option(
      names = "--progress",
      paramLabel = "MODE",
      defaultValue = "auto",
      description =
          "Progress display on stderr: line (one updating line), plain (a line every 5 s),"
              + " none, or auto (line on a terminal, else plain).")
  String progress;

  private final List<Fault> faults = new CopyOnWriteArrayList<>();
  private final Map<String, Process> processes = new ConcurrentHashMap<>();
  private final Map<String, Long> killed = new ConcurrentHashMap<>();
  private final Map<Integer, Long> watchBase = new TreeMap<>();
  private long watchFromRestarted;
  private volatile String status = "starting";
  private volatile long startMicros;
  private int nextWorker = 1;
  private Path runDir;
  private String connectString;
  private ZooKeeperEnsemble ensemble;
  private DemoCoordinator coordinator;
  private PrintWriter err;
  private volatile boolean staleRejected;
  private volatile boolean lossReported;
  private final AtomicBoolean paused = new AtomicBoolean();
  private volatile String pausedWorker;
  private volatile long failoverFrom = Long.MAX_VALUE;
  private volatile long failoverTo = Long.MIN_VALUE;

  @Override
  public Integer call() throws Exception {
    err = spec.commandLine().getErr();
    validate();
    runDir = Files.createTempDirectory("zklock-demo-");
    Thread hook = new Thread(this::cleanUp, "zklock-demo-cleanup");
    Runtime.getRuntime().addShutdownHook(hook);
    boolean keepLogs = true;
    try {
      setUp();
      DemoReport result = run();
      Path html = report.toAbsolutePath();
      Files.writeString(html, result.html(), StandardCharsets.UTF_8);
      spec.commandLine().getOut().print(result.text(html.toString()));
      spec.commandLine().getOut().flush();
      keepLogs = !result.consistent() || !staleRejected || !lossReported;
      if (keepLogs) {
        err.println("zklock demo: worker logs kept in " + runDir);
      }
      return result.consistent() ? ExitCodes.OK : ExitCodes.FAILURE;
    } finally {
      cleanUp();
      if (!keepLogs) {
        deleteTree(runDir);
      }
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // Ctrl-C: the hook cleans up
      }
    }
  }

  private void validate() {
    if (workers < 2 || workers > 50) {
      throw new CliException(ExitCodes.USAGE, "--workers must be between 2 and 50: " + workers);
    }
    if (lockCount < 1 || lockCount > 20) {
      throw new CliException(ExitCodes.USAGE, "--locks must be between 1 and 20: " + lockCount);
    }
    if (duration.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new CliException(ExitCodes.USAGE, "--duration must be at least 1s: " + duration);
    }
    if (connect == null
        && (sessionTimeout.compareTo(Duration.ofSeconds(1)) < 0
            || sessionTimeout.compareTo(Duration.ofSeconds(5)) > 0)) {
      throw new CliException(
          ExitCodes.USAGE,
          "--session-timeout must be between 1s and 5s with the embedded ensemble: "
              + sessionTimeout);
    }
    if (connect != null) {
      ConnectString.check(connect);
    }
    checkWritable(report);
    if (!progress.matches("auto|line|plain|none")) {
      throw new CliException(
          ExitCodes.USAGE, "--progress must be auto, line, plain or none: " + progress);
    }
  }

  /**
   * Fails now, not after a minute of demo, if the report cannot be written: the file is opened for
   * writing (created if absent, then deleted again; an existing file is left as it is).
   */
  static void checkWritable(Path file) {
    Path f = file.toAbsolutePath();
    if (Files.isDirectory(f)) {
      throw new CliException(ExitCodes.USAGE, "--report " + file + " is a directory");
    }
    boolean existed = Files.exists(f);
    try {
      Files.newOutputStream(
              f, java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND)
          .close(); // opened: writable
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      throw new CliException(
          ExitCodes.USAGE,
          "cannot write the report to "
              + file
              + ": "
              + (e instanceof java.nio.file.NoSuchFileException
                  ? "no such directory"
                  : e instanceof java.nio.file.AccessDeniedException
                      ? "permission denied"
                      : e.toString()));
    }
    if (!existed) {
      try {
        Files.deleteIfExists(f);
      } catch (IOException e) {
        // an empty file stays; it is overwritten at the end
      }
    }
  }

  private void setUp() throws Exception {
    if (connect == null) {
      err.println("zklock demo: starting a 3-server ZooKeeper ensemble (child processes)…");
      err.flush();
      ensemble =
          EmbeddedZooKeeper.ensemble(3)
              .childProcesses()
              .jvmOptions(List.of("-DZKLOCK_LOG=INFO"))
              .start();
      ensemble.awaitQuorum(Duration.ofSeconds(60));
      connectString = ensemble.connectString();
    } else {
      connectString = connect;
    }
    // fail fast, with the usual one-line error, if the ensemble cannot be reached
    try (ZkLocks probe =
        Errors.connecting(
            () ->
                ZkLocks.builder(connectString)
                    .namespace(namespace)
                    .connectTimeout(Duration.ofSeconds(10))
                    .build())) {
      probe.sessionId();
    }
    for (int i = 0; i < servers().size(); i++) {
      Long w = watchEvents(i);
      if (w != null) {
        watchBase.put(i, w);
      }
    }
    coordinator = new DemoCoordinator(20, 60);
    err.println(
        "zklock demo: ZooKeeper at "
            + connectString
            + "; starting "
            + workers
            + " worker processes (logs in "
            + runDir
            + ")…");
    err.flush();
    for (int i = 0; i < workers; i++) {
      spawnWorker();
    }
    if (!coordinator.await(() -> helloCount() >= workers, 120_000)) {
      throw new CliException(
          ExitCodes.FAILURE, "the worker processes did not start within 2 minutes; see " + runDir);
    }
  }

  private int helloCount() {
    int n = 0;
    for (String w : processes.keySet()) {
      if (coordinator.pid(w) != null) {
        n++;
      }
    }
    return n;
  }

  private List<String> servers() {
    List<String> out = new ArrayList<>();
    if (ensemble != null) {
      for (int i = 0; i < ensemble.size(); i++) {
        out.add(ensemble.connectString(i));
      }
      return out;
    }
    String hosts =
        connectString.contains("/")
            ? connectString.substring(0, connectString.indexOf('/'))
            : connectString;
    for (String h : hosts.split(",")) {
      out.add(h.trim().contains(":") ? h.trim() : h.trim() + ":2181");
    }
    return out;
  }

  /** The watch events server {@code i} has triggered, or null if its mntr cannot be read. */
  private Long watchEvents(int i) {
    try {
      String hp = servers().get(i);
      int colon = hp.lastIndexOf(':');
      return FourLetterWords.watchEventsTriggered(
          FourLetterWords.mntr(
              hp.substring(0, colon),
              Integer.parseInt(hp.substring(colon + 1)),
              Duration.ofSeconds(2)));
    } catch (RuntimeException e) {
      return null;
    }
  }

  private synchronized void spawnWorker() throws IOException {
    String id = "worker-" + nextWorker++;
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(
        List.of(
            "-Xmx96m",
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-Xshare:auto",
            "-XX:-UsePerfData",
            "-cp",
            System.getProperty("java.class.path"),
            Main.class.getName(),
            "demo-worker",
            "--connect",
            connectString,
            "--namespace",
            namespace,
            "--session-timeout",
            sessionTimeout.toMillis() + "ms",
            "--coordinator",
            Integer.toString(coordinator.port()),
            "--id",
            id,
            "--locks",
            Integer.toString(lockCount)));
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(Redirect.appendTo(runDir.resolve(id + ".log").toFile()))
            .start();
    processes.put(id, p);
  }

  private static long now() {
    return DemoWorker.nowMicros();
  }

  private void fault(String label) {
    faults.add(new Fault(now(), label));
    status = label;
  }

  private double elapsed() {
    return (now() - startMicros) / 1e6;
  }

  private DemoReport run() throws Exception {
    startMicros = now();
    status = "running";
    long durationMicros = duration.toNanos() / 1000;
    Thread injector = new Thread(() -> injectFaults(durationMicros), "zklock-demo-faults");
    Throwable[] failure = new Throwable[1];
    injector.setUncaughtExceptionHandler((t, e) -> failure[0] = e);
    injector.setDaemon(true);
    injector.start();
    String mode = progress;
    if (mode.equals("auto")) {
      mode = System.console() != null && !"dumb".equals(System.getenv("TERM")) ? "line" : "plain";
    }
    long capMicros = durationMicros + 180_000_000L;
    long lastPlain = 0;
    while (true) {
      long t = now() - startMicros;
      if ((t >= durationMicros && !injector.isAlive()) || t >= capMicros) {
        break;
      }
      if (mode.equals("line")) {
        err.print("\r" + fit(progressLine()) + "\033[K");
        err.flush();
      } else if (mode.equals("plain") && t - lastPlain >= 5_000_000L) {
        err.println(progressLine());
        err.flush();
        lastPlain = t;
      }
      injector.join(mode.equals("line") ? 250 : 500);
    }
    if (mode.equals("line")) {
      err.print("\r" + fit(progressLine()) + "\033[K\n");
    }
    long endMicros = now();
    coordinator.freeze();
    if (injector.isAlive()) {
      injector.interrupt();
      faults.add(new Fault(endMicros, "the fault schedule did not finish in time"));
    }
    if (failure[0] != null) {
      err.println("zklock demo: fault injection failed: " + failure[0]);
    }
    Long watch = totalWatchEvents();
    stopWorkers();
    String setup =
        String.format(
            Locale.ROOT,
            "%d workers (%d started in all), %d locks, session timeout %s, %s",
            workers,
            nextWorker - 1,
            lockCount,
            Durations.format(sessionTimeout),
            ensemble != null ? "3-server ensemble (child processes)" : "ensemble " + connectString);
    List<Event> events = new ArrayList<>();
    for (Event e : coordinator.events()) {
      if (!e.detail().equals("CLOSED")) { // a worker stopped at the end is no loss
        events.add(e);
      }
    }
    DemoReport r =
        new DemoReport(
            events,
            coordinator.writes(),
            faults,
            killed,
            startMicros,
            endMicros,
            watch,
            setup,
            failoverFrom,
            failoverTo);
    err.println(
        "zklock demo: stale write "
            + (staleRejected ? "rejected" : "NOT observed")
            + "; loss "
            + (lossReported ? "reported by the paused holder's handle" : "NOT reported"));
    return r;
  }

  /** Cuts a progress line to the terminal's width, so that "\r" redraws it in place. */
  private static String fit(String line) {
    int columns = 100;
    try {
      columns = Integer.parseInt(System.getenv().getOrDefault("COLUMNS", "100"));
    } catch (NumberFormatException e) {
      // keep the default
    }
    return line.length() < columns ? line : line.substring(0, Math.max(10, columns - 2)) + "…";
  }

  private String progressLine() {
    StringBuilder held = new StringBuilder();
    Map<String, String> holders = new TreeMap<>(coordinator.holders());
    for (int i = 0; i < lockCount; i++) {
      String lock = DemoWorker.lockName(i);
      held.append(' ').append(lock).append('=').append(holders.getOrDefault(lock, "-"));
    }
    return String.format(
        Locale.ROOT,
        "[%5.1fs/%s] acquisitions %d  holders%s  faults %d  %s",
        elapsed(),
        Durations.format(duration),
        coordinator.grants(),
        held,
        faults.stream()
            .filter(
                f ->
                    f.label().startsWith("SIGKILL")
                        || f.label().startsWith("SIGSTOP")
                        || f.label().startsWith("leader"))
            .count(),
        status);
  }

  // ------------------------------------------------------------------ faults

  private void injectFaults(long durationMicros) {
    try {
      sleepUntil(startMicros + durationMicros * 15 / 100);
      killAHolder();
      sleepUntil(startMicros + durationMicros * 35 / 100);
      pauseAHolder();
      if (ensemble != null) {
        sleepUntil(startMicros + durationMicros * 60 / 100);
        leaderFailover();
      } else {
        faults.add(new Fault(now(), "leader failover skipped (--connect: not our ensemble)"));
      }
      status = "running";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void sleepUntil(long micros) throws InterruptedException {
    long left = micros - now();
    if (left > 0) {
      TimeUnit.MICROSECONDS.sleep(left);
    }
  }

  private void killAHolder() throws InterruptedException, IOException {
    status = "waiting for a holder to SIGKILL";
    String[] victim = new String[2];
    AtomicBoolean done = new AtomicBoolean();
    AtomicBoolean triggered = new AtomicBoolean();
    coordinator.grantHook(
        (worker, lock, token) -> {
          if (!done.compareAndSet(false, true)) {
            return true;
          }
          coordinator.grantHook((w, l, t) -> true);
          Process p = processes.get(worker);
          p.destroyForcibly(); // SIGKILL
          killed.put(worker, now());
          coordinator.forget(worker);
          fault("SIGKILL " + worker + " holding " + lock + " (token " + token + ")");
          victim[0] = worker;
          victim[1] = lock;
          triggered.set(true);
          coordinator.record(new Event(now(), "demo", "FAULT", lock, token, "kill"));
          return false;
        });
    coordinator.await(triggered::get, 60_000);
    if (!triggered.get()) {
      fault("SIGKILL skipped: no grant within 60s");
      return;
    }
    spawnWorker(); // keep the contention up
    long killedAt = killed.get(victim[0]);
    String lock = victim[1];
    boolean taken =
        coordinator.await(
            () ->
                coordinator.events().stream()
                    .anyMatch(
                        e ->
                            e.type().equals("GRANT")
                                && e.lock().equals(lock)
                                && e.micros() > killedAt),
            60_000);
    if (taken) {
      Event next =
          coordinator.events().stream()
              .filter(
                  e -> e.type().equals("GRANT") && e.lock().equals(lock) && e.micros() > killedAt)
              .min(Comparator.comparingLong(Event::micros))
              .orElseThrow();
      fault(
          String.format(
              Locale.ROOT,
              "%s granted to %s %.1fs after the kill (session expiry)",
              lock,
              next.worker(),
              (next.micros() - killedAt) / 1e6));
    }
  }

  private void pauseAHolder() throws InterruptedException, IOException {
    status = "waiting for a holder to SIGSTOP";
    String[] victim = new String[2];
    long[] victimToken = new long[1];
    AtomicBoolean triggered = new AtomicBoolean();
    coordinator.grantHook(
        (worker, lock, token) -> {
          if (!paused.compareAndSet(false, true)) {
            return true;
          }
          coordinator.grantHook((w, l, t) -> true);
          signal(processes.get(worker), "STOP");
          pausedWorker = worker;
          victim[0] = worker;
          victim[1] = lock;
          victimToken[0] = token;
          fault(
              "SIGSTOP "
                  + worker
                  + " holding "
                  + lock
                  + " (token "
                  + token
                  + ") for longer than its "
                  + Durations.format(sessionTimeout)
                  + " session timeout");
          triggered.set(true);
          coordinator.record(new Event(now(), "demo", "FAULT", lock, token, "stop"));
          return true; // its "go ahead" waits in the socket until it is resumed
        });
    if (!coordinator.await(triggered::get, 60_000)) {
      fault("SIGSTOP skipped: no grant within 60s");
      return;
    }
    String worker = victim[0];
    String lock = victim[1];
    long token = victimToken[0];
    long cap = Math.max(30_000, sessionTimeout.toMillis() * 8);
    boolean newer = coordinator.await(() -> coordinator.newest(lock) > token, cap);
    fault(
        newer
            ? "ledger accepted token "
                + coordinator.newest(lock)
                + " on "
                + lock
                + " from a new holder; SIGCONT "
                + worker
            : "no new holder wrote to " + lock + " within " + cap / 1000 + "s; SIGCONT " + worker);
    signal(processes.get(worker), "CONT");
    pausedWorker = null;
    coordinator.await(() -> lateWrite(coordinator.writes(), worker, lock, token) != null, 30_000);
    coordinator.await(() -> loss(coordinator.events(), worker, token) != null, 30_000);
    List<Fault> observed =
        lateWriteFaults(coordinator.writes(), coordinator.events(), worker, lock, token);
    staleRejected = lateWrite(coordinator.writes(), worker, lock, token) != null;
    lossReported = loss(coordinator.events(), worker, token) != null;
    faults.addAll(observed);
    if (!observed.isEmpty()) {
      status = observed.get(observed.size() - 1).label();
    }
  }

  /** The paused holder's write with its old token, rejected by the ledger, or null. */
  static DemoCoordinator.Write lateWrite(
      List<DemoCoordinator.Write> writes, String worker, String lock, long token) {
    return writes.stream()
        .filter(
            w ->
                !w.accepted()
                    && w.worker().equals(worker)
                    && w.lock().equals(lock)
                    && w.token() == token)
        .findFirst()
        .orElse(null);
  }

  /** The paused holder's report that it lost the lock, or null. */
  static Event loss(List<Event> events, String worker, long token) {
    return events.stream()
        .filter(e -> e.type().equals("LOST") && e.worker().equals(worker) && e.token() == token)
        .findFirst()
        .orElse(null);
  }

  /**
   * The fault list's lines about the paused holder after it was resumed, each at the time of what
   * it reports (the rejected write, the handle's loss report), so that the report and the
   * timeline's markers and tooltips give the same times. When something did not happen, one line at
   * {@code now} says so.
   */
  static List<Fault> lateWriteFaults(
      List<DemoCoordinator.Write> writes,
      List<Event> events,
      String worker,
      String lock,
      long token) {
    List<Fault> out = new ArrayList<>();
    DemoCoordinator.Write w = lateWrite(writes, worker, lock, token);
    Event lost = loss(events, worker, token);
    if (w != null) {
      out.add(
          new Fault(
              w.micros(),
              worker + "'s late write with token " + token + " was REJECTED by the ledger"));
    } else {
      out.add(new Fault(now(), worker + "'s late write with token " + token + " was not rejected"));
    }
    if (lost != null) {
      out.add(
          new Fault(
              lost.micros(),
              worker + "'s handle reported the loss of " + lock + " (token " + token + ")"));
    } else {
      out.add(new Fault(now(), worker + "'s handle did not report a loss"));
    }
    return out;
  }

  private void leaderFailover() throws InterruptedException {
    int leader = ensemble.awaitQuorum(Duration.ofSeconds(30));
    Long before = watchEvents(leader);
    if (before != null && watchBase.containsKey(leader)) {
      watchFromRestarted += before - watchBase.get(leader);
    }
    watchBase.put(leader, 0L);
    long t0 = System.nanoTime();
    failoverFrom = now();
    fault("leader (server " + leader + ") SIGKILLed");
    ensemble.kill(leader);
    int next = ensemble.awaitQuorum(Duration.ofSeconds(60));
    fault(
        String.format(
            Locale.ROOT,
            "new leader: server %d after %.1fs; restarting server %d",
            next,
            (System.nanoTime() - t0) / 1e9,
            leader));
    ensemble.restart(leader);
    ensemble.awaitQuorum(Duration.ofSeconds(60));
    fault("server " + leader + " rejoined the ensemble");
    failoverTo = now();
  }

  private Long totalWatchEvents() {
    long total = watchFromRestarted;
    for (int i = 0; i < servers().size(); i++) {
      Long now = watchEvents(i);
      Long base = watchBase.get(i);
      if (now == null || base == null) {
        return null;
      }
      total += now - base;
    }
    return total;
  }

  private static void signal(Process p, String signal) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + p.pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run kill -" + signal, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while signalling " + p.pid(), e);
    }
  }

  // ------------------------------------------------------------------ the end

  private void stopWorkers() throws InterruptedException {
    String p = pausedWorker;
    if (p != null && processes.get(p).isAlive()) {
      signal(processes.get(p), "CONT");
    }
    for (Process proc : processes.values()) {
      proc.destroy();
    }
    for (Process proc : processes.values()) {
      if (!proc.waitFor(5, TimeUnit.SECONDS)) {
        proc.destroyForcibly();
      }
    }
  }

  private synchronized void cleanUp() {
    for (Process proc : processes.values()) {
      proc.destroyForcibly();
    }
    if (coordinator != null) {
      coordinator.close();
    }
    if (ensemble != null) {
      ensemble.close();
    }
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      // a temp dir: best effort
    }
  }
}
