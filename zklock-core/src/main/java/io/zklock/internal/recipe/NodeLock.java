package io.zklock.internal.recipe;

import io.zklock.LockHandle;
import io.zklock.internal.engine.LockRequest;
import io.zklock.internal.engine.RequestContext;
import io.zklock.internal.engine.Ticket;
import io.zklock.internal.protocol.KazooLeaseProtocol;
import io.zklock.internal.protocol.NodeProtocol;
import io.zklock.internal.protocol.QueueProtocol;
import io.zklock.internal.protocol.SingleNodeProtocol;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.Ordering;
import io.zklock.internal.rules.Waiting;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;
import java.util.function.IntConsumer;

/**
 * A lock whose requests run on the engine ({@link LockRequest}) with one {@link NodeProtocol}:
 *
 * <ul>
 *   <li>{@link #queue}: requests queue as sequential nodes in one directory and are granted by an
 *       {@link Ordering.Rule} ({@link QueueProtocol}): the mutex ({@link NodeKind#MUTEX}), the two
 *       sides of the read-write lock ({@link NodeKind#READ}, {@link NodeKind#WRITE}), the
 *       semaphore's admission and leases ({@link NodeKind#SEMAPHORE}), the election ({@link
 *       NodeKind#ELECTION}) and a cohort's global request;
 *   <li>{@link #simple}: the simple lock, one EPHEMERAL node whose creator holds the lock ({@link
 *       SingleNodeProtocol}); not fair, and a herd.
 * </ul>
 */
public final class NodeLock implements LockPart {
  private final RecipeContext ctx;
  private final String name;
  private final NodeProtocol protocol;
  private final Function<LockRequest, ? extends LockHandle> grantView;
  private final Lock view;

  /**
   * @param name the user's name of the lock
   * @param view makes the {@link #asLock()} view
   * @param grantView what a caller is handed at a grant (a recipe's wrapper of the request)
   */
  private NodeLock(
      RecipeContext ctx,
      String name,
      NodeProtocol protocol,
      Function<NodeLock, Lock> view,
      Function<LockRequest, ? extends LockHandle> grantView) {
    this.ctx = ctx;
    this.name = name;
    this.protocol = protocol;
    this.grantView = grantView;
    this.view = view.apply(this);
  }

  /** A queue lock of {@code kind} in the lock's own directory, by the kind's rule. */
  public static NodeLock queue(RecipeContext ctx, String name, NodeKind kind) {
    return queue(
        ctx, name, ctx.dirOf(name), kind, Ordering.forKind(kind), Map.of(), ReentrantView::new);
  }

  /**
   * A mutex with a lock-delay of {@code lockDelayNanos} after a failed grant ({@link
   * io.zklock.LockOptions#lockDelay}).
   */
  public static NodeLock queue(RecipeContext ctx, String name, NodeKind kind, long lockDelayNanos) {
    return new NodeLock(
        ctx,
        name,
        new QueueProtocol(ctx.dirOf(name), kind, Ordering.forKind(kind), Map.of(), lockDelayNanos),
        ReentrantView::new,
        r -> r);
  }

  /** A queue lock with everything chosen by the recipe; grants are handed out as they are. */
  static NodeLock queue(
      RecipeContext ctx,
      String name,
      String dir,
      NodeKind kind,
      Ordering.Rule rule,
      Map<String, String> extraData,
      Function<NodeLock, Lock> view) {
    return queue(ctx, name, dir, kind, rule, extraData, view, r -> r);
  }

  /**
   * A queue lock with everything chosen by the recipe.
   *
   * @param dir the directory where requests queue
   * @param extraData extra fields of every node's data
   * @param grantView what a caller is handed at a grant
   */
  static NodeLock queue(
      RecipeContext ctx,
      String name,
      String dir,
      NodeKind kind,
      Ordering.Rule rule,
      Map<String, String> extraData,
      Function<NodeLock, Lock> view,
      Function<LockRequest, ? extends LockHandle> grantView) {
    return new NodeLock(ctx, name, new QueueProtocol(dir, kind, rule, extraData), view, grantView);
  }

  /**
   * The leases of the kazoo-compatible semaphore {@code name} at {@code dir}, as Python kazoo's
   * {@code Semaphore} makes them ({@link KazooLeaseProtocol}); asked for only while its admission
   * is held.
   */
  static NodeLock kazooLeases(
      RecipeContext ctx, String name, String dir, int permits, Map<String, String> extraData) {
    return new NodeLock(
        ctx, name, new KazooLeaseProtocol(dir, permits, extraData), ReentrantView::new, r -> r);
  }

  /** The simple lock {@code name}: its node is {@code <dir>/}{@link NodeKind#SIMPLE_NODE}. */
  public static NodeLock simple(RecipeContext ctx, String name) {
    return new NodeLock(
        ctx, name, new SingleNodeProtocol(ctx.dirOf(name)), ReentrantView::new, r -> r);
  }

  @Override
  public RecipeContext ctx() {
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
    return start(waiting, null);
  }

  @Override
  public CompletableFuture<LockHandle> start(Waiting waiting, IntConsumer queued) {
    return start(waiting, queued, 0L);
  }

  /**
   * {@link #start(Waiting, IntConsumer)} for a request bound to session {@code boundSession}
   * ({@link LockRequest#boundTo}): created on that session only, and ended with a {@link
   * io.zklock.internal.engine.SessionEndedException} rather than created again when it ends before
   * the grant. 0 binds nothing.
   */
  CompletableFuture<LockHandle> start(Waiting waiting, IntConsumer queued, long boundSession) {
    ctx.checkOpen();
    RequestContext rc = ctx.requests();
    Ticket ticket = new Ticket(rc, waiting).onQueued(queued);
    return new LockRequest(name, protocol, rc, ticket, grantView).boundTo(boundSession).start();
  }

  @Override
  public String eventKind() {
    return kind().label();
  }

  @Override
  public Lock asLock() {
    return view;
  }

  /** Exclusive node locks have conditions: the mutex, the write side, the simple lock. */
  @Override
  public io.zklock.DistributedCondition newCondition(String conditionName) {
    io.zklock.internal.rules.NodeKind kind = protocol.kind();
    if (kind != io.zklock.internal.rules.NodeKind.MUTEX
        && kind != io.zklock.internal.rules.NodeKind.WRITE
        && kind != io.zklock.internal.rules.NodeKind.SIMPLE) {
      throw new UnsupportedOperationException(
          "the " + kind.label() + " lock " + dir() + " has no condition: only exclusive locks do");
    }
    return new ConditionImpl(ctx, this, dir(), conditionName);
  }

  @Override
  public String toString() {
    return protocol.label() + " " + dir();
  }
}
