package io.zklock.cli;

import io.zklock.Leader;
import io.zklock.LeaderElection;
import io.zklock.LeadershipListener;
import io.zklock.ZkLocks;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code zklock elect}: run a command while this process leads, or watch who leads. */
@Command(
    name = "elect",
    header = "Runs a command while this process leads an election (hot standby), or --observe.",
    customSynopsis = {
      "zklock elect [OPTIONS] NAME -- COMMAND [ARGS...]",
      "zklock elect --observe [OPTIONS] NAME"
    },
    mixinStandardHelpOptions = true,
    description = {
      "Joins the leader election NAME and waits until it leads; then runs COMMAND with"
          + " ZKLOCK_NAME and ZKLOCK_TOKEN (the epoch: a fencing token greater than every earlier"
          + " leader's). If leadership is lost (session expired, node deleted), COMMAND gets"
          + " SIGTERM, then SIGKILL after --grace, and zklock exits with 4. When COMMAND exits by"
          + " itself, zklock resigns and exits with its status.",
      "With --observe, takes no part: prints the current leader, then a line per change, until"
          + " Ctrl-C.",
      "",
      "Example: zklock elect scheduler -- ./run-scheduler.sh"
    })
final class ElectCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection;

  @Parameters(index = "0", paramLabel = "NAME", description = "Election name, e.g. scheduler.")
  String name;

  @Parameters(
      index = "1..*",
      arity = "0..*",
      paramLabel = "COMMAND",
      description = "The command to run while leading (put -- before it).")
  List<String> command;

  @Option(
      names = "--observe",
      description = "Take no part: print the leader and every change of leader, until Ctrl-C.")
  boolean observe;

  @Option(
      names = "--id",
      paramLabel = "ID",
      description =
          "This participant's id, shown to observers and by zklock ls (default: the client"
              + " name); it is also the client name unless --client-name is given.")
  String id;

  @Option(
      names = "--grace",
      paramLabel = "DURATION",
      defaultValue = "10s",
      converter = Durations.class,
      description =
          "After losing leadership: how long COMMAND may take to exit after SIGTERM before"
              + " SIGKILL (default: ${DEFAULT-VALUE}).")
  Duration grace;

  @Option(
      names = "--process-group",
      description = "Run COMMAND in its own process group and signal the whole group.")
  boolean processGroup;

  @Option(
      names = "--client-name",
      paramLabel = "NAME",
      description = "Name shown by zklock ls (default: the --id, else host:pid).")
  String clientName;

  /** Stops --observe after this many lines (tests); 0 means until interrupted. */
  int maxLines;

  @Override
  public Integer call() throws InterruptedException {
    LockNames.requireBeforeDoubleDash(spec, command);
    if (observe && command != null) {
      throw new CliException(ExitCodes.USAGE, "--observe takes no COMMAND");
    }
    if (!observe && command == null) {
      throw new CliException(
          ExitCodes.USAGE, "a COMMAND is required (or --observe): elect NAME -- COMMAND");
    }
    if (grace.isNegative()) {
      throw new CliException(ExitCodes.USAGE, "--grace must not be negative: " + grace);
    }
    return observe ? observe() : lead();
  }

  // ------------------------------------------------------------------ --observe

  private int observe() throws InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    try (ZkLocks locks = connection.connect(clientName)) {
      // an election that is never started takes no part: it only observes
      LeaderElection election = locks.leaderElection(name, "zklock-observer");
      BlockingQueue<Optional<Leader>> changes = new LinkedBlockingQueue<>();
      election.addObserver(changes::add);
      String last = null;
      int lines = 0;
      while (true) {
        Optional<Leader> leader = changes.take();
        String now =
            leader
                .map(l -> "leader " + l.participantId() + " (epoch " + l.epoch() + ")")
                .orElse("no leader");
        if (!now.equals(last)) {
          out.println(Instant.now().truncatedTo(ChronoUnit.MILLIS) + " " + name + ": " + now);
          out.flush();
          last = now;
          lines++;
          if (maxLines > 0 && lines >= maxLines) {
            return ExitCodes.OK;
          }
        }
      }
    }
  }

  // ------------------------------------------------------------------ leading

  private int lead() throws InterruptedException {
    PrintWriter err = spec.commandLine().getErr();
    Lead run = new Lead(err, Thread.currentThread());
    Thread hook = new Thread(run::onShutdown, "zklock-elect-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      return run.call();
    } finally {
      run.finished.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // Ctrl-C: the hook cleans up
      }
    }
  }

  private final class Lead implements LeadershipListener {
    private final PrintWriter err;
    private final Thread main;
    final CountDownLatch finished = new CountDownLatch(1);
    private final CompletableFuture<Long> elected = new CompletableFuture<>();
    private final CompletableFuture<Long> revoked = new CompletableFuture<>();
    private volatile Child child;
    private volatile LeaderElection election;
    private volatile ZkLocks locks;
    private volatile boolean cancelled;

    Lead(PrintWriter err, Thread main) {
      this.err = err;
      this.main = main;
    }

    @Override
    public void elected(long epoch) {
      elected.complete(epoch);
    }

    @Override
    public void revoked(long epoch) {
      revoked.complete(epoch);
    }

    @SuppressWarnings("try") // closed early on cancel, to say nothing is left behind
    int call() throws InterruptedException {
      // the id names the participant everywhere: zklock ls shows client names
      try (ZkLocks l = connection.connect(clientName != null ? clientName : id)) {
        locks = l;
        String participant = id != null ? id : l.clientName();
        try (LeaderElection e = l.leaderElection(name, participant)) {
          election = e;
          e.addListener(this);
          e.start();
          long epoch;
          try {
            epoch = elected.get();
          } catch (InterruptedException ie) {
            if (!cancelled) {
              throw ie;
            }
            e.close();
            l.close();
            err.println(
                "zklock: cancelled while waiting to lead '"
                    + name
                    + "'; left the election, nothing is left behind");
            err.flush();
            return ExitCodes.INTERRUPTED;
          } catch (ExecutionException impossible) {
            throw new IllegalStateException(impossible);
          }
          err.println("zklock: " + participant + " leads '" + name + "' (epoch " + epoch + ")");
          err.flush();
          Child c =
              Child.start(
                  command,
                  Map.of(
                      "ZKLOCK_NAME", name,
                      "ZKLOCK_TOKEN", Long.toString(epoch),
                      "ZKLOCK_EPOCH", Long.toString(epoch)),
                  processGroup);
          child = c;
          Object first;
          try {
            first = CompletableFuture.anyOf(c.process().onExit(), revoked).get();
          } catch (ExecutionException impossible) {
            throw new IllegalStateException(impossible);
          }
          if (first instanceof Long && c.process().isAlive()) {
            err.println(
                "zklock: lost the leadership of '"
                    + name
                    + "' (epoch "
                    + epoch
                    + "); terminating the command (pid "
                    + c.pid()
                    + (processGroup ? ", its process group" : "")
                    + ")");
            err.flush();
            c.terminate(grace, err);
            return ExitCodes.LOCK_LOST;
          }
          return c.process().waitFor();
        }
      }
    }

    void onShutdown() {
      if (child == null) {
        cancelled = true;
        main.interrupt();
      } else {
        try {
          child.terminate(grace, null);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        LeaderElection e = election;
        if (e != null) {
          e.close();
        }
        ZkLocks l = locks;
        if (l != null) {
          l.close();
        }
      }
      try {
        finished.await(grace.toMillis() + 15_000, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
