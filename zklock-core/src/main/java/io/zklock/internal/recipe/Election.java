package io.zklock.internal.recipe;

import io.zklock.LeaderElection;
import io.zklock.LeaderObserver;
import io.zklock.LeadershipListener;
import io.zklock.LockHandle;
import io.zklock.LockInfo;
import io.zklock.LockNode;
import io.zklock.internal.engine.LockRequest;
import io.zklock.internal.rules.Json;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.Ordering;
import io.zklock.internal.rules.QueueNode;
import io.zklock.internal.rules.Waiting;
import io.zklock.internal.zk.LibraryThreads;
import io.zklock.internal.zk.SerialExecutor;
import io.zklock.internal.zk.Session;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election on a queue lock of {@link NodeKind#ELECTION} nodes whose data carries the
 * participant id: the head of the queue leads. A participant's request is an ordinary {@link
 * LockRequest}, so it survives connection loss and re-queues by itself after a session expiry while
 * waiting; when leadership is lost (session expired, node deleted) the listeners hear {@code
 * revoked} and the participant joins the queue again.
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

  public Election(RecipeContext ctx, String name, String participantId) {
    this.ctx = ctx;
    this.name = name;
    this.participantId = participantId;
    this.events = new SerialExecutor(ctx.executor());
    this.queue =
        NodeLock.queue(
            ctx,
            name,
            ctx.dirOf(name),
            NodeKind.ELECTION,
            Ordering.forKind(NodeKind.ELECTION),
            Map.of("participant", participantId),
            ReentrantView::new);
    this.watch = new LeaderWatch(ctx.session(), name, ctx.dirOf(name), events);
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
    }
    f.whenComplete((h, err) -> joined(g, f, h, err));
  }

  private void joined(int g, CompletableFuture<LockHandle> f, LockHandle h, Throwable err) {
    if (err != null) {
      boolean stop;
      synchronized (this) {
        if (pending == f) {
          pending = null;
        }
        stop = !running || g != generation;
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
      log.warn(
          "leader election {}: request failed; joining again in {} ms", queue.dir(), delay, err);
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
      rejoinDelayMs = REJOIN_DELAY_MS;
      epoch = h.fencingToken();
      e = epoch;
      notifyAll();
      // queued under the monitor: a close or loss that follows queues its revoked after this
      events.execute(() -> tellAll(true, e));
    }
    h.lost().thenAccept(ex -> lostLeadership(g, h));
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
      while (!isLeader()) {
        long left = waiting.remainingNanos(ctx.clock());
        if (left <= 0 || closed || ctx.lifecycle().isClosed()) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      return true;
    }
  }

  @Override
  public Optional<String> leader() {
    for (int tries = 0; tries < 5; tries++) {
      Session.Conn conn = ctx.session().current();
      if (conn == null) {
        throw new io.zklock.ZkLockException(
            "not connected: cannot read the leader", queue.dir(), 0L, null);
      }
      try {
        List<QueueNode> nodes = QueueNode.queue(conn.zk().getChildren(queue.dir(), false));
        nodes.removeIf(n -> n.kind() != NodeKind.ELECTION);
        if (nodes.isEmpty()) {
          return Optional.empty();
        }
        if (QueueNode.nearOverflow(nodes)) {
          nodes = inCreationOrder(conn, nodes);
          if (nodes.isEmpty()) {
            continue;
          }
        }
        byte[] data = conn.zk().getData(queue.dir() + "/" + nodes.get(0).name(), false, null);
        return Optional.ofNullable(
            Json.field(new String(data, StandardCharsets.UTF_8), "participant"));
      } catch (KeeperException.NoNodeException e) {
        if (Objects.equals(e.getPath(), queue.dir())) {
          return Optional.empty();
        }
        // the head went between the two reads: look again
      } catch (KeeperException e) {
        throw new io.zklock.ZkLockException(
            "cannot read the leader: " + e.code(), queue.dir(), conn.sessionId(), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new io.zklock.ZkLockException("interrupted reading the leader", queue.dir(), 0, e);
      }
    }
    return Optional.empty();
  }

  private List<QueueNode> inCreationOrder(Session.Conn conn, List<QueueNode> nodes)
      throws KeeperException, InterruptedException {
    List<QueueNode> out = new java.util.ArrayList<>();
    for (QueueNode n : nodes) {
      org.apache.zookeeper.data.Stat s = conn.zk().exists(queue.dir() + "/" + n.name(), false);
      if (s != null) {
        out.add(n.withCzxid(s.getCzxid()));
      }
    }
    out.sort(QueueNode.BY_CREATION);
    return out;
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
    out.removeIf(n -> n.kind() != LockNode.Kind.ELECTION);
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
      told.get();
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
