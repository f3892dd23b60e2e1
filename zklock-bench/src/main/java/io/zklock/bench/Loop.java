package io.zklock.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Runs one operation per thread in a loop for a warm-up and a measured window, and reads the
 * server's counters at the edges of the measured window.
 */
final class Loop {
  interface Op {
    void run() throws Exception;
  }

  private Loop() {}

  static Window run(Env env, List<Op> ops) throws Exception {
    LongAdder done = new LongAdder();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    var stop = new java.util.concurrent.atomic.AtomicBoolean();
    for (int i = 0; i < ops.size(); i++) {
      Op op = ops.get(i);
      Thread t =
          new Thread(
              () -> {
                try {
                  while (!stop.get()) {
                    op.run();
                    done.increment();
                  }
                } catch (InterruptedException e) {
                  // stopped
                } catch (Throwable e) {
                  if (!stop.get()) {
                    failure.compareAndSet(null, e);
                  }
                }
              },
              "bench-" + i);
      t.setDaemon(true);
      threads.add(t);
    }
    threads.forEach(Thread::start);
    sleep(env.config.warmupSeconds);
    // the counters first: reading them (mntr computes its percentiles) is not measured time
    Env.Counters c0 = env.counters();
    long n0 = done.sum();
    long t0 = System.nanoTime();
    sleep(env.config.measureSeconds);
    // A window in which fewer operations completed than there are threads (a tiny --seconds on a
    // loaded machine) measures too little: with one operation nothing, and a count per operation
    // of a few may be 0 (the herd's watch events of a window's two acquisitions can both fall
    // before it). It is stretched until as many complete as there are threads, at most 30 s more,
    // and the rate divides by its real length.
    long stretchUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (done.sum() - n0 < ops.size()
        && failure.get() == null
        && System.nanoTime() - stretchUntil < 0) {
      Thread.sleep(5);
    }
    long n1 = done.sum();
    long t1 = System.nanoTime();
    Env.Counters c1 = env.counters();
    stop.set(true);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    for (Thread t : threads) {
      t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    }
    for (Thread t : threads) {
      if (t.isAlive()) {
        t.interrupt(); // a waiter the last holders did not reach; the sessions close next
      }
    }
    for (Thread t : threads) {
      t.join(5_000);
    }
    if (failure.get() != null) {
      throw new IllegalStateException("a benchmark thread failed", failure.get());
    }
    long count = n1 - n0;
    double seconds = (t1 - t0) / 1e9;
    return Window.of(c0, c1, count / seconds, count);
  }

  static void sleep(double seconds) throws InterruptedException {
    Thread.sleep(Math.round(seconds * 1000));
  }
}
