package io.zklock.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.data.Stat;

/**
 * One server's copy of the data tree: nodes with their stats, the ephemerals of each session and
 * the containers; {@link #apply} applies a transaction of the log and returns the watch triggers it
 * fires, in order, as ZooKeeper's {@code DataTree} does. {@link #prepare} is the leader's half: it
 * turns a write into a transaction, or an error, against this (the leader's, up to date) tree.
 */
final class SimTree {
  static final class Node {
    final String path;
    byte[] data;
    final long czxid;
    long mzxid;
    long pzxid;
    final long ctime;
    long mtime;
    int version;

    /**
     * Children ever created, as the server's StatPersisted keeps it: the sequence number of the
     * next sequential child. The client sees creates plus deletes, {@code 2 * cversion - children}
     * (DataNode.copyStat).
     */
    int cversion;

    final long ephemeralOwner;
    final boolean container;
    final TreeSet<String> children = new TreeSet<>();

    Node(String path, byte[] data, long zxid, long time, long owner, boolean container) {
      this.path = path;
      this.data = data;
      this.czxid = zxid;
      this.mzxid = zxid;
      this.pzxid = zxid;
      this.ctime = time;
      this.mtime = time;
      this.ephemeralOwner = owner;
      this.container = container;
    }

    Stat stat() {
      Stat s = new Stat();
      s.setCzxid(czxid);
      s.setMzxid(mzxid);
      s.setPzxid(pzxid);
      s.setCtime(ctime);
      s.setMtime(mtime);
      s.setVersion(version);
      s.setCversion(2 * cversion - children.size());
      s.setAversion(0);
      s.setEphemeralOwner(ephemeralOwner);
      s.setDataLength(data.length);
      s.setNumChildren(children.size());
      return s;
    }
  }

  /** A watch trigger: {@code type} on {@code path} ({@code childTable}: the child-watch table). */
  record Trigger(String path, EventType type, boolean childTable) {}

  private final Map<String, Node> nodes = new HashMap<>();

  /**
   * Each session's ephemerals as the server keeps them: a HashSet per session, never dropped when
   * it empties, whose iteration order (with the same history, the same JDK class) is the order in
   * which a closed or expired session's ephemerals are deleted (PrepRequestProcessor lists them
   * from a clone of it into the CloseSessionTxn) and so the order of their watch events.
   */
  private final Map<Long, HashSet<String>> ephemerals = new TreeMap<>();

  private final TreeSet<String> containers = new TreeSet<>();
  private final TreeSet<Long> sessions = new TreeSet<>();
  long lastZxid;

  SimTree() {
    nodes.put("/", new Node("/", new byte[0], 0, 0, 0, false));
  }

  Node get(String path) {
    return nodes.get(path);
  }

  boolean hasSession(long id) {
    return sessions.contains(id);
  }

  TreeSet<String> containers() {
    return containers;
  }

  Map<Long, HashSet<String>> ephemerals() {
    return ephemerals;
  }

  int size() {
    return nodes.size();
  }

  /** Every path, sorted. */
  List<String> paths() {
    List<String> all = new ArrayList<>(nodes.keySet());
    all.sort(null);
    return all;
  }

  static String parent(String path) {
    int i = path.lastIndexOf('/');
    return i <= 0 ? "/" : path.substring(0, i);
  }

  static String name(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  /** Applies one committed transaction; returns the watch triggers in the order fired. */
  List<Trigger> apply(Txn.Entry e) {
    List<Trigger> out = new ArrayList<>();
    apply(e.txn(), e.zxid(), e.timeMillis(), out);
    lastZxid = e.zxid();
    return out;
  }

  private void apply(Txn t, long zxid, long time, List<Trigger> out) {
    if (t instanceof Txn.Create c) {
      Node parent = nodes.get(parent(c.path()));
      Node n = new Node(c.path(), c.data(), zxid, time, c.ephemeralOwner(), c.container());
      nodes.put(c.path(), n);
      parent.children.add(name(c.path()));
      parent.cversion++;
      parent.pzxid = zxid;
      if (c.ephemeralOwner() != 0) {
        ephemerals.computeIfAbsent(c.ephemeralOwner(), k -> new HashSet<>()).add(c.path());
      }
      if (c.container()) {
        containers.add(c.path());
      }
      out.add(new Trigger(c.path(), EventType.NodeCreated, false));
      out.add(new Trigger(parent.path, EventType.NodeChildrenChanged, true));
    } else if (t instanceof Txn.Delete d) {
      delete(d.path(), zxid, out);
    } else if (t instanceof Txn.SetData s) {
      Node n = nodes.get(s.path());
      n.data = s.data();
      n.version++;
      n.mzxid = zxid;
      n.mtime = time;
      out.add(new Trigger(s.path(), EventType.NodeDataChanged, false));
    } else if (t instanceof Txn.Multi m) {
      for (Txn op : m.ops()) {
        apply(op, zxid, time, out);
      }
    } else if (t instanceof Txn.CreateSession s) {
      sessions.add(s.session());
    } else if (t instanceof Txn.CloseSession s) {
      sessions.remove(s.session());
      HashSet<String> mine = ephemerals.remove(s.session());
      if (mine != null) {
        @SuppressWarnings("unchecked")
        List<String> order = new ArrayList<>((HashSet<String>) mine.clone());
        for (String p : order) {
          if (nodes.containsKey(p)) {
            delete(p, zxid, out);
          }
        }
      }
    }
    // Check and Error change nothing
  }

  private void delete(String path, long zxid, List<Trigger> out) {
    Node n = nodes.remove(path);
    Node parent = nodes.get(parent(path));
    parent.children.remove(name(path));
    parent.pzxid = zxid;
    if (n.ephemeralOwner != 0) {
      HashSet<String> set = ephemerals.get(n.ephemeralOwner);
      if (set != null) {
        set.remove(path);
      }
    }
    if (n.container) {
      containers.remove(path);
    }
    out.add(new Trigger(path, EventType.NodeDeleted, false));
    out.add(new Trigger(path, EventType.NodeDeleted, true));
    out.add(new Trigger(parent.path, EventType.NodeChildrenChanged, true));
  }

  // ------------------------------------------------------------------ the leader's preparation

  /**
   * A prepared write: the transaction to log, and for a failed multi the index of its first failed
   * op ({@code -1} otherwise).
   */
  record Prepared(Txn txn, int failedAt) {
    static Prepared of(Txn t) {
      return new Prepared(t, -1);
    }
  }

  /** What the leader makes of a write, validated against this tree; applies nothing. */
  Prepared prepare(Req r, long session) {
    if (r instanceof Req.Multi m) {
      return prepareMulti(m, session);
    }
    return Prepared.of(prepareOp(r, session, new Overlay()));
  }

  /** The changes of a multi prepared so far, as its later ops see them. */
  private final class Overlay {
    final Map<String, Boolean> exists = new HashMap<>();
    final Map<String, Integer> cversion = new HashMap<>();
    final Map<String, Integer> version = new HashMap<>();
    final Map<String, Integer> childCount = new HashMap<>();
    final Map<String, Long> owner = new HashMap<>();

    boolean exists(String p) {
      Boolean b = exists.get(p);
      return b != null ? b : nodes.containsKey(p);
    }

    int cversion(String p) {
      Integer v = cversion.get(p);
      return v != null ? v : nodes.get(p).cversion;
    }

    int version(String p) {
      Integer v = version.get(p);
      return v != null ? v : nodes.get(p).version;
    }

    int childCount(String p) {
      Integer v = childCount.get(p);
      return v != null ? v : nodes.get(p).children.size();
    }

    long owner(String p) {
      Long v = owner.get(p);
      return v != null ? v : nodes.get(p).ephemeralOwner;
    }
  }

  private Txn prepareOp(Req r, long session, Overlay o) {
    if (r instanceof Req.Create c) {
      return prepareCreate(c, session, o);
    } else if (r instanceof Req.Delete d) {
      return prepareDelete(d.path(), d.version(), o);
    } else if (r instanceof Req.SetData s) {
      return prepareSetData(s.path(), s.data(), s.version(), o);
    } else if (r instanceof Req.Check c) {
      return prepareCheck(c.path(), c.version(), o);
    }
    throw new IllegalArgumentException("not a write: " + r);
  }

  private static Txn.Error error(Code c) {
    return new Txn.Error(c.intValue());
  }

  private Txn prepareCreate(Req.Create c, long session, Overlay o) {
    String path = c.path();
    String parent = parent(path);
    if (!o.exists(parent)) {
      return error(Code.NONODE);
    }
    if (o.owner(parent) != 0) {
      return error(Code.NOCHILDRENFOREPHEMERALS);
    }
    if (c.sequential()) {
      path = path + String.format("%010d", o.cversion(parent));
    }
    if (o.exists(path)) {
      return error(Code.NODEEXISTS);
    }
    o.exists.put(path, true);
    o.cversion.put(parent, o.cversion(parent) + 1);
    o.childCount.put(parent, o.childCount(parent) + 1);
    o.childCount.put(path, 0);
    o.version.put(path, 0);
    o.cversion.put(path, 0);
    long owner = c.ephemeral() ? session : 0;
    o.owner.put(path, owner);
    return new Txn.Create(path, c.data(), owner, c.container());
  }

  private Txn prepareDelete(String path, int version, Overlay o) {
    if (!o.exists(path)) {
      return error(Code.NONODE);
    }
    if (version != -1 && o.version(path) != version) {
      return error(Code.BADVERSION);
    }
    if (o.childCount(path) > 0) {
      return error(Code.NOTEMPTY);
    }
    String parent = parent(path);
    o.exists.put(path, false);
    o.childCount.put(parent, o.childCount(parent) - 1);
    return new Txn.Delete(path);
  }

  private Txn prepareSetData(String path, byte[] data, int version, Overlay o) {
    if (!o.exists(path)) {
      return error(Code.NONODE);
    }
    if (version != -1 && o.version(path) != version) {
      return error(Code.BADVERSION);
    }
    o.version.put(path, o.version(path) + 1);
    return new Txn.SetData(path, data);
  }

  private Txn prepareCheck(String path, int version, Overlay o) {
    if (!o.exists(path)) {
      return error(Code.NONODE);
    }
    if (version != -1 && o.version(path) != version) {
      return error(Code.BADVERSION);
    }
    return new Txn.Check(path);
  }

  /** A multi: each op against the ones before it; the first failure fails the whole. */
  private Prepared prepareMulti(Req.Multi m, long session) {
    Overlay o = new Overlay();
    List<Txn> ops = new ArrayList<>();
    for (int i = 0; i < m.ops().size(); i++) {
      Txn t = prepareOp(m.ops().get(i), session, o);
      if (t instanceof Txn.Error e) {
        return new Prepared(e, i);
      }
      ops.add(t);
    }
    return Prepared.of(new Txn.Multi(List.copyOf(ops)));
  }
}
