package io.zklock.internal.coord;

import io.zklock.DistributedCountDownLatch;
import io.zklock.internal.rules.Args;
import io.zklock.internal.zk.Blocking;
import io.zklock.internal.zk.Session;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;

/**
 * The count-down latch. Its directory's data holds the count and what remains ({@code
 * {"kind":"latch","count":3,"remaining":1}}); a count-down is one transaction: the conditional
 * write of {@code remaining - 1}, a persistent marker {@code c-<id>} (so a count-down whose answer
 * was lost is found, and never applied twice), and, from the last one, the node {@code open} that
 * waiters watch ({@link NodeWatch}: one notification each).
 */
public final class LatchImpl implements DistributedCountDownLatch {
  /** The node whose creation opens the latch. */
  public static final String OPEN = "open";

  /** The prefix of a count-down's marker. */
  public static final String MARKER_PREFIX = "c-";

  public static final String KIND = "latch";
  public static final String COUNT_FIELD = "count";
  public static final String REMAINING_FIELD = "remaining";

  private final CoordContext ctx;
  private final String dir;
  private final String name;
  private final int count;
  private final StoredNumberDir stored;

  /** What this instance last knew of the data: a count-down sends its write at once from it. */
  private record Known(int version, int remaining, long session) {}

  private volatile Known known;

  public LatchImpl(CoordContext ctx, String name, int count) {
    if (count < 1) {
      throw new IllegalArgumentException("a latch's count must be at least 1: " + count);
    }
    this.ctx = ctx;
    this.name = name;
    this.dir = ctx.dirOf(name);
    this.count = count;
    this.stored = new StoredNumberDir(ctx, dir, KIND, COUNT_FIELD, count, data(count));
  }

  private String data(int remaining) {
    return "{\"kind\":\""
        + KIND
        + "\",\""
        + COUNT_FIELD
        + "\":"
        + count
        + ",\""
        + REMAINING_FIELD
        + "\":"
        + remaining
        + "}";
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int initialCount() {
    return count;
  }

  @Override
  public void countDown() {
    CompletableFuture<Void> f = start();
    try {
      Blocking.join(f);
    } catch (RuntimeException e) {
      throw Waits.unchecked(e);
    }
  }

  @Override
  public CompletableFuture<Void> countDownAsync() {
    CompletableFuture<Void> out = new CompletableFuture<>();
    start()
        .whenCompleteAsync(
            (v, err) -> {
              if (err != null) {
                out.completeExceptionally(Waits.unchecked(err));
              } else {
                out.complete(null);
              }
            },
            ctx.executor());
    return out;
  }

  private CompletableFuture<Void> start() {
    ctx.checkOpen();
    CompletableFuture<Void> done = new CompletableFuture<>();
    step(MARKER_PREFIX + ctx.ids().uuid().replace("-", ""), done, false);
    return done;
  }

  /**
   * One try of a count-down.
   *
   * @param maybeApplied an earlier try's answer was lost: look for its marker first
   */
  private void step(String marker, CompletableFuture<Void> done, boolean maybeApplied) {
    if (maybeApplied) {
      stored.whenConnected(done, conn -> findMarker(conn, marker, done));
      return;
    }
    Known k = known;
    if (k != null && k.remaining() > 0) {
      known = null; // used once: a failed try reads again
      stored.whenConnected(
          done,
          conn -> {
            if (conn.sessionId() == k.session()) {
              apply(conn, k.version(), k.remaining() - 1, marker, done);
            } else {
              step(marker, done, false);
            }
          });
      return;
    }
    stored
        .read()
        .whenComplete(
            (r, err) -> {
              if (err != null) {
                done.completeExceptionally(err);
                return;
              }
              int remaining = r.intField(REMAINING_FIELD);
              if (remaining <= 0) {
                done.complete(null); // open: a no-op
                return;
              }
              apply(r.conn(), r.version(), remaining - 1, marker, done);
            });
  }

  private void learn(StoredNumberDir.Read r) {
    known = new Known(r.version(), r.intField(REMAINING_FIELD), r.conn().sessionId());
  }

  private void apply(
      Session.Conn conn, int version, int remaining, String marker, CompletableFuture<Void> done) {
    List<Op> ops = new ArrayList<>(3);
    ops.add(Op.setData(dir, data(remaining).getBytes(StandardCharsets.UTF_8), version));
    ops.add(Op.create(dir + "/" + marker, new byte[0], ctx.acl(), CreateMode.PERSISTENT));
    if (remaining == 0) {
      ops.add(Op.create(dir + "/" + OPEN, new byte[0], ctx.acl(), CreateMode.PERSISTENT));
    }
    conn.guarded(done, dir)
        .ops()
        .multi(
            ops,
            (rc, p, c, results) -> {
              Code code = Code.get(rc);
              switch (code) {
                case OK:
                  known = new Known(version + 1, remaining, conn.sessionId());
                  done.complete(null);
                  break;
                case NODEEXISTS: // our marker: an earlier try was applied
                  done.complete(null);
                  break;
                case BADVERSION: // another count-down came first: read again
                case NONODE: // the directory was deleted: start it again
                  step(marker, done, false);
                  break;
                default:
                  stored.retry(
                      code, "count down", conn.sessionId(), done, () -> step(marker, done, true));
              }
            });
  }

  private void findMarker(Session.Conn conn, String marker, CompletableFuture<Void> done) {
    conn.guarded(done, dir)
        .ops()
        .exists(
            dir + "/" + marker,
            null,
            (rc, p, c, stat) -> {
              Code code = Code.get(rc);
              if (code == Code.OK) {
                done.complete(null);
              } else if (code == Code.NONODE) {
                step(marker, done, false);
              } else {
                stored.retry(
                    code, "count down", conn.sessionId(), done, () -> step(marker, done, true));
              }
            });
  }

  @Override
  public long count() {
    ctx.checkOpen();
    try {
      StoredNumberDir.Read r = Blocking.join(stored.read());
      learn(r);
      return Math.max(0, r.intField(REMAINING_FIELD));
    } catch (RuntimeException e) {
      throw Waits.unchecked(e);
    }
  }

  @Override
  public void await() throws InterruptedException {
    await(-1L);
  }

  @Override
  public boolean await(Duration timeout) throws InterruptedException {
    return await(Args.timeoutNanos(timeout));
  }

  private boolean await(long timeoutNanos) throws InterruptedException {
    ctx.checkOpen();
    return ctx.observed(name, KIND, () -> awaitOpen(timeoutNanos));
  }

  private boolean awaitOpen(long timeoutNanos) throws InterruptedException {
    if (timeoutNanos == 0) {
      return Waits.join(stored.read()).intField(REMAINING_FIELD) <= 0;
    }
    CompletableFuture<Boolean> open = NodeWatch.until(ctx, dir + "/" + OPEN, true, timeoutNanos);
    // the check of the stored count, sent alongside the watch (it makes a new latch, too)
    stored
        .read()
        .whenComplete(
            (r, err) -> {
              if (err != null) {
                open.completeExceptionally(err);
              }
            });
    return Waits.join(open);
  }

  @Override
  public String toString() {
    return "DistributedCountDownLatch[" + dir + ", count " + count + "]";
  }
}
