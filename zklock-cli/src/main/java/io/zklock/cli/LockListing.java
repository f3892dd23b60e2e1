package io.zklock.cli;

import io.zklock.internal.Json;
import io.zklock.internal.NodeKind;
import io.zklock.internal.Ordering;
import io.zklock.internal.QueueNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/** A snapshot of the lock directories under a namespace, as {@code zklock ls} shows it. */
final class LockListing {

  /** One node of a lock queue. */
  record Entry(
      String node,
      NodeKind kind,
      boolean holds,
      String client,
      String host,
      String pid,
      String session,
      long createdMillis,
      long token) {}

  /** One lock directory with its queue in order. */
  record Lock(String name, String path, List<Entry> queue) {
    long holders() {
      return queue.stream().filter(Entry::holds).count();
    }
  }

  final String namespace;
  final List<Lock> locks;
  final long takenMillis;

  private LockListing(String namespace, List<Lock> locks, long takenMillis) {
    this.namespace = namespace;
    this.locks = locks;
    this.takenMillis = takenMillis;
  }

  /**
   * Reads every lock directory at or below {@code namespace + "/" + subPath}. Nodes that vanish
   * while we read (a release, a handoff) are skipped: the listing is a best-effort snapshot.
   */
  static LockListing read(ZooKeeper zk, String namespace, String subPath)
      throws KeeperException, InterruptedException {
    String root = subPath == null || subPath.isEmpty() ? namespace : namespace + "/" + subPath;
    if (root.isEmpty()) {
      root = "/";
    }
    List<Lock> locks = new ArrayList<>();
    walk(zk, namespace, root, locks);
    locks.sort((a, b) -> a.name.compareTo(b.name));
    return new LockListing(
        namespace.isEmpty() ? "/" : namespace, locks, System.currentTimeMillis());
  }

  private static void walk(ZooKeeper zk, String namespace, String path, List<Lock> out)
      throws KeeperException, InterruptedException {
    List<String> children;
    try {
      children = zk.getChildren(path, false);
    } catch (KeeperException.NoNodeException gone) {
      return;
    }
    Collections.sort(children);
    List<QueueNode> queue = QueueNode.queue(children);
    if (!queue.isEmpty()) {
      Lock lock = readLock(zk, namespace, path, queue);
      if (!lock.queue.isEmpty()) {
        out.add(lock);
      }
    }
    for (String child : children) {
      if (QueueNode.parse(child) == null && !(path + "/" + child).startsWith("/zookeeper")) {
        walk(zk, namespace, path.equals("/") ? "/" + child : path + "/" + child, out);
      }
    }
  }

  private static Lock readLock(ZooKeeper zk, String namespace, String dir, List<QueueNode> queue)
      throws KeeperException, InterruptedException {
    List<QueueNode> present = new ArrayList<>();
    List<Map<String, String>> data = new ArrayList<>();
    List<Stat> stats = new ArrayList<>();
    for (QueueNode n : queue) {
      Stat stat = new Stat();
      byte[] bytes;
      try {
        bytes = zk.getData(dir + "/" + n.name(), false, stat);
      } catch (KeeperException.NoNodeException gone) {
        continue;
      }
      present.add(n.withCzxid(stat.getCzxid()));
      data.add(Json.parseObject(bytes == null ? "" : new String(bytes, StandardCharsets.UTF_8)));
      stats.add(stat);
    }
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < present.size(); i++) {
      order.add(i);
    }
    if (QueueNode.nearOverflow(present)) { // the library orders by creation then, so do we
      order.sort((a, b) -> QueueNode.BY_CREATION.compare(present.get(a), present.get(b)));
    }
    List<QueueNode> sorted = new ArrayList<>();
    for (int i : order) {
      sorted.add(present.get(i));
    }
    List<Entry> entries = new ArrayList<>();
    for (int k = 0; k < sorted.size(); k++) {
      int i = order.get(k);
      QueueNode n = sorted.get(k);
      Map<String, String> d = data.get(i);
      entries.add(
          new Entry(
              n.name(),
              n.kind(),
              holds(sorted, k),
              d.getOrDefault("client", "?"),
              d.getOrDefault("host", "?"),
              d.getOrDefault("pid", "?"),
              d.getOrDefault("session", "0x" + Long.toHexString(stats.get(i).getEphemeralOwner())),
              stats.get(i).getCtime(),
              stats.get(i).getCzxid()));
    }
    String name = dir.length() > namespace.length() ? dir.substring(namespace.length() + 1) : dir;
    return new Lock(name, dir, entries);
  }

  private static boolean holds(List<QueueNode> queue, int index) {
    try {
      return Ordering.forKind(queue.get(index).kind()).decide(queue, index)
          instanceof Ordering.Hold;
    } catch (IllegalArgumentException noRule) {
      return index == 0; // a kind without a queue rule here (semaphore): show the head
    }
  }

  // ------------------------------------------------------------------ rendering

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT);

  String text() {
    if (locks.isEmpty()) {
      return "no locks under " + namespace + "\n";
    }
    List<String[]> rows = new ArrayList<>();
    rows.add(
        new String[] {
          "LOCK", "#", "STATE", "KIND", "CLIENT", "HOST", "PID", "SESSION", "SINCE", "TOKEN"
        });
    for (Lock lock : locks) {
      int pos = 0;
      for (Entry e : lock.queue) {
        rows.add(
            new String[] {
              pos == 0 ? lock.name : "",
              Integer.toString(pos),
              e.holds ? "holds" : "waits",
              e.kind.label(),
              e.client,
              e.host,
              e.pid,
              e.session,
              since(e.createdMillis),
              Long.toString(e.token)
            });
        pos++;
      }
    }
    int[] width = new int[rows.get(0).length];
    for (String[] r : rows) {
      for (int c = 0; c < r.length; c++) {
        width[c] = Math.max(width[c], r[c].length());
      }
    }
    StringBuilder sb = new StringBuilder();
    for (String[] r : rows) {
      StringBuilder line = new StringBuilder();
      for (int c = 0; c < r.length; c++) {
        line.append(String.format(Locale.ROOT, "%-" + width[c] + "s", r[c]));
        if (c < r.length - 1) {
          line.append("  ");
        }
      }
      sb.append(line.toString().stripTrailing()).append('\n');
    }
    long held = locks.stream().filter(l -> l.holders() > 0).count();
    long waiting = locks.stream().mapToLong(l -> l.queue.size() - l.holders()).sum();
    sb.append(
        String.format(
            Locale.ROOT,
            "%d lock(s) under %s, %d held, %d waiting%n",
            locks.size(),
            namespace,
            held,
            waiting));
    return sb.toString();
  }

  private String since(long millis) {
    String at =
        TIME.format(LocalDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneId.systemDefault()));
    long age = Math.max(0, takenMillis - millis);
    return at + " (" + Durations.format(Duration.ofMillis(age)) + ")";
  }

  String json() {
    StringBuilder sb = new StringBuilder();
    sb.append("{\"namespace\":").append(Json.quote(namespace));
    sb.append(",\"time\":").append(Json.quote(Instant.ofEpochMilli(takenMillis).toString()));
    sb.append(",\"locks\":[");
    for (int l = 0; l < locks.size(); l++) {
      Lock lock = locks.get(l);
      if (l > 0) {
        sb.append(',');
      }
      sb.append("{\"name\":").append(Json.quote(lock.name));
      sb.append(",\"path\":").append(Json.quote(lock.path));
      sb.append(",\"queue\":[");
      for (int i = 0; i < lock.queue.size(); i++) {
        Entry e = lock.queue.get(i);
        if (i > 0) {
          sb.append(',');
        }
        sb.append("{\"node\":").append(Json.quote(e.node));
        sb.append(",\"kind\":").append(Json.quote(e.kind.label()));
        sb.append(",\"state\":").append(Json.quote(e.holds ? "holds" : "waits"));
        sb.append(",\"client\":").append(Json.quote(e.client));
        sb.append(",\"host\":").append(Json.quote(e.host));
        sb.append(",\"pid\":").append(e.pid.matches("\\d+") ? e.pid : Json.quote(e.pid));
        sb.append(",\"session\":").append(Json.quote(e.session));
        sb.append(",\"since\":")
            .append(Json.quote(Instant.ofEpochMilli(e.createdMillis).toString()));
        sb.append(",\"token\":").append(e.token);
        sb.append('}');
      }
      sb.append("]}");
    }
    sb.append("]}");
    return sb.toString();
  }
}
