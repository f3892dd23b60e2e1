package io.zklock.internal.zk;

import io.zklock.ZkLockException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.WatcherType;
import org.apache.zookeeper.data.ACL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The calls of one owner (a lock request), each callback run under a guard: a throwable escaping it
 * (a bug of zklock's, or an {@link Error} such as {@link StackOverflowError}) is handed to the
 * owner's {@code failed} instead of going back to ZooKeeper's client. Its event thread would log it
 * and go on, and whatever the callback was to complete (a caller blocked in {@code acquire()})
 * would wait for ever; the owner instead ends what the callback belonged to. A batch that answers
 * many owners' calls at once ({@link Batcher}) goes on to the others' callbacks.
 *
 * <p>Watchers are passed through as they are: a watch is removed by the identity of its watcher, so
 * an owner guards the watchers it makes itself, once, where it makes them ({@link #guard}).
 *
 * <p>Calls on one connection keep one identity below the guards ({@link #base}): what is shared
 * among the owners of a connection (its listings) keys on it.
 */
public final class GuardedOps implements ZkOps {
  private static final Logger log = LoggerFactory.getLogger(GuardedOps.class);

  private final ZkOps raw;
  private final Consumer<Throwable> failed;

  private GuardedOps(ZkOps raw, Consumer<Throwable> failed) {
    this.raw = raw;
    this.failed = failed;
  }

  /** {@code raw}'s calls, each callback's throwable handed to {@code failed}. */
  public static ZkOps of(ZkOps raw, Consumer<Throwable> failed) {
    Objects.requireNonNull(failed);
    return new GuardedOps(base(raw), failed);
  }

  /**
   * {@code raw}'s calls for an operation whose one outcome is {@code done} (a deletion, a
   * coordination call, a blocking read): a throwable escaping a callback fails it ({@link
   * #failing}).
   */
  public static ZkOps of(ZkOps raw, CompletableFuture<?> done, String path, long session) {
    return of(raw, failing(done, path, session));
  }

  /**
   * Where the guard of an operation whose one outcome is {@code done} hands a throwable: logged
   * once, at ERROR, and {@code done} failed with a {@link ZkLockException} naming {@code path} and
   * {@code session} (0: none), whose cause it is; so whoever waits for {@code done} hears it
   * instead of waiting for ever. A {@code done} already complete stays as it is.
   */
  public static Consumer<Throwable> failing(CompletableFuture<?> done, String path, long session) {
    Objects.requireNonNull(done);
    return t -> {
      log.error("zklock's code failed on a reply or watch for {}; its operation fails", path, t);
      done.completeExceptionally(
          new ZkLockException("zklock's code failed on a reply or watch: " + t, path, session, t));
    };
  }

  /** The calls below any guard: what {@code ops} sends on. */
  public static ZkOps base(ZkOps ops) {
    return ops instanceof GuardedOps g ? g.raw : ops;
  }

  /** Where the guard of {@code ops} hands a throwable, or null if {@code ops} has none. */
  public static Consumer<Throwable> failedOf(ZkOps ops) {
    return ops instanceof GuardedOps g ? g.failed : null;
  }

  /** {@code watcher}, a throwable escaping it handed to {@code failed}. */
  public static Watcher guard(Watcher watcher, Consumer<Throwable> failed) {
    return event -> run(() -> watcher.process(event), failed);
  }

  /**
   * Runs {@code body}, a throwable escaping it handed to {@code failed}. Never throws: should
   * {@code failed} throw too, both are logged here.
   */
  public static void run(Runnable body, Consumer<Throwable> failed) {
    try {
      body.run();
    } catch (Throwable t) {
      try {
        failed.accept(t);
      } catch (Throwable t2) {
        t2.addSuppressed(t);
        log.error("a callback failed, and so did ending what it belonged to", t2);
      }
    }
  }

  @Override
  public void create(
      String path, byte[] data, List<ACL> acl, CreateMode mode, AsyncCallback.Create2Callback cb) {
    raw.create(
        path,
        data,
        acl,
        mode,
        (rc, p, c, name, stat) -> run(() -> cb.processResult(rc, p, c, name, stat), failed));
  }

  @Override
  public void getChildren(String path, Watcher watcher, AsyncCallback.Children2Callback cb) {
    raw.getChildren(
        path,
        watcher,
        (rc, p, c, children, stat) ->
            run(() -> cb.processResult(rc, p, c, children, stat), failed));
  }

  @Override
  public void listChildren(String path, AsyncCallback.ChildrenCallback cb) {
    raw.listChildren(
        path, (rc, p, c, children) -> run(() -> cb.processResult(rc, p, c, children), failed));
  }

  @Override
  public void getData(String path, Watcher watcher, AsyncCallback.DataCallback cb) {
    raw.getData(
        path,
        watcher,
        (rc, p, c, data, stat) -> run(() -> cb.processResult(rc, p, c, data, stat), failed));
  }

  @Override
  public void exists(String path, Watcher watcher, AsyncCallback.StatCallback cb) {
    raw.exists(
        path, watcher, (rc, p, c, stat) -> run(() -> cb.processResult(rc, p, c, stat), failed));
  }

  @Override
  public void delete(String path, int version, AsyncCallback.VoidCallback cb) {
    raw.delete(path, version, (rc, p, c) -> run(() -> cb.processResult(rc, p, c), failed));
  }

  @Override
  public void getACL(String path, AsyncCallback.ACLCallback cb) {
    raw.getACL(
        path, (rc, p, c, acl, stat) -> run(() -> cb.processResult(rc, p, c, acl, stat), failed));
  }

  @Override
  public void setData(String path, byte[] data, int version, AsyncCallback.StatCallback cb) {
    raw.setData(
        path,
        data,
        version,
        (rc, p, c, stat) -> run(() -> cb.processResult(rc, p, c, stat), failed));
  }

  @Override
  public void removeWatches(
      String path, Watcher watcher, WatcherType type, AsyncCallback.VoidCallback cb) {
    raw.removeWatches(
        path, watcher, type, (rc, p, c) -> run(() -> cb.processResult(rc, p, c), failed));
  }

  @Override
  public void removeAllWatches(String path, WatcherType type, AsyncCallback.VoidCallback cb) {
    raw.removeAllWatches(path, type, (rc, p, c) -> run(() -> cb.processResult(rc, p, c), failed));
  }

  @Override
  public void sync(String path, AsyncCallback.VoidCallback cb) {
    raw.sync(path, (rc, p, c) -> run(() -> cb.processResult(rc, p, c), failed));
  }

  @Override
  public void multi(List<Op> ops, AsyncCallback.MultiCallback cb) {
    raw.multi(ops, (rc, p, c, results) -> run(() -> cb.processResult(rc, p, c, results), failed));
  }

  @Override
  public void addWatch(
      String path, Watcher watcher, AddWatchMode mode, AsyncCallback.VoidCallback cb) {
    raw.addWatch(path, watcher, mode, (rc, p, c) -> run(() -> cb.processResult(rc, p, c), failed));
  }

  @Override
  public boolean connected() {
    return raw.connected();
  }
}
