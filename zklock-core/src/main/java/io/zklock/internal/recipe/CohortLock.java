package io.zklock.internal.recipe;

import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.LockOptions;
import io.zklock.ZkLockException;
import io.zklock.internal.engine.Acquisitions;
import io.zklock.internal.engine.Guard;
import io.zklock.internal.engine.Handle;
import io.zklock.internal.engine.Ticket;
import io.zklock.internal.rules.CohortToken;
import io.zklock.internal.rules.Listing;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.Ordering;
import io.zklock.internal.rules.QueueNode;
import io.zklock.internal.rules.Waiting;
import io.zklock.internal.zk.Session;
import io.zklock.internal.zk.SessionPort;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cohort lock (see {@link LockOptions#cohort()}): the requests of one {@code ZkLocks} on one lock
 * share one node, requested through an ordinary queue request ({@link NodeLock} of kind {@link
 * NodeKind#COHORT}, or {@link NodeKind#COHORT_WRITE} / {@link NodeKind#COHORT_READ} for the sides
 * of a cohort read-write lock).
 *
 * <p>Exclusive mode (the mutex, the write side): while the node is held, local requests wait here
 * in arrival order and each release hands the lock to the next one in memory.
 *
 * <p>Shared mode (the read side): every local request is granted at once while the node is held,
 * and the node is released when its last local holder releases. Once an exclusive request of
 * another client is known to wait behind the node and the K or T bound is reached, new local
 * requests wait here instead; the last holder's release then gives the node back and they queue
 * with a new node behind that writer.
 *
 * <p>One instance per lock name and {@code ZkLocks}. Every state change happens under this object's
 * monitor; ZooKeeper requests are asynchronous; user-visible futures complete on the library's
 * executor (through each request's {@link Ticket}). The {@code generation} counter is bumped
 * whenever the node is given up, so late news about an earlier node is dropped. The node's life is
 * one {@link Phase}; ZooKeeper is reached through the session's seam ({@link SessionPort}, {@link
 * io.zklock.internal.zk.ZkOps}), as the engine reaches it.
 */
public final class CohortLock implements LockPart {
  private static final Logger log = LoggerFactory.getLogger(CohortLock.class);

  /** The field of a cohort node's data that says how its holders' tokens are made. */
  static final String TOKENS_FIELD = "tokens";

  /** Its value: see {@link CohortToken}. */
  static final String TOKENS_NOTE = "(czxid<<16)|k";

  private final RecipeContext ctx;
  private final String name;
  private final LockOptions options;
  private final long maxHoldNanos;
  private final boolean shared;
  private final NodeLock global;
  private final Lock view;

  /**
   * The life of the cohort's node: requested, then held, and what is known meanwhile of the
   * requests of other clients behind it. A request of another client is assumed to wait behind a
   * held node in exclusive mode until a listing shows nobody (shared mode: only a writer seen
   * behind bounds the readers), and again from any change of the directory: assuming it makes the K
   * and T bounds hold however late a listing's answer comes. Every phase but {@link #IDLE} belongs
   * to one {@code generation}.
   */
  enum Phase {
    /** No node, and none requested. */
    IDLE(false, false),
    /** A tryAcquire()'s node request is in flight: it never waits, and lists nothing before. */
    TRYING(true, false),
    /**
     * A node request is in flight without an early listing (none could be sent, it failed, or the
     * directory changed after it): the directory is listed after the grant.
     */
    QUEUED(true, false),
    /** A node request is in flight, followed by a listing with a child watch, not answered yet. */
    QUEUED_LISTING(true, false),
    /** A node request is in flight, and its early listing's answer is kept for the grant. */
    QUEUED_LISTED(true, false),
    /**
     * Held; the early listing's answer is still on the way, and is read against the node when it
     * comes.
     */
    HELD_EARLY(false, true),
    /**
     * Held; who waits behind is not known: no listing read yet, or the directory changed since the
     * last showed nobody. A listing is under way.
     */
    HELD_UNKNOWN(false, true),
    /**
     * Held; the last listing showed nobody behind (in shared mode: no writer), and it still holds.
     */
    HELD_CLEAR(false, true),
    /** Held; a listing showed a request of another client behind: nothing more to list. */
    HELD_BEHIND(false, true);

    final boolean requested;
    final boolean held;

    Phase(boolean requested, boolean held) {
      this.requested = requested;
      this.held = held;
    }

    /**
     * Whether a request of another client may wait behind the node: seen, or assumed in exclusive
     * mode while unknown.
     */
    boolean remoteWaiting(boolean shared) {
      return this == HELD_BEHIND || (!shared && (this == HELD_EARLY || this == HELD_UNKNOWN));
    }
  }

  // guarded by this
  private final ArrayDeque<Local> waiters = new ArrayDeque<>();
  private Phase phase = Phase.IDLE;
  private CompletableFuture<LockHandle> pending; // the node request in flight, while requested
  private LockHandle node; // the held node, while held; then a holder is set (or on its way)
  private long czxid;
  private int handoffs; // k of the current holder on this node
  private long grantedAt; // when the node was granted
  private List<String> earlyListing; // the early listing's answer, while QUEUED_LISTED
  private int generation;
  // the local holders of the node: at most one in exclusive mode
  private final LinkedHashSet<Local> holders = new LinkedHashSet<>();
  private boolean warnedMixed;

  /** A cohort mutex. */
  public CohortLock(RecipeContext ctx, String name, LockOptions options) {
    this(ctx, name, options, NodeKind.COHORT, ReentrantView::new);
  }

  /**
   * A cohort lock whose node is of {@code kind}: shared mode if the kind is not exclusive.
   *
   * @param view makes the {@link #asLock()} view
   */
  CohortLock(
      RecipeContext ctx,
      String name,
      LockOptions options,
      NodeKind kind,
      Function<io.zklock.DistributedLock, Lock> view) {
    this.ctx = ctx;
    this.name = name;
    this.options = options;
    this.maxHoldNanos = options.maxLocalHold().toNanos();
    this.shared = !kind.exclusive();
    this.global =
        NodeLock.queue(
            ctx,
            name,
            ctx.dirOf(name),
            kind,
            Ordering.forKind(kind),
            Map.of(TOKENS_FIELD, TOKENS_NOTE),
            ReentrantView::new);
    this.view = view.apply(this);
  }

  NodeKind kind() {
    return global.kind();
  }

  public LockOptions options() {
    return options;
  }

  @Override
  public RecipeContext ctx() {
    return ctx;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String dir() {
    return global.dir();
  }

  @Override
  public String sortKey() {
    return global.sortKey();
  }

  @Override
  public Lock asLock() {
    return view;
  }

  /** A cohort lock has no condition: its node passes between local holders without a release. */
  @Override
  public io.zklock.DistributedCondition newCondition(String conditionName) {
    throw StartableLock.noCondition(this, "its node passes between local holders unreleased");
  }

  // ---------------------------------------------------------------- requests

  @Override
  public String eventKind() {
    return kind().label();
  }

  @Override
  public CompletableFuture<LockHandle> start(Waiting waiting) {
    ctx.checkOpen();
    boolean tryOnly = waiting.isNow();
    Ticket ticket = new Ticket(ctx.requests(), waiting);
    Local w = new Local(ticket);
    ticket.onGiveUp(() -> giveUp(w, null)); // before any grant, so a grant disarms the timer
    synchronized (this) {
      if (w.state != Local.State.WAITING) {
        return ticket.result; // its deadline passed already
      }
      if (shared && node != null && waiters.isEmpty() && node.isHeld() && !mustGiveBack()) {
        handoffs++; // another local reader joins the holders
        grantLocked(w);
        return ticket.result;
      }
      if (tryOnly && phase != Phase.IDLE && phase != Phase.TRYING) {
        // held here, or queued behind another client: busy, without asking ZooKeeper
        w.state = Local.State.WITHDRAWN;
        ticket.end(null);
        return ticket.result;
      }
      waiters.add(w);
      if (phase == Phase.IDLE) {
        requestNode(tryOnly);
      }
    }
    return ticket.result;
  }

  /** Called holding the monitor: queue a node for the local waiters. */
  private void requestNode(boolean tryOnly) {
    CompletableFuture<LockHandle> f;
    try {
      // the node waits without a deadline: each local waiter's ticket keeps its own
      f = global.start(tryOnly ? Waiting.NOW : Waiting.FOREVER);
    } catch (RuntimeException e) {
      failAll(e);
      return;
    }
    pending = f;
    int gen = ++generation; // the generation of the node this request will bring
    earlyListing = null;
    if (tryOnly) {
      phase = Phase.TRYING;
    } else {
      phase = Phase.QUEUED_LISTING;
      listEarly(gen); // QUEUED if it cannot be sent
    }
    f.whenComplete((h, err) -> onNode(f, h, err));
  }

  private void onNode(CompletableFuture<LockHandle> f, LockHandle h, Throwable err) {
    List<LockHandle> toRelease = new ArrayList<>(1);
    int gen;
    synchronized (this) {
      if (pending != f) {
        if (h != null) {
          toRelease.add(h); // withdrawn by us meanwhile
        }
        gen = -1;
      } else {
        pending = null;
        Phase was = phase;
        phase = Phase.IDLE;
        gen = nodeGranted(was, h, err, toRelease);
      }
    }
    toRelease.forEach(LockHandle::releaseAsync);
    if (gen >= 0) {
      watchSuccessors(h, gen);
    }
  }

  /**
   * Called holding the monitor, in phase IDLE, with the node request's answer; {@code was} the
   * phase it was in. Returns the new node's generation to list for, or -1 if none was taken or the
   * early listing covers it.
   */
  private int nodeGranted(Phase was, LockHandle h, Throwable err, List<LockHandle> toRelease) {
    if (err != null) {
      RuntimeException e = Acquisitions.unwrap(unwrapCompletion(err), dir());
      if (was == Phase.TRYING) {
        // a tryAcquire()'s node request, which never waits (not for a connection either): the
        // tries end with its failure; a request that waits and joined it queues a node of its own
        endTries(e);
        if (!waiters.isEmpty()) {
          requestNode(false);
        }
        return -1;
      }
      failAll(e);
      return -1;
    }
    if (h == null) {
      // a tryAcquire() found the lock busy (its node is gone already): every try ends so
      endTries();
      if (!waiters.isEmpty()) {
        requestNode(false);
      }
      return -1;
    }
    long c = h.fencingToken();
    if (!CohortToken.fits(c)) {
      toRelease.add(h);
      failAll(
          new ZkLockException(
              "the lock node's czxid 0x"
                  + Long.toHexString(c)
                  + " is too large for cohort fencing tokens (ensemble epoch >= 2^15): use a plain"
                  + " mutex",
              h.path(),
              sessionId(),
              null));
      return -1;
    }
    Local next = waiters.poll();
    if (next == null) {
      toRelease.add(h); // every local request gave up meanwhile
      return -1;
    }
    node = h;
    czxid = c;
    handoffs = 0;
    grantedAt = ctx.clock().nanoTime();
    List<String> listing = earlyListing;
    earlyListing = null;
    // until a listing shows otherwise
    phase = was == Phase.QUEUED_LISTING ? Phase.HELD_EARLY : Phase.HELD_UNKNOWN;
    int gen = generation;
    grantLocked(next);
    if (shared) {
      grantWaiting();
    }
    endTries(); // a tryAcquire() never waits for a local holder either
    h.lost().thenAccept(ex -> onNodeLost(h, ex));
    if (node != h || gen != generation) {
      return -1; // given up already (a holder released at once, on a direct executor)
    }
    if (phase == Phase.HELD_EARLY) {
      return -1; // its answer is on the way, and is read against this node when it comes
    }
    if (was == Phase.QUEUED_LISTED && judge(ownName(h), listing)) {
      return -1;
    }
    return gen; // list after the grant
  }

  private static String ownName(LockHandle h) {
    String path = h.path();
    return path == null ? "" : path.substring(path.lastIndexOf('/') + 1);
  }

  /** Called holding the monitor: {@code w} holds, with the current handoff number. */
  private void grantLocked(Local w) {
    w.state = Local.State.HELD;
    w.node = node;
    w.token = CohortToken.encode(czxid, handoffs);
    holders.add(w);
    w.ticket.grant(w);
  }

  /**
   * Called holding the monitor, in shared mode with the node held: grants the waiting local
   * requests while the bounds allow.
   */
  private void grantWaiting() {
    Local next;
    while ((next = waiters.peek()) != null && !mustGiveBack()) {
      waiters.poll();
      handoffs++;
      grantLocked(next);
    }
  }

  /** Called holding the monitor: {@code w}, a holder, releases. */
  private CompletableFuture<Void> releasedBy(Local w) {
    holders.remove(w);
    LockHandle n = node;
    if (n == null || n != w.node) {
      return CompletableFuture.completedFuture(null); // the node was lost meanwhile
    }
    if (!holders.isEmpty()) {
      return CompletableFuture.completedFuture(null); // other local readers still hold the node
    }
    if (!n.isHeld()) {
      // the node is gone (its loss is being reported): hand nothing over, queue again
      dropNode();
      requeue();
      return CompletableFuture.completedFuture(null);
    }
    Local next = waiters.peek();
    if (next != null && !mustGiveBack()) {
      waiters.poll();
      handoffs++;
      grantLocked(next); // in memory: no ZooKeeper request
      if (shared) {
        grantWaiting();
      }
      return CompletableFuture.completedFuture(null);
    }
    dropNode();
    CompletableFuture<Void> deleted = n.releaseAsync();
    requeue();
    return deleted;
  }

  /** Called holding the monitor: whether the next handoff must go through the global queue. */
  private boolean mustGiveBack() {
    if (handoffs >= CohortToken.MAX_LOCAL) {
      return true; // the token's local counter is exhausted: take a fresh node
    }
    if (!phase.remoteWaiting(shared)) {
      return false;
    }
    return handoffs >= options.maxLocalHandoffs()
        || ctx.clock().nanoTime() - grantedAt >= maxHoldNanos;
  }

  /** Called holding the monitor. */
  private void dropNode() {
    node = null;
    generation++;
    phase = Phase.IDLE;
  }

  /** Called holding the monitor: the remaining local waiters queue again with a new node. */
  private void requeue() {
    endTries(); // a tryAcquire() never waits for another client
    if (!waiters.isEmpty() && phase == Phase.IDLE) {
      requestNode(false);
    }
  }

  private void onNodeLost(LockHandle h, LockLostException ex) {
    synchronized (this) {
      if (node != h) {
        return;
      }
      List<Local> lostHolders = new ArrayList<>(holders);
      holders.clear();
      dropNode();
      for (Local w : lostHolders) {
        if (w.state == Local.State.HELD) {
          w.state = Local.State.LOST;
          ctx.executor().execute(() -> w.lost.complete(ex)); // outside the monitor
        }
      }
      requeue();
    }
  }

  /** Timeout, cancel or interrupt of a local request. */
  private void giveUp(Local w, Throwable failure) {
    synchronized (this) {
      if (w.state == Local.State.WAITING) {
        waiters.remove(w);
        w.state = Local.State.WITHDRAWN;
        w.ticket.end(failure);
        if (waiters.isEmpty() && phase.requested) {
          CompletableFuture<LockHandle> f = pending;
          pending = null;
          earlyListing = null;
          phase = Phase.IDLE;
          f.cancel(true); // withdraws the node request: nothing is left behind
        }
        return;
      }
      if (w.state != Local.State.HELD) {
        return;
      }
    }
    if (w.ticket.takeBack(failure)) {
      w.releaseAsync(); // granted just now, but the caller gave up first
    }
  }

  /** Called holding the monitor. */
  private void endTries() {
    endTries(null);
  }

  /** Called holding the monitor: every try ends, busy ({@code failure} null) or failed. */
  private void endTries(RuntimeException failure) {
    waiters.removeIf(
        w -> {
          if (!w.ticket.tryOnly()) {
            return false;
          }
          w.state = Local.State.WITHDRAWN;
          w.ticket.end(failure);
          return true;
        });
  }

  /** Called holding the monitor. */
  private void failAll(RuntimeException e) {
    Local w;
    while ((w = waiters.poll()) != null) {
      w.state = Local.State.WITHDRAWN;
      w.ticket.end(e);
    }
  }

  private static Throwable unwrapCompletion(Throwable t) {
    while (t instanceof java.util.concurrent.CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof java.util.concurrent.CancellationException) {
      return new ZkLockException("the node request was cancelled", t);
    }
    return t;
  }

  // ---------------------------------------------------------------- who waits behind us

  /**
   * Lists the lock directory with a child watch, to learn whether a request of another client
   * queues behind our node. Off the path of every handoff: one listing per node, and one more per
   * change of the directory until a waiter is seen (the watch left set fires at our own deletion at
   * the latest).
   */
  private void watchSuccessors(LockHandle h, int gen) {
    Session.Conn conn = session().current();
    String path = h.path();
    if (conn == null || path == null) {
      return; // a suspended node is given back at the next release if it is lost
    }
    String own = path.substring(path.lastIndexOf('/') + 1);
    conn.ops()
        .getChildren(
            dir(),
            event -> {
              if (event.getType() != EventType.None && directoryChanged(gen)) {
                watchSuccessors(h, gen);
              }
            },
            (rc, p, c, children, stat) -> {
              if (Code.get(rc) == Code.OK) {
                sawQueue(gen, own, children);
              }
            });
  }

  /**
   * Lists the directory with a child watch right after the node request is sent: one session's
   * requests are applied in order, so when the node is granted at once (nobody ahead: the case of a
   * client alone on the lock) the answer comes with the grant, and the cohort knows from the start
   * whether anyone waits behind it. A node that has to wait sees the watch fire (its predecessor
   * goes) and lists again after the grant.
   */
  private void listEarly(int gen) {
    Session.Conn conn = session().current();
    if (conn == null) {
      phase = Phase.QUEUED; // list after the grant
      return;
    }
    conn.ops()
        .getChildren(
            dir(),
            event -> {
              if (event.getType() != EventType.None) {
                LockHandle h = earlyChanged(gen);
                if (h != null) {
                  watchSuccessors(h, gen);
                }
              }
            },
            (rc, p, c, children, stat) -> {
              LockHandle h = earlyListed(gen, Code.get(rc) == Code.OK ? children : null);
              if (h != null) {
                watchSuccessors(h, gen);
              }
            });
  }

  /** The early listing changed. Returns the node to list again for, or null. */
  private synchronized LockHandle earlyChanged(int gen) {
    if (gen != generation) {
      return null;
    }
    if (phase == Phase.QUEUED_LISTING || phase == Phase.QUEUED_LISTED) {
      phase = Phase.QUEUED; // still queueing: list again after the grant
      earlyListing = null;
      return null;
    }
    return directoryChanged(gen) ? node : null;
  }

  /**
   * The early listing answered ({@code children} null if it failed). Returns the node to list for,
   * or null.
   */
  private synchronized LockHandle earlyListed(int gen, List<String> children) {
    if (gen != generation) {
      return null;
    }
    if (phase == Phase.QUEUED_LISTING) {
      if (children == null) {
        phase = Phase.QUEUED; // failed: list after the grant
      } else {
        phase = Phase.QUEUED_LISTED;
        earlyListing = children;
      }
      return null;
    }
    if (phase != Phase.HELD_EARLY) {
      return null; // a listing after the grant is under way, or the node is given up
    }
    phase = Phase.HELD_UNKNOWN;
    if (children == null) {
      return node; // failed: list now
    }
    return judge(ownName(node), children) ? null : node;
  }

  /**
   * Called holding the monitor: reads a listing of the held node's generation. Returns false if our
   * node is not in it (the listing came before the create, or the node is gone).
   */
  private boolean judge(String own, List<String> children) {
    Listing queue = Listing.of(children);
    int index = QueueNode.indexOf(queue, own);
    if (index < 0) {
      return false;
    }
    // another library's node (ForeignNode) holds without waiting for ours: give the node back to
    // the queue as if it waited, so that no local handoff extends this hold beside it
    boolean behind = waitsBehind(queue, index, shared) || !queue.foreign().isEmpty();
    phase = behind ? Phase.HELD_BEHIND : Phase.HELD_CLEAR;
    if (shared && !behind) {
      grantWaiting(); // no writer behind (any more): readers waiting here join the holders
    }
    if (!warnedMixed) {
      for (QueueNode n : queue) {
        if (n.kind() == NodeKind.MUTEX || n.kind() == NodeKind.WRITE) {
          warnedMixed = true;
          log.warn(
              "plain {} nodes queue in {} beside this cohort lock: their fencing tokens (czxid)"
                  + " are smaller than cohort tokens ((czxid << 16) | k), so a fenced resource will"
                  + " refuse plain holders after a cohort holder; use one mode per lock name",
              n.kind().label(),
              dir());
          break;
        }
      }
    }
    return true;
  }

  /**
   * Whether a request that the node at {@code index} holds up waits behind it: any node in
   * exclusive mode, an exclusive node in shared mode (readers behind a reader are not held up). A
   * queue near the counter's overflow has no trustworthy order, so any other such node counts. A
   * pure function.
   */
  static boolean waitsBehind(List<QueueNode> queue, int index, boolean shared) {
    boolean overflow = QueueNode.nearOverflow(queue);
    for (int i = overflow ? 0 : index + 1; i < queue.size(); i++) {
      if (i != index && (!shared || queue.get(i).kind().exclusive())) {
        return true;
      }
    }
    return false;
  }

  /**
   * A child of the directory came or went while we hold: someone may wait behind us now (assume so
   * at once in exclusive mode; shared mode waits for a listing to show a writer). Returns whether
   * to list again, which we do until a listing has shown a waiter.
   */
  private synchronized boolean directoryChanged(int gen) {
    if (gen != generation || !phase.held || phase == Phase.HELD_BEHIND) {
      return false;
    }
    phase = Phase.HELD_UNKNOWN;
    return true;
  }

  private synchronized void sawQueue(int gen, String own, List<String> children) {
    if (gen == generation && phase.held) {
      judge(own, children); // not found: our node is gone, and its loss is reported
    }
  }

  /** Whether a request of another client may wait behind the node held now (for tests). */
  synchronized boolean remoteWaiting() {
    return phase.remoteWaiting(shared);
  }

  /** Whether a listing showed a request of another client behind the node held now (for tests). */
  synchronized boolean remoteSeen() {
    return phase == Phase.HELD_BEHIND;
  }

  /** The node's phase (for tests). */
  synchronized Phase phase() {
    return phase;
  }

  /** The session, through the seam the engine uses. */
  private SessionPort session() {
    return ctx.requests().session();
  }

  private long sessionId() {
    Session.Conn c = session().current();
    return c == null ? 0L : c.sessionId();
  }

  /** Local requests waiting (for tests). */
  synchronized int localWaiters() {
    return waiters.size();
  }

  @Override
  public String toString() {
    return (shared
            ? "cohort read lock "
            : kind() == NodeKind.COHORT ? "cohort mutex " : "cohort write lock ")
        + dir();
  }

  // ---------------------------------------------------------------- a local request and its handle

  /** One local request, and once granted its handle. */
  private final class Local implements Handle {
    /** The life of a local request. */
    enum State {
      /** Waiting in memory for a local holder or for the cohort's node. */
      WAITING,
      /** Holds the lock (on the cohort's node). */
      HELD,
      /** Released by its holder. */
      RELEASED,
      /** The cohort's node was lost while this request held it. */
      LOST,
      /** Given up before being granted: timeout, interrupt, cancel, busy try, failure, close. */
      WITHDRAWN
    }

    final Ticket ticket;
    final CompletableFuture<LockLostException> lost = new CompletableFuture<>();
    // guarded by CohortLock.this
    State state = State.WAITING;
    LockHandle node;
    long token;
    CompletableFuture<Void> released;

    Local(Ticket ticket) {
      this.ticket = ticket;
    }

    @Override
    public String lockName() {
      return name;
    }

    @Override
    public String path() {
      synchronized (CohortLock.this) {
        return node == null ? dir() : node.path();
      }
    }

    @Override
    public long fencingToken() {
      synchronized (CohortLock.this) {
        return token;
      }
    }

    @Override
    public boolean isHeld() {
      LockHandle n;
      synchronized (CohortLock.this) {
        if (state != State.HELD) {
          return false;
        }
        n = node;
      }
      return n.isHeld();
    }

    @Override
    public CompletableFuture<LockLostException> lost() {
      return lost;
    }

    /**
     * The cohort node's guard while this local request holds: the node is checked on the server;
     * local ownership here, when the commit is asked for and again when it is sent.
     */
    @Override
    public Guard guard() {
      LockHandle n;
      synchronized (CohortLock.this) {
        switch (state) {
          case HELD:
            n = node;
            break;
          case RELEASED:
            return Guard.released(name);
          case LOST:
            return Guard.losing(lost);
          default:
            return Guard.refused(
                new IllegalMonitorStateException("this request of " + name + " was not granted"));
        }
      }
      return Handle.of(n).guard();
    }

    /**
     * A release asked of the cohort's node is asked of the local request that holds it: {@code
     * action} runs if it is asked while this request holds.
     */
    @Override
    public void onReleaseRequested(Runnable action) {
      java.util.Objects.requireNonNull(action, "action");
      LockHandle n;
      synchronized (CohortLock.this) {
        if (state != State.HELD) {
          return;
        }
        n = node;
      }
      n.onReleaseRequested(
          () -> {
            if (isHeld()) {
              action.run();
            }
          });
    }

    @Override
    public boolean isReleaseRequested() {
      LockHandle n;
      synchronized (CohortLock.this) {
        if (state != State.HELD) {
          return false;
        }
        n = node;
      }
      return n.isReleaseRequested();
    }

    @Override
    public CompletableFuture<Void> releaseAsync() {
      synchronized (CohortLock.this) {
        if (released != null) {
          return released;
        }
        if (state == State.WAITING) {
          // never delivered to a caller (a grant racing a cancel): nothing to release
          return CompletableFuture.completedFuture(null);
        }
        if (state != State.HELD) {
          released = CompletableFuture.completedFuture(null);
          return released;
        }
        state = State.RELEASED;
        released = releasedBy(this);
        return released;
      }
    }

    @Override
    public String toString() {
      return "LockHandle["
          + name
          + " ("
          + kind().label()
          + "), node="
          + path()
          + ", token="
          + fencingToken()
          + "]";
    }
  }
}
