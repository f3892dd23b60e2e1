package io.zklock.internal.recipe;

import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.LockOptions;
import io.zklock.ReadWriteLock;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.Ordering;
import java.util.Map;
import java.util.Objects;

/**
 * The read-write lock: two {@link NodeLock}s, {@link NodeKind#READ} and {@link NodeKind#WRITE},
 * queueing in one directory under {@link Ordering#shared} and {@link Ordering#exclusive}; a
 * downgrade pins the write node (see {@link WriteHandle#pin()}); {@link RwView} is the thread-aware
 * JDK view.
 *
 * <p>With {@link LockOptions#curatorCompatible()} the two sides are {@link NodeKind#CURATOR_READ}
 * and {@link NodeKind#CURATOR_WRITE}, named as Curator's {@code InterProcessReadWriteLock} names
 * its nodes, ordered by the same rules. With {@link LockOptions#kazooCompatible()} they are {@link
 * NodeKind#KAZOO_READ} and {@link NodeKind#KAZOO_LOCK}, named as Python kazoo's {@code ReadLock}
 * and {@code WriteLock} name theirs.
 *
 * <p>With cohort options the two sides are {@link CohortLock}s of kinds {@link
 * NodeKind#COHORT_READ} (shared mode) and {@link NodeKind#COHORT_WRITE}, ordered by the same rules;
 * a downgrade is then not supported.
 */
public final class ReadWriteLockImpl implements ReadWriteLock {
  private final RecipeContext ctx;
  private final String name;
  private final LockPart read;
  private final LockPart write;
  private final RwView view;
  private final LockOptions options;

  public ReadWriteLockImpl(RecipeContext ctx, String name) {
    this(ctx, name, LockOptions.defaults());
  }

  /** A read-write lock, a cohort one if {@code options} say so. */
  public ReadWriteLockImpl(RecipeContext ctx, String name, LockOptions options) {
    this.ctx = ctx;
    this.name = name;
    this.options = options;
    this.view = new RwView(this);
    if (options.isCohort()) {
      this.read = new CohortLock(ctx, name, options, NodeKind.COHORT_READ, view::newReadView);
      this.write = new CohortLock(ctx, name, options, NodeKind.COHORT_WRITE, view::newWriteView);
      return;
    }
    String dir = ctx.dirOf(name);
    NodeKind readKind =
        options.isCuratorCompatible()
            ? NodeKind.CURATOR_READ
            : options.isKazooCompatible() ? NodeKind.KAZOO_READ : NodeKind.READ;
    NodeKind writeKind =
        options.isCuratorCompatible()
            ? NodeKind.CURATOR_WRITE
            : options.isKazooCompatible() ? NodeKind.KAZOO_LOCK : NodeKind.WRITE;
    this.read =
        NodeLock.queue(
            ctx, name, dir, readKind, Ordering.forKind(readKind), Map.of(), view::newReadView);
    this.write =
        NodeLock.queue(
            ctx,
            name,
            dir,
            writeKind,
            Ordering.forKind(writeKind),
            Map.of(),
            view::newWriteView,
            r -> new WriteHandle(r, this));
  }

  public LockOptions options() {
    return options;
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
    writeHandle = Observing.unwrap(writeHandle);
    if (options.isCohort()) {
      throw new UnsupportedOperationException(
          "a cohort read-write lock does not support downgrade: " + write.dir());
    }
    if (!(writeHandle instanceof WriteHandle w) || w.lock() != this) {
      throw new IllegalArgumentException(
          "not a write handle of the read-write lock " + write.dir() + ": " + writeHandle);
    }
    if (!w.pin()) {
      throw new IllegalMonitorStateException(
          "cannot downgrade: the write handle no longer holds " + write.dir() + ": " + writeHandle);
    }
    return new DowngradedHandle(w);
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
