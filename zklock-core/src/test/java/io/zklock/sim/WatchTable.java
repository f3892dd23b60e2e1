package io.zklock.sim;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * One of a server's two watch tables (data or child), as ZooKeeper's {@code WatchManager} keeps it:
 * per path, the connections watching it and in which modes (one-shot, persistent, persistent
 * recursive). A one-shot watch is removed when it fires; a recursive one fires for every path below
 * its own.
 */
final class WatchTable {
  static final int STANDARD = 1;
  static final int PERSISTENT = 2;
  static final int RECURSIVE = 4;

  private final Map<String, LinkedHashMap<Link, Integer>> table = new HashMap<>();
  private int recursive; // how many recursive registrations exist

  void add(String path, Link l, int mode) {
    LinkedHashMap<Link, Integer> m = table.computeIfAbsent(path, k -> new LinkedHashMap<>());
    Integer old = m.get(l);
    int now = (old == null ? 0 : old) | mode;
    if ((mode & RECURSIVE) != 0 && (old == null || (old & RECURSIVE) == 0)) {
      recursive++;
    }
    m.put(l, now);
  }

  boolean contains(String path, Link l, int modes) {
    LinkedHashMap<Link, Integer> m = table.get(path);
    Integer v = m == null ? null : m.get(l);
    return v != null && (v & modes) != 0;
  }

  /** Removes {@code l}'s watches of {@code modes} on {@code path}; true if any was there. */
  boolean remove(String path, Link l, int modes) {
    LinkedHashMap<Link, Integer> m = table.get(path);
    Integer v = m == null ? null : m.get(l);
    if (v == null || (v & modes) == 0) {
      return false;
    }
    int left = v & ~modes;
    if ((v & RECURSIVE) != 0 && (left & RECURSIVE) == 0) {
      recursive--;
    }
    if (left == 0) {
      m.remove(l);
      if (m.isEmpty()) {
        table.remove(path);
      }
    } else {
      m.put(l, left);
    }
    return true;
  }

  /** Drops every watch of a closed connection. */
  void removeLink(Link l) {
    for (var it = table.entrySet().iterator(); it.hasNext(); ) {
      var e = it.next();
      Integer v = e.getValue().remove(l);
      if (v != null && (v & RECURSIVE) != 0) {
        recursive--;
      }
      if (e.getValue().isEmpty()) {
        it.remove();
      }
    }
  }

  /**
   * The connections to notify of an event on {@code path}, one-shot watches removed: those on the
   * path itself, and recursive ones on its ancestors (when {@code withAncestors}), minus {@code
   * suppress}.
   */
  Set<Link> trigger(String path, boolean withAncestors, Set<Link> suppress) {
    Set<Link> out = new LinkedHashSet<>();
    LinkedHashMap<Link, Integer> m = table.get(path);
    if (m != null) {
      for (var it = m.entrySet().iterator(); it.hasNext(); ) {
        var e = it.next();
        if (suppress.contains(e.getKey())) {
          continue;
        }
        out.add(e.getKey());
        int v = e.getValue();
        if ((v & STANDARD) != 0) {
          int left = v & ~STANDARD;
          if (left == 0) {
            it.remove();
          } else {
            e.setValue(left);
          }
        }
      }
      if (m.isEmpty()) {
        table.remove(path);
      }
    }
    if (withAncestors && recursive > 0) {
      String p = path;
      while (!p.equals("/")) {
        p = SimTree.parent(p);
        LinkedHashMap<Link, Integer> a = table.get(p);
        if (a == null) {
          continue;
        }
        for (var e : a.entrySet()) {
          if ((e.getValue() & RECURSIVE) != 0 && !suppress.contains(e.getKey())) {
            out.add(e.getKey());
          }
        }
      }
    }
    return out;
  }

  int size() {
    int n = 0;
    for (var m : table.values()) {
      n += m.size();
    }
    return n;
  }
}
