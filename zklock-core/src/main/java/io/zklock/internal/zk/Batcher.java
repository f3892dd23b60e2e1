package io.zklock.internal.zk;

import io.zklock.internal.rules.BatchHold;
import io.zklock.internal.rules.UnseenDirs;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.CreateOptions;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.WatcherType;
import org.apache.zookeeper.common.PathUtils;
import org.apache.zookeeper.data.ACL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The requests of one client, sent together while others are in flight: the creates and deletes
 * that the threads of one instance issue meanwhile go out as one {@code multi} (one packet, one
 * proposal, one log entry), their listings as one read-only {@code multi} (ZooKeeper 3.6+, {@link
 * ServerLine}). Every recipe's calls go through it, because {@link Session.Conn#ops()} is a view of
 * it.
 *
 * <p><b>When.</b> No timer on the way out: a call goes out at once when nothing is pending and
 * fewer than {@link #atOnceBelow} packets are in flight, so a lone thread's requests (a create and
 * the listing pipelined behind it, a release's delete) leave as they did unbatched. A listing of
 * the directory the last packet sent creates in (a request's listing right behind its create) goes
 * at once too, whatever is in flight, if nothing queued is on that directory: one round trip serves
 * both, as unbatched. Otherwise the call waits for the next reply, which sends everything pending
 * (if none comes for {@link #STALL_MILLIS}, the calls go anyway): the writes in one multi, then the
 * listings in one read-only multi, then every other call in the order issued. A multi's or a
 * listing's reply sends them once its callbacks have run, and a call issued while they run waits
 * for that send: the release of a thread the reply just granted goes with it, not with a later
 * reply (with two flushes in flight, the other's: half a round trip later, on average). It waits
 * only while enough calls are outstanding for a batch to repay the wait ({@link BatchHold}, {@link
 * #HOLD_FROM}): with fewer, what is queued goes at once, so a client with a few threads at work
 * sends as unbatched.
 *
 * <p><b>Order.</b> What one session sends is applied in order, and the engine relies on it (a
 * listing sent after our create shows our node). Within one flush writes go before listings: a
 * listing may then show a write issued after it by another thread, as it would had that thread been
 * quicker. Every other call (a <em>barrier</em>: watches, reads with a stat, syncs, other writes)
 * keeps its place among the calls issued around it, and is sent only once every write multi sent
 * before it has been answered: nothing sent after a batched write can overtake that write's retry
 * (below). A create sent at once into a directory not known to exist (below) goes ahead of the
 * calls queued before it only when none of them is a barrier or on that directory, in it or above
 * it (what it could follow, such as the creation of its directory): as if its thread had been
 * quicker (and ahead of at most {@link #AHEAD_OF_AT_MOST} of them).
 *
 * <p><b>Failures.</b> A multi is all or none. One whose op failed (a directory reaped, a node
 * already gone, an ACL, a node that exists) is sent again without tying the ops together: the ops
 * before the failed one as a multi, the failed one and each op after it alone (one more round trip,
 * never a cascade of them); each caller hears only its own op's outcome. A create in a directory
 * not known to exist (a lock's first use, a container the server may have reaped, or one forgotten
 * by the bounded cache of known directories) goes alone, at once, not held for the next reply nor
 * counted among the packets that hold others back: it fails whenever the directory is missing. Once
 * such creates keep finding their directories ({@link UnseenDirs}: a service's entities, not new
 * names) they join multis like the others, until one finds its directory missing. Listings sent
 * while that multi was unanswered are sent again after the retries, their first answers dropped, so
 * a listing still shows every write issued before it. A multi that failed as a whole (a connection
 * loss, an expired session) tells every op's caller that code, as each would have heard alone; each
 * recovers as for a single request (a create after a connection loss looks for its node by its
 * attempt id).
 *
 * <p><b>Tokens.</b> The nodes one multi creates share one zxid, their {@code czxid}: a lock's
 * fencing token. So a multi never creates two nodes in one directory (the second waits for the next
 * multi): every later node of a lock, and so every later holder, still has a greater token. Nodes
 * of different locks created together share a czxid, as tokens of different locks may.
 *
 * <p>Plain ephemeral creates are not batched: a simple lock's create is answered {@code NODEEXISTS}
 * whenever the lock is held, and would fail every multi it joined.
 */
public final class Batcher {
  private static final Logger log = LoggerFactory.getLogger(Batcher.class);

  /** Packets in flight below which a call goes out at once, by default. */
  public static final int AT_ONCE_BELOW = 3;

  /**
   * Calls outstanding (in flight or queued, the new one included) from which a call is held for the
   * next reply, by default ({@link BatchHold}): a lock's request has at most two outstanding (its
   * create and listing, or its release's delete), so a client with up to five threads busy sends
   * every call at once, as unbatched: held calls would cost their threads a wait that batches of a
   * few calls do not repay.
   */
  public static final int HOLD_FROM = 12;

  /** Most ops in one multi. */
  static final int MAX_WRITES = 256;

  /** Most request bytes (paths, data, ACLs) in one multi: far below a server's 1 MB packet cap. */
  static final int MAX_WRITE_BYTES = 256 * 1024;

  /** Most listings in one read-only multi. */
  static final int MAX_READS = 128;

  /**
   * A listing joins a read-only multi only if its directory's last listing was at most this many
   * bytes (an unknown directory is listed alone first): the answer of a multi must stay far below
   * the client's 1 MB packet cap.
   */
  static final int SMALL_LISTING_BYTES = 8 * 1024;

  /** Most estimated answer bytes of one read-only multi. */
  static final int MAX_READ_BYTES = 256 * 1024;

  /**
   * A create into a directory not known to exist is sent ahead of at most this many queued calls
   * (each looked at): behind a longer queue, a burst, it waits with the rest.
   */
  static final int AHEAD_OF_AT_MOST = 64;

  /**
   * Directories remembered (known to exist, with their last listing's size): a few MB at most, so
   * that a client going through its entities in turn (ten thousand locks taken at once) still finds
   * them known the next time.
   */
  static final int KNOWN_DIRS = 32_768;

  /** A known directory's size when it has not been listed. */
  private static final int UNLISTED = -1;

  /**
   * Queued calls wait for the next reply; if none comes for this long (a stalled server, replies
   * held on an open connection) they are sent anyway, as they would have been unbatched: a
   * release's delete is not held back until the connection is lost. Checked every this long, so a
   * call waits at most twice this.
   */
  static final long STALL_MILLIS = 100;

  private final ZkOps raw;
  private final ServerLine line;
  private final int atOnceBelow;
  private final int holdFrom;
  private final ScheduledExecutorService stallTimer;
  private long replies; // guarded by this: packets answered so far
  private boolean stallCheck; // guarded by this: a stall check is scheduled

  /**
   * Replies whose callbacks are running (guarded by this): the send each earned waits for them, so
   * that what they and the threads they wake issue meanwhile goes with it.
   */
  private int answering;

  // guarded by this
  private final ArrayDeque<Call> pending = new ArrayDeque<>();
  private int inFlight; // packets sent and not answered
  private int callsInFlight; // calls in the packets sent and not answered (each op of a multi)
  private int openMultis; // write multis sent and not answered
  private long sent; // packets sent so far: each packet's sequence number
  private final ArrayDeque<Packet> listingsInFlight = new ArrayDeque<>();

  /** The directories the last packet put in the outbox creates nodes in (none: not a write). */
  private Set<String> lastCreatedIn = Set.of();

  /**
   * Directories known to exist (a create in it or a listing of it answered), with the bytes of
   * their last listing ({@link #UNLISTED} if none): a create in any other goes alone (unless {@link
   * UnseenDirs} says otherwise), since a missing directory (a lock's first use, a container the
   * server reaped) fails the create, and would fail every multi it joined.
   */
  private final Map<String, Integer> knownDirs =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Integer> e) {
          return size() > KNOWN_DIRS;
        }
      };

  /**
   * Whether creates in directories not known to exist may join a multi (see {@link UnseenDirs}).
   */
  private final UnseenDirs unseenDirs = new UnseenDirs(); // guarded by this

  /** Called holding the monitor: {@code dir} exists (its size, if known, kept). */
  private void exists(String dir) {
    knownDirs.putIfAbsent(dir, UNLISTED);
  }

  // the packets to send, in order, by one thread at a time (never under the monitor: a callback
  // may run on the sending thread, from a closed client, and take the engine's monitors)
  private final ArrayDeque<Packet> outbox = new ArrayDeque<>();
  private boolean sending; // guarded by this

  /**
   * @param raw the client's calls
   * @param line whether the servers answer read-only multis
   * @param atOnceBelow packets in flight below which a call goes out at once; {@code
   *     Integer.MAX_VALUE}: never batch
   */
  public Batcher(ZkOps raw, ServerLine line, int atOnceBelow) {
    this(raw, line, atOnceBelow, null);
  }

  /**
   * @param stallTimer the timer of {@link #STALL_MILLIS}: what is queued is sent anyway once no
   *     reply has come for that long (null: never)
   */
  public Batcher(ZkOps raw, ServerLine line, int atOnceBelow, ScheduledExecutorService stallTimer) {
    this(raw, line, atOnceBelow, 0, stallTimer);
  }

  /**
   * @param holdFrom calls outstanding from which a call may be held for the next reply ({@link
   *     #HOLD_FROM}; 0: whenever {@code atOnceBelow} packets are in flight)
   */
  public Batcher(
      ZkOps raw,
      ServerLine line,
      int atOnceBelow,
      int holdFrom,
      ScheduledExecutorService stallTimer) {
    this.raw = raw;
    this.line = line;
    this.atOnceBelow = Math.max(1, atOnceBelow);
    this.holdFrom = Math.max(0, holdFrom);
    this.stallTimer = stallTimer;
  }

  public Batcher(ZkOps raw, ServerLine line) {
    this(raw, line, AT_ONCE_BELOW);
  }

  /**
   * A view of this batcher's calls: a new object each time (what keys on the calls' identity, the
   * shared listings, keys on one connection), the same queue behind it.
   */
  public ZkOps ops() {
    return new View();
  }

  // ---------------------------------------------------------------- calls

  /** One call issued through a view. */
  private abstract static class Call {}

  /** A create or delete that may join a multi. */
  private abstract static class WriteCall extends Call {
    final String path;

    WriteCall(String path) {
      this.path = path;
    }

    abstract Op op();

    abstract int bytes();

    /** Sends it alone; {@code rc} hears its code first (for the batcher's count). */
    abstract void sendAlone(ZkOps raw, IntConsumer answered);

    /** Its answer from a multi's result. */
    abstract void answer(OpResult result, String chrootedPath);

    /** Its answer when the multi failed as a whole. */
    abstract void fail(int rc);
  }

  private static final class Create extends WriteCall {
    final byte[] data;
    final List<ACL> acl;
    final CreateMode mode;
    final AsyncCallback.Create2Callback cb;

    /** Sent while its directory was not known to exist: its answer tells {@link UnseenDirs}. */
    boolean unseen;

    Create(
        String path,
        byte[] data,
        List<ACL> acl,
        CreateMode mode,
        AsyncCallback.Create2Callback cb) {
      super(path);
      this.data = data;
      this.acl = acl;
      this.mode = mode;
      this.cb = cb;
    }

    @Override
    Op op() {
      // a create2 op: its result carries the node's stat (the token), on every line from 3.5
      return Op.create(path, data, CreateOptions.newBuilder(acl, mode).build());
    }

    @Override
    int bytes() {
      return 64 + path.length() + (data == null ? 0 : data.length) + 48 * acl.size();
    }

    @Override
    void sendAlone(ZkOps raw, IntConsumer answered) {
      raw.create(
          path,
          data,
          acl,
          mode,
          (rc, p, ctx, name, stat) -> {
            answered.accept(rc);
            cb.processResult(rc, p, ctx, name, stat);
          });
    }

    @Override
    void answer(OpResult result, String chrootedPath) {
      if (result instanceof OpResult.CreateResult r) {
        cb.processResult(Code.OK.intValue(), path, null, unchroot(r.getPath()), r.getStat());
      } else {
        fail(((OpResult.ErrorResult) result).getErr());
      }
    }

    /**
     * A multi's result names the node with the client's chroot in front (ZooKeeper's client strips
     * it from a create's answer, not from a multi's): what follows it is our path, with the
     * sequence number of a sequential node.
     */
    private String unchroot(String name) {
      int ours = path.length() + (mode.isSequential() ? 10 : 0);
      return name == null || name.length() <= ours ? name : name.substring(name.length() - ours);
    }

    @Override
    void fail(int rc) {
      cb.processResult(rc, path, null, null, null);
    }
  }

  private static final class Delete extends WriteCall {
    final int version;
    final AsyncCallback.VoidCallback cb;

    Delete(String path, int version, AsyncCallback.VoidCallback cb) {
      super(path);
      this.version = version;
      this.cb = cb;
    }

    @Override
    Op op() {
      return Op.delete(path, version);
    }

    @Override
    int bytes() {
      return 16 + path.length();
    }

    @Override
    void sendAlone(ZkOps raw, IntConsumer answered) {
      raw.delete(
          path,
          version,
          (rc, p, ctx) -> {
            answered.accept(rc);
            cb.processResult(rc, p, ctx);
          });
    }

    @Override
    void answer(OpResult result, String chrootedPath) {
      fail(result instanceof OpResult.ErrorResult e ? e.getErr() : Code.OK.intValue()); // its code
    }

    @Override
    void fail(int rc) {
      cb.processResult(rc, path, null);
    }
  }

  /** A listing without a watch or a stat, which may join a read-only multi. */
  private static final class Listing extends Call {
    final String path;
    final AsyncCallback.ChildrenCallback cb;

    Listing(String path, AsyncCallback.ChildrenCallback cb) {
      this.path = path;
      this.cb = cb;
    }

    void answer(int rc, List<String> children) {
      cb.processResult(rc, path, null, children);
    }
  }

  /**
   * Any other call: sent alone, in its place, once every write multi sent before it is answered (it
   * may read what such a multi changes, or follow a write of it that is being sent again).
   */
  private static final class Barrier extends Call {
    /** Sends it, running the given hook at its answer before its own callback. */
    final Consumer<Runnable> send;

    /** Answers its callback with a code, when it cannot be sent. */
    final IntConsumer fail;

    Barrier(Consumer<Runnable> send, IntConsumer fail) {
      this.send = send;
      this.fail = fail;
    }
  }

  // ---------------------------------------------------------------- packets

  /** What one request on the wire carries. */
  private abstract class Packet {
    long seq;

    /**
     * Counted among the packets in flight that hold calls back ({@link #atOnceBelow}): all but a
     * create sent at once into a directory not known to exist.
     */
    boolean counted = true;

    /** Sends it; called by the one sending thread, outside the monitor. */
    abstract void send();

    /** The calls it carries. */
    abstract int calls();

    /** It could not be sent: answer its calls with a connection loss. */
    abstract void unsendable();
  }

  /** A write alone. */
  private final class WritePacket extends Packet {
    final WriteCall call;

    WritePacket(WriteCall call) {
      this.call = call;
    }

    @Override
    int calls() {
      return 1;
    }

    @Override
    void send() {
      call.sendAlone(raw, rc -> writeAnswered(this, rc));
    }

    @Override
    void unsendable() {
      answered(this, false);
      call.fail(Code.CONNECTIONLOSS.intValue());
    }
  }

  /** Writes in one multi. */
  private final class MultiPacket extends Packet {
    final List<WriteCall> calls;

    MultiPacket(List<WriteCall> calls) {
      this.calls = calls;
    }

    @Override
    int calls() {
      return calls.size();
    }

    @Override
    void send() {
      List<Op> ops = new ArrayList<>(calls.size());
      for (WriteCall c : calls) {
        ops.add(c.op());
      }
      raw.multi(ops, (rc, path, ctx, results) -> multiAnswered(this, rc, results));
    }

    @Override
    void unsendable() {
      multiAnswered(this, Code.CONNECTIONLOSS.intValue(), null);
    }
  }

  /** Listings: one alone, or several in a read-only multi. */
  private final class ListingPacket extends Packet {
    final List<Listing> calls;

    /** Sent while a write multi that failed was unanswered: its answers are dropped. */
    boolean stale;

    ListingPacket(List<Listing> calls) {
      this.calls = calls;
    }

    @Override
    int calls() {
      return calls.size();
    }

    @Override
    void send() {
      if (calls.size() == 1) {
        Listing l = calls.get(0);
        raw.getChildren(
            l.path,
            null,
            (rc, p, ctx, children, stat) ->
                listingsAnswered(this, rc, children == null ? null : List.of(children)));
        return;
      }
      List<Op> ops = new ArrayList<>(calls.size());
      for (Listing l : calls) {
        ops.add(Op.getChildren(l.path));
      }
      raw.multi(ops, (rc, path, ctx, results) -> readMultiAnswered(this, rc, results));
    }

    @Override
    void unsendable() {
      listingsAnswered(this, Code.CONNECTIONLOSS.intValue(), null);
    }
  }

  /** A barrier. */
  private final class BarrierPacket extends Packet {
    final Barrier call;

    BarrierPacket(Barrier call) {
      this.call = call;
    }

    @Override
    int calls() {
      return 1;
    }

    @Override
    void send() {
      call.send.accept(() -> answered(this, false));
    }

    @Override
    void unsendable() {
      answered(this, false);
      call.fail.accept(Code.CONNECTIONLOSS.intValue());
    }
  }

  // ---------------------------------------------------------------- queueing and sending

  private void issue(Call call) {
    synchronized (this) {
      if (pending.isEmpty()
          && inFlight < atOnceBelow
          && !(call instanceof Barrier && openMultis > 0)
          && !BatchHold.holds(inFlight, atOnceBelow, callsInFlight + 1, holdFrom, answering > 0)) {
        if (call instanceof Create c && !knownDirs.containsKey(parentOf(c.path))) {
          c.unseen = true;
        }
        packet(alone(call));
      } else if (call instanceof Create c
          && !knownDirs.containsKey(parentOf(c.path))
          && !unseenDirs.batchable()
          && nothingQueuedOn(parentOf(c.path))) {
        // it would go alone anyway (it may well fail, a lock's first use): at once, not held for
        // the next reply, and not counted among the packets that hold others back
        c.unseen = true;
        WritePacket p = new WritePacket(c);
        p.counted = false;
        packet(p);
      } else if (call instanceof Listing l
          && lastCreatedIn.contains(l.path)
          && (pending.isEmpty() || nothingQueuedOn(l.path))) {
        // a request's listing right behind its create, which was the last packet sent (pipelined,
        // as unbatched: it shows the create, and one round trip serves both); overtaking nothing on
        // its directory, so it shows every write there issued before it
        packet(new ListingPacket(List.of(l)));
      } else {
        pending.add(call);
        if (!holds()) {
          // too few calls outstanding for a batch to repay the wait: it goes now, after what is
          // queued (in order, as the stall valve sends them)
          flush(true);
        }
        if (!pending.isEmpty()) {
          checkForStall();
        }
      }
    }
    drain();
  }

  /**
   * Called holding the monitor: whether what is queued waits for the next reply ({@link
   * BatchHold}): the calls outstanding are those in flight and those queued.
   */
  private boolean holds() {
    return BatchHold.holds(
        inFlight, atOnceBelow, callsInFlight + pending.size(), holdFrom, answering > 0);
  }

  /**
   * Called holding the monitor: whether no queued call is on {@code dir}, in it, or on a directory
   * above it, and none is a barrier (which may write anywhere). A call sent ahead of the queue must
   * not overtake what it may follow: a request that finds its directory missing creates it and
   * sends its node's create right behind (ordered, as one session's requests are), and that create
   * finds the directory only if it stays behind.
   */
  private boolean nothingQueuedOn(String dir) {
    if (pending.size() > AHEAD_OF_AT_MOST) {
      return false; // a burst: the create waits with the rest
    }
    for (Call q : pending) {
      String path;
      if (q instanceof WriteCall w) {
        path = w.path;
      } else if (q instanceof Listing l) {
        path = l.path;
      } else {
        return false;
      }
      if (path.equals(dir)
          || path.startsWith(dir + "/")
          || dir.startsWith(path.endsWith("/") ? path : path + "/")) {
        return false;
      }
    }
    return true;
  }

  /** Called holding the monitor: checks in {@link #STALL_MILLIS} that a reply came meanwhile. */
  private void checkForStall() {
    if (stallTimer == null || stallCheck) {
      return;
    }
    long seen = replies;
    try {
      stallTimer.schedule(() -> stalled(seen), STALL_MILLIS, TimeUnit.MILLISECONDS);
      stallCheck = true;
    } catch (RejectedExecutionException e) {
      // the instance is closing: its calls end with the connection
    }
  }

  /** No reply came since {@code seen} replies: what is queued goes now (writes, listings). */
  private void stalled(long seen) {
    synchronized (this) {
      stallCheck = false;
      if (pending.isEmpty()) {
        return;
      }
      if (replies == seen) {
        flush(true);
      }
      if (!pending.isEmpty()) {
        checkForStall();
      }
    }
    drain();
  }

  /** Called holding the monitor: the packet of one call sent alone. */
  private Packet alone(Call call) {
    if (call instanceof WriteCall w) {
      return new WritePacket(w);
    }
    if (call instanceof Listing l) {
      return new ListingPacket(List.of(l));
    }
    return new BarrierPacket((Barrier) call);
  }

  /** Called holding the monitor: counts {@code p} in flight and puts it in the outbox. */
  private void packet(Packet p) {
    p.seq = ++sent;
    lastCreatedIn = createdIn(p);
    callsInFlight += p.calls();
    if (p.counted) {
      inFlight++;
    }
    if (p instanceof MultiPacket) {
      openMultis++;
    } else if (p instanceof ListingPacket) {
      listingsInFlight.add(p);
    }
    outbox.add(p);
  }

  /**
   * Called holding the monitor: sends what is pending, if fewer than {@link #atOnceBelow} packets
   * are in flight, up to the first reading barrier that must wait for a write multi.
   */
  private void flush() {
    flush(false);
  }

  /** As {@link #flush()}; {@code stalled}: whatever the packets in flight. */
  private void flush(boolean stalled) {
    if (!stalled && holds()) {
      return;
    }
    while (!pending.isEmpty()) {
      Call head = pending.peek();
      if (head instanceof Barrier b) {
        if (openMultis > 0) {
          return; // sent once the write multis before it are answered
        }
        pending.poll();
        packet(new BarrierPacket(b));
        continue;
      }
      // the batchable calls up to the next barrier: writes first, then listings
      List<WriteCall> writes = new ArrayList<>();
      List<Listing> listings = new ArrayList<>();
      int writeBytes = 0;
      Set<String> createdIn = new HashSet<>();
      while (pending.peek() instanceof WriteCall || pending.peek() instanceof Listing) {
        Call c = pending.peek();
        if (c instanceof WriteCall w) {
          boolean unseen = w instanceof Create && !knownDirs.containsKey(parentOf(w.path));
          boolean alone = unseen && !unseenDirs.batchable();
          if (!writes.isEmpty()
              && (alone
                  || writes.size() >= MAX_WRITES
                  || writeBytes + w.bytes() > MAX_WRITE_BYTES
                  || (w instanceof Create && createdIn.contains(parentOf(w.path))))) {
            break; // the rest in the next multi
          }
          if (w instanceof Create cr) {
            createdIn.add(parentOf(w.path));
            cr.unseen = unseen;
          }
          writeBytes += w.bytes();
          writes.add(w);
          if (alone) {
            pending.poll();
            break; // a create in a directory not known to exist goes alone
          }
        } else {
          listings.add((Listing) c);
        }
        pending.poll();
      }
      sendWrites(writes);
      sendListings(listings);
    }
  }

  /** The directories {@code p} creates nodes in. */
  private static Set<String> createdIn(Packet p) {
    if (p instanceof Batcher.WritePacket w) {
      return w.call instanceof Create ? Set.of(parentOf(w.call.path)) : Set.of();
    }
    if (p instanceof Batcher.MultiPacket m) {
      Set<String> dirs = new HashSet<>();
      for (WriteCall c : m.calls) {
        if (c instanceof Create) {
          dirs.add(parentOf(c.path));
        }
      }
      return dirs;
    }
    return Set.of();
  }

  /** The directory a node is created in. */
  private static String parentOf(String path) {
    int slash = path.lastIndexOf('/');
    return slash <= 0 ? "/" : path.substring(0, slash);
  }

  /** Called holding the monitor. */
  private void sendWrites(List<WriteCall> writes) {
    if (writes.size() == 1) {
      packet(new WritePacket(writes.get(0)));
    } else if (!writes.isEmpty()) {
      packet(new MultiPacket(writes));
      BatchEvent.writes(writes.size(), false);
    }
  }

  /**
   * Called holding the monitor: listings of directories known to be small go together (in read-only
   * multis of at most {@link #MAX_READS} and {@link #MAX_READ_BYTES}); the others alone.
   */
  private void sendListings(List<Listing> listings) {
    if (listings.isEmpty()) {
      return;
    }
    boolean together = listings.size() > 1 && line.readMulti();
    List<Listing> batch = new ArrayList<>();
    int bytes = 0;
    for (Listing l : listings) {
      Integer known = knownDirs.get(l.path);
      if (!together || known == null || known == UNLISTED || known > SMALL_LISTING_BYTES) {
        packet(new ListingPacket(List.of(l)));
        continue;
      }
      if (batch.size() >= MAX_READS || bytes + known > MAX_READ_BYTES) {
        sendListingBatch(batch);
        batch = new ArrayList<>();
        bytes = 0;
      }
      batch.add(l);
      bytes += known + 16;
    }
    sendListingBatch(batch);
  }

  /** Called holding the monitor. */
  private void sendListingBatch(List<Listing> batch) {
    if (!batch.isEmpty()) {
      packet(new ListingPacket(batch));
      if (batch.size() > 1) {
        BatchEvent.listings(batch.size(), false);
      }
    }
  }

  /**
   * Sends the outbox, in order, if no other thread is sending it (that thread then sends what this
   * one added). Never under the monitor.
   */
  private void drain() {
    while (true) {
      Packet p;
      synchronized (this) {
        if (sending || outbox.isEmpty()) {
          // another thread is sending, and sends what this one added
          return;
        }
        sending = true;
        p = outbox.poll();
      }
      try {
        p.send();
      } catch (RuntimeException e) {
        log.warn("a request could not be sent: {}", e.toString());
        try {
          p.unsendable();
        } catch (RuntimeException | Error e2) {
          log.error("a request's callback failed", e2);
        }
      } finally {
        synchronized (this) {
          sending = false;
        }
      }
    }
  }

  // ---------------------------------------------------------------- answers

  /** A packet was answered: count it, and send what waited for it. */
  private void answered(Packet p, boolean multi) {
    synchronized (this) {
      if (p.counted) {
        inFlight--;
      }
      callsInFlight -= p.calls();
      replies++;
      if (multi) {
        openMultis--;
      }
      flush();
    }
    drain();
  }

  /** A write sent alone was answered {@code rc}: learn whether its directory exists. */
  private void writeAnswered(WritePacket p, int rc) {
    synchronized (this) {
      if (p.call instanceof Create c) {
        String dir = parentOf(c.path);
        if (rc == Code.OK.intValue() || rc == Code.NODEEXISTS.intValue()) {
          if (c.unseen) {
            unseenDirs.answered(true);
          }
          exists(dir);
          if (!c.mode.isSequential() && !c.mode.isEphemeral()) {
            exists(c.path); // a directory made (a lock's, on first use)
          }
        } else if (rc == Code.NONODE.intValue()) {
          if (c.unseen) {
            unseenDirs.answered(false);
          }
          knownDirs.remove(dir);
        }
      } else if (rc == Code.OK.intValue()) {
        exists(parentOf(p.call.path)); // a delete in it was applied
      }
      if (p.counted) {
        inFlight--;
      }
      callsInFlight -= p.calls();
      replies++;
      flush();
    }
    drain();
  }

  private void multiAnswered(MultiPacket p, int rc, List<OpResult> results) {
    List<WriteCall> calls = p.calls;
    int failedAt = -1;
    if (results != null && rc != Code.OK.intValue()) {
      for (int i = 0; i < results.size(); i++) {
        if (results.get(i) instanceof OpResult.ErrorResult e
            && e.getErr() != Code.OK.intValue()
            && e.getErr() != Code.RUNTIMEINCONSISTENCY.intValue()) {
          failedAt = i;
          break;
        }
      }
    }
    boolean opFailed = results != null && rc != Code.OK.intValue();
    synchronized (this) {
      inFlight--;
      callsInFlight -= p.calls();
      replies++;
      openMultis--;
      if (opFailed) {
        // the ops go again without tying them together, ahead of anything pending; listings
        // sent while this multi was unanswered go again after them
        for (Packet l : listingsInFlight) {
          if (l.seq > p.seq) {
            ((ListingPacket) l).stale = true;
          }
        }
        if (failedAt < 0 || results.size() != calls.size()) {
          for (WriteCall c : calls) {
            packet(new WritePacket(c));
          }
        } else {
          // the ops before the failed one succeed again together; the failed one and every op
          // after it (whose outcome the multi does not tell) go alone, all in one round trip
          sendWrites(new ArrayList<>(calls.subList(0, failedAt)));
          for (WriteCall c : calls.subList(failedAt, calls.size())) {
            packet(new WritePacket(c));
          }
          if (calls.get(failedAt) instanceof Create
              && results.get(failedAt) instanceof OpResult.ErrorResult e
              && e.getErr() == Code.NONODE.intValue()) {
            knownDirs.remove(parentOf(calls.get(failedAt).path));
          }
        }
        BatchEvent.writes(calls.size(), true);
      } else if (rc == Code.OK.intValue()) {
        for (WriteCall c : calls) {
          if (c instanceof Create cr && cr.unseen) {
            unseenDirs.answered(true);
          }
          exists(parentOf(c.path));
          if (c instanceof Create cr && !cr.mode.isSequential() && !cr.mode.isEphemeral()) {
            exists(cr.path);
          }
        }
      }
      if (opFailed) {
        flush();
      } else {
        answering++; // what waited for this reply goes once its callbacks have run
      }
    }
    if (opFailed) {
      drain();
      return; // each op hears the answer of its retry
    }
    try {
      for (int i = 0; i < calls.size(); i++) {
        WriteCall c = calls.get(i);
        try {
          if (results != null && results.size() == calls.size()) {
            c.answer(results.get(i), null);
          } else {
            c.fail(rc);
          }
        } catch (RuntimeException | Error e) {
          // an Error too: ZooKeeper's event thread, running these callbacks one by one, would go on
          // with the next, and so do we (each caller's own guard has seen what it could)
          log.error("a callback of a batched request failed", e);
        }
      }
    } finally {
      callbacksRan();
    }
  }

  /**
   * The callbacks of a reply ran: sends what waited for that reply, with what they and the threads
   * they woke issued meanwhile.
   */
  private void callbacksRan() {
    synchronized (this) {
      answering--;
      flush();
    }
    drain();
  }

  private void readMultiAnswered(ListingPacket p, int rc, List<OpResult> results) {
    if (results == null && rc == Code.UNIMPLEMENTED.intValue()) {
      line.refused(); // a server before 3.6: the listings go again, alone
      resendListings(p);
      return;
    }
    if (results == null) {
      if (rc == Code.CONNECTIONLOSS.intValue()) {
        line.lost();
      }
      listingsAnswered(p, rc, null);
      return;
    }
    line.answered();
    List<List<String>> children = new ArrayList<>(results.size());
    int[] codes = new int[results.size()];
    for (int i = 0; i < results.size(); i++) {
      OpResult r = results.get(i);
      if (r instanceof OpResult.GetChildrenResult g) {
        children.add(g.getChildren());
        codes[i] = Code.OK.intValue();
      } else {
        children.add(null);
        codes[i] = r instanceof OpResult.ErrorResult e ? e.getErr() : Code.SYSTEMERROR.intValue();
      }
    }
    listingsAnswered(p, codes, children);
  }

  private void listingsAnswered(ListingPacket p, int rc, List<List<String>> children) {
    int[] codes = new int[p.calls.size()];
    java.util.Arrays.fill(codes, rc);
    List<List<String>> each = new ArrayList<>(p.calls.size());
    for (int i = 0; i < p.calls.size(); i++) {
      each.add(children == null ? null : children.get(i));
    }
    listingsAnswered(p, codes, each);
  }

  private void listingsAnswered(ListingPacket p, int[] codes, List<List<String>> children) {
    boolean stale;
    synchronized (this) {
      inFlight--;
      callsInFlight -= p.calls();
      replies++;
      listingsInFlight.remove(p);
      stale = p.stale;
      if (stale) {
        // sent again after the retries of the multi that failed before it was answered
        for (int i = p.calls.size() - 1; i >= 0; i--) {
          pending.addFirst(p.calls.get(i));
        }
        flush();
      } else {
        for (int i = 0; i < p.calls.size(); i++) {
          List<String> c = children.get(i);
          if (codes[i] == Code.OK.intValue() && c != null) {
            int bytes = 0;
            for (String name : c) {
              bytes += name.length() + 4;
            }
            knownDirs.put(p.calls.get(i).path, bytes);
          }
        }
        answering++; // what waited for this reply goes once its callbacks have run
      }
    }
    if (stale) {
      drain();
      return;
    }
    try {
      for (int i = 0; i < p.calls.size(); i++) {
        try {
          p.calls.get(i).answer(codes[i], children.get(i));
        } catch (RuntimeException | Error e) {
          log.error("a callback of a batched listing failed", e); // the others still hear theirs
        }
      }
    } finally {
      callbacksRan();
    }
  }

  /** The listings of a read-only multi the server refused go again, each alone. */
  private void resendListings(ListingPacket p) {
    synchronized (this) {
      inFlight--;
      callsInFlight -= p.calls();
      replies++;
      listingsInFlight.remove(p);
      for (Listing l : p.calls) {
        packet(new ListingPacket(List.of(l)));
      }
      flush();
    }
    drain();
  }

  /** How many packets are in flight (for tests). */
  synchronized int inFlight() {
    return inFlight;
  }

  /** How many calls wait to be sent (for tests). */
  synchronized int pending() {
    return pending.size();
  }

  // ---------------------------------------------------------------- the view

  /** The calls of one connection, queued here. */
  private final class View implements ZkOps {
    @Override
    public void create(
        String path,
        byte[] data,
        List<ACL> acl,
        CreateMode mode,
        AsyncCallback.Create2Callback cb) {
      PathUtils.validatePath(path, mode.isSequential()); // a bad path throws here, as unbatched
      if (mode == CreateMode.EPHEMERAL || mode.isTTL()) {
        issue(
            new Barrier(
                done ->
                    raw.create(
                        path,
                        data,
                        acl,
                        mode,
                        (rc, p, ctx, name, stat) -> {
                          done.run();
                          cb.processResult(rc, p, ctx, name, stat);
                        }),
                rc -> cb.processResult(rc, path, null, null, null)));
        return;
      }
      issue(new Create(path, data, acl, mode, cb));
    }

    @Override
    public void delete(String path, int version, AsyncCallback.VoidCallback cb) {
      PathUtils.validatePath(path);
      issue(new Delete(path, version, cb));
    }

    @Override
    public void listChildren(String path, AsyncCallback.ChildrenCallback cb) {
      PathUtils.validatePath(path);
      issue(new Listing(path, cb));
    }

    @Override
    public void getChildren(String path, Watcher watcher, AsyncCallback.Children2Callback cb) {
      PathUtils.validatePath(path);
      issue(
          new Barrier(
              done ->
                  raw.getChildren(
                      path,
                      watcher,
                      (rc, p, ctx, children, stat) -> {
                        done.run();
                        cb.processResult(rc, p, ctx, children, stat);
                      }),
              rc -> cb.processResult(rc, path, null, null, null)));
    }

    @Override
    public void getData(String path, Watcher watcher, AsyncCallback.DataCallback cb) {
      PathUtils.validatePath(path);
      issue(
          new Barrier(
              done ->
                  raw.getData(
                      path,
                      watcher,
                      (rc, p, ctx, data, stat) -> {
                        done.run();
                        cb.processResult(rc, p, ctx, data, stat);
                      }),
              rc -> cb.processResult(rc, path, null, null, null)));
    }

    @Override
    public void exists(String path, Watcher watcher, AsyncCallback.StatCallback cb) {
      PathUtils.validatePath(path);
      issue(
          new Barrier(
              done ->
                  raw.exists(
                      path,
                      watcher,
                      (rc, p, ctx, stat) -> {
                        done.run();
                        cb.processResult(rc, p, ctx, stat);
                      }),
              rc -> cb.processResult(rc, path, null, null)));
    }

    @Override
    public void getACL(String path, AsyncCallback.ACLCallback cb) {
      PathUtils.validatePath(path);
      issue(
          new Barrier(
              done ->
                  raw.getACL(
                      path,
                      (rc, p, ctx, acl, stat) -> {
                        done.run();
                        cb.processResult(rc, p, ctx, acl, stat);
                      }),
              rc -> cb.processResult(rc, path, null, null, null)));
    }

    @Override
    public void setData(String path, byte[] data, int version, AsyncCallback.StatCallback cb) {
      PathUtils.validatePath(path);
      issue(
          new Barrier(
              done ->
                  raw.setData(
                      path,
                      data,
                      version,
                      (rc, p, ctx, stat) -> {
                        done.run();
                        cb.processResult(rc, p, ctx, stat);
                      }),
              rc -> cb.processResult(rc, path, null, null)));
    }

    @Override
    public void removeWatches(
        String path, Watcher watcher, WatcherType type, AsyncCallback.VoidCallback cb) {
      PathUtils.validatePath(path);
      issue(
          new Barrier(
              done ->
                  raw.removeWatches(
                      path,
                      watcher,
                      type,
                      (rc, p, ctx) -> {
                        done.run();
                        cb.processResult(rc, p, ctx);
                      }),
              rc -> cb.processResult(rc, path, null)));
    }

    @Override
    public void removeAllWatches(String path, WatcherType type, AsyncCallback.VoidCallback cb) {
      PathUtils.validatePath(path);
      issue(
          new Barrier(
              done ->
                  raw.removeAllWatches(
                      path,
                      type,
                      (rc, p, ctx) -> {
                        done.run();
                        cb.processResult(rc, p, ctx);
                      }),
              rc -> cb.processResult(rc, path, null)));
    }

    @Override
    public void sync(String path, AsyncCallback.VoidCallback cb) {
      PathUtils.validatePath(path);
      issue(
          new Barrier(
              done ->
                  raw.sync(
                      path,
                      (rc, p, ctx) -> {
                        done.run();
                        cb.processResult(rc, p, ctx);
                      }),
              rc -> cb.processResult(rc, path, null)));
    }

    @Override
    public void multi(List<Op> ops, AsyncCallback.MultiCallback cb) {
      issue(
          new Barrier(
              done ->
                  raw.multi(
                      ops,
                      (rc, p, ctx, results) -> {
                        done.run();
                        cb.processResult(rc, p, ctx, results);
                      }),
              rc -> cb.processResult(rc, null, null, null)));
    }

    @Override
    public void addWatch(
        String path, Watcher watcher, AddWatchMode mode, AsyncCallback.VoidCallback cb) {
      PathUtils.validatePath(path);
      issue(
          new Barrier(
              done ->
                  raw.addWatch(
                      path,
                      watcher,
                      mode,
                      (rc, p, ctx) -> {
                        done.run();
                        cb.processResult(rc, p, ctx);
                      }),
              rc -> cb.processResult(rc, path, null)));
    }

    @Override
    public boolean connected() {
      return raw.connected();
    }

    @Override
    public String toString() {
      return "batched " + raw;
    }
  }
}
