package io.zklock.micrometer;

import io.micrometer.core.instrument.Tags;
import io.zklock.LockHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The instrumented acquire methods shared by locks and semaphores: each request counts as pending
 * while it waits, and ends in exactly one outcome (granted, timeout, cancelled, failed); a granted
 * request returns a {@link MeteredHandle} that times the hold.
 */
final class Requests {
  /** The acquire methods of a lock or a semaphore. */
  interface Source {
    LockHandle acquire() throws InterruptedException;

    Optional<LockHandle> tryAcquire();

    Optional<LockHandle> tryAcquire(Duration timeout) throws InterruptedException;

    CompletableFuture<LockHandle> acquireAsync();
  }

  private final Source source;
  private final Meters meters;
  final Tags tags;

  Requests(Source source, Meters meters, Tags tags) {
    this.source = source;
    this.meters = meters;
    this.tags = tags;
  }

  LockHandle acquire() throws InterruptedException {
    long start = begin();
    try {
      return granted(start, source.acquire());
    } catch (InterruptedException e) {
      end(start, Meters.Outcome.CANCELLED);
      throw e;
    } catch (RuntimeException | Error e) {
      end(start, Meters.Outcome.FAILED);
      throw e;
    }
  }

  Optional<LockHandle> tryAcquire() {
    long start = begin();
    try {
      return optional(start, source.tryAcquire());
    } catch (RuntimeException | Error e) {
      end(start, Meters.Outcome.FAILED);
      throw e;
    }
  }

  Optional<LockHandle> tryAcquire(Duration timeout) throws InterruptedException {
    long start = begin();
    try {
      return optional(start, source.tryAcquire(timeout));
    } catch (InterruptedException e) {
      end(start, Meters.Outcome.CANCELLED);
      throw e;
    } catch (RuntimeException | Error e) {
      end(start, Meters.Outcome.FAILED);
      throw e;
    }
  }

  /**
   * The returned future is the caller's: cancelling it cancels the request (which withdraws it); a
   * grant that arrives after the caller cancelled is released here.
   */
  CompletableFuture<LockHandle> acquireAsync() {
    long start = begin();
    CompletableFuture<LockHandle> inner;
    try {
      inner = source.acquireAsync();
    } catch (RuntimeException | Error e) {
      end(start, Meters.Outcome.FAILED);
      throw e;
    }
    CompletableFuture<LockHandle> outer = new CompletableFuture<>();
    outer.whenComplete(
        (h, e) -> {
          if (outer.isCancelled()) {
            inner.cancel(true);
          }
        });
    inner.whenComplete(
        (h, e) -> {
          if (e == null) {
            LockHandle metered = granted(start, h);
            if (!outer.complete(metered)) {
              metered.releaseAsync(); // the caller cancelled as the grant arrived
            }
          } else {
            Throwable cause =
                e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            boolean cancelled = cause instanceof CancellationException || outer.isCancelled();
            end(start, cancelled ? Meters.Outcome.CANCELLED : Meters.Outcome.FAILED);
            outer.completeExceptionally(cause);
          }
        });
    return outer;
  }

  private long begin() {
    meters.pending.incrementAndGet();
    return meters.clock.monotonicTime();
  }

  private void end(long start, Meters.Outcome outcome) {
    meters.pending.decrementAndGet();
    meters.requestEnded(tags, outcome, meters.clock.monotonicTime() - start);
  }

  private LockHandle granted(long start, LockHandle h) {
    end(start, Meters.Outcome.GRANTED);
    return new MeteredHandle(h, meters, tags);
  }

  private Optional<LockHandle> optional(long start, Optional<LockHandle> h) {
    if (h.isPresent()) {
      return Optional.of(granted(start, h.get()));
    }
    end(start, Meters.Outcome.TIMEOUT);
    return h;
  }
}
