package io.zklock.internal;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.ReadWriteLock;
import java.util.Map;
import java.util.Objects;

/**
 * The read-write lock: two {@link QueueLock}s, {@link NodeKind#READ} and {@link NodeKind#WRITE},
 * queueing in one directory under {@link Ordering#shared} and {@link Ordering#exclusive}; a
 * downgrade pins the write node (see {@link Attempt#pin()}); {@link RwView} is the thread-aware JDK
 * view.
 */
final class ReadWriteLockImpl implements ReadWriteLock {
  private final ZkLocksImpl ctx;
  private final String name;
  private final QueueLock read;
  private final QueueLock write;
  private final RwView view;

  ReadWriteLockImpl(ZkLocksImpl ctx, String name) {
    this.ctx = ctx;
    this.name = name;
    String dir = ctx.dirOf(name);
    this.view = new RwView(this);
    this.read =
        new QueueLock(
            ctx,
            name,
            dir,
            NodeKind.READ,
            Ordering.forKind(NodeKind.READ),
            Map.of(),
            view::newReadView);
    this.write =
        new QueueLock(
            ctx,
            name,
            dir,
            NodeKind.WRITE,
            Ordering.forKind(NodeKind.WRITE),
            Map.of(),
            q -> new ReentrantView(q, view::refuseUpgrade));
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public DistributedLock readLock() {
    return read;
  }

  @Override
  public DistributedLock writeLock() {
    return write;
  }

  @Override
  public LockHandle downgrade(LockHandle writeHandle) {
    Objects.requireNonNull(writeHandle, "writeHandle");
    if (!(writeHandle instanceof Attempt a)
        || a.lock().kind() != NodeKind.WRITE
        || a.lock().ctx() != ctx
        || !a.lock().dir().equals(write.dir())) {
      throw new IllegalArgumentException(
          "not a write handle of the read-write lock " + write.dir() + ": " + writeHandle);
    }
    if (!a.pin()) {
      throw new IllegalMonitorStateException(
          "cannot downgrade: the write handle no longer holds " + write.dir() + ": " + writeHandle);
    }
    return new DowngradedHandle(a, ctx);
  }

  @Override
  public java.util.concurrent.locks.ReadWriteLock asReadWriteLock() {
    return view;
  }

  @Override
  public String toString() {
    return "ReadWriteLock[" + write.dir() + "]";
  }
}
