package io.zklock.internal;

import io.zklock.LockHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

/**
 * The simple lock of seeds 000 §2.1 and 001: one EPHEMERAL node, {@code <dir>/x-lock}, whose
 * creator holds the lock. Its data names the owner (client, session, attempt id), so that a create
 * or delete whose reply was lost to a connection loss can be checked by reading the node back.
 * Waiters watch the node and all try again when it goes: not fair, and a herd. Each request is a
 * {@link LockRequest} speaking the {@link SingleNodeProtocol}.
 */
final class SimpleLock implements LockPart {
  /** The name of the lock node inside the directory. */
  static final String NODE = NodeKind.SIMPLE.prefix() + "-lock";

  private final ZkLocksImpl ctx;
  private final String name;
  private final SingleNodeProtocol protocol;
  private final Lock view;

  SimpleLock(ZkLocksImpl ctx, String name) {
    this.ctx = ctx;
    this.name = name;
    String dir = ctx.dirOf(name);
    this.protocol = new SingleNodeProtocol(dir, dir + "/" + NODE);
    this.view = new ReentrantView(this);
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
    return dir() + "\u0000" + NodeKind.SIMPLE.prefix();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public CompletableFuture<LockHandle> start(Waiting waiting) {
    ctx.checkOpen();
    RequestContext rc = ctx.requestContext();
    return new LockRequest(name, protocol, rc, new Ticket(rc, waiting), r -> r).start();
  }

  @Override
  public Lock asLock() {
    return view;
  }

  @Override
  public String toString() {
    return "simple " + dir();
  }
}
