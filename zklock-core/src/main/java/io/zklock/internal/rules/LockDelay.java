package io.zklock.internal.rules;

import java.nio.charset.StandardCharsets;

/**
 * The lock-delay's decision, a pure function of what ZooKeeper records (no I/O here): did the grant
 * before ours end by a clean release, and if not, how long must we still wait?
 *
 * <p><b>What ZooKeeper records.</b> The lock directory's data is the lock's record, written only in
 * the same {@code multi} as a deletion of one of its nodes, so that both carry the transaction's
 * one zxid and, right after, the directory's {@code mzxid} (last data change) equals its {@code
 * pzxid} (last child change):
 *
 * <ul>
 *   <li>{@link #released}: the holder's release, {@code multi(setData(dir, record), delete(node))}:
 *       no delay is due.
 *   <li>{@link #failed}: a request that stood first and was waiting out a delay withdrew (timeout,
 *       cancel, a busy {@code tryAcquire()}): a delay is due until {@code t + delay}, where {@code
 *       t} is the server's time written in the record, or, when none is written, the record's own
 *       {@code mtime} (a time after the failure). Its multi also writes the withdrawing node's own
 *       data first, so that a waiter watching that node lists again instead of taking the
 *       directory's change for a clean release.
 * </ul>
 *
 * Any other deletion (session expired, node deleted by an operator, a waiter that withdrew from
 * deeper in the queue) changes the children only, and leaves {@code pzxid > mzxid}: not proven
 * clean, so treated as a failure.
 *
 * <p><b>Two ways to learn of a predecessor's end.</b> A waiter that watches the head of the queue
 * also watches the directory's data: a release's {@code NodeDataChanged} on the directory is
 * delivered before the node's {@code NodeDeleted} (one transaction's watch events are sent in op
 * order on one connection), so {@link #cleanByWatch} decides at the deletion's event, with no read
 * after it. A request that finds itself first in a listing without that watch decides on a read of
 * the directory ({@link #byStat}).
 *
 * <p>Whatever cannot be proven clean is a failure, and its delay is counted from the moment the
 * request learned of it, which is after the failure: never shorter than asked (conservative).
 */
public final class LockDelay {
  private static final String RELEASED = "released";
  private static final String FAILED = "failed";

  /** Stands for {@code numChildren} and {@code cversion} of a read made after our create. */
  public static final int AFTER_CREATE = -1;

  private LockDelay() {}

  /** The record of a clean release of {@code nodeName}. */
  public static byte[] released(String nodeName) {
    return ("{\"" + RELEASED + "\":" + Json.quote(nodeName) + "}").getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The record of a withdrawal during a delay: a delay is due until {@code atMillis + delay}
   * (server time), or, with {@code atMillis} negative, until the record's {@code mtime} plus the
   * delay.
   */
  public static byte[] failed(long atMillis) {
    return ("{\"" + FAILED + "\":\"" + (atMillis < 0 ? "" : Long.toString(atMillis)) + "\"}")
        .getBytes(StandardCharsets.UTF_8);
  }

  /** The node a release record names, or null if {@code data} is not one. */
  public static String releasedNode(byte[] data) {
    return field(data, RELEASED);
  }

  /**
   * The server time a failure record names: its own time, else {@code mtime}; {@link
   * Long#MIN_VALUE} if {@code data} is not a failure record.
   */
  public static long failedAt(byte[] data, long mtime) {
    String t = field(data, FAILED);
    if (t == null) {
      return Long.MIN_VALUE;
    }
    if (t.isEmpty()) {
      return mtime;
    }
    try {
      return Long.parseLong(t);
    } catch (NumberFormatException e) {
      return mtime;
    }
  }

  private static String field(byte[] data, String key) {
    if (data == null || data.length == 0) {
      return null;
    }
    try {
      return Json.field(new String(data, StandardCharsets.UTF_8), key);
    } catch (RuntimeException e) {
      return null;
    }
  }

  /**
   * A waiter's decision at the deletion of {@code predecessor}, the head of the queue, while
   * nothing else stood ahead of it.
   *
   * @param releasedRead the node the directory's release record named when the waiter read it (with
   *     its watch), or null
   * @param changedSinceRead the directory's data changed after that read and before the deletion's
   *     event: only the head writes it, and a failure record comes after a change of the node's own
   *     data (which sends the waiter to list again), so that change was the predecessor's release
   * @return whether the predecessor's grant ended by its holder's release
   */
  public static boolean cleanByWatch(
      String predecessor, String releasedRead, boolean changedSinceRead) {
    return changedSinceRead || predecessor.equals(releasedRead);
  }

  /**
   * What a request that stands first in the queue (everything that ever stood ahead of it is gone)
   * decides on a read of the lock directory.
   *
   * <p>The record speaks only if the directory's last child change was the record's own write
   * ({@code pzxid == mzxid}) and nothing changed the children between that read and our create:
   * with no child left at the read ({@code numChildren == 0}) and our node's sequence equal to the
   * {@code cversion} read (ZooKeeper names a sequential node after its parent's {@code cversion}),
   * no node came and went unseen in between. A read made after our create (by a request that
   * waited) passes {@link #AFTER_CREATE} for both: then {@code pzxid == mzxid} alone says that the
   * last child change, after our create, wrote the record; a newcomer queueing behind us since
   * leaves it unproven (conservative).
   *
   * @param exists whether the directory existed at the read (a missing directory has no record:
   *     never used, or emptied and reaped by the server, see docs/guarantees.md)
   * @param data the directory's data at the read
   * @param mtime the directory's {@code mtime} at the read (server time, ms)
   * @param postCversion the directory's {@code cversion} as our first listing read it, after our
   *     create ({@link #AFTER_CREATE} for a read after our create)
   * @param serverNow a server time no later than now, ms (our node's {@code ctime}); for a read
   *     after our create, use our node's {@code ctime} too: the record may be later, and then no
   *     time is counted as passed
   * @param delayMillis the lock-delay
   * @return how long to wait still, in ms (0: hold now)
   */
  public static long byStat(
      boolean exists,
      long pzxid,
      long mzxid,
      int numChildren,
      int cversion,
      byte[] data,
      long mtime,
      int postCversion,
      long serverNow,
      long delayMillis) {
    if (delayMillis <= 0) {
      return 0;
    }
    if (!exists) {
      // nothing ever stood in this directory, unless something came and went in it between the
      // read and our create: then our create was not its only child change
      return postCversion == 1 ? 0 : delayMillis;
    }
    boolean unseenBetween =
        !(numChildren == AFTER_CREATE && cversion == AFTER_CREATE)
            && (numChildren != 0 || postCversion != cversion + 1);
    if (pzxid != mzxid || unseenBetween) {
      return delayMillis;
    }
    if (releasedNode(data) != null) {
      return 0;
    }
    long at = failedAt(data, mtime);
    if (at != Long.MIN_VALUE) {
      long passed = Math.max(0, serverNow - at);
      return Math.max(0, delayMillis - passed);
    }
    // pzxid == mzxid with no record: a directory whose data was never written and whose children
    // never changed (made, then read before any node came)
    return data == null || data.length == 0 ? 0 : delayMillis;
  }
}
