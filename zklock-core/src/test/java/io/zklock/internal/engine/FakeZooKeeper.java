package io.zklock.internal.engine;

import io.zklock.internal.zk.ZkOps;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.Watcher.WatcherType;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.proto.CheckVersionRequest;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.DeleteRequest;
import org.apache.zookeeper.proto.SetDataRequest;

/**
 * An in-memory ZooKeeper for the engine's tests: one data tree, any number of sessions, and the
 * test in charge of when things happen. Single-threaded: everything runs on the test's thread.
 *
 * <p>The model, kept close to the server's guarantees:
 *
 * <ul>
 *   <li>A request sent through a session's {@link ZkOps} ({@link #opsOf}) waits in the
 *       <em>inbound</em> queue, unapplied. Delivering it ({@link #deliverNext}) applies it to the
 *       tree and answers it. One session's requests are applied in the order sent.
 *   <li>What the server has done but the client has not seen yet (a watch event, a reply that was
 *       turned into a loss) waits in the <em>outbound</em> queue, which is always delivered before
 *       the next request is applied. So a client sees a watch event before any reply that reflects
 *       the change that fired it, as ZooKeeper promises; and a change made by a request fires the
 *       watches of its own session before the request's reply arrives (the server notifies, then
 *       answers).
 *   <li>Watches are one-shot: data watches ({@code getData}, {@code exists} on an existing node)
 *       fire {@code NodeDeleted} / {@code NodeDataChanged}; an {@code exists} watch on a missing
 *       node fires {@code NodeCreated}; child watches fire {@code NodeChildrenChanged} (or {@code
 *       NodeDeleted} of the parent). Removing a watch tells its watcher ({@code DataWatchRemoved} /
 *       {@code ChildWatchRemoved}).
 *   <li>Sequential names take the parent's child version (bumped by every child create and delete),
 *       as ten digits.
 *   <li>A node's stat keeps {@code mzxid} (last data change), {@code pzxid} (last child change),
 *       {@code ctime} / {@code mtime} by the server clock the test gives ({@link #serverClock}) and
 *       {@code numChildren}. A {@code multi} of create, setData, delete and check ops is one
 *       transaction: all or none, every change with one zxid, its events in op order (what the
 *       lock-delay's record relies on).
 *   <li>{@code addWatch} sets a persistent recursive watch: told {@code NodeCreated}, {@code
 *       NodeDeleted} and {@code NodeDataChanged} of its path and every path under it, and kept
 *       (removed with {@code WatcherType.Any}, telling {@code PersistentWatchRemoved}). After
 *       {@link #withoutPersistentWatches()} it is answered {@code UNIMPLEMENTED}, as by a 3.5
 *       server.
 * </ul>
 *
 * <p>Faults: {@link #failNextRequest} (the next request is not applied, and answered with a given
 * code), {@link #loseNextReply()} (the next request is applied but answered {@code CONNECTIONLOSS};
 * a watch it set is gone, as after a real connection loss the client sets again only the watches it
 * had replies for), {@link #dropNextRequest()} (answered {@code CONNECTIONLOSS} and never applied),
 * {@link #disconnect} (every request of the session in flight fails with {@code CONNECTIONLOSS},
 * unapplied; so does every request sent until {@link #reconnect}), {@link #expire} (the session's
 * ephemeral nodes go, firing watches — those of the expiring session too, as a server may notify
 * before it closes the connection — and every later request of it answers {@code SESSIONEXPIRED}).
 * Another client acts on the tree at once through {@link #create(long, String, CreateMode)} and
 * {@link #delete(String)}.
 *
 * <p>{@code FakeZooKeeper} itself is the {@link ZkOps} of its {@linkplain #useSession current
 * session}.
 */
public final class FakeZooKeeper implements ZkOps {

  /** One node of the tree. */
  private static final class Node {
    final long czxid;
    final long ephemeralOwner;
    final boolean container;
    final long ctime;
    byte[] data;
    int version;
    int cversion;

    /** The zxid of the last data change (creation included). */
    long mzxid;

    /** The zxid of the last child change (creation included). */
    long pzxid;

    /** The server time of the last data change, ms. */
    long mtime;

    /** A copy, for a failed multi to put back. */
    Node copy() {
      Node c = new Node(czxid, ephemeralOwner, container, data, ctime);
      c.version = version;
      c.cversion = cversion;
      c.mzxid = mzxid;
      c.pzxid = pzxid;
      c.mtime = mtime;
      return c;
    }

    Node(long czxid, long ephemeralOwner, boolean container, byte[] data, long ctime) {
      this.czxid = czxid;
      this.ephemeralOwner = ephemeralOwner;
      this.container = container;
      this.data = data;
      this.mzxid = czxid;
      this.pzxid = czxid;
      this.ctime = ctime;
      this.mtime = ctime;
    }
  }

  /** A watch: which session's watcher. Identity of the watcher, as ZooKeeper's client keeps it. */
  private record Reg(long session, Watcher watcher) {}

  /** A request of a session, not yet applied. */
  private record Request(
      long session,
      String op,
      String path,
      Watcher watcher,
      boolean childWatch,
      Function<Code, Runnable> apply) {}

  /**
   * Something the server did that the client has not seen: a watch event ({@code lost} null) or the
   * reply of an applied request ({@code lost}: the same reply turned into a connection loss).
   */
  private record Out(long session, Runnable run, Runnable lost, Runnable forget) {
    Out(long session, Runnable run, Runnable lost) {
      this(session, run, lost, () -> {});
    }
  }

  /** A request as sent, for tests that count requests. */
  public record Sent(long session, String op, String path) {}

  /**
   * A multi as applied or answered: {@code read} (a read-only one) or not, how many ops, and its
   * code (OK, the failed op's code, or the fault its caller heard: a multi applied whose reply is
   * lost is listed twice, applied and then CONNECTIONLOSS).
   */
  public record Multi(boolean read, int ops, Code code) {}

  private final List<Multi> multis = new ArrayList<>();

  /** Every multi delivered so far, in order. */
  public List<Multi> multis() {
    return List.copyOf(multis);
  }

  private final TreeMap<String, Node> tree = new TreeMap<>();
  private final Map<String, Set<Reg>> dataWatches = new HashMap<>();
  private final Map<String, Set<Reg>> childWatches = new HashMap<>();

  /** Persistent recursive watches ({@code addWatch}), by the path they were set on. */
  private final Map<String, Set<Reg>> recursiveWatches = new HashMap<>();

  /** False: {@code addWatch} is answered {@code UNIMPLEMENTED}, as a 3.5 server does. */
  private boolean persistentWatches = true;

  private final Deque<Request> inbound = new ArrayDeque<>();
  private final Deque<Out> outbound = new ArrayDeque<>();
  private final List<Sent> sent = new ArrayList<>();
  private final Set<Long> expired = new java.util.HashSet<>();
  private final Set<Long> disconnected = new java.util.HashSet<>();
  private long zxid;

  /** Inside a {@code multi}: every change of it carries the one zxid taken at its start. */
  private boolean inTransaction;

  /** The server's clock, ms: node {@code ctime} and {@code mtime} (see {@link #serverClock}). */
  private java.util.function.LongSupplier serverMillis = () -> 0L;

  /** Told of every node created, with its owner session (0 for a persistent node), as applied. */
  private java.util.function.BiConsumer<Long, String> onCreate = (owner, path) -> {};

  private long current;
  private int loseNext;
  private int dropNext;
  private final Deque<Code> failNext = new ArrayDeque<>();

  /** Calls that throw when made, by their op's name ({@link #throwOnNextCall}). */
  private final Map<String, Deque<Throwable>> throwOnCall = new HashMap<>();

  FakeZooKeeper() {
    tree.put("/", new Node(0, 0, false, new byte[0], 0L));
  }

  /**
   * Tells {@code listener} of every node created from now on, at the moment it is applied: its
   * ephemeral owner (0 for a persistent node) and its path. For properties that must hold at the
   * moment of a create (a lease only beside its admission, say).
   */
  public void onCreate(java.util.function.BiConsumer<Long, String> listener) {
    this.onCreate = listener;
  }

  /** The server's clock, in ms, that stamps {@code ctime} and {@code mtime} (0 until set). */
  public void serverClock(java.util.function.LongSupplier millis) {
    this.serverMillis = millis;
  }

  /** The next zxid of a change; inside a {@code multi}, the transaction's one zxid. */
  private long nextZxid() {
    if (!inTransaction) {
      zxid++;
    }
    return zxid;
  }

  // ---------------------------------------------------------------- sessions and faults

  /** The session {@link ZkOps} calls on this object go out on. */
  void useSession(long session) {
    current = session;
  }

  /** The calls of session {@code session}. */
  ZkOps opsOf(long session) {
    return new SessionOps(session);
  }

  /** The next request to be applied is applied, but its reply is lost: CONNECTIONLOSS. */
  public void loseNextReply() {
    loseNext++;
  }

  /** The next request to be delivered is never applied and answered CONNECTIONLOSS. */
  public void dropNextRequest() {
    dropNext++;
  }

  /**
   * The next request to be delivered is never applied and answered {@code code}: for example
   * SESSIONMOVED, what a server that no longer owns the session answers a request it ignores.
   */
  public void failNextRequest(Code code) {
    failNext.add(code);
  }

  /**
   * The next call of {@code op} ("create", "delete", "exists", "getChildren", "multi"...) made on
   * this server throws {@code t} instead of being sent: made from inside a callback, it is zklock's
   * code on ZooKeeper's event thread failing at that point (a bug, or an {@link Error} such as
   * {@link OutOfMemoryError}), which the thread catches and drops ({@code deliverNext} lets it out
   * to the test).
   */
  public void throwOnNextCall(String op, Throwable t) {
    throwOnCall.computeIfAbsent(op, k -> new ArrayDeque<>()).add(t);
  }

  /**
   * As {@link #throwOnNextCall(String, Throwable)}, for the next call of {@code op} on {@code
   * path}.
   */
  public void throwOnNextCall(String op, String path, Throwable t) {
    throwOnNextCall(op + " " + path, t);
  }

  /**
   * The connection of {@code session} drops: requests of it in flight fail with CONNECTIONLOSS
   * unapplied, and so does every request it sends until {@link #reconnect}. Its watches stay set
   * (the client sets them again on reconnecting); events already sent are still delivered.
   */
  void disconnect(long session) {
    disconnected.add(session);
    for (Request r : List.copyOf(inbound)) {
      if (r.session() == session) {
        inbound.remove(r);
        outbound.add(new Out(session, r.apply().apply(Code.CONNECTIONLOSS), null));
      }
    }
    // replies of applied requests not yet seen are lost with the connection
    List<Out> all = List.copyOf(outbound);
    outbound.clear();
    for (Out o : all) {
      outbound.add(
          o.session() == session && o.lost() != null ? new Out(session, o.lost(), null) : o);
    }
  }

  void reconnect(long session) {
    disconnected.remove(session);
  }

  /**
   * The ensemble expires {@code session}: its requests in flight fail with SESSIONEXPIRED, its
   * ephemeral nodes are deleted (firing every watch on them, its own too), its watches are dropped,
   * and every later request of it answers SESSIONEXPIRED.
   */
  public void expire(long session) {
    expired.add(session);
    for (Request r : List.copyOf(inbound)) {
      if (r.session() == session) {
        inbound.remove(r);
        outbound.add(new Out(session, r.apply().apply(Code.SESSIONEXPIRED), null));
      }
    }
    for (String path : List.copyOf(tree.descendingKeySet())) {
      Node n = tree.get(path);
      if (n != null && n.ephemeralOwner == session) {
        deleteNode(path);
      }
    }
    dataWatches.values().forEach(s -> s.removeIf(w -> w.session() == session));
    childWatches.values().forEach(s -> s.removeIf(w -> w.session() == session));
    recursiveWatches.values().forEach(s -> s.removeIf(w -> w.session() == session));
  }

  /**
   * From now on the server is a 3.5 one: it answers {@code addWatch} {@code UNIMPLEMENTED} (a real
   * 3.5 server then closes the connection, which a test drives through its session).
   */
  public void withoutPersistentWatches() {
    persistentWatches = false;
  }

  public boolean isExpired(long session) {
    return expired.contains(session);
  }

  // ---------------------------------------------------------------- delivery

  /** Delivers one thing: the oldest outbound event or reply, else applies the oldest request. */
  public boolean deliverNext() {
    Out out = outbound.poll();
    if (out != null) {
      out.run().run();
      return true;
    }
    Request r = inbound.poll();
    if (r == null) {
      return false;
    }
    Code fault = null;
    if (!failNext.isEmpty()) {
      fault = failNext.poll();
    } else if (dropNext > 0) {
      dropNext--;
      fault = Code.CONNECTIONLOSS;
    } else if (expired.contains(r.session())) {
      fault = Code.SESSIONEXPIRED;
    } else if (disconnected.contains(r.session())) {
      fault = Code.CONNECTIONLOSS;
    }
    if (fault != null) {
      r.apply().apply(fault).run();
      return true;
    }
    // applies; the events it fires are queued outbound first: the server notifies, then answers
    Map<String, Set<Reg>> watches = r.childWatch() ? childWatches : dataWatches;
    Reg reg = new Reg(r.session(), r.watcher());
    boolean hadWatch = watches.getOrDefault(r.path(), Set.of()).contains(reg);
    Runnable reply = r.apply().apply(null);
    Runnable lost = r.apply().apply(Code.CONNECTIONLOSS);
    // with the reply lost, the client never learns of a watch the request set: after the
    // connection loss it is not set again (ZooKeeper's client sets again only the watches it knows)
    Runnable forget =
        () -> {
          if (r.watcher() != null && !hadWatch) {
            Set<Reg> regs = watches.get(r.path());
            if (regs != null) {
              regs.remove(reg);
            }
          }
        };
    if (loseNext > 0) {
      loseNext--;
      forget.run();
      reply = lost; // applied, but the answer never arrives
    }
    outbound.add(new Out(r.session(), reply, lost, forget));
    outbound.poll().run().run();
    return true;
  }

  /**
   * Delivers what the server has already sent (events, replies), and what that leads to, without
   * applying any request still in flight: what a client receives before its connection goes silent.
   */
  public void deliverSent() {
    int n = 0;
    while (!outbound.isEmpty()) {
      outbound.poll().run().run();
      if (++n > 100_000) {
        throw new IllegalStateException("the fake does not settle: an event loop?");
      }
    }
  }

  /**
   * Delivers everything, as ZooKeeper's event thread runs callbacks and watchers: a throwable one
   * of them lets out is caught (ZooKeeper's thread logs it and goes on) and the next delivered.
   *
   * @return what escaped, in order
   */
  public List<Throwable> deliverAllCatching() {
    List<Throwable> escaped = new ArrayList<>();
    for (int n = 0; n < 100_000; n++) {
      try {
        if (!deliverNext()) {
          return escaped;
        }
      } catch (Throwable t) {
        escaped.add(t);
      }
    }
    throw new IllegalStateException("the fake does not settle");
  }

  /** Delivers until nothing is left, callbacks' new requests included; returns how many. */
  public int deliverAll() {
    int n = 0;
    while (deliverNext()) {
      if (++n > 100_000) {
        throw new IllegalStateException("the fake does not settle: a request loop?");
      }
    }
    return n;
  }

  /** Whether anything is waiting to be delivered. */
  boolean idle() {
    return inbound.isEmpty() && outbound.isEmpty();
  }

  public int pending() {
    return inbound.size() + outbound.size();
  }

  /** Every request sent so far, in order. */
  public List<Sent> sent() {
    return List.copyOf(sent);
  }

  public void clearSent() {
    sent.clear();
  }

  // ---------------------------------------------------------------- the tree, read and changed
  // directly

  public boolean exists(String path) {
    return tree.containsKey(path);
  }

  /** The names of the children of {@code path}, sorted; empty if it has none or does not exist. */
  public List<String> children(String path) {
    List<String> out = new ArrayList<>();
    String prefix = path.equals("/") ? "/" : path + "/";
    for (String p : tree.tailMap(prefix, false).keySet()) {
      if (!p.startsWith(prefix)) {
        break;
      }
      String rest = p.substring(prefix.length());
      if (!rest.isEmpty() && rest.indexOf('/') < 0) {
        out.add(rest);
      }
    }
    return out;
  }

  /** Whether {@code path} is a CONTAINER node (false if it is not there). */
  boolean isContainer(String path) {
    Node n = tree.get(path);
    return n != null && n.container;
  }

  public Stat stat(String path) {
    Node n = tree.get(path);
    return n == null ? null : statOf(path, n);
  }

  public byte[] data(String path) {
    Node n = tree.get(path);
    return n == null ? null : n.data.clone();
  }

  /** The number of watches set on {@code path} (data, child and persistent), by any session. */
  public int watchCount(String path) {
    return dataWatches.getOrDefault(path, Set.of()).size()
        + childWatches.getOrDefault(path, Set.of()).size()
        + recursiveWatches.getOrDefault(path, Set.of()).size();
  }

  /** The number of watches set anywhere. */
  int watchCount() {
    int n = 0;
    for (Set<Reg> s : recursiveWatches.values()) {
      n += s.size();
    }
    for (Set<Reg> s : dataWatches.values()) {
      n += s.size();
    }
    for (Set<Reg> s : childWatches.values()) {
      n += s.size();
    }
    return n;
  }

  /** Another client (session {@code owner}) creates a node at once; returns its path. */
  String create(long owner, String path, CreateMode mode) {
    return create(owner, path, new byte[0], mode);
  }

  public String create(long owner, String path, byte[] data, CreateMode mode) {
    Object[] out = new Object[1];
    Code code = doCreate(owner, path, data, mode, out);
    if (code != Code.OK) {
      throw new IllegalStateException("create " + path + ": " + code);
    }
    return (String) out[0];
  }

  /** Creates {@code path} and its missing ancestors as persistent nodes. */
  public void mkdirs(String path) {
    int i = 0;
    while ((i = path.indexOf('/', i + 1)) > 0) {
      String p = path.substring(0, i);
      if (!tree.containsKey(p)) {
        create(0, p, CreateMode.PERSISTENT);
      }
    }
    if (!tree.containsKey(path)) {
      create(0, path, CreateMode.PERSISTENT);
    }
  }

  /** Another client deletes a node at once. */
  public void delete(String path) {
    Code code = doDelete(path);
    if (code != Code.OK) {
      throw new IllegalStateException("delete " + path + ": " + code);
    }
  }

  /** Another client sets a node's data at once (as {@code ZkLocks#requestRelease} does). */
  public void setData(String path, byte[] data) {
    Node n = tree.get(path);
    if (n == null) {
      throw new IllegalStateException("setData " + path + ": NONODE");
    }
    n.data = data.clone();
    n.version++;
    n.mzxid = nextZxid();
    n.mtime = serverMillis.getAsLong();
    fire(dataWatches, path, EventType.NodeDataChanged);
    fireRecursive(path, EventType.NodeDataChanged);
  }

  // ---------------------------------------------------------------- the server's operations

  private Code doCreate(long owner, String path, byte[] data, CreateMode mode, Object[] name) {
    int slash = path.lastIndexOf('/');
    String parentPath = slash == 0 ? "/" : path.substring(0, slash);
    Node parent = tree.get(parentPath);
    if (parent == null) {
      return Code.NONODE;
    }
    if (parent.ephemeralOwner != 0) {
      return Code.NOCHILDRENFOREPHEMERALS;
    }
    String actual = path;
    if (mode.isSequential()) {
      actual = path + String.format("%010d", parent.cversion);
    }
    if (tree.containsKey(actual)) {
      return Code.NODEEXISTS;
    }
    long z = nextZxid();
    tree.put(
        actual,
        new Node(
            z,
            mode.isEphemeral() ? owner : 0L,
            mode == CreateMode.CONTAINER,
            data == null ? new byte[0] : data.clone(),
            serverMillis.getAsLong()));
    parent.cversion++;
    parent.pzxid = z;
    name[0] = actual;
    onCreate.accept(mode.isEphemeral() ? owner : 0L, actual);
    fire(dataWatches, actual, EventType.NodeCreated);
    fire(childWatches, parentPath, EventType.NodeChildrenChanged);
    fireRecursive(actual, EventType.NodeCreated);
    return Code.OK;
  }

  private Code doDelete(String path) {
    if (!tree.containsKey(path)) {
      return Code.NONODE;
    }
    if (!children(path).isEmpty()) {
      return Code.NOTEMPTY;
    }
    deleteNode(path);
    return Code.OK;
  }

  private void deleteNode(String path) {
    tree.remove(path);
    long z = nextZxid();
    int slash = path.lastIndexOf('/');
    String parentPath = slash == 0 ? "/" : path.substring(0, slash);
    Node parent = tree.get(parentPath);
    if (parent != null) {
      parent.cversion++;
      parent.pzxid = z;
    }
    fire(dataWatches, path, EventType.NodeDeleted);
    fire(childWatches, path, EventType.NodeDeleted);
    fire(childWatches, parentPath, EventType.NodeChildrenChanged);
    fireRecursive(path, EventType.NodeDeleted);
  }

  /**
   * Tells every persistent recursive watch on {@code path} or above it; they stay set. (A recursive
   * watch is told no child changes: the created or deleted node is told itself.)
   */
  private void fireRecursive(String path, EventType type) {
    recursiveWatches.forEach(
        (root, regs) -> {
          if (root.equals("/") || path.equals(root) || path.startsWith(root + "/")) {
            for (Reg r : regs) {
              WatchedEvent e = new WatchedEvent(type, KeeperState.SyncConnected, path);
              outbound.add(new Out(r.session(), () -> r.watcher().process(e), null));
            }
          }
        });
  }

  /** Fires and clears the watches on {@code path}: their events go out in order. */
  private void fire(Map<String, Set<Reg>> watches, String path, EventType type) {
    Set<Reg> regs = watches.remove(path);
    if (regs == null) {
      return;
    }
    for (Reg r : regs) {
      WatchedEvent e = new WatchedEvent(type, KeeperState.SyncConnected, path);
      outbound.add(new Out(r.session(), () -> r.watcher().process(e), null));
    }
  }

  private void register(Map<String, Set<Reg>> watches, String path, long session, Watcher w) {
    if (w != null) {
      watches.computeIfAbsent(path, k -> new LinkedHashSet<>()).add(new Reg(session, w));
    }
  }

  private Stat statOf(String path, Node n) {
    Stat s = new Stat();
    s.setCzxid(n.czxid);
    s.setMzxid(n.mzxid);
    s.setPzxid(n.pzxid);
    s.setCtime(n.ctime);
    s.setMtime(n.mtime);
    s.setVersion(n.version);
    s.setCversion(n.cversion);
    s.setEphemeralOwner(n.ephemeralOwner);
    s.setDataLength(n.data.length);
    s.setNumChildren(children(path).size());
    return s;
  }

  // ---------------------------------------------------------------- ZkOps of the current session

  @Override
  public void create(
      String path, byte[] data, List<ACL> acl, CreateMode mode, AsyncCallback.Create2Callback cb) {
    opsOf(current).create(path, data, acl, mode, cb);
  }

  @Override
  public void getChildren(String path, Watcher watcher, AsyncCallback.Children2Callback cb) {
    opsOf(current).getChildren(path, watcher, cb);
  }

  @Override
  public void getData(String path, Watcher watcher, AsyncCallback.DataCallback cb) {
    opsOf(current).getData(path, watcher, cb);
  }

  @Override
  public void exists(String path, Watcher watcher, AsyncCallback.StatCallback cb) {
    opsOf(current).exists(path, watcher, cb);
  }

  @Override
  public void delete(String path, int version, AsyncCallback.VoidCallback cb) {
    opsOf(current).delete(path, version, cb);
  }

  @Override
  public void getACL(String path, AsyncCallback.ACLCallback cb) {
    opsOf(current).getACL(path, cb);
  }

  @Override
  public void setData(String path, byte[] data, int version, AsyncCallback.StatCallback cb) {
    opsOf(current).setData(path, data, version, cb);
  }

  @Override
  public void removeWatches(
      String path, Watcher watcher, WatcherType type, AsyncCallback.VoidCallback cb) {
    opsOf(current).removeWatches(path, watcher, type, cb);
  }

  @Override
  public void removeAllWatches(String path, WatcherType type, AsyncCallback.VoidCallback cb) {
    opsOf(current).removeAllWatches(path, type, cb);
  }

  @Override
  public void sync(String path, AsyncCallback.VoidCallback cb) {
    opsOf(current).sync(path, cb);
  }

  @Override
  public void multi(List<Op> ops, AsyncCallback.MultiCallback cb) {
    opsOf(current).multi(ops, cb);
  }

  @Override
  public void addWatch(
      String path, Watcher watcher, AddWatchMode mode, AsyncCallback.VoidCallback cb) {
    opsOf(current).addWatch(path, watcher, mode, cb);
  }

  @Override
  public boolean connected() {
    return opsOf(current).connected();
  }

  /**
   * Applies {@code ops} (create, setData, delete, check) as one transaction, all or none, as the
   * server does: every change carries one zxid, and the watch events go out in the ops' order. A
   * create op made with {@code CreateOptions} (a create2 op) or of a container answers the node's
   * stat, as ZooKeeper does. Returns the transaction's code and results; on a failure nothing is
   * applied (the tree, the watches and the events are as before) and the results are {@code
   * ErrorResult}s (OK before the failed op, RUNTIMEINCONSISTENCY after it), as ZooKeeper answers. A
   * read-only multi (getChildren, getData) answers each op on its own, its code the first op's
   * error, as ZooKeeper's client reports it; a 3.5 fake ({@link #withoutPersistentWatches()})
   * answers it {@code UNIMPLEMENTED}.
   */
  private Map.Entry<Code, List<OpResult>> doMulti(long session, List<Op> ops) {
    if (!ops.isEmpty() && ops.stream().allMatch(o -> o.getKind() == Op.OpKind.READ)) {
      if (!persistentWatches) {
        return new java.util.AbstractMap.SimpleEntry<>(Code.UNIMPLEMENTED, null);
      }
      List<OpResult> results = new ArrayList<>();
      Code first = Code.OK;
      for (Op op : ops) {
        Node n = tree.get(op.getPath());
        if (n == null) {
          results.add(new OpResult.ErrorResult(Code.NONODE.intValue()));
          first = first == Code.OK ? Code.NONODE : first;
        } else if (op.getType() == ZooDefs.OpCode.getChildren) {
          results.add(new OpResult.GetChildrenResult(children(op.getPath())));
        } else {
          results.add(new OpResult.GetDataResult(n.data.clone(), statOf(op.getPath(), n)));
        }
      }
      return Map.entry(first, results);
    }
    Snapshot before = new Snapshot();
    List<OpResult> results = new ArrayList<>();
    int failedAt = -1;
    Code failure = Code.OK;
    zxid++;
    inTransaction = true;
    try {
      for (int i = 0; i < ops.size() && failedAt < 0; i++) {
        Op op = ops.get(i);
        String path = op.getPath();
        Node n = tree.get(path);
        switch (op.getType()) {
          case ZooDefs.OpCode.create, ZooDefs.OpCode.create2, ZooDefs.OpCode.createContainer -> {
            CreateRequest c = (CreateRequest) op.toRequestRecord();
            Object[] name = new Object[1];
            failure = doCreate(session, path, c.getData(), CreateMode.fromFlag(c.getFlags()), name);
            if (failure == Code.OK) {
              String actual = (String) name[0];
              results.add(
                  op.getType() == ZooDefs.OpCode.create
                      ? new OpResult.CreateResult(actual)
                      : new OpResult.CreateResult(actual, statOf(actual, tree.get(actual))));
            }
          }
          case ZooDefs.OpCode.setData -> {
            SetDataRequest r = (SetDataRequest) op.toRequestRecord();
            failure = n == null ? Code.NONODE : versionCheck(r.getVersion(), n);
            if (failure == Code.OK) {
              setData(path, r.getData());
              results.add(new OpResult.SetDataResult(statOf(path, tree.get(path))));
            }
          }
          case ZooDefs.OpCode.delete -> {
            int version = ((DeleteRequest) op.toRequestRecord()).getVersion();
            failure = n == null ? Code.NONODE : versionCheck(version, n);
            if (failure == Code.OK) {
              failure = doDelete(path);
            }
            if (failure == Code.OK) {
              results.add(new OpResult.DeleteResult());
            }
          }
          case ZooDefs.OpCode.check -> {
            int version = ((CheckVersionRequest) op.toRequestRecord()).getVersion();
            failure = n == null ? Code.NONODE : versionCheck(version, n);
            if (failure == Code.OK) {
              results.add(new OpResult.CheckResult());
            }
          }
          default -> throw new UnsupportedOperationException("the fake's multi: " + op);
        }
        if (failure != Code.OK) {
          failedAt = i;
        }
      }
    } catch (org.apache.zookeeper.KeeperException e) {
      throw new IllegalStateException(e);
    } finally {
      inTransaction = false;
    }
    if (failedAt >= 0) {
      before.restore();
      results.clear();
      for (int i = 0; i < ops.size(); i++) {
        int err =
            i < failedAt
                ? Code.OK.intValue()
                : i == failedAt ? failure.intValue() : Code.RUNTIMEINCONSISTENCY.intValue();
        results.add(new OpResult.ErrorResult(err));
      }
      return Map.entry(failure, results);
    }
    return Map.entry(Code.OK, results);
  }

  private static Code versionCheck(int version, Node n) {
    return version != -1 && version != n.version ? Code.BADVERSION : Code.OK;
  }

  /** The tree, the watches and the events at one moment: what a failed multi puts back. */
  private final class Snapshot {
    final TreeMap<String, Node> nodes = new TreeMap<>();
    final Map<String, Set<Reg>> data = copy(dataWatches);
    final Map<String, Set<Reg>> child = copy(childWatches);
    final Map<String, Set<Reg>> recursive = copy(recursiveWatches);
    final List<Out> out = new ArrayList<>(outbound);
    final long z = zxid;

    Snapshot() {
      tree.forEach((p, n) -> nodes.put(p, n.copy()));
    }

    void restore() {
      tree.clear();
      tree.putAll(nodes);
      restoreInto(dataWatches, data);
      restoreInto(childWatches, child);
      restoreInto(recursiveWatches, recursive);
      outbound.clear();
      outbound.addAll(out);
      zxid = z;
    }

    private Map<String, Set<Reg>> copy(Map<String, Set<Reg>> m) {
      Map<String, Set<Reg>> c = new HashMap<>();
      m.forEach((k, v) -> c.put(k, new LinkedHashSet<>(v)));
      return c;
    }

    private void restoreInto(Map<String, Set<Reg>> into, Map<String, Set<Reg>> from) {
      into.clear();
      into.putAll(from);
    }
  }

  /**
   * The calls of one session. Each queues a request whose {@code apply} function, given null,
   * applies it and returns its reply; given a fault code, returns that reply without applying.
   */
  private final class SessionOps implements ZkOps {
    private final long session;

    SessionOps(long session) {
      this.session = session;
    }

    private void send(String op, String path, Function<Code, Runnable> apply) {
      send(op, path, null, false, apply);
    }

    private void send(
        String op,
        String path,
        Watcher watcher,
        boolean childWatch,
        Function<Code, Runnable> apply) {
      Deque<Throwable> toThrow = throwOnCall.get(op + " " + path);
      if (toThrow == null || toThrow.isEmpty()) {
        toThrow = throwOnCall.get(op);
      }
      if (toThrow != null && !toThrow.isEmpty()) {
        Throwable t = toThrow.poll();
        if (t instanceof RuntimeException e) {
          throw e;
        }
        throw (Error) t;
      }
      sent.add(new Sent(session, op, path));
      if (expired.contains(session)) {
        outbound.add(new Out(session, apply.apply(Code.SESSIONEXPIRED), null));
      } else if (disconnected.contains(session)) {
        outbound.add(new Out(session, apply.apply(Code.CONNECTIONLOSS), null));
      } else {
        inbound.add(new Request(session, op, path, watcher, childWatch, apply));
      }
    }

    @Override
    public void create(
        String path,
        byte[] data,
        List<ACL> acl,
        CreateMode mode,
        AsyncCallback.Create2Callback cb) {
      send(
          "create",
          path,
          fault -> {
            if (fault != null) {
              return () -> cb.processResult(fault.intValue(), path, null, null, null);
            }
            Object[] name = new Object[1];
            Code code = doCreate(session, path, data, mode, name);
            String actual = (String) name[0];
            Stat stat = code == Code.OK ? statOf(actual, tree.get(actual)) : null;
            return () -> cb.processResult(code.intValue(), path, null, actual, stat);
          });
    }

    @Override
    public void getChildren(String path, Watcher watcher, AsyncCallback.Children2Callback cb) {
      send(
          "getChildren",
          path,
          watcher,
          true,
          fault -> {
            if (fault != null) {
              return () -> cb.processResult(fault.intValue(), path, null, null, null);
            }
            Node n = tree.get(path);
            if (n == null) {
              return () -> cb.processResult(Code.NONODE.intValue(), path, null, null, null);
            }
            register(childWatches, path, session, watcher);
            List<String> kids = children(path);
            Stat stat = statOf(path, n);
            return () -> cb.processResult(Code.OK.intValue(), path, null, kids, stat);
          });
    }

    @Override
    public void getData(String path, Watcher watcher, AsyncCallback.DataCallback cb) {
      send(
          "getData",
          path,
          watcher,
          false,
          fault -> {
            if (fault != null) {
              return () -> cb.processResult(fault.intValue(), path, null, null, null);
            }
            Node n = tree.get(path);
            if (n == null) {
              return () -> cb.processResult(Code.NONODE.intValue(), path, null, null, null);
            }
            register(dataWatches, path, session, watcher);
            byte[] data = n.data.clone();
            Stat stat = statOf(path, n);
            return () -> cb.processResult(Code.OK.intValue(), path, null, data, stat);
          });
    }

    @Override
    public void exists(String path, Watcher watcher, AsyncCallback.StatCallback cb) {
      send(
          "exists",
          path,
          watcher,
          false,
          fault -> {
            if (fault != null) {
              return () -> cb.processResult(fault.intValue(), path, null, null);
            }
            Node n = tree.get(path);
            register(dataWatches, path, session, watcher); // on a missing node: NodeCreated
            if (n == null) {
              return () -> cb.processResult(Code.NONODE.intValue(), path, null, null);
            }
            Stat stat = statOf(path, n);
            return () -> cb.processResult(Code.OK.intValue(), path, null, stat);
          });
    }

    @Override
    public void delete(String path, int version, AsyncCallback.VoidCallback cb) {
      send(
          "delete",
          path,
          fault -> {
            Node n = tree.get(path);
            Code code =
                fault != null
                    ? fault
                    : n != null && version != -1 && version != n.version
                        ? Code.BADVERSION
                        : doDelete(path);
            return () -> cb.processResult(code.intValue(), path, null);
          });
    }

    @Override
    public void getACL(String path, AsyncCallback.ACLCallback cb) {
      send(
          "getACL",
          path,
          fault -> {
            if (fault != null) {
              return () -> cb.processResult(fault.intValue(), path, null, null, null);
            }
            Node n = tree.get(path);
            if (n == null) {
              return () -> cb.processResult(Code.NONODE.intValue(), path, null, null, null);
            }
            Stat stat = statOf(path, n);
            return () ->
                cb.processResult(
                    Code.OK.intValue(),
                    path,
                    null,
                    org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
                    stat);
          });
    }

    @Override
    public void setData(String path, byte[] data, int version, AsyncCallback.StatCallback cb) {
      send(
          "setData",
          path,
          fault -> {
            if (fault != null) {
              return () -> cb.processResult(fault.intValue(), path, null, null);
            }
            Node n = tree.get(path);
            if (n == null) {
              return () -> cb.processResult(Code.NONODE.intValue(), path, null, null);
            }
            if (version != -1 && version != n.version) {
              return () -> cb.processResult(Code.BADVERSION.intValue(), path, null, null);
            }
            FakeZooKeeper.this.setData(path, data);
            Stat stat = statOf(path, n);
            return () -> cb.processResult(Code.OK.intValue(), path, null, stat);
          });
    }

    @Override
    public void removeWatches(
        String path, Watcher watcher, WatcherType type, AsyncCallback.VoidCallback cb) {
      send(
          "removeWatches",
          path,
          fault -> {
            if (fault != null) {
              return () -> cb.processResult(fault.intValue(), path, null);
            }
            Reg reg = new Reg(session, watcher);
            boolean removed = false;
            if (type != WatcherType.Children) {
              removed |= removeReg(dataWatches, path, reg, EventType.DataWatchRemoved);
            }
            if (type != WatcherType.Data) {
              removed |= removeReg(childWatches, path, reg, EventType.ChildWatchRemoved);
            }
            if (type == WatcherType.Any || type == WatcherType.PersistentRecursive) {
              removed |= removeReg(recursiveWatches, path, reg, EventType.PersistentWatchRemoved);
            }
            Code code = removed ? Code.OK : Code.NOWATCHER;
            return () -> cb.processResult(code.intValue(), path, null);
          });
    }

    @Override
    public void removeAllWatches(String path, WatcherType type, AsyncCallback.VoidCallback cb) {
      send(
          "removeAllWatches",
          path,
          fault -> {
            if (fault != null) {
              return () -> cb.processResult(fault.intValue(), path, null);
            }
            boolean removed = false;
            if (type != WatcherType.Children) {
              removed |= removeAll(dataWatches, path, EventType.DataWatchRemoved);
            }
            if (type != WatcherType.Data) {
              removed |= removeAll(childWatches, path, EventType.ChildWatchRemoved);
            }
            Code code = removed ? Code.OK : Code.NOWATCHER;
            return () -> cb.processResult(code.intValue(), path, null);
          });
    }

    private boolean removeReg(
        Map<String, Set<Reg>> watches, String path, Reg reg, EventType removedType) {
      Set<Reg> regs = watches.get(path);
      if (regs == null || !regs.remove(reg)) {
        return false;
      }
      if (regs.isEmpty()) {
        watches.remove(path);
      }
      WatchedEvent e = new WatchedEvent(removedType, KeeperState.SyncConnected, path);
      outbound.add(new Out(session, () -> reg.watcher().process(e), null));
      return true;
    }

    private boolean removeAll(Map<String, Set<Reg>> watches, String path, EventType removedType) {
      Set<Reg> regs = watches.get(path);
      if (regs == null) {
        return false;
      }
      boolean removed = false;
      for (Reg reg : List.copyOf(regs)) {
        if (reg.session() == session) {
          removed |= removeReg(watches, path, reg, removedType);
        }
      }
      return removed;
    }

    @Override
    public void multi(List<Op> ops, AsyncCallback.MultiCallback cb) {
      String path = ops.isEmpty() ? "" : ops.get(ops.size() - 1).getPath();
      send(
          "multi",
          path,
          fault -> {
            boolean read =
                !ops.isEmpty() && ops.stream().allMatch(o -> o.getKind() == Op.OpKind.READ);
            if (fault != null) {
              return () -> {
                multis.add(new Multi(read, ops.size(), fault));
                cb.processResult(fault.intValue(), path, null, null);
              };
            }
            Map.Entry<Code, List<OpResult>> r = doMulti(session, ops);
            multis.add(new Multi(read, ops.size(), r.getKey()));
            return () -> cb.processResult(r.getKey().intValue(), path, null, r.getValue());
          });
    }

    @Override
    public void addWatch(
        String path, Watcher watcher, AddWatchMode mode, AsyncCallback.VoidCallback cb) {
      if (mode != AddWatchMode.PERSISTENT_RECURSIVE) {
        throw new UnsupportedOperationException("the fake's addWatch: " + mode);
      }
      send(
          "addWatch",
          path,
          fault -> {
            if (fault != null) {
              return () -> cb.processResult(fault.intValue(), path, null);
            }
            if (!persistentWatches) {
              return () -> cb.processResult(Code.UNIMPLEMENTED.intValue(), path, null);
            }
            register(recursiveWatches, path, session, watcher);
            return () -> cb.processResult(Code.OK.intValue(), path, null);
          });
    }

    @Override
    public boolean connected() {
      return !disconnected.contains(session) && !expired.contains(session);
    }

    @Override
    public void sync(String path, AsyncCallback.VoidCallback cb) {
      send(
          "sync",
          path,
          fault -> {
            Code code = fault != null ? fault : Code.OK;
            return () -> cb.processResult(code.intValue(), path, null);
          });
    }
  }
}
