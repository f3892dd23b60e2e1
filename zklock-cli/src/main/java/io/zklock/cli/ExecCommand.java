package io.zklock.cli;

import io.zklock.DistributedLock;
import io.zklock.DistributedSemaphore;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.ZkLockException;
import io.zklock.ZkLocks;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code zklock exec}: runs a command while holding a lock, like flock(1). */
@Command(
    name = "exec",
    header = "Runs a command while holding a lock, like flock(1).",
    customSynopsis = {
      "zklock exec [OPTIONS] NAME -- COMMAND [ARGS...]",
      "zklock exec --hold [OPTIONS] NAME"
    },
    mixinStandardHelpOptions = true,
    description = {
      "Waits for the lock NAME, runs COMMAND while holding it, releases it when COMMAND exits,"
          + " and exits with COMMAND's status. The lock is exclusive (a mutex) unless --shared"
          + " (the read side: shared with other --shared holders, excluded by exclusive ones) or"
          + " --permits N (a semaphore: N holders at once).",
      "COMMAND sees ZKLOCK_NAME and ZKLOCK_TOKEN (the fencing token: pass it to whatever the lock"
          + " protects). If the lock is lost while COMMAND runs (session expired, node deleted),"
          + " COMMAND gets SIGTERM, then SIGKILL after --grace, and zklock exits with 4. If a"
          + " release is requested (zklock release --request), --on-release-request says what"
          + " COMMAND hears.",
      "With --hold and no COMMAND, zklock holds the lock, prints the fencing token on stdout, and"
          + " releases when stdin closes or on SIGINT/SIGTERM (exit 0). An empty COMMAND without"
          + " --hold is an error: nothing is locked.",
      "",
      "Example: zklock exec --timeout 30s nightly-report -- ./make-report.sh"
    })
final class ExecCommand implements java.util.concurrent.Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection;

  @Parameters(index = "0", paramLabel = "NAME", description = "Lock name, e.g. orders/42.")
  String name;

  @Parameters(
      index = "1..*",
      arity = "0..*",
      paramLabel = "COMMAND",
      description = "The command and its arguments (put -- before it).")
  List<String> command;

  @Option(
      names = "--hold",
      description =
          "No COMMAND: hold the lock, print the fencing token on stdout, and release when stdin"
              + " closes or on SIGINT/SIGTERM (exit 0).")
  boolean hold;

  @Option(
      names = {"-t", "--timeout"},
      paramLabel = "DURATION",
      converter = Durations.class,
      description =
          "Give up after waiting this long for the lock (exit 3, or --conflict-exit-code)."
              + " Default: wait forever.")
  Duration timeout;

  @Option(
      names = "--nonblock",
      description =
          "Do not wait: if the lock is taken, exit at once (3, or --conflict-exit-code),"
              + " leaving nothing behind.")
  boolean nonblock;

  @Option(
      names = "--conflict-exit-code",
      paramLabel = "CODE",
      defaultValue = "3",
      description =
          "Exit status when the lock was not obtained (--nonblock or --timeout)"
              + " (default: ${DEFAULT-VALUE}).")
  int conflictExitCode;

  @Option(
      names = "--shared",
      description =
          "Take the shared (read) side: shared with other --shared holders of NAME, exclusive"
              + " with plain exec (and the library's mutex or write lock) on NAME.")
  boolean shared;

  @Option(
      names = "--permits",
      paramLabel = "N",
      description =
          "Take one of N permits of the semaphore NAME: up to N holders at once. Every user of"
              + " NAME should give the same N.")
  Integer permits;

  @Option(
      names = "--lease",
      paramLabel = "DURATION",
      converter = Durations.class,
      description =
          "Hold the lock at most this long: when the lease runs out zklock releases the lock and"
              + " treats it as lost (COMMAND gets SIGTERM, exit 4). Not with --permits.")
  Duration lease;

  @Option(
      names = "--process-group",
      description =
          "Run COMMAND in its own process group (setsid) and send SIGTERM/SIGKILL to the whole"
              + " group, so that jobs it starts in the background stop with it.")
  boolean processGroup;

  @Option(
      names = "--grace",
      paramLabel = "DURATION",
      defaultValue = "10s",
      converter = Durations.class,
      description =
          "After losing the lock: how long COMMAND may take to exit after SIGTERM before SIGKILL"
              + " (default: ${DEFAULT-VALUE}).")
  Duration grace;

  @Option(
      names = "--on-release-request",
      paramLabel = "ACTION",
      defaultValue = "stop",
      converter = ReleaseRequestAction.Converter.class,
      description =
          "When a release is requested (zklock release --request): stop (the default: SIGTERM to"
              + " COMMAND, SIGKILL after --grace; with --hold, release and exit 0), signal:NAME"
              + " (send one signal, e.g. signal:USR1, and let COMMAND decide), log (a line on"
              + " stderr) or ignore.")
  ReleaseRequestAction onReleaseRequest;

  @Option(
      names = {"-q", "--quiet"},
      description =
          "Print nothing on stderr when the lock is not obtained (--nonblock, --timeout) or a"
              + " release is requested; errors are still printed.")
  boolean quiet;

  @Option(
      names = "--client-name",
      paramLabel = "NAME",
      description = "Name shown by zklock ls (default: host:pid).")
  String clientName;

  /** What the shell calls the lock in messages: {@code lock 'x'}, {@code read lock 'x'}... */
  private String what() {
    if (permits != null) {
      return "a permit of semaphore '" + name + "'";
    }
    return (shared ? "read lock '" : "lock '") + name + "'";
  }

  private void validate() {
    LockNames.requireBeforeDoubleDash(spec, command);
    if (timeout != null && timeout.isNegative()) {
      throw new CliException(ExitCodes.USAGE, "--timeout must not be negative: " + timeout);
    }
    if (grace.isNegative()) {
      throw new CliException(ExitCodes.USAGE, "--grace must not be negative: " + grace);
    }
    if (shared && permits != null) {
      throw new CliException(
          ExitCodes.USAGE, "--shared and --permits do not go together (a semaphore has no sides)");
    }
    if (lease != null && (lease.isNegative() || lease.isZero())) {
      throw new CliException(ExitCodes.USAGE, "--lease must be positive: " + lease);
    }
    if (lease != null && permits != null) {
      throw new CliException(
          ExitCodes.USAGE, "--lease does not go with --permits (a semaphore has no lease yet)");
    }
    if (permits != null && permits < 1) {
      throw new CliException(ExitCodes.USAGE, "--permits must be at least 1: " + permits);
    }
    if (nonblock && timeout != null) {
      throw new CliException(ExitCodes.USAGE, "--nonblock and --timeout do not go together");
    }
    if (conflictExitCode < 0 || conflictExitCode > 255) {
      throw new CliException(
          ExitCodes.USAGE, "--conflict-exit-code must be between 0 and 255: " + conflictExitCode);
    }
    boolean noCommand = command == null || command.isEmpty();
    if (hold && !noCommand) {
      throw new CliException(
          ExitCodes.USAGE, "--hold takes no COMMAND: zklock exec --hold NAME, or NAME -- COMMAND");
    }
    if (!hold && noCommand) {
      // `zklock exec nightly -- $CMD` with CMD empty: refuse rather than lock and "succeed"
      throw new CliException(
          ExitCodes.USAGE,
          "a COMMAND is required (none was given, or it is empty): zklock exec NAME -- COMMAND;"
              + " to hold the lock without a command, use zklock exec --hold NAME");
    }
    if (processGroup && hold) {
      throw new CliException(ExitCodes.USAGE, "--process-group needs a COMMAND, not --hold");
    }
    if (hold && onReleaseRequest.kind() == ReleaseRequestAction.Kind.SIGNAL) {
      throw new CliException(
          ExitCodes.USAGE,
          "--on-release-request "
              + onReleaseRequest
              + " needs a COMMAND to signal; with --hold: stop, log or ignore");
    }
  }

  /** Whether "did not get the lock" goes unsaid: --quiet, or a conflict made a success (0). */
  private boolean quietConflict() {
    return quiet || conflictExitCode == 0;
  }

  @Override
  public Integer call() throws InterruptedException {
    validate();
    PrintWriter err = spec.commandLine().getErr();
    Run run = new Run(err, Thread.currentThread());
    Thread hook = new Thread(run::onShutdown, "zklock-exec-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      int code = run.call();
      run.exitCode = code;
      return code;
    } finally {
      run.finished.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // Ctrl-C: the hook cleans up
      }
    }
  }

  /** What a request to release completes its future with. */
  private static final Object RELEASE_REQUESTED = new Object();

  /** One execution: connect, acquire, run (or hold), watch for loss, release. */
  private final class Run {
    private final PrintWriter err;
    private final Thread main;
    final CountDownLatch finished = new CountDownLatch(1);
    volatile int exitCode = ExitCodes.FAILURE;
    private final CompletableFuture<Object> signalled = new CompletableFuture<>();
    private volatile ZkLocks locks;
    private volatile Child child;
    private volatile LockHandle handle;
    private volatile boolean cancelled;

    Run(PrintWriter err, Thread main) {
      this.err = err;
      this.main = main;
    }

    @SuppressWarnings("try") // closed early on cancel, to say nothing is left behind
    int call() throws InterruptedException {
      try (ZkLocks l = connection.connect(clientName)) {
        locks = l;
        LockHandle h;
        try {
          h = acquire(l);
        } catch (ZkLockException e) {
          if (!cancelled && e.getCause() instanceof IllegalArgumentException) {
            // the semaphore stores another permit count: the caller's mistake, not a failure
            throw new CliException(ExitCodes.USAGE, e.getMessage(), e);
          }
          if (!cancelled) {
            throw e;
          }
          return cancelledWhileWaiting(l);
        } catch (InterruptedException | RuntimeException e) {
          if (!cancelled) {
            throw e;
          }
          return cancelledWhileWaiting(l);
        }
        if (h == null) {
          return conflictExitCode;
        }
        handle = h;
        try {
          return hold ? hold(h) : run(h);
        } finally {
          h.release();
        }
      }
    }

    /**
     * SIGINT or SIGTERM while waiting. The JVM exits with 128 + the signal's number (130, 143),
     * whatever this returns; {@link ExitCodes#INTERRUPTED} is for callers in the same JVM.
     */
    private int cancelledWhileWaiting(ZkLocks l) {
      l.close(); // ends the session: no node of ours survives it
      err.println(
          "zklock: cancelled while waiting for "
              + what()
              + "; the request was withdrawn, nothing is left behind");
      err.flush();
      return ExitCodes.INTERRUPTED;
    }

    /** Completes when a release is requested, unless requests are ignored. */
    private CompletableFuture<Object> releaseRequested(LockHandle h) {
      CompletableFuture<Object> requested = new CompletableFuture<>();
      if (onReleaseRequest.kind() != ReleaseRequestAction.Kind.IGNORE) {
        h.onReleaseRequested(() -> requested.complete(RELEASE_REQUESTED));
      }
      return requested;
    }

    private void say(String line) {
      if (!quiet) {
        err.println("zklock: " + line);
        err.flush();
      }
    }

    /** The handle, null when not obtained (nonblock or timeout; the message is printed). */
    private LockHandle acquire(ZkLocks l) throws InterruptedException {
      Optional<LockHandle> got;
      if (permits != null) {
        DistributedSemaphore sem = l.semaphore(name, permits);
        if (nonblock) {
          got = sem.tryAcquire();
        } else if (timeout != null) {
          got = sem.tryAcquire(timeout);
        } else {
          return sem.acquire();
        }
      } else {
        DistributedLock lock = shared ? l.readWriteLock(name).readLock() : l.mutex(name);
        if (lease != null) {
          lock = lock.withLease(lease);
        }
        if (nonblock) {
          got = lock.tryAcquire();
        } else if (timeout != null) {
          got = lock.tryAcquire(timeout);
        } else {
          return lock.acquire();
        }
      }
      if (got.isEmpty()) {
        if (quietConflict()) {
          return null;
        }
        err.println(
            nonblock
                ? "zklock: " + what() + " is taken (--nonblock); nothing is left behind"
                : "zklock: timed out after "
                    + Durations.format(timeout)
                    + " waiting for "
                    + what());
        err.flush();
        return null;
      }
      return got.get();
    }

    private int run(LockHandle h) throws InterruptedException {
      Child c =
          Child.start(
              command,
              Map.of("ZKLOCK_NAME", name, "ZKLOCK_TOKEN", Long.toString(h.fencingToken())),
              processGroup);
      child = c;
      CompletableFuture<Object> lost = h.lost().thenApply(l -> (Object) l);
      CompletableFuture<Object> requested = releaseRequested(h);
      while (true) {
        Object outcome =
            await(
                requested == null
                    ? CompletableFuture.anyOf(c.process().onExit(), lost)
                    : CompletableFuture.anyOf(c.process().onExit(), lost, requested));
        if (outcome instanceof LockLostException && c.process().isAlive()) {
          LockLostException lostBy = (LockLostException) outcome;
          err.println(
              "zklock: lost "
                  + what()
                  + " while the command ran: "
                  + lostBy.getMessage()
                  + "; terminating it (pid "
                  + c.pid()
                  + (processGroup ? ", its process group" : "")
                  + ")");
          err.flush();
          c.terminate(grace, err);
          return ExitCodes.LOCK_LOST;
        }
        if (outcome == RELEASE_REQUESTED && c.process().isAlive()) {
          requested = null; // heard once
          onReleaseRequested(c);
          if (onReleaseRequest.kind() == ReleaseRequestAction.Kind.STOP) {
            c.terminate(grace, err);
            return c.process().waitFor();
          }
          continue;
        }
        return c.process().waitFor();
      }
    }

    /** A release was requested while the command runs: tell it as {@code --on-release-request}. */
    private void onReleaseRequested(Child c) throws InterruptedException {
      String target = "the command (pid " + c.pid() + (processGroup ? ", its process group" : "");
      switch (onReleaseRequest.kind()) {
        case STOP ->
            say(
                "release of "
                    + what()
                    + " requested; stopping "
                    + target
                    + "): SIGTERM, SIGKILL after "
                    + Durations.format(grace));
        case SIGNAL -> {
          say(
              "release of "
                  + what()
                  + " requested; sending SIG"
                  + onReleaseRequest.signal()
                  + " to "
                  + target
                  + ")");
          c.send(onReleaseRequest.signal());
        }
        case LOG ->
            say(
                "release of "
                    + what()
                    + " requested (--on-release-request log); the command runs on and the lock stays"
                    + " held until it exits");
        case IGNORE -> {}
      }
    }

    /** No command: print the token, hold until stdin closes, a signal, or the loss. */
    private int hold(LockHandle h) throws InterruptedException {
      PrintWriter out = spec.commandLine().getOut();
      out.println(h.fencingToken());
      out.flush();
      CompletableFuture<Object> stdinClosed = new CompletableFuture<>();
      Thread reader =
          new Thread(
              () -> {
                InputStream in = System.in;
                byte[] buf = new byte[256];
                try {
                  while (in.read(buf) >= 0) {
                    // input is ignored: only its end matters
                  }
                } catch (IOException e) {
                  // a broken stdin ends the hold as its end does
                }
                stdinClosed.complete("stdin");
              },
              "zklock-exec-stdin");
      reader.setDaemon(true);
      reader.start();
      CompletableFuture<Object> lost = h.lost().thenApply(l -> (Object) l);
      CompletableFuture<Object> requested = releaseRequested(h);
      while (true) {
        Object outcome =
            await(
                requested == null
                    ? CompletableFuture.anyOf(stdinClosed, signalled, lost)
                    : CompletableFuture.anyOf(stdinClosed, signalled, lost, requested));
        if (outcome instanceof LockLostException) {
          err.println("zklock: lost " + what() + ": " + ((LockLostException) outcome).getMessage());
          err.flush();
          return ExitCodes.LOCK_LOST;
        }
        if (outcome == RELEASE_REQUESTED) {
          requested = null;
          if (onReleaseRequest.kind() == ReleaseRequestAction.Kind.STOP) {
            say("release of " + what() + " requested; releasing it");
            return ExitCodes.OK;
          }
          say("release of " + what() + " requested (--on-release-request log); still holding it");
          continue;
        }
        return ExitCodes.OK;
      }
    }

    private Object await(CompletableFuture<Object> f) throws InterruptedException {
      try {
        return f.get();
      } catch (ExecutionException e) {
        throw new IllegalStateException("waiting for the command failed", e.getCause());
      }
    }

    /**
     * Ctrl-C or SIGTERM to zklock. While waiting: withdraw the request (the main thread says so).
     * While holding: stop the command (the grace applies), then release.
     */
    void onShutdown() {
      LockHandle h = handle;
      if (h == null) {
        cancelled = true;
        main.interrupt();
        awaitFinished();
        return;
      }
      signalled.complete("signal");
      Child c = child;
      if (c != null) {
        try {
          c.terminate(grace, null);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      try {
        h.release();
      } catch (RuntimeException e) {
        // the session ends with the JVM anyway
      }
      ZkLocks l = locks;
      if (l != null) {
        l.close();
      }
      awaitFinished();
      if (hold) {
        // a signal is how a hold is meant to end: the lock was released, that is success (not
        // the JVM's 128 + signal); a loss meanwhile keeps its own code
        Runtime.getRuntime().halt(exitCode);
      }
    }

    private void awaitFinished() {
      try { // let the main thread release, close and say what happened before the JVM halts
        finished.await(grace.toMillis() + 15_000, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
