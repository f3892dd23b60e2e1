package io.zklock.internal.coord;

import io.zklock.DistributedDoubleBarrier;
import io.zklock.internal.rules.Args;
import io.zklock.internal.zk.Blocking;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;

/**
 * The double barrier. Its directory's data holds the group size, the round and its phase ({@code
 * {"kind":"double-barrier","members":3,"round":7,"phase":"entering"}}); a member of round 7 is an
 * EPHEMERAL node {@code m-7-<id>}, created only while the round is entering (a transaction with a
 * check of the directory's version); the member that sees {@code members} of them opens the round
 * (the phase and the node {@code ready-7}, in one transaction); the last to leave starts round 8
 * and deletes {@code ready-7}, in one transaction. See {@link DistributedDoubleBarrier}.
 */
public final class DoubleBarrierImpl implements DistributedDoubleBarrier {
  public static final String KIND = "double-barrier";

  /** The kinds of its waits on the lock event seam. */
  public static final String ENTER_KIND = "double-barrier-enter";

  public static final String LEAVE_KIND = "double-barrier-leave";
  public static final String MEMBERS_FIELD = "members";
  public static final String ROUND_FIELD = "round";
  public static final String PHASE_FIELD = "phase";
  public static final String ENTERING = "entering";
  public static final String OPEN = "open";
  public static final String MEMBER_PREFIX = "m-";
  public static final String READY_PREFIX = "ready-";

  private final CoordContext ctx;
  private final String name;
  private final String dir;
  private final int members;
  private final String id;
  private final StoredNumberDir stored;
  private final ZkCalls calls;
  private volatile int entered = -1; // the round this member is in, or -1

  public DoubleBarrierImpl(CoordContext ctx, String name, int members) {
    if (members < 1) {
      throw new IllegalArgumentException("a double barrier needs at least 1 member: " + members);
    }
    this.ctx = ctx;
    this.id = ctx.ids().uuid().replace("-", "");
    this.name = name;
    this.dir = ctx.dirOf(name);
    this.members = members;
    this.stored = new StoredNumberDir(ctx, dir, KIND, MEMBERS_FIELD, members, data(0, ENTERING));
    this.calls = new ZkCalls(ctx);
  }

  private String data(int round, String phase) {
    return "{\"kind\":\""
        + KIND
        + "\",\""
        + MEMBERS_FIELD
        + "\":"
        + members
        + ",\""
        + ROUND_FIELD
        + "\":"
        + round
        + ",\""
        + PHASE_FIELD
        + "\":\""
        + phase
        + "\"}";
  }

  private byte[] bytes(int round, String phase) {
    return data(round, phase).getBytes(StandardCharsets.UTF_8);
  }

  private String member(int round) {
    return dir + "/" + MEMBER_PREFIX + round + "-" + id;
  }

  private String ready(int round) {
    return dir + "/" + READY_PREFIX + round;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int members() {
    return members;
  }

  @Override
  public void enter() throws InterruptedException {
    enter(-1L);
  }

  @Override
  public boolean enter(Duration timeout) throws InterruptedException {
    return enter(Args.timeoutNanos(timeout));
  }

  /** The time left before {@code deadline}, or -1 for none. */
  private long left(long deadline) {
    return deadline == Long.MIN_VALUE ? -1L : Math.max(0L, deadline - ctx.clock().nanoTime());
  }

  private static <T> T get(CompletableFuture<T> f) {
    try {
      return Blocking.join(f);
    } catch (RuntimeException e) {
      throw Waits.unchecked(e);
    }
  }

  private boolean enter(long timeoutNanos) throws InterruptedException {
    ctx.checkOpen();
    if (entered >= 0) {
      throw new IllegalStateException("this member is in round " + entered + " of " + dir);
    }
    return ctx.observed(name, ENTER_KIND, () -> enterRound(timeoutNanos));
  }

  private boolean enterRound(long timeoutNanos) throws InterruptedException {
    long deadline = timeoutNanos < 0 ? Long.MIN_VALUE : ctx.clock().nanoTime() + timeoutNanos;
    int tried = -1; // the round whose member node this call made last
    while (true) {
      StoredNumberDir.Read r = get(stored.read());
      int round = Math.max(0, r.intField(ROUND_FIELD));
      boolean open = OPEN.equals(r.fields().get(PHASE_FIELD));
      if (open && round == tried) {
        entered = round; // opened while this member's session ended: it was counted
        return true;
      }
      if (open) {
        // this round went through without us: wait for the next one
        if (!Waits.join(NodeWatch.until(ctx, ready(round), false, left(deadline)))) {
          return false;
        }
        continue;
      }
      Code made =
          get(
              calls.multi(
                  dir,
                  List.of(
                      Op.check(dir, r.version()),
                      Op.create(member(round), new byte[0], ctx.acl(), CreateMode.EPHEMERAL))));
      if (made == Code.BADVERSION && get(calls.exists(member(round)))) {
        // an earlier send of this write was applied, its answer lost with the connection, and the
        // round opened or moved on since: the member is in it (counted if it opened)
        made = Code.OK;
      } else if (made == Code.BADVERSION || made == Code.NONODE) {
        continue; // the round opened or moved on, or the directory went: look again
      }
      if (made != Code.OK && made != Code.NODEEXISTS) {
        throw ZkCalls.failure(dir, made);
      }
      tried = round;
      long session = ctx.session().sessionId();
      CompletableFuture<Boolean> ready =
          NodeWatch.until(ctx, ready(round), true, left(deadline), session);
      ZkCalls.Children ch = get(calls.children(dir));
      String mine = member(round).substring(dir.length() + 1);
      if (!ch.names().contains(mine)) {
        ready.cancel(true); // our node went with a session: enter again
        continue;
      }
      String prefix = MEMBER_PREFIX + round + "-";
      long count = ch.names().stream().filter(n -> n.startsWith(prefix)).count();
      if (count >= members && ch.stat() != null) {
        // open the round; if another member did first, the version check refuses this one
        calls.multi(
            dir,
            List.of(
                Op.setData(dir, bytes(round, OPEN), ch.stat().getVersion()),
                Op.create(ready(round), new byte[0], ctx.acl(), CreateMode.PERSISTENT)));
      }
      boolean passed;
      try {
        passed = Waits.join(ready);
      } catch (NodeWatch.SessionEnded e) {
        continue; // our node is gone: counted only if the round opened first (see the loop's top)
      } catch (InterruptedException e) {
        if (withdraw(round, r.version())) {
          entered = round;
          Thread.currentThread().interrupt();
          return true;
        }
        throw e;
      }
      if (passed || withdraw(round, r.version())) {
        entered = round;
        return true;
      }
      return false;
    }
  }

  /**
   * Withdraws this member from {@code round} if the round is still entering (the directory still at
   * {@code version}); returns true if the round opened first (the member is in it).
   */
  private boolean withdraw(int round, int version) {
    Code c = get(calls.multi(dir, List.of(Op.check(dir, version), Op.delete(member(round), -1))));
    if (c == Code.OK || c == Code.NONODE) {
      return false;
    }
    if (c == Code.BADVERSION) {
      // the round opened or moved on: the member is in it unless an earlier send of this write
      // was applied first (its answer lost with the connection), and its node gone with it
      return get(calls.exists(member(round)));
    }
    throw ZkCalls.failure(dir, c);
  }

  @Override
  public void leave() throws InterruptedException {
    leave(-1L);
  }

  @Override
  public boolean leave(Duration timeout) throws InterruptedException {
    return leave(Args.timeoutNanos(timeout));
  }

  private boolean leave(long timeoutNanos) throws InterruptedException {
    ctx.checkOpen();
    int round = entered;
    if (round < 0) {
      throw new IllegalStateException("this member has not entered " + dir);
    }
    return ctx.observed(name, LEAVE_KIND, () -> leaveRound(round, timeoutNanos));
  }

  private boolean leaveRound(int round, long timeoutNanos) throws InterruptedException {
    long deadline = timeoutNanos < 0 ? Long.MIN_VALUE : ctx.clock().nanoTime() + timeoutNanos;
    Code c = get(calls.delete(member(round)));
    if (c != Code.OK && c != Code.NONODE) {
      throw ZkCalls.failure(dir, c);
    }
    entered = -1;
    String prefix = MEMBER_PREFIX + round + "-";
    while (true) {
      ZkCalls.Children ch = get(calls.children(dir));
      List<String> staying =
          ch.names().stream().filter(n -> n.startsWith(prefix)).sorted().toList();
      if (!staying.isEmpty()) {
        if (!Waits.join(NodeWatch.until(ctx, dir + "/" + staying.get(0), false, left(deadline)))) {
          return false;
        }
        continue;
      }
      if (ch.stat() == null) {
        return true; // the directory is gone
      }
      // the last to leave: start the next round and remove this one's opening, in one write
      Code next =
          get(
              calls.multi(
                  dir,
                  List.of(
                      Op.setData(dir, bytes(round + 1, ENTERING), ch.stat().getVersion()),
                      Op.delete(ready(round), -1))));
      if (next == Code.OK) {
        return true;
      }
      if (next == Code.BADVERSION || next == Code.NONODE) {
        StoredNumberDir.Read r = get(stored.read());
        if (r.intField(ROUND_FIELD) > round) {
          return true; // another last leaver started the next round
        }
        if (next == Code.NONODE) {
          // no opening to remove (an old or hand-made state): start the next round alone
          get(calls.multi(dir, List.of(Op.setData(dir, bytes(round + 1, ENTERING), r.version()))));
        }
        continue;
      }
      throw ZkCalls.failure(dir, next);
    }
  }

  @Override
  public String toString() {
    return "DistributedDoubleBarrier[" + dir + ", " + members + " members]";
  }
}
