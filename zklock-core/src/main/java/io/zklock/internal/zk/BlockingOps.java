package io.zklock.internal.zk;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * ZooKeeper's blocking calls, made on the seam: each sends the asynchronous call of {@link ZkOps}
 * and waits for its answer, and fails as ZooKeeper's blocking call does ({@link KeeperException}
 * with the code, {@link InterruptedException}). For the few callers that block by contract (the
 * inspection API, the namespace's creation at build); never on ZooKeeper's event thread.
 */
public final class BlockingOps {
  private final ZkOps ops;

  public BlockingOps(ZkOps ops) {
    this.ops = ops;
  }

  /** The asynchronous calls underneath (for reads that are sent together, then awaited). */
  public ZkOps ops() {
    return ops;
  }

  /** Creates {@code path}; returns the name the server gave it. */
  public String create(String path, byte[] data, List<ACL> acl, CreateMode mode)
      throws KeeperException, InterruptedException {
    CompletableFuture<String> f = new CompletableFuture<>();
    guarded(f, path)
        .create(path, data, acl, mode, (rc, p, c, name, stat) -> answer(f, rc, p, name));
    return await(f);
  }

  /** The stat of {@code path}, or null if there is no such node. */
  public Stat exists(String path) throws KeeperException, InterruptedException {
    CompletableFuture<Stat> f = new CompletableFuture<>();
    guarded(f, path)
        .exists(
            path,
            null,
            (rc, p, c, stat) -> {
              if (Code.get(rc) == Code.NONODE) {
                f.complete(null);
              } else {
                answer(f, rc, p, stat);
              }
            });
    return await(f);
  }

  /** The data of {@code path}; its stat is copied into {@code stat} if not null. */
  public byte[] getData(String path, Stat stat) throws KeeperException, InterruptedException {
    CompletableFuture<byte[]> f = new CompletableFuture<>();
    guarded(f, path)
        .getData(
            path,
            null,
            (rc, p, c, data, s) -> {
              if (Code.get(rc) == Code.OK && stat != null && s != null) {
                copy(s, stat);
              }
              answer(f, rc, p, data);
            });
    return await(f);
  }

  /** The children of {@code path}; the directory's stat is copied into {@code stat} if not null. */
  public List<String> getChildren(String path, Stat stat)
      throws KeeperException, InterruptedException {
    CompletableFuture<List<String>> f = new CompletableFuture<>();
    guarded(f, path)
        .getChildren(
            path,
            null,
            (rc, p, c, children, s) -> {
              if (Code.get(rc) == Code.OK && stat != null && s != null) {
                copy(s, stat);
              }
              answer(f, rc, p, children);
            });
    return await(f);
  }

  /** Sets the data of {@code path} if its version is {@code version} ({@code -1}: any). */
  public Stat setData(String path, byte[] data, int version)
      throws KeeperException, InterruptedException {
    CompletableFuture<Stat> f = new CompletableFuture<>();
    guarded(f, path).setData(path, data, version, (rc, p, c, stat) -> answer(f, rc, p, stat));
    return await(f);
  }

  /** Deletes {@code path} if its version is {@code version} ({@code -1}: any). */
  public void delete(String path, int version) throws KeeperException, InterruptedException {
    CompletableFuture<Boolean> f = new CompletableFuture<>();
    guarded(f, path).delete(path, version, (rc, p, c) -> answer(f, rc, p, Boolean.TRUE));
    await(f);
  }

  /** Applies {@code ops} as one transaction; fails with the first failed op's code. */
  public List<OpResult> multi(List<Op> transaction) throws KeeperException, InterruptedException {
    CompletableFuture<List<OpResult>> f = new CompletableFuture<>();
    guarded(f, transaction.isEmpty() ? null : transaction.get(0).getPath())
        .multi(transaction, (rc, p, c, results) -> answer(f, rc, p, results));
    return await(f);
  }

  /**
   * The calls for one blocking call whose answer is {@code f}: a throwable escaping its callback
   * (on ZooKeeper's event thread, which would drop it) fails {@code f}, so the caller does not wait
   * for ever ({@link GuardedOps#failing}).
   */
  private ZkOps guarded(CompletableFuture<?> f, String path) {
    return GuardedOps.of(ops, f, path, 0L);
  }

  private static <T> void answer(CompletableFuture<T> f, int rc, String path, T value) {
    Code code = Code.get(rc);
    if (code == Code.OK) {
      f.complete(value);
    } else {
      f.completeExceptionally(KeeperException.create(code, path));
    }
  }

  private static <T> T await(CompletableFuture<T> f) throws KeeperException, InterruptedException {
    try {
      return Blocking.get(f);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof KeeperException k) {
        throw k;
      }
      if (e.getCause() instanceof io.zklock.ZkLockException z) {
        throw z; // a callback threw (guarded)
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  private static void copy(Stat from, Stat to) {
    to.setCzxid(from.getCzxid());
    to.setMzxid(from.getMzxid());
    to.setCtime(from.getCtime());
    to.setMtime(from.getMtime());
    to.setVersion(from.getVersion());
    to.setCversion(from.getCversion());
    to.setAversion(from.getAversion());
    to.setEphemeralOwner(from.getEphemeralOwner());
    to.setDataLength(from.getDataLength());
    to.setNumChildren(from.getNumChildren());
    to.setPzxid(from.getPzxid());
  }
}
