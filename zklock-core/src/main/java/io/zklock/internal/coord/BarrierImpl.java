package io.zklock.internal.coord;

import io.zklock.DistributedBarrier;
import io.zklock.internal.rules.Args;
import io.zklock.internal.zk.Blocking;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;

/** The barrier: one persistent node; waiters wait for its deletion with a {@link NodeWatch}. */
public final class BarrierImpl implements DistributedBarrier {
  public static final String KIND = "barrier";
  private static final byte[] DATA =
      ("{\"kind\":\"" + KIND + "\"}").getBytes(StandardCharsets.UTF_8);

  private final CoordContext ctx;
  private final String name;
  private final String path;
  private final ZkCalls calls;

  public BarrierImpl(CoordContext ctx, String name) {
    this.ctx = ctx;
    this.name = name;
    this.path = ctx.dirOf(name);
    this.calls = new ZkCalls(ctx);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void set() {
    ctx.checkOpen();
    expect(calls.create(path, DATA, CreateMode.PERSISTENT), Code.OK, Code.NODEEXISTS);
  }

  @Override
  public void remove() {
    ctx.checkOpen();
    expect(calls.delete(path), Code.OK, Code.NONODE);
  }

  @Override
  public boolean isSet() {
    ctx.checkOpen();
    try {
      return Blocking.join(calls.exists(path));
    } catch (RuntimeException e) {
      throw Waits.unchecked(e);
    }
  }

  private void expect(CompletableFuture<Code> f, Code a, Code b) {
    Code code;
    try {
      code = Blocking.join(f);
    } catch (RuntimeException e) {
      throw Waits.unchecked(e);
    }
    if (code != a && code != b) {
      throw ZkCalls.failure(path, code);
    }
  }

  @Override
  public void await() throws InterruptedException {
    ctx.checkOpen();
    await(-1L);
  }

  @Override
  public boolean await(Duration timeout) throws InterruptedException {
    long nanos = Args.timeoutNanos(timeout);
    ctx.checkOpen();
    return await(nanos);
  }

  /** Waits for the removal, told on the lock event seam; negative {@code nanos}: no time-out. */
  private boolean await(long nanos) throws InterruptedException {
    return ctx.observed(
        name,
        KIND,
        () -> nanos == 0 ? !isSet() : Waits.join(NodeWatch.until(ctx, path, false, nanos)));
  }

  @Override
  public String toString() {
    return "DistributedBarrier[" + path + "]";
  }
}
