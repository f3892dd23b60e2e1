package io.zklock.internal.protocol;

import io.zklock.internal.rules.ErrorKind;
import io.zklock.internal.rules.ForeignNode;
import io.zklock.internal.rules.KazooOrder;
import io.zklock.internal.rules.KindMix;
import io.zklock.internal.rules.Listing;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.Ordering;
import io.zklock.internal.rules.QueueNode;
import io.zklock.internal.zk.Deleter;
import io.zklock.internal.zk.Sync;
import io.zklock.internal.zk.ZkOps;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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
 * ({@link Ordering.Watch#allAheadGone()}) and the kind is zklock's own (a kind shared with other
 * libraries lists first), with one care: a node of our own session may have gone with our session's
 * expiry, which took our node too, so its deletion counts as a handoff only if our own delete of it
 * was applied ({@link Deleter#deleteInFlight}).
 *
 * <p>The queue decides who may hold; when the grant is made is its {@link GrantPolicy}'s, called at
 * each grant site: at once ({@link GrantPolicy#AT_ONCE}), or after a lock-delay when the grant
 * before ended by failure ({@link LockDelayGrant}, whose record and reads are all its own).
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

  /** When a request the rule lets hold is granted: at once, or after a lock-delay. */
  private final GrantPolicy grant;

  /**
   * Whether a waiter whose predecessor went lists the directory before it holds, rather than
   * holding on the notification alone: in the modes that share a queue with other libraries'
   * clients ({@link NodeKind#compatible()}). A client of a library that skips our names and joined
   * after our last listing is then seen, and refused, instead of held beside (docs/interop.md); the
   * libraries we share those queues with list again after every wake-up themselves, so the grant
   * costs what theirs does. Plain mode grants on the notification: a foreign client there skips
   * every one of zklock's names alike, so it holds beside the head from the moment it joins
   * whatever the next waiter does ({@link io.zklock.internal.rules.ClientOrder}).
   */
  private final boolean listBeforeGrant;

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
    this.listBeforeGrant = kind.compatible();
    this.grant =
        lockDelayNanos <= 0
            ? GrantPolicy.AT_ONCE
            : new LockDelayGrant(dir, kind, this.extraData, lockDelayNanos, this::judge);
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
    grant.creating(step);
    step.zk()
        .create(
            path,
            step.nodeData(kind, extraData),
            step.ctx().acl(),
            CreateMode.EPHEMERAL_SEQUENTIAL,
            (rc, p, c, name, stat) -> {
              Code code = Code.get(rc);
              if (code == Code.OK) {
                grant.created(step, stat);
                step.created(name, stat.getCzxid());
              } else {
                step.createFailed(code);
              }
            });
    // applied after the create (one session's requests are ordered): the listing includes our node
    list(step);
  }

  @Override
  public void judge(Step step) {
    list(step);
  }

  /**
   * Lists the directory for {@code step}: joins the next listing sent on its connection ({@link
   * SharedListings}), which includes everything the request sent before this call.
   */
  private void list(Step step) {
    step.ctx()
        .listings()
        .list(
            step.zk(),
            dir,
            new SharedListings.Reader() {
              @Override
              public void listed(int rc, Listing listing) {
                QueueProtocol.this.listed(step, rc, listing);
              }

              @Override
              public void listed(int rc, Listing listing, Stat stat) {
                grant.listed(step, stat);
                listed(rc, listing);
              }

              @Override
              public boolean needsStat() {
                return grant.readsDirStat();
              }
            });
  }

  private void listed(Step step, int rc, Listing listing) {
    Code code = Code.get(rc);
    if (code == Code.OK) {
      evaluate(step, listing, false);
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
                evaluate(step, listing, false);
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
  private void evaluate(Step step, Listing listing, boolean queueWatched) {
    if (!listing.foreign().isEmpty()) {
      refuseOrGoOn(step, listing, queueWatched);
    } else {
      evaluateQueue(step, listing, queueWatched);
    }
  }

  /** {@link #evaluate} on a listing with no foreign node, or whose foreign names proved none. */
  private void evaluateQueue(Step step, Listing listing, boolean queueWatched) {
    if (kind.kazoo()) {
      QueueNode disagreeing = KazooOrder.firstDisagreeing(listing);
      if (disagreeing != null) {
        // kazoo would order this counter's sequences otherwise than we do (KazooOrder)
        if (step.isLive()) {
          step.fail(
              new RecipeMixException(
                  KazooOrder.refusal(dir, kind, disagreeing), dir, step.session()));
        }
        return;
      }
    }
    if (listing.nearOverflow()) {
      inCreationOrder(step, listing, queueWatched);
    } else {
      decide(step, listing, queueWatched);
    }
  }

  // ---------------------------------------------------------------- nodes of other libraries

  /**
   * The listing holds children that look like another library's lock nodes ({@link ForeignNode}):
   * refuses if one is, by its name or, for a name no known library makes, by its stat (read once
   * per listing, pipelined); goes on deciding if none is. A client of that library holds without
   * seeing our nodes, so we must not hold beside it.
   */
  private void refuseOrGoOn(Step step, Listing listing, boolean queueWatched) {
    ForeignNode certain = ForeignNode.firstCertain(listing.foreign());
    if (certain != null) {
      refuse(step, certain);
      return;
    }
    java.util.Set<String> notLockNodes = step.ctx().listings().notLockNodes(dir);
    boolean unread = false;
    for (ForeignNode f : listing.foreign()) {
      unread |= !notLockNodes.contains(f.name());
    }
    if (!unread) {
      evaluateQueue(step, listing, queueWatched);
      return;
    }
    ZkOps zk = step.zk();
    listing
        .foreignByStat(() -> ForeignReads.read(zk, dir, listing.foreign(), notLockNodes))
        .thenAccept(
            found -> {
              if (found == null) {
                step.whenConnected(this::judge);
              } else if (!found.isEmpty()) {
                refuse(step, found.get(0));
              } else {
                evaluateQueue(step, listing, queueWatched);
              }
            });
  }

  /** Whether {@code listing} holds a foreign node, or a name not yet known not to be one. */
  private boolean mayHoldForeign(Step step, Listing listing) {
    java.util.Set<String> notLockNodes = step.ctx().listings().notLockNodes(dir);
    for (ForeignNode f : listing.foreign()) {
      if (f.certain() || !notLockNodes.contains(f.name())) {
        return true;
      }
    }
    return false;
  }

  private void refuse(Step step, ForeignNode found) {
    if (step.isLive()) {
      step.fail(new RecipeMixException(ForeignNode.refusal(dir, kind, found), dir, step.session()));
    }
  }

  /**
   * The sequence counter has overflowed (see {@link QueueNode}): decide on the queue in creation
   * order, read once per listing (every request sharing it waits for the same reads).
   */
  private void inCreationOrder(Step step, Listing listing, boolean queueWatched) {
    ZkOps zk = step.zk();
    listing
        .inCreationOrder(() -> resolveCreation(zk, listing))
        .thenAccept(
            ordered -> {
              if (ordered == null) {
                step.whenConnected(this::judge);
              } else {
                decide(step, ordered, queueWatched);
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

  private void decide(Step step, List<QueueNode> queue, boolean queueWatched) {
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
      grant.holds(step, queue.get(index));
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
    if (w.allAheadGone()) {
      wait.grantNote = grant.waitsOnHead(waiting, w.node().name()); // sent before the read below
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

    /**
     * What the grant policy keeps about this wait on the head ({@link GrantPolicy#waitsOnHead}).
     */
    volatile Object grantNote;

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
                  grant.afterPredecessor(next, wait.node.name());
                  evaluate(next, listing, false);
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
    if (index < 0
        || queue.nearOverflow()
        || mayHoldForeign(waiting, queue)
        || KindMix.conflict(kind, queue) != null) {
      // our node is gone, the queue must be read in creation order, or it holds a node we must
      // not hold beside (another library's, another recipe's): judge it fully
      judgeNext(waiting);
      return;
    }
    if (rule.decide(queue, index) instanceof Ordering.Watch w && w.node().equals(wait.node)) {
      if (w.allAheadGone()) {
        wait.grantNote = grant.waitsOnHead(waiting, wait.node.name());
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
                evaluate(waiting, Listing.of(children), true);
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
      if (listBeforeGrant) {
        judgeNext(step); // but another library's client may have joined: hold on a listing
      } else {
        grant.headGone(step, wait.node.name(), wait.grantNote);
      }
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
    if (granted && !listBeforeGrant) {
      grant.headDeletedHere(step, released);
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

  // ---------------------------------------------------------------- the grant policy's writes

  @Override
  public List<Op> releaseOps(String path) {
    return grant.releaseOps(path);
  }

  @Override
  public List<Op> withdrawOps(String path) {
    return grant.withdrawOps(path);
  }

  /** The field of a node waiting out a lock-delay: until when, epoch ms (see LockNode). */
  public static final String LOCK_DELAY_UNTIL = LockDelayGrant.LOCK_DELAY_UNTIL;
}
