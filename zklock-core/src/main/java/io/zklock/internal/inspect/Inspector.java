package io.zklock.internal.inspect;

import io.zklock.LockInfo;
import io.zklock.LockNode;
import io.zklock.ZkLockException;
import io.zklock.internal.rules.Clock;
import io.zklock.internal.rules.ErrorKind;
import io.zklock.internal.rules.ForeignNode;
import io.zklock.internal.rules.Json;
import io.zklock.internal.rules.KazooSemaphore;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.QueueNode;
import io.zklock.internal.rules.Waiting;
import io.zklock.internal.zk.Blocking;
import io.zklock.internal.zk.BlockingOps;
import io.zklock.internal.zk.GuardedOps;
import io.zklock.internal.zk.Lifecycle;
import io.zklock.internal.zk.Session;
import io.zklock.internal.zk.SessionConfig;
import io.zklock.internal.zk.ZkOps;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * The reads and writes behind {@code ZkLocks#inspect}, {@code #inspectAll}, {@code #forceRelease}
 * and {@code #requestRelease}: blocking, on the caller's thread, through the instance's session.
 * Who holds and who waits is decided by {@link Inspection}.
 */
public final class Inspector {
  /** The children of a semaphore's directory. */
  public static final String LEASES = "leases";

  public static final String QUEUE = "queue";

  private final Session session;
  private final SessionConfig config;
  private final Clock clock;
  private final Lifecycle lifecycle;
  private final List<ACL> acl;

  /**
   * @param session the instance's session, whose connection the reads use
   * @param config for the namespace, the client name and the connect timeout
   * @param lifecycle refuses reads once the instance is closed
   * @param acl the ACL of the nodes it creates (hold-off marks and their directories)
   */
  public Inspector(
      Session session, SessionConfig config, Clock clock, Lifecycle lifecycle, List<ACL> acl) {
    this.session = session;
    this.config = config;
    this.clock = clock;
    this.lifecycle = lifecycle;
    this.acl = acl;
  }

  private String dirOf(String name) {
    return config.namespace() + "/" + name;
  }

  /**
   * One step of I/O on a connected session, through the seam's blocking calls ({@code inspect} and
   * its kin block by contract); connection losses are retried by {@link #io}.
   */
  @FunctionalInterface
  private interface Io<T> {
    T run(BlockingOps zk) throws KeeperException, InterruptedException;
  }

  // ---------------------------------------------------------------- hold-off marks

  /** The child of a lock directory that keeps it closed ({@code ZkLocks#holdOff}). */
  static final String HOLD_OFF = "hold-off";

  /**
   * Writes the hold-off mark of {@code name}: a PERSISTENT node created now (so its ctime, the
   * leader's time of the write, marks the start) whose data is the duration in milliseconds. An
   * earlier mark is replaced in the same transaction.
   */
  public void holdOff(String name, long millis) {
    String dir = dirOf(name);
    String mark = dir + "/" + HOLD_OFF;
    byte[] data = Long.toString(millis).getBytes(StandardCharsets.UTF_8);
    io(
        mark,
        zk -> {
          while (true) {
            try {
              zk.create(mark, data, acl, CreateMode.PERSISTENT);
              return null;
            } catch (KeeperException.NodeExistsException e) {
              try {
                zk.multi(
                    List.of(
                        Op.delete(mark, -1), Op.create(mark, data, acl, CreateMode.PERSISTENT)));
                return null;
              } catch (KeeperException.NoNodeException
                  | KeeperException.NodeExistsException raced) {
                // deleted or made again meanwhile: once more
              }
            } catch (KeeperException.NoNodeException e) {
              makeDirs(zk, dir);
            }
          }
        });
  }

  /**
   * The time left on the hold-off mark of {@code name}, by the ensemble's clock: the mark's ctime
   * plus its duration, less the mtime of a write made now to the mark (which leaves its ctime and
   * data as they are). A mark that ran out is deleted. 0 without a mark.
   */
  public long holdOffRemaining(String name) {
    String mark = dirOf(name) + "/" + HOLD_OFF;
    return io(
        mark,
        zk -> {
          while (true) {
            Stat mine = new Stat();
            byte[] data;
            try {
              data = zk.getData(mark, mine);
            } catch (KeeperException.NoNodeException none) {
              return 0L;
            }
            long millis;
            try {
              millis = Long.parseLong(new String(data, StandardCharsets.UTF_8).trim());
            } catch (NumberFormatException e) {
              millis = 0L; // not a mark of ours: treat as run out
            }
            Stat now;
            try {
              now = zk.setData(mark, data, mine.getVersion()); // the server's time, as mtime
            } catch (KeeperException.NoNodeException | KeeperException.BadVersionException raced) {
              continue; // replaced or deleted meanwhile: read again
            }
            long remaining = mine.getCtime() + millis - now.getMtime();
            if (remaining > 0) {
              return remaining;
            }
            try {
              zk.delete(mark, now.getVersion());
            } catch (KeeperException.NoNodeException | KeeperException.BadVersionException raced) {
              continue; // replaced meanwhile: read the new one
            }
            return 0L;
          }
        });
  }

  // the namespace (persistent) and the lock directory's path (containers), where missing
  private void makeDirs(BlockingOps zk, String dir) throws KeeperException, InterruptedException {
    String ns = config.namespace();
    StringBuilder at = new StringBuilder();
    for (String segment : dir.substring(1).split("/")) {
      at.append('/').append(segment);
      String p = at.toString();
      if (p.length() < ns.length() && ns.startsWith(p + "/")) {
        continue; // above the namespace (a chroot's own path): must exist
      }
      try {
        zk.create(
            p,
            new byte[0],
            acl,
            p.length() <= ns.length() ? CreateMode.PERSISTENT : CreateMode.CONTAINER);
      } catch (KeeperException.NodeExistsException fine) {
        // there already
      }
    }
  }

  // ---------------------------------------------------------------- reading

  public Optional<LockInfo> inspect(String name) {
    String dir = dirOf(name);
    return io(dir, zk -> read(zk, name, dir, null, null));
  }

  public List<LockInfo> inspectAll(String under) {
    String root = under.isEmpty() ? config.namespace() : dirOf(under);
    return io(
        root.isEmpty() ? "/" : root,
        zk -> {
          List<LockInfo> out = new ArrayList<>();
          walk(zk, root.isEmpty() ? "/" : root, out);
          out.sort((a, b) -> a.name().compareTo(b.name()));
          return out;
        });
  }

  private void walk(BlockingOps zk, String dir, List<LockInfo> out)
      throws KeeperException, InterruptedException {
    List<String> children;
    Stat stat = new Stat();
    try {
      children = zk.getChildren(dir, stat);
    } catch (KeeperException.NoNodeException gone) {
      return;
    }
    String ns = config.namespace();
    boolean isLockDir = dir.length() > ns.length() && !dir.equals("/");
    boolean semaphore = false;
    String recipe = null;
    Set<String> shown = new HashSet<>(); // its lock nodes, another library's too: no directories
    if (isLockDir) {
      String name = dir.substring(ns.length() + 1);
      Optional<LockInfo> info = read(zk, name, dir, children, stat);
      info.ifPresent(out::add);
      semaphore = info.map(i -> i.kind() == LockInfo.Kind.SEMAPHORE).orElse(false);
      recipe = recipeOf(info.map(LockInfo::kind).orElse(null), dir);
      info.ifPresent(
          i -> {
            i.holders().forEach(n -> shown.add(n.name()));
            i.waiters().forEach(n -> shown.add(n.name()));
          });
    }
    Collections.sort(children);
    for (String child : children) {
      if (isKazooAdmission(out, dir, child)) {
        continue; // shown as the semaphore's waiters
      }
      if (isLockNode(child)
          || shown.contains(child)
          || isCertainlyForeign(child)
          || Inspection.isRecipeNode(recipe, child)
          || (semaphore
              && (child.equals(LEASES)
                  || child.equals(QUEUE)
                  || child.equals(NodeKind.CURATOR_SEMAPHORE_LOCKS)))
          || (dir.equals("/") && child.equals("zookeeper"))) {
        continue;
      }
      walk(zk, dir.equals("/") ? "/" + child : dir + "/" + child, out);
    }
  }

  /**
   * Whether {@code child} of {@code dir} is the admission lock ({@code <name>-__lock__}) of a kazoo
   * semaphore shown already (its sibling {@code <name>} sorts, and is walked, before it).
   */
  private static boolean isKazooAdmission(List<LockInfo> out, String dir, String child) {
    if (!child.endsWith(KazooSemaphore.ADMISSION_SUFFIX) || out.isEmpty()) {
      return false;
    }
    String semaphore =
        (dir.equals("/") ? "" : dir)
            + "/"
            + child.substring(0, child.length() - KazooSemaphore.ADMISSION_SUFFIX.length());
    for (int i = out.size() - 1; i >= 0; i--) {
      LockInfo info = out.get(i);
      if (info.path().equals(semaphore)) {
        return info.kind() == LockInfo.Kind.SEMAPHORE
            && java.util.stream.Stream.concat(info.holders().stream(), info.waiters().stream())
                .anyMatch(n -> n.kind() == io.zklock.LockNode.Kind.KAZOO_LEASE);
      }
    }
    return false;
  }

  /** The recipe whose own nodes a directory holds, to walk past them: null for a lock's. */
  private static String recipeOf(LockInfo.Kind kind, String dir) {
    if (Inspection.isConditionDir(dir)) {
      return Inspection.CONDITION_INFIX;
    }
    if (kind == LockInfo.Kind.LATCH) {
      return Inspection.LATCH;
    }
    if (kind == LockInfo.Kind.DOUBLE_BARRIER) {
      return Inspection.DOUBLE_BARRIER;
    }
    return null;
  }

  /**
   * Reads one lock directory ({@code children} and {@code stat} if already listed, else listed
   * here) and decides. A coordination recipe's directory is told by its data (read only when the
   * listing's stat shows some), a condition's by its name: neither costs a request more than a
   * lock's.
   */
  private Optional<LockInfo> read(
      BlockingOps zk, String name, String dir, List<String> children, Stat stat)
      throws KeeperException, InterruptedException {
    if (children == null) {
      stat = new Stat();
      try {
        children = zk.getChildren(dir, stat);
      } catch (KeeperException.NoNodeException gone) {
        return Optional.empty();
      }
    }
    if (Inspection.isConditionDir(dir)) {
      return Inspection.decideCoordination(name, dir, Map.of(), children);
    }
    if (stat.getDataLength() > 0
        && !children.contains(LEASES)
        && !children.contains(QUEUE)
        && !dir.endsWith("/" + HOLD_OFF)) { // a hold-off mark's data is its duration
      byte[] raw = rawDataOf(zk, dir);
      // kazoo's semaphore: its count as plain text, its leases bare 32-hex-digit names
      int kazooPermits = kazooCount(raw);
      if (kazooPermits > 0 && children.stream().allMatch(KazooSemaphore::isLeaseName)) {
        return readKazooSemaphore(zk, name, dir, children, kazooPermits);
      }
      Map<String, String> data = parse(raw);
      if (Inspection.isCoordination(data.get("kind"))) {
        return Inspection.decideCoordination(name, dir, data, children);
      }
    }
    return readLock(zk, name, dir, children, stat);
  }

  /** The positive count a kazoo semaphore's path stores as plain text, or 0 if none. */
  private static int kazooCount(byte[] data) {
    if (data == null || data.length == 0 || data.length > 24) {
      return 0;
    }
    Long n = KazooSemaphore.pythonInt(new String(data, StandardCharsets.UTF_8));
    return n != null && n > 0 && n <= Integer.MAX_VALUE ? n.intValue() : 0;
  }

  private static byte[] rawDataOf(BlockingOps zk, String path)
      throws KeeperException, InterruptedException {
    try {
      return zk.getData(path, null);
    } catch (KeeperException.NoNodeException gone) {
      return null;
    }
  }

  /** Reads a kazoo semaphore's leases and its admission queue, in one round trip. */
  private Optional<LockInfo> readKazooSemaphore(
      BlockingOps zk, String name, String dir, List<String> leases, int permits)
      throws KeeperException, InterruptedException {
    String admissionDir = KazooSemaphore.admissionDir(dir);
    List<String> admission = childrenOf(zk, admissionDir);
    List<CompletableFuture<Inspection.Read>> leaseReads = send(zk.ops(), dir, leases);
    List<CompletableFuture<Inspection.Read>> admissionReads =
        send(zk.ops(), admissionDir, admission);
    return Inspection.decideKazooSemaphore(
        name, dir, permits, collect(leaseReads), collect(admissionReads));
  }

  private Optional<LockInfo> readLock(
      BlockingOps zk, String name, String dir, List<String> children, Stat stat)
      throws KeeperException, InterruptedException {
    Map<String, String> dirData = Map.of();
    List<String> leases = List.of();
    Inspection.Listing leasesListing = Inspection.Listing.UNKNOWN;
    List<String> admission = List.of();
    boolean semaphore = false;
    // a Curator-compatible semaphore admits through <dir>/locks, as Curator's semaphore does
    String admissionDir =
        !children.contains(QUEUE) && children.contains(NodeKind.CURATOR_SEMAPHORE_LOCKS)
            ? NodeKind.CURATOR_SEMAPHORE_LOCKS
            : QUEUE;
    if (children.contains(LEASES) || children.contains(QUEUE)) {
      dirData = dataOf(zk, dir);
      Stat leasesStat = new Stat();
      leases = childrenOf(zk, dir + "/" + LEASES, leasesStat);
      leasesListing =
          leases.isEmpty()
              ? Inspection.Listing.UNKNOWN
              : Inspection.Listing.of(leasesStat.getPzxid(), leasesStat.getCzxid(), leases);
      admission = childrenOf(zk, dir + "/" + admissionDir);
      semaphore =
          NodeKind.SEMAPHORE.label().equals(dirData.get("kind"))
              || leases.stream().anyMatch(c -> c.startsWith(NodeKind.SEMAPHORE.prefix() + "-"))
              || leases.stream().anyMatch(Inspector::isCuratorLease);
    }
    List<String> own = new ArrayList<>();
    for (String c : children) {
      if (isLockNode(c) || ForeignNode.classify(c) != null) {
        own.add(c); // ours, or what looks like another library's lock node (its stat decides)
      }
    }
    if (own.isEmpty() && !semaphore) {
      return Optional.empty();
    }
    // every read sent before any answer is awaited: one round trip for the whole directory
    List<CompletableFuture<Inspection.Read>> ownReads =
        send(zk.ops(), dir, semaphore ? List.of() : own);
    List<CompletableFuture<Inspection.Read>> leaseReads =
        send(zk.ops(), dir + "/" + LEASES, semaphore ? leases : List.of());
    List<CompletableFuture<Inspection.Read>> admissionReads =
        send(zk.ops(), dir + "/" + admissionDir, semaphore ? admission : List.of());
    return Inspection.decide(
        new Inspection.Dir(
            name,
            dir,
            dirData,
            collect(ownReads),
            semaphore,
            collect(leaseReads),
            collect(admissionReads),
            Inspection.Listing.of(stat.getPzxid(), stat.getCzxid(), children),
            leasesListing));
  }

  static boolean isLockNode(String child) {
    return child.equals(NodeKind.SIMPLE_NODE) || QueueNode.parse(child) != null;
  }

  /** Whether {@code child}'s name alone proves it another library's lock node. */
  static boolean isCertainlyForeign(String child) {
    ForeignNode f = ForeignNode.classify(child);
    return f != null && f.certain();
  }

  private static List<String> childrenOf(BlockingOps zk, String dir)
      throws KeeperException, InterruptedException {
    return childrenOf(zk, dir, null);
  }

  private static List<String> childrenOf(BlockingOps zk, String dir, Stat stat)
      throws KeeperException, InterruptedException {
    try {
      return zk.getChildren(dir, stat);
    } catch (KeeperException.NoNodeException gone) {
      return List.of();
    }
  }

  private static boolean isCuratorLease(String child) {
    QueueNode n = QueueNode.parse(child);
    return n != null && n.kind() == NodeKind.CURATOR_LEASE;
  }

  private static Map<String, String> dataOf(BlockingOps zk, String path)
      throws KeeperException, InterruptedException {
    try {
      return parse(zk.getData(path, null));
    } catch (KeeperException.NoNodeException gone) {
      return Map.of();
    }
  }

  private static Map<String, String> parse(byte[] data) {
    if (data == null || data.length == 0) {
      return Map.of();
    }
    String text = new String(data, StandardCharsets.UTF_8);
    Map<String, String> fields = Json.parseObject(text);
    if (fields.isEmpty() && !text.startsWith("{")) {
      // not ours: a Curator client's node in a compatible queue (its data: an address, an id)
      return Map.of(CURATOR_FIELD, text);
    }
    return fields;
  }

  /** The field under which a node's data that is not zklock's JSON is shown (Curator's). */
  public static final String CURATOR_FIELD = "curator";

  private static List<CompletableFuture<Inspection.Read>> send(
      ZkOps zk, String dir, List<String> names) {
    List<CompletableFuture<Inspection.Read>> out = new ArrayList<>(names.size());
    for (String n : names) {
      CompletableFuture<Inspection.Read> f = new CompletableFuture<>();
      String path = dir + "/" + n;
      // a throwable in the answer's handling fails the read, rather than the inspection waiting
      GuardedOps.of(zk, f, path, 0L)
          .getData(
              path,
              null,
              (rc, p, c, data, stat) -> {
                Code code = Code.get(rc);
                if (code == Code.OK) {
                  f.complete(
                      new Inspection.Read(
                          n,
                          path,
                          stat.getCzxid(),
                          stat.getCtime(),
                          stat.getEphemeralOwner(),
                          stat.getVersion(),
                          parse(data)));
                } else if (code == Code.NONODE) {
                  f.complete(null); // released between the listing and the read
                } else {
                  f.completeExceptionally(KeeperException.create(code, p));
                }
              });
      out.add(f);
    }
    return out;
  }

  private static List<Inspection.Read> collect(List<CompletableFuture<Inspection.Read>> fs)
      throws KeeperException, InterruptedException {
    List<Inspection.Read> out = new ArrayList<>(fs.size());
    for (CompletableFuture<Inspection.Read> f : fs) {
      try {
        Inspection.Read r = Blocking.get(f);
        if (r != null) {
          out.add(r);
        }
      } catch (ExecutionException e) {
        if (e.getCause() instanceof KeeperException k) {
          throw k;
        }
        throw new IllegalStateException(e.getCause());
      }
    }
    return out;
  }

  // ---------------------------------------------------------------- forced and requested release

  /**
   * Whether {@code holder} is another library's client's node: a foreign node, or a kazoo client's
   * in a kazoo-compatible queue (kazoo's lock does not watch its own node, nor read zklock's
   * request).
   */
  private static boolean otherLibrarys(LockNode holder) {
    return holder.kind() == LockNode.Kind.FOREIGN
        || holder.kind() == LockNode.Kind.GO_LOCK
        || Inspection.KAZOO_CLIENT.equals(holder.clientName());
  }

  public List<LockNode> forceRelease(String name) {
    List<LockNode> released = new ArrayList<>();
    Optional<LockInfo> info = inspect(name);
    if (info.isPresent()) {
      for (LockNode holder : info.get().holders()) {
        if (otherLibrarys(holder)) {
          continue; // another library's client does not watch its node: it would hold on
        }
        if (forceRelease(holder)) {
          released.add(holder);
        }
      }
    }
    return released;
  }

  public boolean forceRelease(LockNode holder) {
    checkInNamespace(holder);
    if (otherLibrarys(holder)) {
      return false; // its client does not watch its node: it would hold on beside the next
    }
    return io(
        holder.path(),
        zk -> {
          int version = -1;
          if (holder.kind() == LockNode.Kind.SIMPLE) {
            // the simple lock's node name is reused by each holder: delete only this holder's
            Stat stat = zk.exists(holder.path());
            if (stat == null || stat.getCzxid() != holder.fencingToken()) {
              return false;
            }
            version = stat.getVersion();
          }
          try {
            zk.delete(holder.path(), version);
            return true;
          } catch (KeeperException.NoNodeException | KeeperException.BadVersionException gone) {
            return false; // released (or asked to release, then released) meanwhile
          }
        });
  }

  public List<LockNode> requestRelease(String name) {
    List<LockNode> asked = new ArrayList<>();
    Optional<LockInfo> info = inspect(name);
    if (info.isPresent()) {
      for (LockNode holder : info.get().holders()) {
        if (otherLibrarys(holder)) {
          continue; // another library's client does not read zklock's request
        }
        if (requestRelease(holder)) {
          asked.add(holder);
        }
      }
    }
    return asked;
  }

  /**
   * Asks {@code holder} to release: a change of its node's data, which its own-node watch hears.
   * The data keeps every field (the simple lock reads its attempt id back) and gains {@link
   * Inspection#RELEASE_FIELD}. True if the node is still there and now asked (by us or before).
   */
  private boolean requestRelease(LockNode holder) {
    checkInNamespace(holder);
    return io(
        holder.path(),
        zk -> {
          Stat stat = new Stat();
          byte[] data;
          try {
            data = zk.getData(holder.path(), stat);
          } catch (KeeperException.NoNodeException gone) {
            return false;
          }
          if (stat.getCzxid() != holder.fencingToken()) {
            return false; // a later holder of the simple lock's reused name
          }
          if (stat.getVersion() > 0) {
            return true; // asked already
          }
          try {
            zk.setData(holder.path(), withReleaseField(data), stat.getVersion());
            return true;
          } catch (KeeperException.NoNodeException gone) {
            return false;
          } catch (KeeperException.BadVersionException raced) {
            return true; // someone else asked first
          }
        });
  }

  private byte[] withReleaseField(byte[] data) {
    String json = data == null ? "" : new String(data, StandardCharsets.UTF_8).stripTrailing();
    String field = Json.quote(Inspection.RELEASE_FIELD) + ":" + Json.quote(config.clientName());
    if (json.endsWith("}") && !Json.parseObject(json).isEmpty()) {
      json = json.substring(0, json.length() - 1) + "," + field + "}";
    } else if (json.isEmpty() || json.equals("{}")) {
      json = "{" + field + "}";
    } // else foreign data: kept as it is; the version change alone asks
    return json.getBytes(StandardCharsets.UTF_8);
  }

  private void checkInNamespace(LockNode node) {
    String ns = config.namespace();
    if (!node.path().startsWith(ns + "/")) {
      throw new IllegalArgumentException(
          "lock node "
              + node.path()
              + " is not under this instance's namespace "
              + (config.namespace().isEmpty() ? "/" : config.namespace()));
    }
  }

  // ---------------------------------------------------------------- connection

  /**
   * Runs {@code io} on a connected session; waits up to the connect timeout for a connection, and
   * tries again after a connection loss within that time.
   */
  private <T> T io(String path, Io<T> io) {
    lifecycle.checkOpen();
    Waiting waiting = Waiting.after(config.connectTimeout().toNanos(), clock);
    while (true) {
      CompletableFuture<Session.Conn> c = new CompletableFuture<>();
      session.whenConnected(
          c::complete,
          () -> c.completeExceptionally(new ZkLockException("this ZkLocks instance is closed")));
      Session.Conn conn;
      try {
        conn = Blocking.get(c, Math.max(0L, waiting.remainingNanos(clock)), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        throw new ZkLockException(
            "not connected to ZooKeeper at '"
                + config.connectString()
                + "' within the connect timeout of "
                + config.connectTimeout().toMillis()
                + " ms",
            path,
            0L,
            null);
      } catch (ExecutionException e) {
        throw e.getCause() instanceof RuntimeException r
            ? r
            : new ZkLockException("not connected", path, 0L, e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ZkLockException("interrupted", path, 0L, e);
      }
      try {
        return io.run(new BlockingOps(conn.ops()));
      } catch (KeeperException e) {
        ErrorKind kind = ErrorKind.of(e.code());
        if (kind != ErrorKind.FINAL) {
          if (waiting.expired(clock)) {
            throw new ZkLockException(
                kind == ErrorKind.SESSION_ENDED
                    ? "session expired"
                    : "connection lost: " + e.code(),
                path,
                conn.sessionId(),
                e);
          }
          pause(path);
          continue;
        }
        throw new ZkLockException(
            "cannot read or change "
                + (e.getPath() != null ? e.getPath() : path)
                + ": "
                + e.code()
                + (e.code() == Code.NOAUTH ? " (not authorized)" : ""),
            path,
            conn.sessionId(),
            e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ZkLockException("interrupted", path, conn.sessionId(), e);
      }
    }
  }

  /** A short pause before trying again, while the session learns of the loss. */
  private static void pause(String path) {
    try {
      Blocking.sleep(10);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ZkLockException("interrupted", path, 0L, e);
    }
  }
}
