package io.zklock.internal;

import io.zklock.LockHandle;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;

/**
 * A lock whose requests queue as sequential nodes in one directory and are granted by an {@link
 * Ordering.Rule}: the mutex ({@link NodeKind#MUTEX}, exclusive), the two sides of the read-write
 * lock ({@link NodeKind#READ}, {@link NodeKind#WRITE}), the semaphore's leases ({@link
 * NodeKind#SEMAPHORE}) and the election ({@link NodeKind#ELECTION}). Each request is a {@link
 * LockRequest} speaking the {@link QueueProtocol}.
 */
final class QueueLock implements LockPart {
  private final ZkLocksImpl ctx;
  private final String name;
  private final QueueProtocol protocol;
  private final Function<LockRequest, ? extends LockHandle> grantView;
  private final Lock view;

  QueueLock(ZkLocksImpl ctx, String name, NodeKind kind) {
    this(ctx, name, ctx.dirOf(name), kind, Ordering.forKind(kind), Map.of(), ReentrantView::new);
  }

  /** A queue lock with everything chosen by the recipe; grants are handed out as they are. */
  QueueLock(
      ZkLocksImpl ctx,
      String name,
      String dir,
      NodeKind kind,
      Ordering.Rule rule,
      Map<String, String> extraData,
      Function<QueueLock, Lock> view) {
    this(ctx, name, dir, kind, rule, extraData, view, r -> r);
  }

  /**
   * A queue lock with everything chosen by the recipe.
   *
   * @param name the user's name of the lock
   * @param dir the directory where requests queue
   * @param extraData extra fields of every node's data
   * @param view makes the {@link #asLock()} view
   * @param grantView what a caller is handed at a grant (a recipe's wrapper of the request)
   */
  QueueLock(
      ZkLocksImpl ctx,
      String name,
      String dir,
      NodeKind kind,
      Ordering.Rule rule,
      Map<String, String> extraData,
      Function<QueueLock, Lock> view,
      Function<LockRequest, ? extends LockHandle> grantView) {
    this.ctx = ctx;
    this.name = name;
    this.protocol = new QueueProtocol(dir, kind, rule, extraData);
    this.grantView = grantView;
    this.view = view.apply(this);
  }

  @Override
  public ZkLocksImpl ctx() {
    return ctx;
  }

  @Override
  public String dir() {
    return protocol.dir();
  }

  @Override
  public String sortKey() {
    return dir() + "\u0000" + kind().prefix();
  }

  NodeKind kind() {
    return protocol.kind();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public CompletableFuture<LockHandle> start(Waiting waiting) {
    ctx.checkOpen();
    RequestContext rc = ctx.requestContext();
    return new LockRequest(name, protocol, rc, new Ticket(rc, waiting), grantView).start();
  }

  @Override
  public Lock asLock() {
    return view;
  }

  @Override
  public String toString() {
    return kind().label() + " " + dir();
  }
}
