package io.zklock.internal;

import io.zklock.LockHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

/**
 * The simple lock of seeds 000 §2.1 and 001: one EPHEMERAL node, {@code <dir>/x-lock}, whose
 * creator holds the lock. Its data names the owner (client, session, attempt id), so that a create
 * or delete whose reply was lost to a connection loss can be checked by reading the node back.
 * Waiters watch the node and all try again when it goes: not fair, and a herd. Each request is a
 * {@link SimpleAttempt}.
 */
final class SimpleLock implements LockPart {
  /** The name of the lock node inside the directory. */
  static final String NODE = NodeKind.SIMPLE.prefix() + "-lock";

  private final ZkLocksImpl ctx;
  private final String name;
  private final String dir;
  private final Lock view;

  SimpleLock(ZkLocksImpl ctx, String name) {
    this.ctx = ctx;
    this.name = name;
    this.dir = ctx.dirOf(name);
    this.view = new ReentrantView(this);
  }

  @Override
  public ZkLocksImpl ctx() {
    return ctx;
  }

  @Override
  public String dir() {
    return dir;
  }

  String path() {
    return dir + "/" + NODE;
  }

  @Override
  public String sortKey() {
    return dir + "\u0000" + NodeKind.SIMPLE.prefix();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public CompletableFuture<LockHandle> start(Waiting waiting) {
    ctx.checkOpen();
    return new SimpleAttempt(this, new Ticket(ctx, waiting)).start();
  }

  @Override
  public Lock asLock() {
    return view;
  }

  @Override
  public String toString() {
    return "simple " + dir;
  }
}
