package io.zklock.internal.engine;

import static io.zklock.internal.engine.Interleavings.check;
import static io.zklock.internal.engine.Interleavings.explore;
import static io.zklock.internal.engine.Interleavings.join;
import static io.zklock.internal.engine.Interleavings.start;

import io.zklock.ThreadHolds;
import io.zklock.internal.rules.Clock;
import io.zklock.internal.rules.RandomIds;
import io.zklock.internal.rules.Waiting;
import io.zklock.internal.rules.WallClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The in-process concurrency of one client under Lincheck's model checker ({@link Interleavings}):
 * the race between a grant and a give-up on a {@link Ticket}, the shared timer ({@link Later})
 * against the scheduler's thread, and the per-thread holds of the reentrant views ({@link
 * ThreadHolds}, which {@code ReentrantHolds} counts with) against a loss. Server-free: what a
 * scenario needs of ZooKeeper is a fake handle.
 *
 * <p>Not here: the listener seam ({@link Events}), whose blocking listener has a queue of 4096
 * slots per instance, more than the model checker tracks within its 30 s per interleaving on a
 * loaded machine; and the cohort's hand-offs on the fake server, for the same reason (each
 * interleaving runs the engine and the fake server instrumented).
 *
 * <p>Three minutes instead of the suite's 60 s per test: the model checker instruments the classes
 * it runs on first use, which is CPU-bound and took up to 40 s at a load of 60 on two cores (a few
 * seconds quiet); nothing in it waits on anything that could hang.
 */
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
@Tag("late") // CPU-bound and long: runs beside the server tests (see the pom)
class InProcessInterleavingsTest {

  private static RequestContext context(Executor executor) {
    return new RequestContext(
        null,
        null,
        null,
        null,
        null,
        null,
        List.of(),
        null,
        Clock.SYSTEM,
        executor,
        null,
        Events.NONE,
        RandomIds.SECURE,
        WallClock.SYSTEM);
  }

  /**
   * The grant ends with the caller holding the handle, or with the handle released (by the grant
   * and by the give-up alike, when each learns that the caller will never see it: a handle's
   * release is idempotent), never both and never neither.
   */
  private static void deliveredOrReleased(Ticket ticket, FakeHandle h) {
    boolean delivered =
        ticket.result.isDone()
            && !ticket.result.isCompletedExceptionally()
            && ticket.result.getNow(null) == h;
    check(
        delivered ? h.releases() == 0 : h.releases() >= 1,
        "delivered " + delivered + " with " + h.releases() + " releases");
    check(ticket.result.isDone(), "the caller's future is complete");
  }

  @Test
  void grantRacingTheCallersCancel_theCallerHoldsTheHandle_orItIsReleased() {
    explore(
        100,
        () -> {
          Ticket ticket = new Ticket(context(Runnable::run), Waiting.FOREVER);
          FakeHandle h = new FakeHandle();
          Thread granter = start(() -> ticket.grant(h));
          Thread caller = start(() -> ticket.result.cancel(true));
          join(granter, caller);
          deliveredOrReleased(ticket, h);
          return new Object[] {ticket, h, granter, caller};
        });
  }

  @Test
  void grantRacingTheDeadline_ofABlockedCaller_theCallerHoldsTheHandle_orItIsReleased() {
    explore(
        100,
        () -> {
          Ticket ticket = new Ticket(context(Runnable::run), Waiting.FOREVER);
          Ticket.blockedCallerOnly(ticket.result);
          FakeHandle h = new FakeHandle();
          // the request's give-up once it saw the request granted: the first to complete decides
          Thread timer =
              start(
                  () -> {
                    if (ticket.takeBack(null)) {
                      h.releaseAsync();
                    }
                  });
          Thread granter = start(() -> ticket.grant(h));
          join(granter, timer);
          deliveredOrReleased(ticket, h);
          return new Object[] {ticket, h, granter, timer};
        });
  }

  /**
   * One object of each class the shared timer's scenario makes inside its threads and drops (an
   * entry, a scheduled task, a sweep's list and the iterators), for {@link
   * Interleavings#explore(int, Object, Interleavings.Scenario)} to instrument before the first
   * interleaving.
   */
  private static Object[] sharedTimerSamples() {
    ManualTasks tasks = new ManualTasks();
    Later later = new Later(tasks, () -> 0L, 10, 5);
    List<Object> list = new ArrayList<>();
    list.add(later.add(() -> {}));
    return new Object[] {
      later,
      tasks.schedule(() -> {}, 0, TimeUnit.NANOSECONDS),
      list,
      list.iterator(),
      new ConcurrentLinkedQueue<>().iterator(),
      TimeUnit.NANOSECONDS
    };
  }

  @Test
  void sharedTimer_actionsAddedAndCancelledWhileItSweeps_eachRunsOnce_noneIsStranded() {
    explore(
        150,
        sharedTimerSamples(),
        () -> {
          // every read of the clock is a delay later: whatever was added before a sweep is due
          AtomicLong now = new AtomicLong();
          Clock clock = () -> now.addAndGet(10);
          ManualTasks scheduler = new ManualTasks();
          Later later = new Later(scheduler, clock, 10, 5);
          AtomicInteger kept = new AtomicInteger();
          AtomicInteger cancelled = new AtomicInteger();
          Thread a = start(() -> later.add(kept::incrementAndGet));
          Thread b = start(() -> later.add(cancelled::incrementAndGet).cancel());
          Thread timer = start(scheduler::runQueued);
          join(a, b, timer);
          scheduler.runQueued(); // the scheduler's thread goes on: time passes
          check(kept.get() == 1, "the kept action ran " + kept.get() + " times");
          check(cancelled.get() <= 1, "the cancelled action ran " + cancelled.get() + " times");
          check(later.size() == 0, later.size() + " actions stranded");
          check(scheduler.queued() == 0, "a sweep still scheduled with nothing to do");
          return new Object[] {later, scheduler, kept, cancelled, a, b, timer};
        });
  }

  @Test
  void threadHolds_twoThreadsEnterAndExit_whileTheFirstsHandleIsLost_eachReleasesItsOwnOnce() {
    explore(
        100,
        () -> {
          ThreadHolds holds = new ThreadHolds("l");
          FakeHandle h1 = new FakeHandle();
          FakeHandle h2 = new FakeHandle();
          AtomicInteger lostSeen = new AtomicInteger();
          Thread a =
              start(
                  () -> {
                    holds.enter(() -> h1);
                    try {
                      holds.enter(
                          () -> {
                            throw new AssertionError("a re-entry acquired again");
                          });
                      holds.exit();
                      holds.exit();
                    } catch (IllegalMonitorStateException e) { // LockLostException is one
                      lostSeen.incrementAndGet(); // told of the loss: the hold is cleared
                    }
                    check(holds.holdCount() == 0, "thread a still holds " + holds.holdCount());
                  });
          Thread b =
              start(
                  () -> {
                    holds.enter(() -> h2);
                    check(holds.handle() == h2, "thread b holds another thread's handle");
                    holds.exit();
                  });
          Thread loser = start(h1::lose);
          join(a, b, loser);
          check(h1.releases() == 1, "a's handle released " + h1.releases() + " times");
          check(h2.releases() == 1, "b's handle released " + h2.releases() + " times");
          check(lostSeen.get() <= 1, "the loss told " + lostSeen.get() + " times");
          check(!holds.isHeld() && "unlocked".equals(holds.toString()), holds.toString());
          return new Object[] {holds, h1, h2, lostSeen, a, b, loser};
        });
  }
}
