package io.zklock.sim;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * What happened, one line per step: the last {@code keep} lines (all of them when replaying), each
 * stamped with the simulated time and who did it.
 */
public final class Trace {
  private final int keep;
  private final ArrayDeque<String> lines;
  private final boolean echo;
  private long count;

  public Trace(int keep, boolean echo) {
    this.keep = keep;
    this.lines = new ArrayDeque<>(Math.min(keep, 4096));
    this.echo = echo;
  }

  /** Whether lines are recorded at all (a run without a trace builds no strings). */
  public boolean on() {
    return keep > 0 || echo;
  }

  public void add(long time, String who, String what) {
    if (!on()) {
      return;
    }
    String line = fmt(time) + " " + who + " " + what;
    count++;
    if (echo) {
      System.out.println(line);
    }
    if (keep > 0) {
      if (lines.size() == keep) {
        lines.poll();
      }
      lines.add(line);
    }
  }

  public long count() {
    return count;
  }

  public List<String> lines() {
    return new ArrayList<>(lines);
  }

  /** Seconds with microseconds: {@code 12.345678}. */
  public static String fmt(long nanos) {
    long us = nanos / 1000;
    return String.format("%d.%06d", us / 1_000_000, us % 1_000_000);
  }
}
