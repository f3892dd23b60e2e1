package io.zklock.internal;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

/**
 * A lock whose requests queue as sequential nodes in one directory and are granted by an {@link
 * Ordering.Rule}: the mutex ({@link NodeKind#MUTEX}, exclusive) and the two sides of the read-write
 * lock ({@link NodeKind#READ}, {@link NodeKind#WRITE}). Each request is an {@link Attempt}.
 */
final class QueueLock implements DistributedLock {
  private final ZkLocksImpl ctx;
  private final String name;
  private final String dir;
  private final NodeKind kind;
  private final Ordering.Rule rule;
  private final Lock view;

  QueueLock(ZkLocksImpl ctx, String name, NodeKind kind) {
    this.ctx = ctx;
    this.name = name;
    this.dir = ctx.dirOf(name);
    this.kind = kind;
    this.rule = Ordering.forKind(kind);
    this.view = new ReentrantView(this);
  }

  ZkLocksImpl ctx() {
    return ctx;
  }

  String dir() {
    return dir;
  }

  NodeKind kind() {
    return kind;
  }

  Ordering.Rule rule() {
    return rule;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public LockHandle acquire() throws InterruptedException {
    return Acquisitions.await(start(false, 0L, false), dir);
  }

  @Override
  public Optional<LockHandle> tryAcquire() {
    ctx.checkConnected(dir);
    return Acquisitions.awaitUninterruptibly(start(true, 0L, false), dir);
  }

  @Override
  public Optional<LockHandle> tryAcquire(Duration timeout) throws InterruptedException {
    long nanos = Args.timeoutNanos(timeout);
    if (nanos == 0) {
      return tryAcquire();
    }
    return Optional.ofNullable(Acquisitions.await(start(false, nanos, true), dir));
  }

  @Override
  public CompletableFuture<LockHandle> acquireAsync() {
    return start(false, 0L, false);
  }

  private CompletableFuture<LockHandle> start(boolean tryOnly, long nanos, boolean hasDeadline) {
    ctx.checkOpen();
    Attempt a = new Attempt(this, tryOnly, nanos, hasDeadline);
    a.start();
    return a.result;
  }

  @Override
  public Lock asLock() {
    return view;
  }

  @Override
  public String toString() {
    return kind.label() + " " + dir;
  }
}
