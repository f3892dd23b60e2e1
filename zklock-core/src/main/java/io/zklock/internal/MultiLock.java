package io.zklock.internal;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.Lock;

/**
 * A lock over several of the library's locks, all or nothing. Parts are acquired one after the
 * other in one canonical order, {@link LockPart#sortKey()} (directory, then kind), so overlapping
 * multi-locks never wait for each other in a cycle; a timeout is one deadline for the whole set;
 * whatever was acquired is released if a later part fails, times out, is interrupted or cancelled.
 */
final class MultiLock implements StartableLock {
  private final ZkLocksImpl ctx;
  private final List<LockPart> parts;
  private final String name;
  private final Lock view;

  private MultiLock(ZkLocksImpl ctx, List<LockPart> parts) {
    this.ctx = ctx;
    this.parts = parts;
    List<String> names = new ArrayList<>();
    parts.forEach(p -> names.add(p.name()));
    this.name = "multi" + names;
    this.view = new ReentrantView(this);
  }

  /** Checks and orders the parts; nested multi-locks are flattened. */
  static MultiLock of(ZkLocksImpl ctx, DistributedLock... locks) {
    Objects.requireNonNull(locks, "locks");
    if (locks.length == 0) {
      throw new IllegalArgumentException("a multi-lock needs at least one lock: none given");
    }
    List<LockPart> parts = new ArrayList<>();
    for (int i = 0; i < locks.length; i++) {
      DistributedLock l = locks[i];
      if (l == null) {
        throw new IllegalArgumentException("lock " + i + " of the multi-lock is null");
      }
      if (l instanceof MultiLock m) {
        parts.addAll(m.parts);
      } else if (l instanceof LockPart p) {
        parts.add(p);
      } else {
        throw new IllegalArgumentException(
            "lock "
                + i
                + " ("
                + l
                + ") is not a zklock lock; a multi-lock needs to order its parts");
      }
    }
    Map<String, LockPart> byDir = new HashMap<>();
    for (LockPart p : parts) {
      LockPart before = byDir.putIfAbsent(p.dir(), p);
      if (before != null) {
        throw new IllegalArgumentException(
            "the multi-lock names the lock directory "
                + p.dir()
                + " twice ("
                + before
                + ", "
                + p
                + "): it would wait for itself");
      }
    }
    parts.sort(Comparator.comparing(LockPart::sortKey));
    return new MultiLock(ctx, List.copyOf(parts));
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public ZkLocksImpl ctx() {
    return ctx;
  }

  @Override
  public String errorPath() {
    return name;
  }

  @Override
  public CompletableFuture<LockHandle> start(boolean tryOnly, long nanos, boolean hasDeadline) {
    ctx.checkOpen();
    Acquisition r =
        new Acquisition(tryOnly, hasDeadline ? ctx.clock().nanoTime() + nanos : 0L, hasDeadline);
    r.next();
    return r.result;
  }

  @Override
  public Lock asLock() {
    return view;
  }

  @Override
  public String toString() {
    return name;
  }

  /** One acquisition of the whole set. */
  private final class Acquisition {
    private final boolean tryOnly;
    private final long deadline;
    private final boolean hasDeadline;
    final CompletableFuture<LockHandle> result = new CompletableFuture<>();

    // guarded by this
    private final List<LockHandle> got = new ArrayList<>();
    private CompletableFuture<LockHandle> current;

    Acquisition(boolean tryOnly, long deadline, boolean hasDeadline) {
      this.tryOnly = tryOnly;
      this.deadline = deadline;
      this.hasDeadline = hasDeadline;
      result.whenComplete(
          (h, err) -> {
            if (result.isCancelled()) {
              CompletableFuture<LockHandle> c;
              synchronized (this) {
                c = current;
              }
              if (c != null) {
                c.cancel(true);
              }
              releaseGot();
            }
          });
    }

    void next() {
      CompletableFuture<LockHandle> f;
      synchronized (this) {
        if (result.isDone()) {
          releaseGot();
          return;
        }
        if (got.size() == parts.size()) {
          MultiHandle h = new MultiHandle(name, List.copyOf(got));
          ctx.executor()
              .execute(
                  () -> {
                    if (!result.complete(h)) {
                      h.releaseAsync();
                    }
                  });
          return;
        }
        long remaining = hasDeadline ? deadline - ctx.clock().nanoTime() : 0L;
        if (hasDeadline && remaining <= 0) {
          fail(null);
          return;
        }
        f = parts.get(got.size()).start(tryOnly, remaining, hasDeadline);
        current = f;
      }
      f.whenComplete(
          (h, err) -> {
            if (err != null) {
              Throwable cause =
                  err instanceof CompletionException && err.getCause() != null
                      ? err.getCause()
                      : err;
              fail(cause instanceof CancellationException ? null : cause);
              return;
            }
            if (h == null) {
              fail(null);
              return;
            }
            synchronized (this) {
              got.add(h);
              current = null;
            }
            next();
          });
    }

    private void fail(Throwable err) {
      releaseGot();
      ctx.executor()
          .execute(
              () -> {
                if (err == null) {
                  result.complete(null);
                } else {
                  result.completeExceptionally(err);
                }
              });
    }

    private void releaseGot() {
      List<LockHandle> toRelease;
      synchronized (this) {
        toRelease = new ArrayList<>(got);
        got.clear();
      }
      for (int i = toRelease.size() - 1; i >= 0; i--) {
        toRelease.get(i).releaseAsync();
      }
    }
  }

  /** The handle of the whole set. */
  static final class MultiHandle implements Handle {
    private final String name;
    private final List<LockHandle> handles;
    private final CompletableFuture<LockLostException> lost = new CompletableFuture<>();
    private volatile CompletableFuture<Void> released;

    MultiHandle(String name, List<LockHandle> handles) {
      this.name = name;
      this.handles = handles;
      for (LockHandle h : handles) {
        h.lost()
            .thenAccept(
                ex -> {
                  if (released == null) {
                    lost.complete(ex);
                  }
                });
      }
    }

    @Override
    public String lockName() {
      return name;
    }

    /** The path of the first part in the canonical order. */
    @Override
    public String path() {
      return handles.get(0).path();
    }

    /** The largest of the parts' fencing tokens. */
    @Override
    public long fencingToken() {
      long max = Long.MIN_VALUE;
      for (LockHandle h : handles) {
        max = Math.max(max, h.fencingToken());
      }
      return max;
    }

    @Override
    public boolean isHeld() {
      if (released != null) {
        return false;
      }
      for (LockHandle h : handles) {
        if (!h.isHeld()) {
          return false;
        }
      }
      return true;
    }

    @Override
    public CompletableFuture<LockLostException> lost() {
      return lost;
    }

    /** Runs {@code action} once, on a request to any part. */
    @Override
    public void onReleaseRequested(Runnable action) {
      java.util.Objects.requireNonNull(action, "action");
      java.util.concurrent.atomic.AtomicBoolean once =
          new java.util.concurrent.atomic.AtomicBoolean();
      for (LockHandle h : handles) {
        h.onReleaseRequested(
            () -> {
              if (once.compareAndSet(false, true)) {
                action.run();
              }
            });
      }
    }

    @Override
    public boolean isReleaseRequested() {
      return handles.stream().anyMatch(LockHandle::isReleaseRequested);
    }

    @Override
    public synchronized CompletableFuture<Void> releaseAsync() {
      if (released == null) {
        CompletableFuture<?>[] all = new CompletableFuture<?>[handles.size()];
        for (int i = handles.size() - 1; i >= 0; i--) {
          all[i] = handles.get(i).releaseAsync();
        }
        released = CompletableFuture.allOf(all);
      }
      return released;
    }

    @Override
    public String toString() {
      return "LockHandle[" + name + ", token=" + fencingToken() + "]";
    }
  }
}
