package io.zklock.internal.zk;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How a caller's thread waits for a future: every blocking call of the API ends in one of these.
 * They are the JDK's {@link CompletableFuture#get()} and {@link CompletableFuture#join()}, unless a
 * {@link Waiter} was installed on the calling thread: a simulation does that on the threads it runs
 * the API's blocking calls on, so that it decides when each of them goes on (one thread at a time,
 * in an order drawn from its seed).
 */
public final class Blocking {
  /** Waits until a future is done (or, when interruptible, until the thread is interrupted). */
  public interface Waiter {
    /**
     * Returns once {@code f} is done, or once {@code timeoutNanos} have passed when it is not
     * negative; when {@code interruptible}, throws as soon as the thread is interrupted (clearing
     * its status), as {@link CompletableFuture#get()} does.
     */
    void await(CompletableFuture<?> f, boolean interruptible, long timeoutNanos)
        throws InterruptedException;
  }

  private static final ThreadLocal<Waiter> WAITER = new ThreadLocal<>();

  private Blocking() {}

  /** Makes {@code w} the way the calling thread waits, until {@link #uninstall()}. */
  public static void install(Waiter w) {
    WAITER.set(w);
  }

  public static void uninstall() {
    WAITER.remove();
  }

  /** {@link CompletableFuture#get()}, through the thread's {@link Waiter} if it has one. */
  public static <T> T get(CompletableFuture<T> f) throws InterruptedException, ExecutionException {
    Waiter w = WAITER.get();
    if (w != null && !f.isDone()) {
      w.await(f, true, -1L);
    }
    return f.get();
  }

  /** {@link CompletableFuture#get(long, TimeUnit)}, through the thread's {@link Waiter} if any. */
  public static <T> T get(CompletableFuture<T> f, long timeout, TimeUnit unit)
      throws InterruptedException, ExecutionException, TimeoutException {
    Waiter w = WAITER.get();
    if (w == null) {
      return f.get(timeout, unit);
    }
    if (!f.isDone()) {
      w.await(f, true, Math.max(0L, unit.toNanos(timeout)));
      if (!f.isDone()) {
        throw new TimeoutException();
      }
    }
    return f.get();
  }

  /** {@link Thread#sleep(long)}, through the thread's {@link Waiter} if it has one. */
  public static void sleep(long millis) throws InterruptedException {
    Waiter w = WAITER.get();
    if (w == null) {
      Thread.sleep(millis);
    } else {
      w.await(new CompletableFuture<Void>(), true, TimeUnit.MILLISECONDS.toNanos(millis));
    }
  }

  /** {@link CompletableFuture#join()}, through the thread's {@link Waiter} if it has one. */
  public static <T> T join(CompletableFuture<T> f) {
    Waiter w = WAITER.get();
    if (w != null && !f.isDone()) {
      boolean interrupted = false;
      while (!f.isDone()) {
        try {
          w.await(f, false, -1L);
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    return f.join();
  }
}
