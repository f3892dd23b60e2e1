package io.zklock.cli;

import io.zklock.LockInfo;
import io.zklock.LockNode;
import io.zklock.ZkLockException;
import io.zklock.ZkLocks;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code zklock release}: an operator takes a lock away from its holders. */
@Command(
    name = "release",
    header = "Forcibly releases a lock held by someone else (asks first, unless --yes).",
    mixinStandardHelpOptions = true,
    description = {
      "Shows the holders of the lock NAME (any kind: mutex, read-write, simple, semaphore,"
          + " election), asks for confirmation on stdin, then deletes the node of each holder shown."
          + " Each holder's process learns that it lost the lock (zklock exec terminates its"
          + " command and exits with 4); the next waiters are granted the lock.",
      "The holder may still be working until it hears of it: the fencing token is what protects"
          + " the resource. --request only asks the holders to release (they decide).",
      "Exit status: 0 when released (or nothing held it), 1 when not confirmed."
    })
final class ReleaseCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection;

  @Parameters(index = "0", paramLabel = "NAME", description = "Lock name, e.g. orders/42.")
  String name;

  @Option(
      names = {"-y", "--yes"},
      description = "Do not ask for confirmation.")
  boolean yes;

  @Option(
      names = "--request",
      description =
          "Only ask the holders to release (LockHandle#onReleaseRequested); nothing is deleted.")
  boolean request;

  /** Where the confirmation is read; tests replace it. */
  InputStream confirmation = System.in;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try (ZkLocks locks = connection.connect("zklock-release")) {
      Optional<LockInfo> info = locks.inspect(name);
      if (info.isEmpty() || info.get().holders().isEmpty()) {
        err.println("zklock: lock '" + name + "' is not held; nothing to release");
        err.flush();
        return ExitCodes.OK;
      }
      List<LockNode> holders = info.get().holders();
      if (request) {
        List<LockNode> asked = locks.requestRelease(name);
        for (LockNode n : asked) {
          out.println("asked to release: " + describe(n));
        }
        out.flush();
        return ExitCodes.OK;
      }
      err.println("Holders of lock '" + name + "' (" + kind(info.get()) + "):");
      for (LockNode n : holders) {
        err.println("  " + describe(n));
      }
      if (!yes) {
        err.print(
            "Release "
                + (holders.size() == 1 ? "it" : "all " + holders.size())
                + "? Each holder loses the lock while it may still be working. [y/N] ");
        err.flush();
        if (!confirmed()) {
          err.println("zklock: not released (not confirmed; --yes skips the question)");
          err.flush();
          return ExitCodes.FAILURE;
        }
      }
      List<LockNode> released = new ArrayList<>();
      List<LockNode> leftAlone = new ArrayList<>();
      for (LockNode n : holders) { // exactly those shown: a holder granted since is not touched
        if (otherLibrarys(n)) {
          leftAlone.add(n);
        } else if (locks.forceRelease(n)) {
          released.add(n);
        }
      }
      for (LockNode n : released) {
        out.println("released: " + describe(n));
      }
      out.flush();
      for (LockNode n : leftAlone) {
        err.println(
            "zklock: left alone: "
                + describe(n)
                + ": another library's client, which does not watch its node, would hold on");
      }
      int gone = holders.size() - released.size() - leftAlone.size();
      if (gone > 0) {
        err.println("zklock: " + gone + " holder(s) had released already");
      }
      err.flush();
      return ExitCodes.OK;
    } catch (IllegalArgumentException e) {
      throw new CliException(ExitCodes.USAGE, e.getMessage(), e);
    } catch (ZkLockException e) {
      throw new CliException(
          ExitCodes.FAILURE, "cannot release lock '" + name + "': " + e.getMessage(), e);
    }
  }

  /** Whether {@code n} is another library's client's node, which zklock never deletes. */
  private static boolean otherLibrarys(LockNode n) {
    return n.kind() == LockNode.Kind.FOREIGN || n.clientName().equals("(kazoo)");
  }

  private boolean confirmed() {
    try {
      BufferedReader in =
          new BufferedReader(new InputStreamReader(confirmation, Charset.defaultCharset()));
      String answer = in.readLine();
      return answer != null && answer.strip().toLowerCase(Locale.ROOT).matches("y|yes");
    } catch (IOException e) {
      return false;
    }
  }

  private static String kind(LockInfo info) {
    String k = info.kind().name().toLowerCase(Locale.ROOT).replace('_', '-');
    return info.kind() == LockInfo.Kind.SEMAPHORE ? k + ", " + info.permits() + " permits" : k;
  }

  private static String describe(LockNode n) {
    return n.kind().label()
        + " "
        + n.name()
        + " client "
        + (n.clientName().isEmpty() ? "?" : n.clientName())
        + (n.host().isEmpty() ? "" : " on " + n.host())
        + (n.pid() > 0 ? " pid " + n.pid() : "")
        + " session 0x"
        + Long.toHexString(n.sessionId())
        + " token "
        + n.fencingToken();
  }
}
