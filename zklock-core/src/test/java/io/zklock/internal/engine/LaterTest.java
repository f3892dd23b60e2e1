package io.zklock.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class LaterTest {
  private static final long DELAY = TimeUnit.MILLISECONDS.toNanos(50);
  private static final long SLACK = TimeUnit.MILLISECONDS.toNanos(25);

  /** Counts the sweeps scheduled, to show how many wake-ups the actions cost. */
  private static final class Counting {
    final ManualScheduler.FakeClock clock = new ManualScheduler.FakeClock();
    final ManualScheduler scheduler = new ManualScheduler(clock);
    final Later later = new Later(scheduler, clock, DELAY, SLACK);
  }

  @Test
  void anAction_runsAtTheDelay_notBefore() {
    Counting c = new Counting();
    AtomicInteger ran = new AtomicInteger();
    c.later.add(ran::incrementAndGet);

    c.scheduler.advanceNanos(DELAY - 1);
    assertThat(ran).hasValue(0);
    c.scheduler.advanceNanos(1);
    assertThat(ran).hasValue(1);
    assertThat(c.scheduler.scheduled()).as("nothing left: no timer armed").isZero();
  }

  @Test
  void aCancelledAction_neverRuns_andLeavesNothingBehindAfterItsTime() {
    Counting c = new Counting();
    AtomicInteger ran = new AtomicInteger();
    c.later.add(ran::incrementAndGet).cancel();

    c.scheduler.advanceNanos(DELAY + SLACK);
    assertThat(ran).hasValue(0);
    assertThat(c.later.size()).isZero();
    assertThat(c.scheduler.scheduled()).isZero();
  }

  @Test
  void aSteadyStreamOfActions_costsOneTimerPerSlack_notOnePerAction() {
    Counting c = new Counting();
    long step = TimeUnit.MICROSECONDS.toNanos(100); // 10,000 grants a second
    int n = 10_000; // one second
    for (int i = 0; i < n; i++) {
      c.later.add(() -> {}).cancel(); // a short hold: released long before its watch
      c.scheduler.advanceNanos(step);
      assertThat(c.scheduler.scheduled()).as("one timer at most").isLessThanOrEqualTo(1);
    }
    c.scheduler.advanceNanos(DELAY + SLACK);
    assertThat(c.later.size()).isZero();
    assertThat(c.scheduler.scheduled()).isZero();
  }

  @Test
  void anActionAddedAfterTheQueueDrained_armsTheTimerAgain() {
    Counting c = new Counting();
    AtomicInteger ran = new AtomicInteger();
    c.later.add(ran::incrementAndGet);
    c.scheduler.advanceNanos(DELAY + SLACK);
    assertThat(ran).hasValue(1);

    c.later.add(ran::incrementAndGet);
    c.scheduler.advanceNanos(DELAY);
    assertThat(ran).hasValue(2);
  }

  @Test
  void aFailingAction_doesNotStopTheOthers() {
    Counting c = new Counting();
    AtomicInteger ran = new AtomicInteger();
    c.later.add(
        () -> {
          throw new IllegalStateException("boom");
        });
    c.later.add(ran::incrementAndGet);
    c.scheduler.advanceNanos(DELAY + SLACK);
    assertThat(ran).hasValue(1);
  }

  /**
   * Every action not cancelled runs exactly once, no sooner than the delay and no later than delay
   * + slack after it was added; a cancelled one never runs; and the timer is armed at most once at
   * any moment, whatever the pattern of adds, cancels and time.
   */
  @Property(tries = 300)
  void everyAction_runsOnce_betweenDelayAndDelayPlusSlack_unlessCancelled(
      @ForAll @Size(min = 1, max = 60) List<@IntRange(min = 0, max = 40_000) Integer> gapsMicros,
      @ForAll @Size(min = 1, max = 60) List<Boolean> cancels) {
    Counting c = new Counting();
    int n = gapsMicros.size();
    long[] added = new long[n];
    long[] ranAt = new long[n];
    int[] runs = new int[n];
    List<Later.Entry> entries = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      c.scheduler.advanceNanos(TimeUnit.MICROSECONDS.toNanos(gapsMicros.get(i)));
      assertThat(c.scheduler.scheduled()).isLessThanOrEqualTo(1);
      int k = i;
      added[i] = c.clock.nanoTime();
      entries.add(
          c.later.add(
              () -> {
                runs[k]++;
                ranAt[k] = c.clock.nanoTime();
              }));
      // cancel an earlier one now and then (a release before its watch)
      if (cancels.get(i % cancels.size()) && i > 0) {
        int victim = (i * 7) % i;
        if (runs[victim] == 0) {
          entries.get(victim).cancel();
          runs[victim] = -1; // must stay so
        }
      }
    }
    c.scheduler.advanceNanos(DELAY + SLACK);
    for (int i = 0; i < n; i++) {
      if (runs[i] == -1) {
        continue;
      }
      assertThat(runs[i]).as("action %d ran once", i).isEqualTo(1);
      assertThat(ranAt[i] - added[i]).as("action %d's wait", i).isBetween(DELAY, DELAY + SLACK);
    }
    assertThat(c.scheduler.scheduled()).isZero();
    assertThat(c.later.size()).isZero();
  }

  /**
   * The library's executor runs a refused task on the calling thread; after its shutdown an add
   * must neither run the sweep in a loop nor keep anything.
   */
  @Test
  void afterTheSchedulerShutDown_anAddKeepsNothing_andDoesNotLoop() {
    ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1, (r, ex) -> r.run());
    scheduler.shutdown();
    Later later = new Later(scheduler, System::nanoTime, DELAY, SLACK);
    AtomicInteger ran = new AtomicInteger();

    later.add(ran::incrementAndGet);
    later.add(ran::incrementAndGet);

    assertThat(later.size()).isZero();
    assertThat(ran).as("a closing instance's holds need no watch").hasValue(0);
  }

  /**
   * A sweep already scheduled still runs after the executor's shutdown (its default for delayed
   * tasks), finds an action not yet due, and must not schedule itself again on the calling thread
   * without end: the waiting actions are dropped instead.
   */
  @Test
  void aSweepRunningAfterTheShutdown_dropsWhatIsNotDue_insteadOfLooping() throws Exception {
    ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1, (r, ex) -> r.run());
    Later later =
        new Later(
            scheduler,
            System::nanoTime,
            TimeUnit.MILLISECONDS.toNanos(200),
            TimeUnit.MILLISECONDS.toNanos(100));
    later.add(() -> {});
    Thread.sleep(100);
    later.add(() -> {}); // due 100 ms after the first sweep
    scheduler.shutdown();

    assertThat(scheduler.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    assertThat(later.size()).isZero();
  }

  /** Adds from many threads against a real scheduler: no add is lost to a disarming sweep. */
  @Test
  void concurrentAdds_onARealScheduler_everyActionRunsExactlyOnce() throws Exception {
    ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    try {
      // a short delay and slack, so that sweeps disarm and re-arm while the threads add
      Later later =
          new Later(
              scheduler,
              System::nanoTime,
              TimeUnit.MICROSECONDS.toNanos(200),
              TimeUnit.MICROSECONDS.toNanos(100));
      int threads = 4;
      int per = 2_000;
      AtomicIntegerArray runs = new AtomicIntegerArray(threads * per);
      CountDownLatch go = new CountDownLatch(1);
      List<Thread> adders = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int base = t * per;
        Thread th =
            new Thread(
                () -> {
                  try {
                    go.await();
                  } catch (InterruptedException e) {
                    return;
                  }
                  for (int i = 0; i < per; i++) {
                    int k = base + i;
                    later.add(() -> runs.incrementAndGet(k));
                    if (i % 64 == 0) {
                      Thread.yield();
                    }
                  }
                });
        th.start();
        adders.add(th);
      }
      go.countDown();
      for (Thread th : adders) {
        th.join();
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                for (int i = 0; i < runs.length(); i++) {
                  if (runs.get(i) == 0) {
                    return false;
                  }
                }
                return true;
              });
      for (int i = 0; i < runs.length(); i++) {
        assertThat(runs.get(i)).as("action %d", i).isEqualTo(1);
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> later.size() == 0);
    } finally {
      scheduler.shutdownNow();
    }
  }
}
