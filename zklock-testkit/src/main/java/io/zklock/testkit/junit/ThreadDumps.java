package io.zklock.testkit.junit;

import java.io.IOException;
import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;

/**
 * A dump of every thread of this JVM, as {@code jstack} prints it: each thread's state, the monitor
 * or lock it waits for and who owns it, its whole stack (the JDK's {@link ThreadInfo#toString()}
 * cuts it at eight frames) and the monitors it holds; deadlocked threads named first.
 */
public final class ThreadDumps {
  private ThreadDumps() {}

  /** Every live thread of this JVM, with its whole stack. */
  public static String all() {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    StringBuilder out = new StringBuilder();
    out.append("Thread dump at ").append(Instant.now()).append(" (pid ");
    out.append(ProcessHandle.current().pid()).append(")\n");
    long[] deadlocked = mx.findDeadlockedThreads();
    if (deadlocked != null) {
      out.append("DEADLOCKED threads: ").append(Arrays.toString(deadlocked)).append('\n');
    }
    ThreadInfo[] infos =
        mx.dumpAllThreads(mx.isObjectMonitorUsageSupported(), mx.isSynchronizerUsageSupported());
    Arrays.sort(infos, Comparator.comparing(ThreadInfo::getThreadName));
    for (ThreadInfo t : infos) {
      append(out, t);
    }
    return out.toString();
  }

  /**
   * Writes {@link #all()} to {@code target/thread-dumps/<name>.txt} under the working directory (a
   * module's directory when Maven Surefire runs it); returns the file, or null if it cannot be
   * written.
   */
  public static Path write(String name, String dump) {
    String safe = name.replaceAll("[^A-Za-z0-9._-]+", "_");
    if (safe.length() > 150) {
      safe = safe.substring(0, 150);
    }
    Path file = Path.of("target", "thread-dumps", safe + "-" + System.nanoTime() + ".txt");
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, dump, StandardCharsets.UTF_8);
      return file.toAbsolutePath();
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private static void append(StringBuilder out, ThreadInfo t) {
    out.append('\n')
        .append('"')
        .append(t.getThreadName())
        .append("\" #")
        .append(t.getThreadId())
        .append(t.isDaemon() ? " daemon" : "")
        .append(" prio=")
        .append(t.getPriority())
        .append(' ')
        .append(t.getThreadState());
    if (t.getLockName() != null) {
      out.append(" on ").append(t.getLockName());
    }
    if (t.getLockOwnerName() != null) {
      out.append(" owned by \"")
          .append(t.getLockOwnerName())
          .append("\" #")
          .append(t.getLockOwnerId());
    }
    if (t.isSuspended()) {
      out.append(" (suspended)");
    }
    if (t.isInNative()) {
      out.append(" (in native)");
    }
    out.append('\n');
    StackTraceElement[] stack = t.getStackTrace();
    MonitorInfo[] monitors = t.getLockedMonitors();
    for (int i = 0; i < stack.length; i++) {
      out.append("\tat ").append(stack[i]).append('\n');
      if (i == 0 && t.getLockInfo() != null) {
        out.append("\t-  waiting on ").append(t.getLockInfo()).append('\n');
      }
      for (MonitorInfo m : monitors) {
        if (m.getLockedStackDepth() == i) {
          out.append("\t-  locked ").append(m).append('\n');
        }
      }
    }
    LockInfo[] synchronizers = t.getLockedSynchronizers();
    if (synchronizers.length > 0) {
      out.append("\tLocked synchronizers:\n");
      for (LockInfo l : synchronizers) {
        out.append("\t- ").append(l).append('\n');
      }
    }
  }
}
