package io.zklock.interop;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * Go's zookeeper client's {@code Lock} ({@code go-zookeeper/zk}, {@code lock.go}), step for step,
 * on a ZooKeeper session of its own: there is no Go toolchain here, so this client makes the same
 * requests in the same order, with the same names, and decides as Go's does.
 *
 * <ul>
 *   <li>{@code CreateProtectedEphemeralSequential(path + "/lock-")}: the node {@code
 *       _c_<guid>-lock-<sequence>}, the guid 16 random bytes as {@code fmt "%x"} writes them (32
 *       lowercase hex digits); on {@code NoNode} it creates each missing parent, persistent, and
 *       tries again (three times at most).
 *   <li>{@code parseSeq}: the text after the last {@code lock-}, else after the last {@code __},
 *       read by {@code strconv.Atoi}; a child it cannot read makes {@code Lock} return the error,
 *       its own node left behind.
 *   <li>Then, in a loop: list the children; hold if its own sequence is the lowest; else {@code
 *       GetW} the child with the largest sequence below its own ({@code NoNode}: list again), wait
 *       for that node's first event, and list again.
 *   <li>{@code Unlock}: delete its node.
 * </ul>
 */
final class GoLock {
  private static final SecureRandom RANDOM = new SecureRandom();

  private final ZooKeeper zk;
  private final String path;
  private volatile String lockPath;

  /**
   * Go's {@code ErrDeadlock}-free twin of {@code strconv.Atoi}'s error: {@code Lock} returned it.
   */
  static final class ParseError extends Exception {
    ParseError(String child) {
      super("strconv.Atoi: parsing " + child + ": invalid syntax");
    }
  }

  GoLock(ZooKeeper zk, String path) {
    this.zk = zk;
    this.path = path;
  }

  /** The node this lock created (held or not), or null. */
  String node() {
    return lockPath;
  }

  /** {@code LockWithData(data)}: returns once held. */
  void lock(String data) throws Exception {
    String prefix = path + "/lock-";
    String created = null;
    for (int i = 0; i < 3; i++) {
      try {
        created = createProtectedEphemeralSequential(prefix, data);
        break;
      } catch (KeeperException.NoNodeException e) {
        String pth = "";
        for (String p : path.substring(1).split("/")) {
          pth += "/" + p;
          if (zk.exists(pth, false) != null) {
            continue;
          }
          try {
            zk.create(pth, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
          } catch (KeeperException.NodeExistsException ignored) {
            // as Go: ErrNodeExists is fine
          }
        }
      }
    }
    if (created == null) {
      throw new IllegalStateException("no node created under " + path);
    }
    lockPath = created; // Go keeps it only on success; the node stays either way
    long seq = parseSeq(created);
    if (seq == Long.MIN_VALUE) {
      throw new ParseError(created);
    }
    while (true) {
      List<String> children = zk.getChildren(path, false);
      long lowestSeq = seq;
      long prevSeq = -1;
      String prevSeqPath = "";
      for (String p : children) {
        long s = parseSeq(p);
        if (s == Long.MIN_VALUE) {
          throw new ParseError(p);
        }
        if (s < lowestSeq) {
          lowestSeq = s;
        }
        if (s < seq && s > prevSeq) {
          prevSeq = s;
          prevSeqPath = p;
        }
      }
      if (seq == lowestSeq) {
        return; // acquired
      }
      LinkedBlockingQueue<WatchedEvent> ch = new LinkedBlockingQueue<>();
      try {
        zk.getData(
            path + "/" + prevSeqPath,
            e -> {
              if (e.getType() != EventType.None) {
                ch.add(e);
              }
            },
            null);
      } catch (KeeperException.NoNodeException e) {
        continue; // try again
      }
      ch.take();
    }
  }

  /** {@link #lock} on a thread of its own: completes when held, or with Go's error. */
  CompletableFuture<Void> lockAsync(String data) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              try {
                lock(data);
                done.complete(null);
              } catch (Throwable e) {
                done.completeExceptionally(e);
              }
            },
            "go-lock");
    t.setDaemon(true);
    t.start();
    return done;
  }

  /** {@code Unlock}: deletes the node. */
  void unlock() throws Exception {
    zk.delete(lockPath, -1);
    lockPath = null;
  }

  private String createProtectedEphemeralSequential(String prefixPath, String data)
      throws Exception {
    byte[] guid = new byte[16];
    RANDOM.nextBytes(guid);
    int slash = prefixPath.lastIndexOf('/');
    String protectedPath =
        prefixPath.substring(0, slash + 1)
            + "_c_"
            + HexFormat.of().formatHex(guid)
            + "-"
            + prefixPath.substring(slash + 1);
    return zk.create(
        protectedPath,
        data.getBytes(StandardCharsets.UTF_8),
        ZooDefs.Ids.OPEN_ACL_UNSAFE,
        CreateMode.EPHEMERAL_SEQUENTIAL);
  }

  /** Go's {@code parseSeq}: Long.MIN_VALUE where {@code strconv.Atoi} returns an error. */
  static long parseSeq(String path) {
    String[] parts = path.split("lock-", -1);
    if (parts.length == 1) {
      parts = path.split("__", -1);
    }
    String last = parts[parts.length - 1];
    if (!last.matches("[+-]?[0-9]+")) {
      return Long.MIN_VALUE;
    }
    try {
      return Long.parseLong(last);
    } catch (NumberFormatException e) {
      return Long.MIN_VALUE;
    }
  }
}
