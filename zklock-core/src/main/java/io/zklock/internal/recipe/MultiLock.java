package io.zklock.internal.recipe;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.internal.engine.Guard;
import io.zklock.internal.engine.Handle;
import io.zklock.internal.engine.SessionEndedException;
import io.zklock.internal.rules.Waiting;
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
public final class MultiLock implements StartableLock {
  private final RecipeContext ctx;
  private final List<LockPart> parts;
  private final String name;
  private final Lock view;

  private MultiLock(RecipeContext ctx, List<LockPart> parts) {
    this.ctx = ctx;
    this.parts = parts;
    List<String> names = new ArrayList<>();
    parts.forEach(p -> names.add(p.name()));
    this.name = "multi" + names;
    this.view = new ReentrantView(this);
  }

  /** Checks and orders the parts; nested multi-locks are flattened. */
  public static MultiLock of(RecipeContext ctx, DistributedLock... locks) {
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
  public RecipeContext ctx() {
    return ctx;
  }

  @Override
  public String errorPath() {
    return name;
  }

  @Override
  public String eventKind() {
    return "multi";
  }

  @Override
  public CompletableFuture<LockHandle> start(Waiting waiting) {
    ctx.checkOpen();
    Acquisition r = new Acquisition(waiting);
    r.next();
    return r.result;
  }

  @Override
  public Lock asLock() {
    return view;
  }

  /** A multi-lock has no condition: an await would give back every part and take them again. */
  @Override
  public io.zklock.DistributedCondition newCondition(String conditionName) {
    throw StartableLock.noCondition(this, "an await would give back and take every part");
  }

  @Override
  public String toString() {
    return name;
  }

  /**
   * One acquisition of the whole set. Two rules: the caller gets a handle only if every part is
   * held when it is handed over, and a failure (busy, timeout, error, interrupt) is reported only
   * once every part this acquisition took has been released (the server acknowledged the deletes),
   * so the caller may rely on "false means nothing of it is held". A part lost while later parts
   * are awaited (session expiry, forced deletion) makes the acquisition give back everything and
   * start again from the first part, in canonical order, within the same deadline.
   */
  private final class Acquisition {
    private final Waiting waiting; // one deadline for every part and every round
    final CompletableFuture<LockHandle> result = new CompletableFuture<>();

    // guarded by this
    private final List<LockHandle> got = new ArrayList<>();
    private CompletableFuture<LockHandle> current;
    private int
        round; // bumped when the acquisition starts over: late news of a past round is stale

    Acquisition(Waiting waiting) {
      this.waiting = waiting;
      result.whenComplete(
          (h, err) -> {
            if (result.isCancelled()) {
              giveBack(); // the caller is gone: nobody waits for the deletes
            }
          });
    }

    void next() {
      CompletableFuture<LockHandle> f;
      int r;
      RuntimeException refused = null;
      synchronized (this) {
        if (result.isDone()) {
          giveBack();
          return;
        }
        if (got.size() == parts.size()) {
          List<LockHandle> all = List.copyOf(got);
          int granted = round;
          ctx.executor().execute(() -> hand(all, granted));
          return;
        }
        if (waiting.expired(ctx.clock())) {
          fail(null);
          return;
        }
        try {
          LockPart part = parts.get(got.size());
          long bound = part instanceof NodeLock ? sessionOfPartsBefore(part) : 0L;
          f =
              bound != 0L && part instanceof NodeLock n
                  ? n.start(waiting, null, bound)
                  : part.start(waiting);
        } catch (RuntimeException e) {
          // the instance was closed since the part before was granted: this part cannot be asked
          // for, and the acquisition ends as when a part fails (thrown here, it would be lost in
          // the callback of the part before, and the caller would wait forever)
          f = null;
          refused = e;
        }
        current = f;
        r = round;
      }
      if (refused != null) {
        fail(refused);
        return;
      }
      f.whenComplete(
          (h, err) -> {
            synchronized (this) {
              if (r != round) {
                if (h != null) {
                  h.releaseAsync(); // granted to a round given up meanwhile
                }
                return;
              }
              current = null;
            }
            if (err != null) {
              Throwable cause =
                  err instanceof CompletionException && err.getCause() != null
                      ? err.getCause()
                      : err;
              if (cause instanceof SessionEndedException) {
                startOver(r); // the parts before it went with the session: from the first again
                return;
              }
              fail(cause instanceof CancellationException ? null : cause);
              return;
            }
            if (h == null) {
              fail(null);
              return;
            }
            synchronized (this) {
              got.add(h);
            }
            h.lost().thenAccept(ex -> partLost(r));
            next();
          });
    }

    /**
     * Called holding the monitor: the session the parts taken so far hold their nodes on, when
     * {@code next} and one of them are node locks of the same {@code ZkLocks} (0 otherwise). The
     * next part is bound to it ({@link io.zklock.internal.engine.LockRequest#boundTo}): if that
     * session ends before the part is granted, the part is not created again on the new session
     * ahead of the parts before it, which went with the session; the acquisition starts over from
     * the first part, in the canonical order, as a new one would.
     */
    private long sessionOfPartsBefore(LockPart next) {
      for (int i = 0; i < got.size(); i++) {
        if (parts.get(i) instanceof NodeLock
            && parts.get(i).ctx().requests() == next.ctx().requests()
            && got.get(i) instanceof Handle h) {
          Guard g = h.guard();
          // a part lost already: bound to no session, the next part ends before any create, and
          // the acquisition starts over (as the loss's own news makes it do too)
          return g.holds() ? g.session() : -1L;
        }
      }
      return 0L;
    }

    /** On the executor: hands the set to the caller if every part is still held. */
    private void hand(List<LockHandle> all, int granted) {
      synchronized (this) {
        if (granted != round) {
          return; // a part was lost meanwhile; the set was given back
        }
        if (!all.stream().allMatch(LockHandle::isHeld)) {
          startOver(granted);
          return;
        }
        round++; // from here on a part's loss is the handle's news, not the acquisition's
        got.clear();
      }
      MultiHandle h = new MultiHandle(name, all);
      if (!result.complete(h)) {
        h.releaseAsync();
      }
    }

    private void partLost(int r) {
      synchronized (this) {
        if (r != round || result.isDone()) {
          return;
        }
      }
      startOver(r);
    }

    /** Gives back everything round {@code r} took, then starts from the first part again. */
    private void startOver(int r) {
      CompletableFuture<LockHandle> c;
      List<LockHandle> toRelease;
      synchronized (this) {
        if (r != round) {
          return;
        }
        round++;
        c = current;
        current = null;
        toRelease = new ArrayList<>(got);
        got.clear();
      }
      if (c != null) {
        c.cancel(true);
      }
      release(toRelease).whenCompleteAsync((v, t) -> next(), ctx.executor());
    }

    /** Ends without a handle, once every part taken is released. */
    private void fail(Throwable err) {
      giveBack()
          .whenCompleteAsync(
              (v, t) -> {
                if (err == null) {
                  result.complete(null);
                } else {
                  result.completeExceptionally(err);
                }
              },
              ctx.executor());
    }

    /** Gives back whatever is held or being requested; the future completes when all is gone. */
    private CompletableFuture<Void> giveBack() {
      CompletableFuture<LockHandle> c;
      List<LockHandle> toRelease;
      synchronized (this) {
        round++;
        c = current;
        current = null;
        toRelease = new ArrayList<>(got);
        got.clear();
      }
      if (c != null) {
        c.cancel(true);
      }
      return release(toRelease);
    }

    private CompletableFuture<Void> release(List<LockHandle> handles) {
      CompletableFuture<?>[] all = new CompletableFuture<?>[handles.size()];
      for (int i = handles.size() - 1; i >= 0; i--) {
        all[i] = handles.get(i).releaseAsync();
      }
      return CompletableFuture.allOf(all);
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

    /** Every part's node, checked in one transaction. */
    @Override
    public Guard guard() {
      if (released != null) {
        return Guard.released(name);
      }
      java.util.List<Guard> parts = new java.util.ArrayList<>(handles.size());
      for (LockHandle h : handles) {
        parts.add(Handle.of(h).guard());
      }
      return Guard.all(parts);
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
