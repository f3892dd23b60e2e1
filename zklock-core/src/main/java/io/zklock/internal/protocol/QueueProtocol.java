package io.zklock.internal.protocol;

import io.zklock.internal.rules.ErrorKind;
import io.zklock.internal.rules.KindMix;
import io.zklock.internal.rules.Listing;
import io.zklock.internal.rules.LockDelay;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.Ordering;
import io.zklock.internal.rules.QueueNode;
import io.zklock.internal.rules.WallClock;
import io.zklock.internal.zk.Deleter;
import io.zklock.internal.zk.Sync;
import io.zklock.internal.zk.ZkOps;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.WatcherType;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queue of sequential nodes, the fair lock's protocol: each request creates an {@code
 * EPHEMERAL_SEQUENTIAL} node in the lock directory and lists the directory in the same round trip
 * (the listing is pipelined behind the create, so it includes the new node). A pure {@link
 * Ordering.Rule} decides on the listing: hold, watch one node ahead, or watch the queue. All the
 * I/O around that rule is here; the request's life is the engine's.
 *
 * <p>A watched node's deletion is a grant without another read when nothing else stood ahead
 * ({@link Ordering.Watch#allAheadGone()}), with one care: a node of our own session may have gone
 * with our session's expiry, which took our node too, so its deletion counts as a handoff only if
 * our own delete of it was applied ({@link Deleter#deleteInFlight}).
 */
public final class QueueProtocol implements NodeProtocol {
  private static final Logger log = LoggerFactory.getLogger(QueueProtocol.class);

  /** The session of a watched node is not known yet. */
  private static final long UNKNOWN_OWNER = -1L;

  /** A watched node found gone by a read: no session's deletion to worry about. */
  private static final long NO_OWNER = 0L;

  private final String dir;
  private final NodeKind kind;
  private final Ordering.Rule rule;
  private final Map<String, String> extraData;

  /** The lock-delay after a failed grant (0: none, and no request of it is ever sent). */
  private final long lockDelayMillis;

  /**
   * Our nodes that stand first and wait out a lock-delay, with the server time their record keeps
   * if they withdraw (-1: the record's own time): see {@link LockDelay}.
   */
  private final ConcurrentHashMap<String, Long> delaying = new ConcurrentHashMap<>();

  /**
   * @param extraData extra fields of every node's data
   */
  public QueueProtocol(
      String dir, NodeKind kind, Ordering.Rule rule, Map<String, String> extraData) {
    this(dir, kind, rule, extraData, 0L);
  }

  /**
   * @param extraData extra fields of every node's data
   * @param lockDelayNanos the lock-delay after a failed grant ({@link io.zklock.LockOptions
   *     #lockDelay}); 0 for none
   */
  public QueueProtocol(
      String dir,
      NodeKind kind,
      Ordering.Rule rule,
      Map<String, String> extraData,
      long lockDelayNanos) {
    this.dir = dir;
    this.kind = kind;
    this.rule = rule;
    this.extraData = Map.copyOf(extraData);
    this.lockDelayMillis =
        lockDelayNanos <= 0 ? 0 : Math.max(1, TimeUnit.NANOSECONDS.toMillis(lockDelayNanos));
  }

  @Override
  public String dir() {
    return dir;
  }

  @Override
  public NodeKind kind() {
    return kind;
  }

  @Override
  public void create(Step step) {
    String path = dir + "/" + QueueNode.prefix(kind, step.attemptId());
    Before before = null;
    if (lockDelayMillis > 0) {
      // the directory's record as it was before our create, in the same round trip
      Before read = new Before(null);
      before = read;
      step.zk().getData(dir, null, (rc, p, c, data, stat) -> read.read(rc, data, stat));
    }
    Before prior = before;
    step.zk()
        .create(
            path,
            step.nodeData(kind, extraData),
            step.ctx().acl(),
            CreateMode.EPHEMERAL_SEQUENTIAL,
            (rc, p, c, name, stat) -> {
              Code code = Code.get(rc);
              if (code == Code.OK) {
                if (prior != null) {
                  prior.ctime = stat.getCtime();
                }
                step.created(name, stat.getCzxid());
              } else {
                step.createFailed(code);
              }
            });
    // applied after the create (one session's requests are ordered): the listing includes our node
    list(step, prior);
  }

  @Override
  public void judge(Step step) {
    list(step, null);
  }

  /**
   * Lists the directory for {@code step}: joins the next listing sent on its connection ({@link
   * SharedListings}), which includes everything the request sent before this call.
   */
  private void list(Step step, Before before) {
    if (before == null || before.predecessor != null) {
      step.ctx()
          .listings()
          .list(step.zk(), dir, (rc, listing) -> listed(step, rc, listing, before));
      return;
    }
    // a newcomer of a lock with a delay: the listing's stat says what changed since its read
    step.ctx()
        .listings()
        .list(
            step.zk(),
            dir,
            new SharedListings.Reader() {
              @Override
              public void listed(int rc, Listing listing) {
                QueueProtocol.this.listed(step, rc, listing, before);
              }

              @Override
              public void listed(int rc, Listing listing, Stat stat) {
                if (stat != null) {
                  before.postCversion = stat.getCversion();
                }
                listed(rc, listing);
              }
            });
  }

  private void listed(Step step, int rc, Listing listing, Before before) {
    Code code = Code.get(rc);
    if (code == Code.OK) {
      evaluate(step, listing, false, before);
    } else if (ErrorKind.retryWhenConnected(code)) {
      step.whenConnected(this::judge);
    }
    // NONODE and expiry: the create's reply and the session's news deal with them
  }

  @Override
  public void recover(Step step) {
    // The connection may have come back on another server, one that has not applied our create
    // yet: a sync first brings it up to date with the leader (the listing, pipelined behind it,
    // is served after it), so "no node of ours" means the create never happened.
    Sync.sync(step.conn(), dir);
    step.zk()
        .getChildren(
            dir,
            null,
            (rc, p, c, children, stat) -> {
              Code code = Code.get(rc);
              if (ErrorKind.retryWhenConnected(code)) {
                step.whenConnected(this::recover);
                return;
              }
              String mine = null;
              if (code == Code.OK) {
                String id = step.attemptId();
                for (String child : children) {
                  QueueNode n = QueueNode.parse(child);
                  if (n != null && n.attemptId().equals(id)) {
                    mine = child;
                  }
                }
              }
              if (mine == null) {
                step.again(); // the create never happened: send it again
              } else {
                adopt(step, dir + "/" + mine, Listing.of(children));
              }
            });
  }

  /** Our node is {@code path}: learn its token (setting the own-node watch), then decide. */
  private void adopt(Step step, String path, Listing listing) {
    step.zk()
        .exists(
            path,
            step.ownWatcher(),
            (rc, p, c, stat) -> {
              Code code = Code.get(rc);
              if (code == Code.OK && stat != null) {
                step.adopted(path, stat.getCzxid(), true);
                evaluate(step, listing, false, null);
              } else if (code == Code.NONODE || code == Code.OK) {
                step.again();
              } else {
                step.whenConnected(this::recover);
              }
            });
  }

  @Override
  public CompletableFuture<Void> deleteUnknown(
      ProtocolContext ctx, String attemptId, long session) {
    return ctx.deleter().deleteAttempt(dir, attemptId, session);
  }

  // ---------------------------------------------------------------- the rule, and watching

  /**
   * Decides on a listing, which may be shared with other requests: it was parsed and sorted once,
   * and {@link QueueNode#indexOf} finds our node in it by binary search. {@code queueWatched}: the
   * listing was read with a child watch (the {@link Ordering.WatchQueue} wait), so if we must still
   * wait, the watch already set is enough.
   */
  private void evaluate(Step step, Listing listing, boolean queueWatched, Before before) {
    if (listing.nearOverflow()) {
      inCreationOrder(step, listing, queueWatched, before);
    } else {
      decide(step, listing, queueWatched, before);
    }
  }

  /**
   * The sequence counter has overflowed (see {@link QueueNode}): decide on the queue in creation
   * order, read once per listing (every request sharing it waits for the same reads).
   */
  private void inCreationOrder(Step step, Listing listing, boolean queueWatched, Before before) {
    ZkOps zk = step.zk();
    listing
        .inCreationOrder(() -> resolveCreation(zk, listing))
        .thenAccept(
            ordered -> {
              if (ordered == null) {
                step.whenConnected(this::judge);
              } else {
                decide(step, ordered, queueWatched, before);
              }
            });
  }

  /**
   * Reads every node's creation zxid, pipelined: completes with the queue in creation order, or
   * null if a read failed (on ZooKeeper's event thread).
   */
  private CompletableFuture<Listing> resolveCreation(ZkOps zk, List<QueueNode> queue) {
    CompletableFuture<Listing> done = new CompletableFuture<>();
    QueueNode[] resolved = new QueueNode[queue.size()];
    AtomicInteger left = new AtomicInteger(queue.size());
    AtomicBoolean failed = new AtomicBoolean();
    if (resolved.length == 0) {
      done.complete(Listing.byCreation(List.of()));
      return done;
    }
    for (int i = 0; i < resolved.length; i++) {
      int index = i;
      QueueNode n = queue.get(i);
      zk.exists(
          dir + "/" + n.name(),
          null,
          (rc, p, c, stat) -> {
            Code code = Code.get(rc);
            if (code == Code.OK && stat != null) {
              resolved[index] = n.withCzxid(stat.getCzxid());
            } else if (code != Code.NONODE && code != Code.OK) {
              failed.set(true);
            }
            if (left.decrementAndGet() > 0) {
              return;
            }
            if (failed.get()) {
              done.complete(null);
              return;
            }
            List<QueueNode> present = new ArrayList<>();
            for (QueueNode r : resolved) {
              if (r != null) {
                present.add(r);
              }
            }
            done.complete(Listing.byCreation(present));
          });
    }
    return done;
  }

  private void decide(Step step, List<QueueNode> queue, boolean queueWatched, Before before) {
    Node node = step.node();
    if (node == null || !step.isLive()) {
      return;
    }
    int index = QueueNode.indexOf(queue, node.name());
    if (index < 0) {
      // our node is gone although our session lives: someone deleted it. Queue again.
      log.warn("lock node {} vanished while waiting; queueing again", node.path());
      step.again();
      return;
    }
    QueueNode foreign = KindMix.conflict(kind, queue);
    if (foreign != null) {
      // a recipe Curator orders apart from ours: refuse rather than hold beside it (KindMix)
      step.fail(new RecipeMixException(KindMix.refusal(dir, kind, foreign), dir, step.session()));
      return;
    }
    Ordering.Decision decision = rule.decide(queue, index);
    if (decision instanceof Ordering.Hold) {
      if (lockDelayMillis == 0) {
        step.granted();
      } else {
        firstInListing(step, queue.get(index), before);
      }
    } else if (!step.mayWait()) {
      step.busy();
    } else if (decision instanceof Ordering.Watch w) {
      step.queued(index);
      watchAhead(step, w);
    } else if (!queueWatched) {
      step.queued(index);
      watchQueue(step);
    }
  }

  /**
   * Waits for the node ahead that the rule named. No watch on our own node while waiting: a
   * waiter's node deleted by hand is noticed when we next list, or, if we are granted first, by the
   * holder's delayed watch (docs/guarantees.md).
   *
   * <p>If the rule looks ahead ({@link Ordering.Watch#lookAhead()}) and the node ahead is another
   * session's, the node before it is watched too (see {@link #watchLookAhead}): so that, at any
   * depth, the node ahead's deletion is a grant without a read after the notification.
   */
  private void watchAhead(Step step, Ordering.Watch w) {
    Wait wait = new Wait(dir + "/" + w.node().name(), w.node(), w.allAheadGone());
    Step waiting =
        step.watch(wait.ahead, WatcherType.Data, (s, event) -> aheadChanged(s, event, wait));
    if (waiting == null) {
      return;
    }
    if (lockDelayMillis > 0 && w.allAheadGone()) {
      watchRecord(waiting, wait); // sent first: see LockDelay
    }
    waiting
        .zk()
        .getData(
            wait.ahead,
            waiting.watcher(),
            (rc, p, c, data, stat) -> {
              Code code = Code.get(rc);
              if (code == Code.OK && stat != null) {
                // whose node we watch: this reply precedes any event of its watch
                wait.owner = stat.getEphemeralOwner();
                if (w.lookAhead() != null && wait.owner != waiting.session()) {
                  watchLookAhead(waiting, wait, w.lookAhead());
                }
              } else if (code == Code.NONODE) {
                // gone already (no watch was set), seen by a read of our live session
                wait.owner = NO_OWNER;
                aheadGone(waiting, wait);
              } else if (ErrorKind.retryWhenConnected(code)) {
                waiting.whenConnected(this::judge);
              }
            });
  }

  /**
   * What a waiter knows about the node it waits for ({@code ahead}). Touched on the connection's
   * event thread, and by a release's reply.
   */
  private static final class Wait {
    final String ahead;
    final QueueNode node;

    /** Nothing else stood before {@code ahead}: known from the first listing, or a later one. */
    volatile boolean allAheadGone;

    /** The session of {@code ahead} ({@link #UNKNOWN_OWNER}, {@link #NO_OWNER}). */
    volatile long owner = UNKNOWN_OWNER;

    /** A listing for the look-ahead is on its way. */
    volatile boolean listing;

    /** {@code ahead} was deleted while that listing was on its way: the listing decides. */
    volatile boolean goneWhileListing;

    /** Lock-delay: the directory's record is watched (sent before any read of {@code ahead}). */
    volatile boolean recordWatched;

    /** Lock-delay: the watched read of the record has answered. */
    volatile boolean recordRead;

    /** Lock-delay: the node the record named as released at that read, or null. */
    volatile String releasedRead;

    /** Lock-delay: the record changed after that read. */
    volatile boolean recordChanged;

    /** Lock-delay: {@code ahead} went before the record's read answered; the answer decides. */
    volatile boolean decideOnRead;

    Wait(String ahead, QueueNode node, boolean allAheadGone) {
      this.ahead = ahead;
      this.node = node;
      this.allAheadGone = allAheadGone;
    }
  }

  /**
   * Watches {@code before}, the node just ahead of the one we wait for, while that one waits or
   * holds: when {@code before} goes, we list again, off the critical path, and learn whether the
   * node we wait for is now the head. Only for a node ahead of another session: the own-session
   * case needs no listing ({@link #aheadGone}).
   */
  private void watchLookAhead(Step waiting, Wait wait, QueueNode before) {
    String path = dir + "/" + before.name();
    Watcher watcher =
        waiting.alsoWatch(
            path,
            WatcherType.Data,
            event -> {
              if (event.getType() == EventType.NodeDeleted
                  || event.getType() == EventType.DataWatchRemoved) {
                // gone, or (removed by a release of our own session) going before our listing
                listAhead(waiting, wait);
              }
              // data changes (a release asked of that node) and connection news: keep waiting
            });
    if (watcher == null) {
      return;
    }
    waiting
        .zk()
        .getData(
            path,
            watcher,
            (rc, p, c, data, stat) -> {
              if (Code.get(rc) == Code.NONODE) {
                listAhead(waiting, wait); // gone already (no watch was set)
              }
            });
  }

  /** The node before the one we wait for is gone: list, and learn whether ours is the head. */
  private void listAhead(Step waiting, Wait wait) {
    if (!waiting.isLive() || wait.listing || wait.allAheadGone) {
      return;
    }
    wait.listing = true;
    // a shared listing sent after this call: read after the deletion that brought us here
    waiting
        .ctx()
        .listings()
        .list(
            waiting.zk(),
            dir,
            (rc, listing) -> {
              wait.listing = false;
              Code code = Code.get(rc);
              if (wait.goneWhileListing) {
                // the node we waited for went before this listing was read: decide on it
                Step next = waiting.next();
                if (next == null) {
                  return;
                }
                if (code == Code.OK) {
                  evaluate(next, listing, false, new Before(wait.node.name()));
                } else if (ErrorKind.retryWhenConnected(code)) {
                  next.whenConnected(this::judge);
                }
                return;
              }
              if (code == Code.OK) {
                lookedAhead(waiting, wait, listing);
              }
              // a failed listing only loses the look-ahead: the deletion we wait for still comes
            });
  }

  /**
   * A listing read while the node we wait for was still there: if the rule now names it with
   * nothing ahead of it, its deletion will be our grant; if it names it with another node before
   * it, look ahead to that one.
   */
  private void lookedAhead(Step waiting, Wait wait, Listing queue) {
    Node node = waiting.node();
    if (node == null || !waiting.isLive()) {
      return;
    }
    int index = queue.indexOfName(node.name());
    if (index < 0 || queue.nearOverflow()) {
      // our node is gone, or the queue must be read in creation order: judge it fully
      judgeNext(waiting);
      return;
    }
    if (rule.decide(queue, index) instanceof Ordering.Watch w && w.node().equals(wait.node)) {
      if (w.allAheadGone()) {
        if (lockDelayMillis > 0) {
          watchRecord(waiting, wait);
        }
        wait.allAheadGone = true;
      } else if (w.lookAhead() != null) {
        watchLookAhead(waiting, wait, w.lookAhead());
      }
    }
    // any other decision: what we wait for has changed, and its deletion's news is on its way
  }

  /** Waits for any change of the queue: a child watch on the directory, then decide again. */
  private void watchQueue(Step step) {
    Step waiting =
        step.watch(
            dir,
            WatcherType.Children,
            (s, event) -> {
              if (event.getType() != EventType.None) {
                judgeNext(s);
              }
            });
    if (waiting == null) {
      return;
    }
    waiting
        .zk()
        .getChildren(
            dir,
            waiting.watcher(),
            (rc, p, c, children, stat) -> {
              Code code = Code.get(rc);
              if (code == Code.OK) {
                evaluate(waiting, Listing.of(children), true, null);
              } else if (ErrorKind.retryWhenConnected(code)) {
                waiting.whenConnected(this::judge);
              }
            });
  }

  private void aheadChanged(Step step, WatchedEvent event, Wait wait) {
    if (event.getType() == EventType.None) {
      return; // connection news; the session's news handle it, and the watch stays set
    }
    if (event.getType() == EventType.NodeDeleted) {
      aheadGone(step, wait);
    } else if (event.getType() == EventType.DataWatchRemoved) {
      aheadReleasedHere(step, wait);
    } else {
      judgeNext(step);
    }
  }

  /**
   * Our watch on the node ahead was removed by this client: a request of our own session deletes
   * that node, and its release removed this session's watches on it first (pipelined before the
   * delete, {@link Deleter}), ours included, so no deletion event will come. The delete's reply
   * tells instead: applied (our session lived) and the node was the head (nothing else ahead of it,
   * or it was held by an exclusive rule), it is our grant. Anything we send after this event is
   * applied after that delete.
   */
  private void aheadReleasedHere(Step step, Wait wait) {
    Deleter deleter = step.ctx().deleter();
    CompletableFuture<Boolean> delete = deleter.deleteInFlight(wait.ahead);
    if (delete == null) {
      judgeNext(step);
      return;
    }
    boolean released = deleter.releaseInFlight(wait.ahead) != null;
    boolean head = wait.allAheadGone || (Ordering.heldOnlyAtHead(wait.node.kind()) && released);
    delete.thenAccept(applied -> grantedOrJudged(step, applied && head, released));
  }

  /**
   * The node we waited for is gone. {@code wait.owner}: its session ({@link #UNKNOWN_OWNER} if not
   * known, {@link #NO_OWNER} when a read of our live session found it gone).
   */
  private void aheadGone(Step step, Wait wait) {
    long owner = wait.owner;
    Deleter deleter = step.ctx().deleter();
    if (!wait.allAheadGone) {
      CompletableFuture<Boolean> release =
          Ordering.heldOnlyAtHead(wait.node.kind()) ? deleter.releaseInFlight(wait.ahead) : null;
      if (release != null) {
        // our own release of a node that was held, so the head: if the server applied it, our
        // session lived, and nothing is left ahead of us (whatever our last listing showed)
        release.thenAccept(applied -> grantedOrJudged(step, applied, true));
      } else if (wait.listing) {
        wait.goneWhileListing = true; // the listing on its way was read after this deletion
      } else {
        judgeNext(step); // something else may stand ahead: list again
      }
      return;
    }
    if (owner != UNKNOWN_OWNER && owner != step.session()) {
      // Another session's node: its deletion reached us on our connection, so our session (and
      // our node) lived when it happened. Nothing else stood before us; new nodes queue behind us.
      handOver(step, wait);
      return;
    }
    // A node of our own session: its deletion may be our session's expiry, which took our node
    // too (no handoff then). It is a handoff only if our own delete of it was applied.
    CompletableFuture<Boolean> release = deleter.deleteInFlight(wait.ahead);
    if (release == null) {
      judgeNext(step); // the listing fails if the session ended, and we queue again
      return;
    }
    boolean released = deleter.releaseInFlight(wait.ahead) != null;
    release.thenAccept(applied -> grantedOrJudged(step, applied, released));
  }

  /**
   * {@code granted}: the node ahead was the head and its delete was applied; {@code released}: by
   * its holder's release (clean), not a withdrawal.
   */
  private void grantedOrJudged(Step step, boolean granted, boolean released) {
    if (granted) {
      if (lockDelayMillis == 0 || released) {
        step.granted();
      } else {
        delayThenGrant(step, lockDelayMillis, -1L);
      }
    } else {
      judgeNext(step);
    }
  }

  private void judgeNext(Step step) {
    Step next = step.next();
    if (next != null) {
      judge(next);
    }
  }

  // ---------------------------------------------------------------- lock-delay (see LockDelay)

  @Override
  public List<Op> releaseOps(String path) {
    if (lockDelayMillis == 0) {
      return null;
    }
    delaying.remove(path);
    String name = path.substring(path.lastIndexOf('/') + 1);
    return List.of(Op.setData(dir, LockDelay.released(name), -1));
  }

  @Override
  public List<Op> withdrawOps(String path) {
    if (lockDelayMillis == 0) {
      return null;
    }
    Long kept = delaying.remove(path);
    if (kept == null) {
      return null; // not first: a plain delete, which leaves the next one unproven (it delays)
    }
    // our own data first: a waiter watching our node lists again rather than take the
    // directory's change that follows for a clean release
    byte[] record = LockDelay.failed(kept);
    return List.of(Op.setData(path, record, -1), Op.setData(dir, record, -1));
  }

  /**
   * What a request knew before it decided on a listing where it stands first: the directory's
   * record read right before its create (a newcomer), or the predecessor whose deletion sent it to
   * list.
   */
  private static final class Before {
    /** Our immediate predecessor, gone; null for a newcomer. */
    final String predecessor;

    volatile boolean answered;
    volatile int rc;
    volatile byte[] data;
    volatile Stat stat;

    /** Our node's creation time (server time, ms), once created. */
    volatile long ctime;

    /** The directory's {@code cversion} as our first listing (after our create) read it. */
    volatile int postCversion = Integer.MIN_VALUE;

    Before(String predecessor) {
      this.predecessor = predecessor;
    }

    void read(int rc, byte[] data, Stat stat) {
      this.rc = rc;
      this.data = data;
      this.stat = stat;
      this.answered = true;
    }
  }

  /** The server time a failure record keeps, when the record speaks ({@code pzxid == mzxid}). */
  private static long kept(byte[] data, Stat stat) {
    if (stat.getPzxid() != stat.getMzxid()) {
      return -1L;
    }
    long at = LockDelay.failedAt(data, stat.getMtime());
    return at == Long.MIN_VALUE ? -1L : at;
  }

  /** We stand first in a listing: decide on the record whether the grant waits out a delay. */
  private void firstInListing(Step step, QueueNode me, Before before) {
    if (before != null && before.predecessor == null) {
      // a newcomer: the read sent right before our create answered before this listing did
      long wait = lockDelayMillis;
      long keep = -1L;
      Code code = Code.get(before.rc);
      Stat st = before.stat;
      if (before.answered && code == Code.OK && st != null) {
        wait =
            LockDelay.byStat(
                true,
                st.getPzxid(),
                st.getMzxid(),
                st.getNumChildren(),
                st.getCversion(),
                before.data,
                st.getMtime(),
                before.postCversion,
                before.ctime,
                lockDelayMillis);
        keep = kept(before.data, st);
      } else if (before.answered && code == Code.NONODE) {
        wait =
            LockDelay.byStat(false, 0, 0, 0, 0, null, 0, before.postCversion, 0, lockDelayMillis);
      }
      delayThenGrant(step, wait, keep);
      return;
    }
    // a request that waited: one read of the record, now (only on a lock with a delay, and only
    // when the grant did not come from the watched deletion)
    String predecessor = before == null ? null : before.predecessor;
    step.zk()
        .getData(
            dir,
            null,
            (rc, p, c, data, stat) -> {
              Code code = Code.get(rc);
              if (ErrorKind.retryWhenConnected(code)) {
                step.whenConnected(this::judge);
                return;
              }
              long wait = lockDelayMillis;
              long keep = -1L;
              if (code == Code.OK && stat != null) {
                if (predecessor != null && predecessor.equals(LockDelay.releasedNode(data))) {
                  wait = 0; // our immediate predecessor was released: nobody else held since
                } else {
                  wait =
                      LockDelay.byStat(
                          true,
                          stat.getPzxid(),
                          stat.getMzxid(),
                          LockDelay.AFTER_CREATE,
                          LockDelay.AFTER_CREATE,
                          data,
                          stat.getMtime(),
                          LockDelay.AFTER_CREATE,
                          0L,
                          lockDelayMillis);
                  keep = kept(data, stat);
                }
              }
              delayThenGrant(step, wait, keep);
            });
  }

  /**
   * Watches the directory's record for the wait on the head of the queue, read before the head is
   * (so a release that happens in between is seen by one or the other): see {@link LockDelay}.
   */
  private void watchRecord(Step waiting, Wait wait) {
    if (wait.recordWatched) {
      return;
    }
    Watcher watcher =
        waiting.alsoWatch(
            dir,
            WatcherType.Data,
            event -> {
              if (event.getType() == EventType.NodeDataChanged) {
                wait.recordChanged = true;
              }
            });
    if (watcher == null) {
      return;
    }
    wait.recordWatched = true;
    waiting
        .zk()
        .getData(
            dir,
            watcher,
            (rc, p, c, data, stat) -> {
              if (Code.get(rc) == Code.OK) {
                wait.releasedRead = LockDelay.releasedNode(data);
              }
              wait.recordRead = true;
              if (wait.decideOnRead) {
                wait.decideOnRead = false;
                handOver(waiting, wait);
              }
            });
  }

  /** The head we waited for, of another session, is gone: our grant, now or after the delay. */
  private void handOver(Step step, Wait wait) {
    if (lockDelayMillis == 0) {
      step.granted();
      return;
    }
    if (wait.recordWatched && !wait.recordRead) {
      wait.decideOnRead = true; // the record's read is on its way, sent before this deletion's
      return;
    }
    boolean clean =
        wait.recordWatched
            && LockDelay.cleanByWatch(wait.node.name(), wait.releasedRead, wait.recordChanged);
    delayThenGrant(step, clean ? 0 : lockDelayMillis, -1L);
  }

  /**
   * Grants after {@code waitMillis} (at once if 0): the request stays waiting meanwhile, so a
   * timeout, an interruption or a cancel withdraws it as any waiter; a {@code tryAcquire()} is
   * busy. A withdrawal from here writes the failure record ({@link #withdrawOps}).
   */
  private void delayThenGrant(Step step, long waitMillis, long keep) {
    if (waitMillis <= 0) {
      step.granted();
      return;
    }
    Node node = step.node();
    if (node == null || !step.isLive()) {
      return;
    }
    String path = node.path();
    delaying.put(path, keep);
    if (!step.mayWait()) {
      step.busy();
      return;
    }
    log.info(
        "lock {}: the last grant ended by failure (or cannot be proven released); {} waits out"
            + " the lock-delay, {} ms",
        dir,
        node.path(),
        waitMillis);
    markDelay(step, path, waitMillis);
    step.ctx()
        .scheduler()
        .schedule(
            () -> {
              if (!step.isLive()) {
                delaying.remove(path, keep);
                return;
              }
              step.whenConnected(s -> grantAfterDelay(s, path, keep));
            },
            waitMillis,
            TimeUnit.MILLISECONDS);
  }

  /**
   * The delay is over: grants on the reply of one read of our node, which proves that our session
   * lived and our node stood, first, after the delay. A timer alone proves neither: the session may
   * have expired meanwhile, unheard (a paused process hears its expiry late), and a grant on it
   * would be a grant with no node. One round trip, on the failed path only, after a delay of
   * seconds; a clean handoff and a lock without a delay never send it.
   */
  private void grantAfterDelay(Step step, String path, long keep) {
    step.zk()
        .exists(
            path,
            null,
            (rc, p, c, stat) -> {
              Code code = Code.get(rc);
              if (code == Code.OK && stat != null) {
                delaying.remove(path);
                step.granted();
              } else if (code == Code.OK || code == Code.NONODE) {
                delaying.remove(path, keep);
                judge(step); // our node is gone although our session lives: the listing says so
              } else if (ErrorKind.retryWhenConnected(code)) {
                step.whenConnected(s -> grantAfterDelay(s, path, keep));
              }
              // expiry: the session's news deal with it
            });
  }

  /**
   * Marks our node, for {@code inspect}, as waiting out a delay until {@code waitMillis} from now
   * (by this process's wall clock: a display, not a decision). Off the path of the grant; a waiter
   * watching our node lists again on the change, and our own watch takes it for ours, not a release
   * request.
   */
  private void markDelay(Step step, String path, long waitMillis) {
    Map<String, String> extra = new java.util.HashMap<>(extraData);
    extra.put(LOCK_DELAY_UNTIL, Long.toString(WallClock.SYSTEM.millis() + waitMillis));
    step.zk()
        .setData(
            path,
            step.nodeData(kind, extra),
            -1,
            (rc, p, c, stat) -> {
              if (Code.get(rc) == Code.OK && stat != null) {
                step.wroteOwnData(path, stat.getVersion());
              }
            });
  }

  /** The field of a node waiting out a lock-delay: until when, epoch ms (see LockNode). */
  public static final String LOCK_DELAY_UNTIL = "lockDelayUntil";
}
