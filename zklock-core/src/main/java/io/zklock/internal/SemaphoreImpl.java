package io.zklock.internal;

import io.zklock.DistributedSemaphore;
import io.zklock.LockHandle;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

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
 */
final class SemaphoreImpl implements DistributedSemaphore {
  private final ZkLocksImpl ctx;
  private final String name;
  private final int permits;
  private final QueueLock admission;
  private final QueueLock leases;
  private final Ordering.Rule leaseRule;

  SemaphoreImpl(ZkLocksImpl ctx, String name, int permits) {
    if (permits < 1) {
      throw new IllegalArgumentException(
          "permits of semaphore '" + name + "' must be at least 1: " + permits);
    }
    this.ctx = ctx;
    this.name = name;
    this.permits = permits;
    String dir = ctx.dirOf(name);
    this.admission =
        new QueueLock(
            ctx,
            name,
            dir + "/" + Inspector.QUEUE,
            NodeKind.MUTEX,
            Ordering.forKind(NodeKind.MUTEX),
            Map.of(),
            ReentrantView::new);
    this.leaseRule = Ordering.lease(permits);
    this.leases =
        new QueueLock(
            ctx,
            name,
            dir + "/" + Inspector.LEASES,
            NodeKind.SEMAPHORE,
            leaseRule,
            Map.of(Inspection.PERMITS_FIELD, Integer.toString(permits)),
            ReentrantView::new);
  }

  /**
   * The leases as requested by a waiter admitted with the admission node {@code admissionNode}: the
   * lease's data names that node, so that {@code ZkLocks#inspect} counts the request once.
   */
  private QueueLock leasesAdmittedBy(String admissionNode) {
    return new QueueLock(
        ctx,
        name,
        leases.dir(),
        NodeKind.SEMAPHORE,
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
    return Acquisitions.await(start(0L, false), leases.dir());
  }

  @Override
  public Optional<LockHandle> tryAcquire() {
    ctx.checkConnected(leases.dir());
    return Acquisitions.awaitUninterruptibly(leases.start(true, 0L, false), leases.dir());
  }

  @Override
  public Optional<LockHandle> tryAcquire(Duration timeout) throws InterruptedException {
    long nanos = Args.timeoutNanos(timeout);
    if (nanos == 0) {
      return tryAcquire();
    }
    return Optional.ofNullable(Acquisitions.await(start(nanos, true), leases.dir()));
  }

  @Override
  public CompletableFuture<LockHandle> acquireAsync() {
    return start(0L, false);
  }

  private CompletableFuture<LockHandle> start(long nanos, boolean hasDeadline) {
    ctx.checkOpen();
    SemaphoreRequest r =
        new SemaphoreRequest(ctx, admission, this::leasesAdmittedBy, nanos, hasDeadline);
    r.start();
    return r.result;
  }

  @Override
  public String toString() {
    return "Semaphore[" + ctx.dirOf(name) + ", permits=" + permits + "]";
  }
}
