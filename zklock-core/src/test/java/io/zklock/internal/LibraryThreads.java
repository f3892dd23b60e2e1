package io.zklock.internal;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Control over the library executor of a {@link ZkLocksImpl} in tests that must decide what the
 * library has done by some moment: {@link #drain} returns once everything queued on it before the
 * call has run; {@link #hold} keeps its threads busy until released, so work queued meanwhile
 * waits.
 */
public final class LibraryThreads {
  private LibraryThreads() {}

  /**
   * Returns once every task queued on {@code locks}' executor before this call has finished (and
   * those they queued, three deep): a probe occupies each executor thread at once, which can only
   * happen once the tasks queued ahead of the probes have run.
   */
  public static void drain(io.zklock.ZkLocks locks) throws Exception {
    for (int round = 0; round < 3; round++) {
      hold(locks).release();
    }
  }

  /** Occupies every thread of {@code locks}' executor until {@link Held#release()}. */
  public static Held hold(io.zklock.ZkLocks locks) throws Exception {
    Executor pool = ((ZkLocksImpl) locks).executor();
    CyclicBarrier all = new CyclicBarrier(io.zklock.internal.zk.LibraryThreads.THREADS + 1);
    CountDownLatch go = new CountDownLatch(1);
    for (int i = 0; i < io.zklock.internal.zk.LibraryThreads.THREADS; i++) {
      pool.execute(
          () -> {
            try {
              all.await(30, TimeUnit.SECONDS);
              go.await(30, TimeUnit.SECONDS);
            } catch (Exception e) {
              Thread.currentThread().interrupt();
            }
          });
    }
    all.await(30, TimeUnit.SECONDS);
    return go::countDown;
  }

  /** Threads held by {@link #hold}. */
  @FunctionalInterface
  public interface Held {
    void release();
  }
}
