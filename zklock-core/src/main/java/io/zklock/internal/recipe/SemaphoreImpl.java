package io.zklock.internal.recipe;

import io.zklock.DistributedSemaphore;
import io.zklock.LockHandle;
import io.zklock.internal.coord.KazooPermitCount;
import io.zklock.internal.coord.PermitCount;
import io.zklock.internal.engine.Acquisitions;
import io.zklock.internal.engine.Observation;
import io.zklock.internal.inspect.Inspection;
import io.zklock.internal.inspect.Inspector;
import io.zklock.internal.rules.KazooSemaphore;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.Ordering;
import io.zklock.internal.rules.Waiting;
import io.zklock.internal.zk.Blocking;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The counting semaphore, composed of two queue locks in the semaphore's directory:
 *
 * <ul>
 *   <li>{@code <dir>/queue}: a fair mutex ({@link NodeKind#MUTEX}) that admits one waiting request
 *       at a time, herd-free;
 *   <li>{@code <dir>/leases}: the leases ({@link NodeKind#SEMAPHORE}), granted by {@link
 *       Ordering#lease(int)}: a lease holds when fewer than {@code permits} leases are ahead of it.
 * </ul>
 *
 * The admitted request creates its lease; if it holds, it releases the admission mutex at once;
 * otherwise it waits, the only watcher of the leases directory, for a lease to go. The lease rule
 * alone keeps the count at most {@code permits}; the mutex only keeps waiters from herding. See
 * {@link SemaphoreRequest}.
 *
 * <p>In the Curator-compatible mode the same composition takes the names Curator's {@code
 * InterProcessSemaphoreV2} uses: the admission mutex is {@link NodeKind#CURATOR_MUTEX} in {@code
 * <dir>/locks}, the leases {@link NodeKind#CURATOR_LEASE} in {@code <dir>/leases}. Curator admits
 * one request at a time with that mutex and lets it hold when the leases directory has at most
 * {@code permits} children; with admission serialised, the admitted request's lease is the last, so
 * that count and {@link Ordering#lease(int)} agree, and the holder furthest back, of either
 * library, always saw every holder ahead of it.
 *
 * <p>In the kazoo-compatible mode the layout is Python kazoo's {@code Semaphore}'s ({@link
 * KazooSemaphore}): the admission is a {@link NodeKind#KAZOO_LOCK} queue at the sibling path {@code
 * <dir>-__lock__}, and the admitted request lists the semaphore's children and creates its lease
 * ({@link NodeKind#KAZOO_LEASE}, an unsequenced {@code <dir>/<32 hex>}) only while fewer than
 * {@code permits} are there, else waits on a child watch ({@link
 * io.zklock.internal.protocol.KazooLeaseProtocol}); several permits are leased one after another,
 * each counted anew. The count is the path's data as plain text ({@link KazooPermitCount}), checked
 * before the request queues. {@link #tryAcquire()} goes through the admission too, without waiting.
 */
public final class SemaphoreImpl implements DistributedSemaphore {
  private final RecipeContext ctx;
  private final String name;
  private final int permits;
  private final NodeLock admission;
  private final NodeLock leases;
  private final Ordering.Rule leaseRule;
  private final PermitCount permitCount;
  private final NodeKind leaseKind;
  private final KazooPermitCount kazooCount; // the kazoo-compatible mode's, else null

  public SemaphoreImpl(RecipeContext ctx, String name, int permits) {
    this(ctx, name, permits, false);
  }

  /**
   * @param curator whether to share the semaphore with Curator's {@code InterProcessSemaphoreV2}
   */
  public SemaphoreImpl(RecipeContext ctx, String name, int permits, boolean curator) {
    this(ctx, name, permits, curator ? NodeKind.CURATOR_LEASE : NodeKind.SEMAPHORE);
  }

  /**
   * A semaphore shared with Python kazoo's {@code Semaphore} on the same path ({@link
   * io.zklock.LockOptions#kazooCompatible()}): see the class documentation.
   */
  public static SemaphoreImpl kazooCompatible(RecipeContext ctx, String name, int permits) {
    return new SemaphoreImpl(ctx, name, permits, NodeKind.KAZOO_LEASE);
  }

  private SemaphoreImpl(RecipeContext ctx, String name, int permits, NodeKind leaseKind) {
    boolean curator = leaseKind == NodeKind.CURATOR_LEASE;
    boolean kazoo = leaseKind == NodeKind.KAZOO_LEASE;
    if (permits < 1) {
      throw new IllegalArgumentException(
          "permits of semaphore '" + name + "' must be at least 1: " + permits);
    }
    this.ctx = ctx;
    this.name = name;
    this.permits = permits;
    String dir = ctx.dirOf(name);
    NodeKind admissionKind =
        curator ? NodeKind.CURATOR_MUTEX : kazoo ? NodeKind.KAZOO_LOCK : NodeKind.MUTEX;
    this.leaseKind = leaseKind;
    this.kazooCount = kazoo ? new KazooPermitCount(ctx.coord(), dir, permits) : null;
    this.admission =
        NodeLock.queue(
            ctx,
            name,
            kazoo
                ? KazooSemaphore.admissionDir(dir)
                : dir + "/" + (curator ? NodeKind.CURATOR_SEMAPHORE_LOCKS : Inspector.QUEUE),
            admissionKind,
            Ordering.forKind(admissionKind),
            Map.of(),
            ReentrantView::new);
    this.leaseRule = Ordering.lease(permits);
    this.permitCount = new PermitCount(ctx.coord(), dir, permits);
    this.leases =
        kazoo
            ? NodeLock.kazooLeases(
                ctx,
                name,
                dir,
                permits,
                Map.of(Inspection.PERMITS_FIELD, Integer.toString(permits)))
            : NodeLock.queue(
                ctx,
                name,
                dir + "/" + Inspector.LEASES,
                leaseKind,
                leaseRule,
                Map.of(Inspection.PERMITS_FIELD, Integer.toString(permits)),
                ReentrantView::new);
  }

  private boolean kazoo() {
    return kazooCount != null;
  }

  /** Completes when the stored permit count is known to match, exceptionally if not. */
  private CompletableFuture<Void> checkCount() {
    return kazoo() ? kazooCount.check() : permitCount.check();
  }

  /**
   * The leases as requested by a waiter admitted with the admission node {@code admissionNode}: the
   * lease's data names that node, so that {@code ZkLocks#inspect} counts the request once.
   */
  private NodeLock leasesAdmittedBy(String admissionNode) {
    if (kazoo()) {
      return NodeLock.kazooLeases(
          ctx,
          name,
          leases.dir(),
          permits,
          Map.of(
              Inspection.PERMITS_FIELD,
              Integer.toString(permits),
              Inspection.ADMISSION_FIELD,
              admissionNode));
    }
    return NodeLock.queue(
        ctx,
        name,
        leases.dir(),
        leaseKind,
        leaseRule,
        Map.of(
            Inspection.PERMITS_FIELD,
            Integer.toString(permits),
            Inspection.ADMISSION_FIELD,
            admissionNode),
        ReentrantView::new);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int permits() {
    return permits;
  }

  @Override
  public LockHandle acquire() throws InterruptedException {
    return acquire(1);
  }

  @Override
  public LockHandle acquire(int count) throws InterruptedException {
    return Acquisitions.await(start(count(count), Waiting.FOREVER), leases.dir());
  }

  @Override
  public Optional<LockHandle> tryAcquire() {
    return tryAcquire(1);
  }

  @Override
  public Optional<LockHandle> tryAcquire(int count) {
    count(count);
    Observation o = Observing.begin(ctx, name, NodeKind.SEMAPHORE.label());
    if (o == null) {
      return tryNow(count);
    }
    Optional<LockHandle> got;
    try {
      got = tryNow(count);
    } catch (RuntimeException e) {
      o.failed(e);
      throw e;
    }
    if (got.isEmpty()) {
      o.notGranted(true);
      return got;
    }
    return Optional.of(Observing.granted(o, got.get()));
  }

  private Optional<LockHandle> tryNow(int count) {
    ctx.lifecycle().checkConnected(leases.dir());
    if (kazoo()) {
      // no lease without the admission: kazoo's clients count the leases only while admitted, so
      // a lease made beside an admitted client could be one too many (kazoo's non-blocking acquire
      // takes the admission lock without waiting too)
      return Acquisitions.awaitUninterruptibly(startNow(count, Waiting.NOW, null), leases.dir());
    }
    CompletableFuture<Void> checked = permitCount.check();
    List<CompletableFuture<LockHandle>> tries = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      tries.add(leases.start(Waiting.NOW));
    }
    List<LockHandle> got = new ArrayList<>(count);
    RuntimeException failure = null;
    for (CompletableFuture<LockHandle> f : tries) {
      try {
        Acquisitions.awaitUninterruptibly(f, leases.dir()).ifPresent(got::add);
      } catch (RuntimeException e) {
        failure = failure == null ? e : failure;
      }
    }
    try {
      Blocking.join(checked);
    } catch (CompletionException e) {
      failure = Acquisitions.unwrap(e.getCause(), leases.dir());
    }
    if (failure != null || got.size() < count) {
      // all or nothing: the leases taken are given back before answering, nothing left behind
      for (LockHandle h : got) {
        try {
          h.release();
        } catch (RuntimeException e) {
          failure = failure == null ? e : failure;
        }
      }
      if (failure != null) {
        throw failure;
      }
      return Optional.empty();
    }
    return Optional.of(count == 1 ? got.get(0) : new MultiLock.MultiHandle(name, got));
  }

  @Override
  public Optional<LockHandle> tryAcquire(Duration timeout) throws InterruptedException {
    return tryAcquire(1, timeout);
  }

  @Override
  public Optional<LockHandle> tryAcquire(int count, Duration timeout) throws InterruptedException {
    count(count);
    Waiting waiting = Waiting.after(timeout, ctx.clock());
    if (waiting.isNow()) {
      return tryAcquire(count);
    }
    return Optional.ofNullable(Acquisitions.await(start(count, waiting), leases.dir()));
  }

  @Override
  public CompletableFuture<LockHandle> acquireAsync() {
    return acquireAsync(1);
  }

  @Override
  public CompletableFuture<LockHandle> acquireAsync(int count) {
    return start(count(count), Waiting.FOREVER);
  }

  /** Checks a number of permits asked for at once. */
  private int count(int count) {
    if (count < 1 || count > permits) {
      throw new IllegalArgumentException(
          "permits asked for at once must be between 1 and "
              + permits
              + " (the semaphore's count): "
              + count
              + " [semaphore "
              + ctx.dirOf(name)
              + "]");
    }
    return count;
  }

  /** {@code waiting} is never {@link Waiting#NOW}: {@link #tryAcquire(int)} takes leases itself. */
  private CompletableFuture<LockHandle> start(int count, Waiting waiting) {
    ctx.checkOpen();
    return ctx.lifecycle()
        .whenReady(
            w ->
                Observing.start(
                    ctx,
                    name,
                    NodeKind.SEMAPHORE.label(),
                    false,
                    queued -> startNow(count, w, queued)),
            waiting,
            leases.dir());
  }

  /**
   * A request for {@code count} leases that waits as {@code waiting} says (never {@link
   * Waiting#NOW}), started at once: {@link #acquireAsync(int)} without the instance's start gate
   * and listeners, for tests on the engine's fakes.
   */
  CompletableFuture<LockHandle> request(int count, Waiting waiting) {
    return startNow(count(count), waiting, null);
  }

  private CompletableFuture<LockHandle> startNow(
      int count, Waiting waiting, java.util.function.IntConsumer queued) {
    ctx.checkOpen();
    SemaphoreRequest r =
        new SemaphoreRequest(
            ctx.requests(),
            name,
            admission,
            this::leasesAdmittedBy,
            count,
            checkCount(),
            waiting,
            queued,
            kazoo());
    r.start();
    return r.result;
  }

  @Override
  public String toString() {
    return "Semaphore[" + ctx.dirOf(name) + ", permits=" + permits + "]";
  }
}
