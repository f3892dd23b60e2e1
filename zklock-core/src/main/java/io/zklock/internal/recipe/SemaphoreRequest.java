package io.zklock.internal.recipe;

import io.zklock.LockHandle;
import io.zklock.internal.engine.Guard;
import io.zklock.internal.engine.Handle;
import io.zklock.internal.engine.LockRequest;
import io.zklock.internal.engine.RequestContext;
import io.zklock.internal.engine.SessionEndedException;
import io.zklock.internal.rules.Ordering;
import io.zklock.internal.rules.Waiting;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * One waiting request for {@code count} semaphore leases: first the admission mutex, then the
 * leases, all under one deadline. Withdrawal (timeout, interrupt, cancel) cancels whichever step is
 * under way; each step's {@link LockRequest} deletes its own node, so nothing is left behind. The
 * admission mutex is released as soon as the leases are decided. Each lease's data names the
 * admission node, so that an inspection counts the request once.
 *
 * <p>A session that ends: a request queued for admission queues again on the new session (the
 * engine does it), behind whoever queued meanwhile. Its leases are bound to the session of its
 * admission ({@link io.zklock.internal.engine.LockRequest#boundTo}): when that session ends before
 * they are granted, they are not created again on the new one, where no admission would stand
 * beside them; the request queues for admission again instead, as a new request does. A lease
 * created without an admission would be counted by Curator's admitted client, which waits while the
 * leases outnumber the permits, while the lease waits behind it: a stall.
 *
 * <p>Several permits: the admitted request asks for its {@code count} leases at once; each is
 * granted by the lease rule alone, and the request holds when all are ({@link
 * Ordering#leaseRequest}). Only one waiting request is admitted at a time, so no two requests can
 * each hold part of what the other needs: the admitted one gets all its permits as soon as enough
 * holders release. If one lease fails, the others are withdrawn or released: all or nothing.
 *
 * <p>The permit count stored with the semaphore ({@link io.zklock.internal.coord.PermitCount}) is
 * checked alongside the admission; a mismatch fails the request before any lease is taken.
 */
final class SemaphoreRequest {
  private final RequestContext ctx;
  private final String name;
  private final NodeLock admission;
  private final Function<String, NodeLock> leasesFor;
  private final int count;
  private final CompletableFuture<Void> checked;
  private final Waiting waiting; // one deadline for the admission and the leases
  private final java.util.function.IntConsumer queued; // for the lock event listeners, or null
  // kazoo-compatible: queue for admission once the check made the directories; lease in turn
  private final boolean kazoo;
  final CompletableFuture<LockHandle> result = new CompletableFuture<>();

  // guarded by this
  private List<CompletableFuture<LockHandle>> steps = List.of();

  /**
   * @param leasesFor the leases as requested by the holder of a given admission node
   * @param count how many leases, at least 1
   * @param checked completes when the stored permit count is known to match, exceptionally if not
   * @param waiting how long to wait for the admission and the leases; never {@link Waiting#NOW}
   * @param queued told how many stand ahead each time the admission or a lease waits, or null
   * @param kazoo the kazoo-compatible semaphore's request: it queues for admission only once {@code
   *     checked} has made the semaphore's persistent directories (the admission's among them, which
   *     the admission would make a container), and asks for its leases one after another, each
   *     counted by a listing of its own ({@link io.zklock.internal.rules.KazooSemaphore#lease})
   */
  SemaphoreRequest(
      RequestContext ctx,
      String name,
      NodeLock admission,
      Function<String, NodeLock> leasesFor,
      int count,
      CompletableFuture<Void> checked,
      Waiting waiting,
      java.util.function.IntConsumer queued) {
    this(ctx, name, admission, leasesFor, count, checked, waiting, queued, false);
  }

  /** A request of zklock's own or the Curator-compatible semaphore, or ({@code kazoo}) below. */
  SemaphoreRequest(
      RequestContext ctx,
      String name,
      NodeLock admission,
      Function<String, NodeLock> leasesFor,
      int count,
      CompletableFuture<Void> checked,
      Waiting waiting,
      java.util.function.IntConsumer queued,
      boolean kazoo) {
    this.kazoo = kazoo;
    this.ctx = ctx;
    this.name = name;
    this.admission = admission;
    this.leasesFor = leasesFor;
    this.count = count;
    this.checked = checked;
    this.waiting = waiting;
    this.queued = queued;
  }

  void start() {
    result.whenComplete(
        (h, err) -> {
          if (result.isCancelled()) {
            cancelSteps();
          }
        });
    checked.whenComplete(
        (v, err) -> {
          if (err != null && result.completeExceptionally(unwrap(err))) {
            cancelSteps(); // a withdrawn step deletes its node; a granted one is released below
          }
        });
    if (!kazoo) {
      admit();
      return;
    }
    checked.thenRunAsync(
        () -> {
          try {
            admit();
          } catch (RuntimeException e) {
            finish(null, e); // closed meanwhile
          }
        },
        ctx.executor());
  }

  /**
   * Queues for admission: the first step, and the one a request starts over from when the session
   * of its admission ended before its leases were granted. A new request comes in by this door
   * only, behind whoever queued meanwhile; a lease is never asked for without an admission held on
   * the same session.
   */
  private void admit() {
    CompletableFuture<LockHandle> first;
    synchronized (this) {
      if (result.isDone()) {
        return;
      }
      first = admission.start(waiting, queued);
      steps = List.of(first);
    }
    first.whenComplete(this::admitted);
  }

  private void cancelSteps() {
    List<CompletableFuture<LockHandle>> s;
    synchronized (this) {
      s = steps;
    }
    s.forEach(f -> f.cancel(true));
  }

  private void admitted(LockHandle mutex, Throwable err) {
    if (err != null || mutex == null) {
      finish(null, err);
      return;
    }
    checked.whenComplete(
        (v, checkErr) -> {
          if (checkErr != null) {
            mutex
                .releaseAsync()
                .whenCompleteAsync((x, t) -> finish(null, checkErr), ctx.executor());
          } else {
            takeLeases(mutex);
          }
        });
  }

  private void takeLeases(LockHandle mutex) {
    // the session the admission is held on: the leases may exist only beside it (a lease created
    // on another session would be one no admission let in, which Curator's clients count)
    Guard admitted = ((Handle) mutex).guard();
    List<CompletableFuture<LockHandle>> leases = new ArrayList<>(count);
    synchronized (this) {
      if (result.isDone() || waiting.expired(ctx.clock())) {
        mutex.releaseAsync().whenCompleteAsync((v, t) -> finish(null, null), ctx.executor());
        return;
      }
      if (!admitted.holds()) {
        // lost before a lease was asked for: its session ended; come in again by the same door
        startOver(List.of(mutex.releaseAsync()));
        return;
      }
      String admissionNode = mutex.path().substring(mutex.path().lastIndexOf('/') + 1);
      NodeLock q = leasesFor.apply(admissionNode);
      try {
        if (kazoo) {
          leases.addAll(inTurn(q, admitted.session()));
        } else {
          for (int i = 0; i < count; i++) {
            leases.add(q.start(waiting, queued, admitted.session()));
          }
        }
      } catch (RuntimeException e) {
        // the instance was closed since the admission was granted: no lease can be asked for, and
        // the request fails once the admission is given back (thrown here, it would be lost in the
        // admission's callback, and the caller would wait forever)
        leases.forEach(l -> l.cancel(true));
        mutex.releaseAsync().whenCompleteAsync((v, t) -> finish(null, e), ctx.executor());
        return;
      }
      if (!kazoo) {
        steps = leases;
      }
    }
    for (CompletableFuture<LockHandle> f : leases) {
      f.whenComplete(
          (h, e) -> {
            if (h == null) { // timed out, failed or cancelled: all or nothing
              leases.forEach(other -> other.cancel(true));
            }
          });
    }
    CompletableFuture.allOf(leases.toArray(new CompletableFuture<?>[0]))
        .whenComplete(
            (v, e) -> {
              CompletableFuture<Void> gone = mutex.releaseAsync(); // the next waiter may try now
              List<LockHandle> got = new ArrayList<>(count);
              Throwable failure = null;
              for (CompletableFuture<LockHandle> f : leases) {
                try {
                  LockHandle h = f.getNow(null);
                  if (h != null) {
                    got.add(h);
                  }
                } catch (CancellationException cancelled) {
                  // ours, after another lease ended without a grant
                } catch (CompletionException failed) {
                  if (failure == null && !(failed.getCause() instanceof CancellationException)) {
                    failure = failed.getCause();
                  }
                }
              }
              if (got.size() == count) {
                finish(count == 1 ? got.get(0) : new MultiLock.MultiHandle(name, got), null);
                return;
              }
              // a failure is answered once the admission mutex and every lease taken are given
              // back: nothing is left held when it is returned
              List<CompletableFuture<Void>> released = new ArrayList<>();
              released.add(gone);
              got.forEach(h -> released.add(h.releaseAsync()));
              if (failure instanceof SessionEndedException) {
                // the admission's session ended while its leases waited: they went with it, and
                // the request queues for admission again on the new session
                startOver(released);
                return;
              }
              Throwable err = failure;
              CompletableFuture.allOf(released.toArray(new CompletableFuture<?>[0]))
                  .whenCompleteAsync((x, t) -> finish(null, err), ctx.executor());
            });
  }

  /**
   * The kazoo-compatible leases of one request, asked for one after another on the admission's
   * {@code session}: each lists the semaphore anew (kazoo counts the children), so the leases
   * already taken count too. Returns one future per lease; a lease not yet asked for when an
   * earlier one ends without a grant is cancelled, never asked for. Called holding the monitor.
   */
  private List<CompletableFuture<LockHandle>> inTurn(NodeLock q, long session) {
    List<CompletableFuture<LockHandle>> slots = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      slots.add(new CompletableFuture<>());
    }
    steps = new ArrayList<>(List.of(ask(q, session, slots, 0)));
    return slots;
  }

  /** Asks for lease {@code i}; once granted, for the next one. Called holding the monitor. */
  private CompletableFuture<LockHandle> ask(
      NodeLock q, long session, List<CompletableFuture<LockHandle>> slots, int i) {
    CompletableFuture<LockHandle> f = q.start(waiting, queued, session);
    f.whenComplete(
        (h, err) -> {
          if (err != null) {
            slots.get(i).completeExceptionally(unwrap(err));
          } else {
            slots.get(i).complete(h);
          }
          if (h == null || i + 1 == count) {
            return;
          }
          synchronized (this) {
            if (result.isDone() || slots.get(i + 1).isDone()) {
              return; // withdrawn meanwhile: the lease taken is released with the others
            }
            try {
              List<CompletableFuture<LockHandle>> now = new ArrayList<>(steps);
              now.add(ask(q, session, slots, i + 1));
              steps = now;
            } catch (RuntimeException e) {
              slots.get(i + 1).completeExceptionally(e); // closed meanwhile
            }
          }
        });
    return f;
  }

  /** Once {@code released} are done: queues for admission again, within the same deadline. */
  private void startOver(List<CompletableFuture<Void>> released) {
    CompletableFuture.allOf(released.toArray(new CompletableFuture<?>[0]))
        .whenCompleteAsync(
            (x, t) -> {
              if (waiting.expired(ctx.clock())) {
                finish(null, null);
                return;
              }
              try {
                admit();
              } catch (RuntimeException e) {
                finish(null, e); // closed meanwhile: it cannot queue again (see takeLeases)
              }
            },
            ctx.executor());
  }

  private static Throwable unwrap(Throwable err) {
    return err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
  }

  private void finish(LockHandle h, Throwable err) {
    if (err != null) {
      Throwable cause = unwrap(err);
      if (!(cause instanceof CancellationException)) {
        result.completeExceptionally(cause);
      } else {
        result.complete(null);
      }
      return;
    }
    if (!result.complete(h) && h != null) {
      h.releaseAsync(); // cancelled or failed meanwhile
    }
  }
}
