package io.zklock.internal.coord;

import io.zklock.ZkLockException;
import io.zklock.internal.inspect.Inspection;
import io.zklock.internal.rules.KazooSemaphore;
import io.zklock.internal.rules.StoredNumber;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;

/**
 * A semaphore's permit count, stored in its directory's data ({@code
 * {"kind":"semaphore","permits":3}}) by the first client to use it, and checked by every request: a
 * client that asks with another count is refused with a {@link ZkLockException} naming both, its
 * cause an {@link IllegalArgumentException}.
 *
 * <p>The check reads the directory (one read, sent alongside the request's first step, so it adds
 * no latency) and leaves a data watch on it; while that watch stands on the same session, later
 * requests of this semaphore instance skip the read. The watch fires when the directory changes or
 * goes (the server reaps an idle semaphore's directory; the next user may then store another
 * count), and the next request reads again.
 *
 * <p>A directory without a count (made as the parent of the semaphore's queue by an older zklock,
 * or by a race with that queue's creation) is claimed with a conditional write of the count. A
 * directory whose data is not a semaphore's (a latch's or double barrier's of the same name) is
 * refused as another count is, its data left as it is ({@link StoredNumber}).
 */
public final class PermitCount {
  private static final String KIND = "semaphore";

  private final StoredNumberDir stored;
  private volatile long verifiedSession;
  private final Watcher invalidate =
      event -> {
        if (event.getType() != EventType.None) {
          verifiedSession = 0L;
        }
      };

  public PermitCount(CoordContext ctx, String dir, int permits) {
    this.stored =
        new StoredNumberDir(
            ctx,
            dir,
            KIND,
            Inspection.PERMITS_FIELD,
            permits,
            "{\"kind\":\"" + KIND + "\",\"" + Inspection.PERMITS_FIELD + "\":" + permits + "}",
            CreateMode.CONTAINER,
            invalidate,
            count ->
                "semaphore has "
                    + count
                    + " permits (stored by its first client), but this client asked for "
                    + permits
                    + ": use the same count everywhere",
            bytes -> kazoos(dir, bytes));
  }

  /**
   * The refusal of a directory whose data is Python kazoo's {@code Semaphore}'s count (plain text),
   * or null if it is not.
   */
  private static String kazoos(String dir, byte[] bytes) {
    Long n = KazooSemaphore.pythonInt(new String(bytes, StandardCharsets.UTF_8));
    if (n == null) {
      return null;
    }
    return dir
        + " holds \""
        + n
        + "\", the max_leases of Python kazoo's Semaphore, whose leases are the path's children"
        + " and which kazoo's clients count alone: use locks.semaphore(name, permits,"
        + " LockOptions.kazooCompatible()) to share its permits";
  }

  /** Completes when the stored count is known to be ours; exceptionally if it differs. */
  public CompletableFuture<Void> check() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    stored.whenConnected(
        done,
        conn -> {
          if (verifiedSession == conn.sessionId()) {
            done.complete(null);
            return;
          }
          stored
              .read()
              .whenComplete(
                  (read, failure) -> {
                    if (failure != null) {
                      done.completeExceptionally(failure);
                    } else {
                      verifiedSession = read.conn().sessionId(); // and watched since that read
                      done.complete(null);
                    }
                  });
        });
    return done;
  }

  /** The count stored in a semaphore directory's data, or 0 if none. */
  public static int storedIn(byte[] bytes) {
    return StoredNumber.judge(bytes, KIND, Inspection.PERMITS_FIELD, 1).stored();
  }
}
