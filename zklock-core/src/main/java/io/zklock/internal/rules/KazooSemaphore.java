package io.zklock.internal.rules;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The decisions of the kazoo-compatible semaphore, as pure functions: what its directory's data
 * says, whether an admitted request may create a lease, and what is refused.
 *
 * <p>Python kazoo's {@code Semaphore} (kazoo/recipe/lock.py, the same in 2.8 and later) keeps:
 *
 * <ul>
 *   <li>its {@code max_leases} as the semaphore path's data, as plain text ({@code "3"}), written
 *       by the client that created the path; a client that finds the path made reads the data with
 *       Python's {@code int()} and raises on another number, and ignores data that is not a number;
 *   <li>its leases as the path's children, one EPHEMERAL node per holder, named by a bare {@code
 *       uuid4().hex} (no sequence), whose data is the holder's identifier;
 *   <li>its admission as a kazoo {@code Lock} on the sibling path {@code <path>-__lock__}: the
 *       holder of that lock lists the children (with a watch), creates its lease if there are fewer
 *       than {@code max_leases} of them, waits for the watch otherwise, and releases the lock once
 *       its lease exists.
 * </ul>
 *
 * A lease is created only by the admitted client, and only when the listing it made while admitted
 * counts fewer leases than the permits: with every client of either library admitted one at a time
 * through the same lock, the count never exceeds the permits ({@link #lease}). kazoo counts every
 * child as a lease, so zklock does too.
 *
 * <p>What the two cannot share is refused ({@link #judgeData}, {@link #lease}): another stored
 * count (kazoo raises too), zklock's JSON form of a count (its own semaphore's layout, which kazoo
 * would ignore and count beside), data that is not a count, and the sub-directories of zklock's or
 * a Curator-compatible semaphore ({@code queue}, {@code leases}, {@code locks}), which kazoo would
 * count as leases held for good.
 */
public final class KazooSemaphore {
  private KazooSemaphore() {}

  /** The suffix of the admission lock's path: {@code <path>-__lock__}, as kazoo names it. */
  public static final String ADMISSION_SUFFIX = "-__lock__";

  /** The length of a lease's name: {@code uuid4().hex}. */
  public static final int LEASE_NAME_LENGTH = 32;

  /** The sub-directories of zklock's and the Curator-compatible semaphore's layouts. */
  private static final List<String> OTHER_LAYOUTS = List.of("queue", "leases", "locks");

  /** The admission lock's directory of the semaphore at {@code dir}. */
  public static String admissionDir(String dir) {
    return dir + ADMISSION_SUFFIX;
  }

  /** Whether {@code name} is shaped as a kazoo lease's: 32 lowercase hex digits. */
  public static boolean isLeaseName(String name) {
    if (name.length() != LEASE_NAME_LENGTH) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (!(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'f')) {
        return false;
      }
    }
    return true;
  }

  /**
   * The number Python's {@code int()} reads in {@code text} (base 10: surrounding whitespace, a
   * sign, ASCII digits with single underscores between them), or null if it raises. Numbers beyond
   * a {@code long} are read as {@link Long#MAX_VALUE} or {@link Long#MIN_VALUE}: another count
   * either way.
   */
  public static Long pythonInt(String text) {
    String s = text.strip();
    int i = 0;
    boolean negative = false;
    if (!s.isEmpty() && (s.charAt(0) == '+' || s.charAt(0) == '-')) {
      negative = s.charAt(0) == '-';
      i = 1;
    }
    if (i >= s.length()) {
      return null;
    }
    long value = 0;
    boolean overflow = false;
    boolean lastDigit = false;
    for (; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '_') {
        if (!lastDigit || i + 1 >= s.length()) {
          return null; // at the start, doubled, or at the end
        }
        lastDigit = false;
        continue;
      }
      if (c < '0' || c > '9') {
        return null;
      }
      lastDigit = true;
      if (!overflow) {
        if (value > (Long.MAX_VALUE - (c - '0')) / 10) {
          overflow = true;
        } else {
          value = value * 10 + (c - '0');
        }
      }
    }
    if (!lastDigit) {
      return null;
    }
    if (overflow) {
      return negative ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return negative ? -value : value;
  }

  /** What the semaphore path's data says to a client of {@code permits}. */
  public enum Verdict {
    /** kazoo's plain-text count, equal to the client's. */
    SAME,
    /**
     * No data: the path was made (by kazoo's {@code ensure_path}, or as a parent) and not yet given
     * a count.
     */
    UNCLAIMED,
    /** kazoo's plain-text count, another number. */
    OTHER_COUNT,
    /** zklock's JSON ({@code {"kind":"semaphore","permits":3}}, or another recipe's). */
    ZKLOCK_DATA,
    /** Data that is no count (kazoo would ignore it and count by its own). */
    NOT_A_COUNT
  }

  /** A judgement of the semaphore path's data: the verdict, and the text that was read. */
  public record Data(Verdict verdict, String text) {}

  /** The data a client of {@code permits} stores: kazoo's plain text. */
  public static byte[] countData(int permits) {
    return Integer.toString(permits).getBytes(StandardCharsets.UTF_8);
  }

  /** Judges the semaphore path's data for a client of {@code permits} (positive). */
  public static Data judgeData(byte[] data, int permits) {
    if (data == null || data.length == 0) {
      return new Data(Verdict.UNCLAIMED, "");
    }
    String text = new String(data, StandardCharsets.UTF_8);
    Long n = pythonInt(text);
    if (n != null) {
      return new Data(n == permits ? Verdict.SAME : Verdict.OTHER_COUNT, text);
    }
    if (text.strip().startsWith("{")) {
      return new Data(Verdict.ZKLOCK_DATA, text);
    }
    return new Data(Verdict.NOT_A_COUNT, text);
  }

  /** The message of a refusal of the data judged {@code d} (not {@link Verdict#SAME}). */
  public static String dataRefusal(String dir, Data d, int permits) {
    String shown = d.text().length() > 80 ? d.text().substring(0, 80) + "..." : d.text();
    switch (d.verdict()) {
      case OTHER_COUNT:
        return "kazoo-compatible semaphore "
            + dir
            + " stores max_leases "
            + shown.strip()
            + " (its data, written by its first client), but this client asked for "
            + permits
            + " permits: use the same count in every client of either library (kazoo's"
            + " Semaphore raises \"Inconsistent max leases\" on it too), or delete "
            + dir
            + " to change it";
      case ZKLOCK_DATA:
        String kind = Json.field(d.text(), StoredNumber.KIND_FIELD);
        return "refusing a kazoo-compatible semaphore in "
            + dir
            + ": its data is zklock's own ("
            + shown
            + "), "
            + (kind == null || kind.equals("semaphore")
                ? "the layout of zklock's plain or Curator-compatible semaphore, whose clients"
                    + " queue in <dir>/queue or <dir>/locks and count <dir>/leases; kazoo's"
                    + " clients would not see them. Use locks.semaphore(name, permits) (or"
                    + " LockOptions.curatorCompatible()) as its other clients do, or another name"
                : "a " + kind + "'s state, not a semaphore's: give the semaphore another name");
      case NOT_A_COUNT:
        return "refusing a kazoo-compatible semaphore in "
            + dir
            + ": its data ("
            + shown
            + ") is not a count; kazoo's Semaphore keeps its max_leases there as plain text and"
            + " ignores other data, so its clients could count by another number: give the"
            + " semaphore another name, or store the count there (\""
            + permits
            + "\")";
      default:
        throw new IllegalArgumentException("not a refusal: " + d.verdict());
    }
  }

  /** What an admitted request does on one listing of the semaphore's children. */
  public sealed interface Decision {}

  /** Fewer than the permits are held: create one lease. */
  public record Create() implements Decision {}

  /** Every permit is held: wait for a child to go (or, not waiting, give up). */
  public record Full(int held) implements Decision {}

  /** A child of zklock's or a Curator-compatible semaphore's layout: refuse. */
  public record Refuse(String child) implements Decision {}

  private static final Decision CREATE = new Create();

  /**
   * The decision of the admitted request on the listing {@code children} of the semaphore's path:
   * kazoo's {@code len(children) < max_leases}, every child counted as a lease.
   */
  public static Decision lease(List<String> children, int permits) {
    for (String c : children) {
      if (OTHER_LAYOUTS.contains(c)) {
        return new Refuse(c);
      }
    }
    return children.size() < permits ? CREATE : new Full(children.size());
  }

  /** The message of a refusal of the child {@code child} of the semaphore at {@code dir}. */
  public static String childRefusal(String dir, String child) {
    return "refusing a kazoo-compatible semaphore in "
        + dir
        + ": it holds "
        + dir
        + "/"
        + child
        + ", a directory of zklock's plain or Curator-compatible semaphore, which kazoo's"
        + " Semaphore would count as a lease held for good; use locks.semaphore(name, permits)"
        + " (or LockOptions.curatorCompatible()) as its other clients do, or another name";
  }

  /**
   * Whether the fields {@code data} of a lease (as the inspector parses it) are a kazoo client's,
   * not zklock's JSON.
   */
  public static boolean kazooClient(Map<String, String> data) {
    return !data.containsKey("client");
  }
}
