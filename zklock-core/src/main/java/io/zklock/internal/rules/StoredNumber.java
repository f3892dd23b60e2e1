package io.zklock.internal.rules;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * What a recipe that keeps its defining number in its directory's data (a semaphore's permits, a
 * latch's count, a double barrier's members: {@code {"kind":"latch","count":3,...}}) makes of the
 * data it reads there: a pure function of the bytes, no I/O.
 *
 * <p>Only data that is the recipe's own, or no data at all, may be written over: a directory
 * without data was made as a parent by another use (an older zklock, a lock of a longer name, a
 * ZooKeeper client), and is claimed with a conditional write of the number. Data of any other kind
 * is another recipe's state (a latch's count, a double barrier's round, a lock's release record) or
 * someone else's, and is refused, so that a name given to two recipes fails instead of destroying
 * the first one's state.
 */
public final class StoredNumber {
  /** The field that names a directory's recipe. */
  public static final String KIND_FIELD = "kind";

  /** What the data says to a client of {@code kind} that asks for {@code expected}. */
  public enum Verdict {
    /** The data holds the client's kind and number. */
    SAME,
    /** The data holds the client's kind with another positive number: a caller's mistake. */
    OTHER_NUMBER,
    /** No data, or the client's kind without a number: the client may store its own. */
    UNCLAIMED,
    /** Another recipe's data, or data that is not zklock's: not to be written over. */
    OTHER_KIND
  }

  /**
   * A judgement of one read.
   *
   * @param stored the positive number stored in the field, or 0 if none
   * @param otherKind for {@link Verdict#OTHER_KIND}: the kind the data names, or null when it names
   *     none
   */
  public record Read(Verdict verdict, int stored, String otherKind) {
    /** Why the directory is refused ({@link Verdict#OTHER_KIND} only), naming {@code dir}. */
    public String otherKindMessage(String dir, String kind) {
      return otherKind != null
          ? dir + " is a " + otherKind + ", not a " + kind
          : dir + " holds data that is not a " + kind + "'s";
    }
  }

  private StoredNumber() {}

  /**
   * Judges {@code data} for a client of {@code kind} whose number, in {@code field}, is {@code
   * expected} (positive).
   */
  public static Read judge(byte[] data, String kind, String field, int expected) {
    if (data == null || data.length == 0) {
      return new Read(Verdict.UNCLAIMED, 0, null);
    }
    Map<String, String> fields = Json.parseObject(new String(data, StandardCharsets.UTF_8));
    String stored = fields.get(KIND_FIELD);
    if (!kind.equals(stored)) {
      return new Read(Verdict.OTHER_KIND, 0, stored);
    }
    int n = positive(fields.get(field));
    if (n == expected) {
      return new Read(Verdict.SAME, n, null);
    }
    return new Read(n > 0 ? Verdict.OTHER_NUMBER : Verdict.UNCLAIMED, n, null);
  }

  /** {@code s} as a positive int, or 0 if it is none. */
  public static int positive(String s) {
    if (s == null) {
      return 0;
    }
    try {
      int v = Integer.parseInt(s);
      return v > 0 ? v : 0;
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
