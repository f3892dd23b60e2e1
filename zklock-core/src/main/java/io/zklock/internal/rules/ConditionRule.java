package io.zklock.internal.rules;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Whom a condition's signal wakes: a pure function of the names of the condition's waiter nodes.
 *
 * <p>A waiter is an EPHEMERAL_SEQUENTIAL node {@code cv-<attempt>-<sequence>}, made while its owner
 * held the lock (so arrival order is the lock's order) and before it released it. A signal deletes
 * the node: {@link #toSignal} says which, in arrival order: {@code signal()} the earliest, {@code
 * signalAll()} every one. Sequences are compared with wrap-around arithmetic (the server's counter
 * is a signed 32-bit int that wraps), as the lock queue's are. Names that are not waiters are
 * ignored.
 */
public final class ConditionRule {
  private ConditionRule() {}

  /** The prefix of a waiter node's name. */
  public static final String WAITER_PREFIX = "cv-"; // not a lock kind's prefix: inspection skips it

  /** A waiter: its node's name and the sequence the server appended. */
  public record Waiter(String name, int sequence) {}

  /** Arrival order: the sequence, compared with wrap-around arithmetic. */
  public static final Comparator<Waiter> ARRIVAL =
      (a, b) -> Integer.compare(a.sequence() - b.sequence(), 0);

  /** The waiter a node name describes, or null if it is not one. */
  public static Waiter parse(String name) {
    if (name == null || !name.startsWith(WAITER_PREFIX)) {
      return null;
    }
    int sep = name.indexOf('-', WAITER_PREFIX.length()); // the attempt id has no '-'
    if (sep < 0 || sep == name.length() - 1) {
      return null;
    }
    try {
      // the server's "%010d": a wrapped (negative) counter keeps its sign
      return new Waiter(name, Integer.parseInt(name.substring(sep + 1)));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /**
   * The waiter nodes a signal deletes, in the order to delete them: for {@code signal()} ({@code
   * all} false) the earliest waiter alone, for {@code signalAll()} every waiter in arrival order;
   * empty if nobody waits.
   */
  public static List<String> toSignal(List<String> children, boolean all) {
    List<Waiter> waiters = new ArrayList<>();
    for (String c : children) {
      Waiter w = parse(c);
      if (w != null) {
        waiters.add(w);
      }
    }
    waiters.sort(ARRIVAL);
    List<String> out = new ArrayList<>();
    for (Waiter w : waiters) {
      out.add(w.name());
      if (!all) {
        break;
      }
    }
    return out;
  }
}
