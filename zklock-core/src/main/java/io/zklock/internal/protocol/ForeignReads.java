package io.zklock.internal.protocol;

import io.zklock.internal.rules.ForeignNode;
import io.zklock.internal.zk.ZkOps;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.KeeperException.Code;

/**
 * The one read that settles a child whose name alone cannot tell another library's lock node from a
 * directory ({@link ForeignNode#certain()}): its stat, an ephemeral node or not.
 */
public final class ForeignReads {
  private ForeignReads() {}

  /** How many names of directories a cache keeps before it starts again. */
  static final int CACHE_MAX = 1024;

  /**
   * Reads the stat of each of {@code foreign} (children of {@code dir}) not in {@code
   * notLockNodes}, pipelined: completes with those that are ephemeral nodes (lock nodes), in the
   * order given, or with null if a read failed. The others are added to {@code notLockNodes}.
   */
  public static CompletableFuture<List<ForeignNode>> read(
      ZkOps zk, String dir, List<ForeignNode> foreign, Set<String> notLockNodes) {
    CompletableFuture<List<ForeignNode>> done = new CompletableFuture<>();
    List<ForeignNode> toRead = new ArrayList<>();
    for (ForeignNode f : foreign) {
      if (!notLockNodes.contains(f.name())) {
        toRead.add(f);
      }
    }
    if (toRead.isEmpty()) {
      done.complete(List.of());
      return done;
    }
    boolean[] lockNode = new boolean[toRead.size()];
    AtomicInteger left = new AtomicInteger(toRead.size());
    AtomicBoolean failed = new AtomicBoolean();
    for (int i = 0; i < toRead.size(); i++) {
      int index = i;
      ForeignNode f = toRead.get(i);
      zk.exists(
          dir + "/" + f.name(),
          null,
          (rc, p, c, stat) -> {
            Code code = Code.get(rc);
            if (code == Code.OK && stat != null) {
              if (ForeignNode.ephemeral(stat.getEphemeralOwner())) {
                lockNode[index] = true;
              } else {
                if (notLockNodes.size() >= CACHE_MAX) {
                  notLockNodes.clear();
                }
                notLockNodes.add(f.name());
              }
            } else if (code != Code.NONODE) {
              failed.set(true);
            }
            if (left.decrementAndGet() == 0) {
              List<ForeignNode> found = new ArrayList<>();
              for (int j = 0; j < lockNode.length; j++) {
                if (lockNode[j]) {
                  found.add(toRead.get(j));
                }
              }
              done.complete(failed.get() ? null : found);
            }
          });
    }
    return done;
  }
}
