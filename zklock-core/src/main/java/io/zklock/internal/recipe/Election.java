package io.zklock.internal.recipe;

import io.zklock.LeaderElection;
import io.zklock.LeaderObserver;
import io.zklock.LeadershipListener;
import io.zklock.LockHandle;
import io.zklock.LockInfo;
import io.zklock.LockNode;
import io.zklock.internal.engine.LockRequest;
import io.zklock.internal.protocol.ForeignReads;
import io.zklock.internal.protocol.RecipeMixException;
import io.zklock.internal.rules.ForeignNode;
import io.zklock.internal.rules.KindMix;
import io.zklock.internal.rules.Listing;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.Ordering;
import io.zklock.internal.rules.QueueNode;
import io.zklock.internal.rules.Waiting;
import io.zklock.internal.zk.Blocking;
import io.zklock.internal.zk.LibraryThreads;
import io.zklock.internal.zk.SerialExecutor;
import io.zklock.internal.zk.Session;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election on a queue lock of {@link NodeKind#ELECTION} nodes whose data carries the
 * participant id (or, in the Curator-compatible mode, of {@link NodeKind#CURATOR_LATCH} nodes named
 * and written as Curator's {@code LeaderLatch} does, so that both libraries' participants share one
 * queue): the head of the queue leads. A participant's request is an ordinary {@link LockRequest},
 * so it survives connection loss and re-queues by itself after a session expiry while waiting; when
 * leadership is lost (session expired, node deleted) the listeners hear {@code revoked} and the
 * participant joins the queue again.
 *
 * <p>Handover is ordered: listeners are called one at a time, in order, on a serial view of the
 * library's executor, and on {@link #close()} the node that holds leadership is deleted only after
 * every listener's {@code revoked} has returned, so the next participant cannot be elected while
 * this one still believes it leads.
 */
public final class Election implements LeaderElection {
  private static final Logger log = LoggerFactory.getLogger(Election.class);
  private static final long REJOIN_DELAY_MS = 200;

  /** Repeated failures (a refused directory, say) back off to this, not to a busy loop. */
  private static final long MAX_REJOIN_DELAY_MS = 10_000;

  private final RecipeContext ctx;
  private final String name;
  private final String participantId;
  private final NodeKind kind;
  private final NodeLock queue;
  private final List<LeadershipListener> listeners = new CopyOnWriteArrayList<>();

  /** Listener calls, one at a time and in order: an elected is never overtaken by its revoked. */
  private final SerialExecutor events;

  /**
   * Tells the observers who leads; runs while there are observers and the election is not closed.
   */
  private final LeaderWatch watch;

  // guarded by this
  private boolean running; // between start() and close()
  private boolean closed; // close() was called and start() not called again since
  private int generation; // one per start(): callbacks of an earlier run are ignored
  private CompletableFuture<LockHandle> pending;
  private LockHandle leadership;
  private long epoch;
  private long rejoinDelayMs = REJOIN_DELAY_MS;

  /**
   * The latest join was refused: the directory holds nodes of a recipe this election cannot share a
   * queue with ({@link io.zklock.internal.rules.KindMix}); null while no refusal is known for the
   * latest attempt (cleared when a new one is sent).
   */
  private RecipeMixException refused;

  /** Refusals so far, and the last one: a waiter hears of one even if a new attempt followed. */
  private long refusals;

  private RecipeMixException lastRefusal;

  public Election(RecipeContext ctx, String name, String participantId) {
    this(ctx, name, participantId, NodeKind.ELECTION);
  }

  /**
   * @param kind {@link NodeKind#ELECTION}, {@link NodeKind#CURATOR_LATCH} for the
   *     Curator-compatible mode, or {@link NodeKind#KAZOO_LOCK} for the kazoo-compatible mode
   *     (kazoo's {@code Election} is a {@code Lock} on its path: its head leads)
   */
  public Election(RecipeContext ctx, String name, String participantId, NodeKind kind) {
    this.kind = kind;
    this.ctx = ctx;
    this.name = name;
    this.participantId = participantId;
    this.events = new SerialExecutor(ctx.executor());
    this.queue =
        NodeLock.queue(
            ctx,
            name,
            ctx.dirOf(name),
            kind,
            Ordering.forKind(kind),
            Map.of("participant", participantId),
            ReentrantView::new);
    this.watch =
        new LeaderWatch(
            ctx.requests().session(),
            o -> ctx.session().addObserver(o),
            o -> ctx.session().removeObserver(o),
            name,
            ctx.dirOf(name),
            events,
            kind);
  }

  @Override
  public String participantId() {
    return participantId;
  }

  @Override
  public void start() {
    ctx.checkOpen();
    int g;
    synchronized (this) {
      if (running) {
        return;
      }
      running = true;
      closed = false;
      g = ++generation;
      rejoinDelayMs = REJOIN_DELAY_MS;
    }
    if (watch.hasObservers()) {
      watch.start();
    }
    join(g);
  }

  /** Queues a request of run {@code g}, unless it is over or this participant queues or leads. */
  private void join(int g) {
    CompletableFuture<LockHandle> f;
    synchronized (this) {
      if (!running || g != generation || pending != null || leadership != null) {
        return;
      }
      if (!ctx.lifecycle().isReady()) {
        // built with connectInBackground and not connected yet: wait as long as it takes
        ctx.lifecycle().whenReady(() -> join(g));
        return;
      }
      try {
        f = queue.acquireAsync();
      } catch (RuntimeException closedCtx) {
        return; // the ZkLocks was closed: nothing to join
      }
      pending = f;
      refused = null; // a new attempt: refused again, or not, by what it finds
    }
    f.whenComplete((h, err) -> joined(g, f, h, err));
  }

  private void joined(int g, CompletableFuture<LockHandle> f, LockHandle h, Throwable err) {
    if (err != null) {
      boolean stop;
      RecipeMixException mix = mixOf(err);
      synchronized (this) {
        if (pending == f) {
          pending = null;
        }
        stop = !running || g != generation;
        if (!stop && mix != null) {
          refused = mix;
          lastRefusal = mix;
          refusals++;
          notifyAll(); // awaitLeadership reports the refusal
        }
      }
      if (stop || err instanceof CancellationException) {
        return;
      }
      if (ctx.lifecycle().isClosed()) {
        synchronized (this) {
          notifyAll(); // the ZkLocks was closed: nothing to join, and nobody to wait for
        }
        return;
      }
      long delay;
      synchronized (this) {
        delay = rejoinDelayMs;
        rejoinDelayMs = Math.min(rejoinDelayMs * 2, MAX_REJOIN_DELAY_MS);
      }
      if (mix != null) {
        // the message says it all: which node, which recipe, what to use instead
        log.warn("leader election: {}; trying again in {} ms", mix.getMessage(), delay);
      } else {
        log.warn(
            "leader election {}: request failed; joining again in {} ms", queue.dir(), delay, err);
      }
      ctx.scheduler().schedule(() -> join(g), delay, TimeUnit.MILLISECONDS);
      return;
    }
    long e;
    synchronized (this) {
      if (pending != f || !running || g != generation) {
        h.releaseAsync(); // closed (and maybe restarted) meanwhile
        return;
      }
      pending = null;
      leadership = h;
      refused = null;
      rejoinDelayMs = REJOIN_DELAY_MS;
      epoch = h.fencingToken();
      e = epoch;
      notifyAll();
      // queued under the monitor: a close or loss that follows queues its revoked after this
      events.execute(() -> tellAll(true, e));
    }
    h.lost().thenAccept(ex -> lostLeadership(g, h));
  }

  /** The refusal of a mix of recipes behind {@code err}, or null. */
  private static RecipeMixException mixOf(Throwable err) {
    for (Throwable t = err; t != null; t = t.getCause()) {
      if (t instanceof RecipeMixException m) {
        return m;
      }
    }
    return null;
  }

  private void lostLeadership(int g, LockHandle h) {
    long e;
    synchronized (this) {
      if (leadership != h) {
        return;
      }
      leadership = null;
      e = epoch;
      // Told as soon as the loss is known; the node is already gone (or goes with the session).
      events.execute(() -> tellAll(false, e));
    }
    join(g); // joins again by itself: at the back of the queue, on the new session if it expired
  }

  private void tellAll(boolean elected, long e) {
    for (LeadershipListener l : listeners) {
      tell(l, elected, e);
    }
  }

  private void tell(LeadershipListener l, boolean elected, long e) {
    try {
      if (elected) {
        l.elected(e);
      } else {
        l.revoked(e);
      }
    } catch (RuntimeException ex) {
      log.warn("leadership listener {} threw; ignored", l, ex);
    }
  }

  @Override
  public io.zklock.GuardedTransaction transaction() {
    LockHandle h;
    synchronized (this) {
      h = leadership;
    }
    if (h == null || !isLeader()) {
      throw new IllegalStateException(
          "participant " + participantId() + " does not lead " + queue.dir() + " now");
    }
    return h.transaction();
  }

  @Override
  public synchronized boolean isLeader() {
    return leadership != null && leadership.isHeld();
  }

  @Override
  public synchronized Optional<Long> epoch() {
    return isLeader() ? Optional.of(epoch) : Optional.empty();
  }

  @Override
  public boolean awaitLeadership(Duration timeout) throws InterruptedException {
    Waiting waiting = Waiting.after(timeout, ctx.clock());
    synchronized (this) {
      long seen = refusals;
      while (!isLeader()) {
        if (refused != null || refusals != seen) {
          // the refusal's own words, with its path and session once
          throw new io.zklock.ZkLockException(
              lastRefusal.reason(), lastRefusal.path(), lastRefusal.sessionId(), lastRefusal);
        }
        long left = waiting.remainingNanos(ctx.clock());
        if (left <= 0 || closed || ctx.lifecycle().isClosed()) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      return true;
    }
  }

  /** Reads who leads now ({@link #readLeader()}), waiting for the answer on the caller's thread. */
  @Override
  public Optional<String> leader() {
    CompletableFuture<Optional<String>> read = readLeader();
    try {
      return Blocking.get(read);
    } catch (InterruptedException e) {
      read.cancel(false);
      Thread.currentThread().interrupt();
      throw new io.zklock.ZkLockException("interrupted reading the leader", queue.dir(), 0, e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new io.zklock.ZkLockException("cannot read the leader", queue.dir(), 0L, e.getCause());
    }
  }

  /**
   * Reads who leads now, through the session's seam: lists the queue and reads its head's
   * participant. The head gone between the two reads is looked for again (up to five times, then
   * nobody is reported). Fails with a {@link io.zklock.ZkLockException} if not connected or on an
   * error of ZooKeeper.
   */
  CompletableFuture<Optional<String>> readLeader() {
    CompletableFuture<Optional<String>> out = new CompletableFuture<>();
    Session.Conn conn = ctx.requests().session().current();
    if (conn == null) {
      out.completeExceptionally(
          new io.zklock.ZkLockException(
              "not connected: cannot read the leader", queue.dir(), 0L, null));
    } else {
      // every read below on a guarded connection: a throwable in their replies fails the read
      readLeader(conn.guarded(out, queue.dir()), 0, out);
    }
    return out;
  }

  private static final int LEADER_READS = 5;

  private void readLeader(Session.Conn conn, int tries, CompletableFuture<Optional<String>> out) {
    if (tries >= LEADER_READS || out.isDone()) {
      out.complete(Optional.empty());
      return;
    }
    conn.ops()
        .getChildren(
            queue.dir(),
            null,
            (rc, p, x, children, stat) -> {
              Code code = Code.get(rc);
              if (code == Code.NONODE) {
                out.complete(Optional.empty()); // no directory: nobody ever joined
                return;
              }
              if (code != Code.OK) {
                out.completeExceptionally(leaderReadFailed(conn, code, queue.dir()));
                return;
              }
              Listing listing = Listing.of(children);
              List<QueueNode> nodes = new ArrayList<>(listing);
              ForeignNode other = ForeignNode.firstCertain(listing.foreign());
              if (other != null) {
                // another library's lock node: it may lead without seeing ours (ForeignNode)
                out.completeExceptionally(foreignLeads(other));
                return;
              }
              QueueNode foreign = KindMix.conflict(kind, nodes);
              if (foreign != null) {
                // another recipe's nodes beside ours: whoever is named, a client of the other
                // recipe may believe it leads too, so no one can be named (KindMix)
                out.completeExceptionally(
                    new RecipeMixException(
                        KindMix.refusal(queue.dir(), kind, foreign), queue.dir(), 0L));
                return;
              }
              if (listing.foreign().isEmpty()) {
                leaderOf(conn, nodes, tries, out);
                return;
              }
              // names no known library makes: lock nodes if ephemeral
              ForeignReads.read(
                      conn.ops(),
                      queue.dir(),
                      listing.foreign(),
                      ctx.requests().listings().notLockNodes(queue.dir()))
                  .thenAccept(
                      found -> {
                        if (found == null) {
                          out.completeExceptionally(
                              leaderReadFailed(conn, Code.CONNECTIONLOSS, queue.dir()));
                        } else if (!found.isEmpty()) {
                          out.completeExceptionally(foreignLeads(found.get(0)));
                        } else {
                          leaderOf(conn, nodes, tries, out);
                        }
                      });
            });
  }

  private RecipeMixException foreignLeads(ForeignNode other) {
    return new RecipeMixException(ForeignNode.refusal(queue.dir(), kind, other), queue.dir(), 0L);
  }

  /** The head of the election's own nodes, {@code nodes} in queue order. */
  private void leaderOf(
      Session.Conn conn,
      List<QueueNode> nodes,
      int tries,
      CompletableFuture<Optional<String>> out) {
    nodes.removeIf(n -> n.kind() != kind);
    if (nodes.isEmpty()) {
      out.complete(Optional.empty());
    } else if (QueueNode.nearOverflow(nodes)) {
      inCreationOrder(conn, nodes, tries, out);
    } else {
      readHead(conn, nodes.get(0).name(), tries, out);
    }
  }

  /** Near the sequence counter's overflow the head is the node created first. */
  private void inCreationOrder(
      Session.Conn conn,
      List<QueueNode> nodes,
      int tries,
      CompletableFuture<Optional<String>> out) {
    List<QueueNode> found = new ArrayList<>();
    Code[] bad = new Code[1];
    int[] left = {nodes.size()};
    for (QueueNode n : nodes) {
      String path = queue.dir() + "/" + n.name();
      conn.ops()
          .exists(
              path,
              null,
              (rc, p, x, stat) -> {
                Code code = Code.get(rc);
                boolean last;
                synchronized (found) {
                  if (code == Code.OK) {
                    found.add(n.withCzxid(stat.getCzxid()));
                  } else if (code != Code.NONODE && bad[0] == null) {
                    bad[0] = code;
                  }
                  last = --left[0] == 0;
                }
                if (!last) {
                  return;
                }
                if (bad[0] != null) {
                  out.completeExceptionally(leaderReadFailed(conn, bad[0], path));
                } else if (found.isEmpty()) {
                  readLeader(conn, tries + 1, out); // all gone meanwhile: look again
                } else {
                  found.sort(QueueNode.BY_CREATION);
                  readHead(conn, found.get(0).name(), tries, out);
                }
              });
    }
  }

  private void readHead(
      Session.Conn conn, String head, int tries, CompletableFuture<Optional<String>> out) {
    conn.ops()
        .getData(
            queue.dir() + "/" + head,
            null,
            (rc, p, x, data, stat) -> {
              Code code = Code.get(rc);
              if (code == Code.NONODE) {
                readLeader(conn, tries + 1, out); // the head went between the two reads
              } else if (code != Code.OK) {
                out.completeExceptionally(leaderReadFailed(conn, code, p));
              } else {
                out.complete(
                    Optional.ofNullable(data == null ? null : QueueNode.participantOf(kind, data)));
              }
            });
  }

  private io.zklock.ZkLockException leaderReadFailed(Session.Conn conn, Code code, String path) {
    return new io.zklock.ZkLockException(
        "cannot read the leader: " + code,
        queue.dir(),
        conn.sessionId(),
        KeeperException.create(code, path));
  }

  @Override
  public void addListener(LeadershipListener listener) {
    Objects.requireNonNull(listener, "listener");
    listeners.add(listener);
    long e;
    synchronized (this) {
      if (!isLeader()) {
        return;
      }
      e = epoch;
    }
    events.execute(
        () -> {
          if (isLeader() && epoch().orElse(-1L) == e) {
            tell(listener, true, e);
          }
        });
  }

  @Override
  public void removeListener(LeadershipListener listener) {
    listeners.remove(listener);
  }

  @Override
  public void addObserver(LeaderObserver observer) {
    Objects.requireNonNull(observer, "observer");
    ctx.checkOpen();
    boolean watching;
    synchronized (this) {
      watching = !closed;
    }
    watch.add(observer);
    if (watching) {
      watch.start();
    }
  }

  @Override
  public void removeObserver(LeaderObserver observer) {
    if (watch.remove(observer)) {
      watch.stop();
    }
  }

  @Override
  public List<LockNode> participants() {
    Optional<LockInfo> info = ctx.inspector().inspect(name);
    if (info.isEmpty()) {
      return List.of();
    }
    List<LockNode> out = new ArrayList<>(info.get().holders());
    out.addAll(info.get().waiters());
    LockNode.Kind nodeKind = LockNode.Kind.valueOf(kind.name());
    out.removeIf(n -> n.kind() != nodeKind);
    return List.copyOf(out);
  }

  @Override
  public void requeue() {
    ctx.checkOpen();
    int g;
    LockHandle h;
    long e;
    synchronized (this) {
      if (!running) {
        h = null;
        g = 0;
        e = 0;
      } else {
        g = generation;
        h = leadership;
        leadership = null;
        e = epoch;
        notifyAll();
      }
    }
    if (g == 0) {
      start();
    } else if (h != null) {
      resign(h, e, () -> join(g));
    }
  }

  /**
   * Resigns, then leaves. The order is the point: {@code isLeader()} turns false at once, then the
   * listeners' {@code revoked} runs (on the serial view of the executor, after any {@code elected}
   * still queued), and only when it has returned is the node deleted, which is what lets the next
   * participant be elected. Waits for both unless called on one of the library's own threads (a
   * listener, a {@code lost()} callback), where waiting could starve the executor: there the same
   * steps run in the same order, in the background.
   */
  @Override
  public void close() {
    CompletableFuture<LockHandle> p;
    LockHandle h;
    long e;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      running = false;
      p = pending;
      pending = null;
      h = leadership;
      leadership = null;
      e = epoch;
      notifyAll();
    }
    watch.stop();
    if (p != null) {
      p.cancel(true);
    }
    if (h != null) {
      resign(h, e, () -> {});
    }
  }

  /**
   * Tells the listeners {@code revoked}, then deletes the node of {@code h}, then runs {@code
   * after}: waiting for these unless on one of the library's own threads, or interrupted (the
   * interrupt is kept), where the same steps go on in the background, in the same order.
   */
  private void resign(LockHandle h, long e, Runnable after) {
    CompletableFuture<Void> told = new CompletableFuture<>();
    events.execute(
        () -> {
          try {
            tellAll(false, e);
          } finally {
            told.complete(null);
          }
        });
    if (LibraryThreads.onLibraryThread()) {
      told.whenComplete((v, t) -> h.releaseAsync().whenComplete((v2, t2) -> after.run()));
      return;
    }
    try {
      Blocking.get(told);
    } catch (InterruptedException ie) {
      // as release() does: the rest goes on in the background, in order; the interrupt is kept
      told.whenComplete((v, t) -> h.releaseAsync().whenComplete((v2, t2) -> after.run()));
      Thread.currentThread().interrupt();
      return;
    } catch (java.util.concurrent.ExecutionException cannotHappen) {
      // told completes normally
    }
    try {
      h.release();
    } finally {
      after.run();
    }
  }

  @Override
  public String toString() {
    return "LeaderElection[" + queue.dir() + ", " + participantId + "]";
  }
}
