package io.zklock.internal.rules;

import java.util.AbstractList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.RandomAccess;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * One listing of a lock directory as a queue: parsed and sorted once, however many requests read it
 * (the shared listings hand one listing to every request of a round), each finding its own node by
 * {@link #indexOfName(String)} in O(log n) instead of a scan. Immutable; the creation-order copy of
 * a listing whose sequence counter overflowed ({@link QueueNode#nearOverflow}) is made once too
 * ({@link #inCreationOrder}).
 */
public final class Listing extends AbstractList<QueueNode> implements RandomAccess {
  private final List<QueueNode> nodes;
  private final boolean byCreation;
  private final boolean nearOverflow;
  private final int kindMask;
  private final List<ForeignNode> foreign;
  private Map<String, Integer> byName; // creation order only, made on first use; guarded by this
  private CompletableFuture<Listing> creationOrder; // guarded by this
  private CompletableFuture<List<ForeignNode>> foreignByStat; // guarded by this

  private Listing(List<QueueNode> nodes, boolean byCreation, List<ForeignNode> foreign) {
    this.foreign = foreign;
    this.nodes = Collections.unmodifiableList(nodes);
    this.byCreation = byCreation;
    this.nearOverflow = !byCreation && QueueNode.nearOverflow(nodes);
    int mask = 0;
    for (QueueNode n : nodes) {
      mask |= KindMix.bit(n.kind());
    }
    this.kindMask = mask;
  }

  /**
   * The kinds of the nodes of this listing, one bit each ({@link KindMix#bit}): made once, so that
   * every request sharing the listing tests for a mix of recipes ({@link KindMix#conflict}) without
   * a scan.
   */
  public int kindMask() {
    return kindMask;
  }

  /**
   * The children of a lock directory that look like another program's lock nodes ({@link
   * ForeignNode#classify}), in the order listed: kept apart from the queue, made once per listing
   * from the names that are not queue nodes (none, in a directory of zklock's own).
   */
  public List<ForeignNode> foreign() {
    return foreign;
  }

  /** The children of a lock directory in queue order (by sequence, with wrap-around). */
  public static Listing of(Collection<String> children) {
    List<QueueNode> queue = new java.util.ArrayList<>(children.size());
    List<ForeignNode> foreign = List.of();
    for (String child : children) {
      QueueNode n = QueueNode.parse(child);
      if (n != null) {
        queue.add(n);
        continue;
      }
      ForeignNode f = ForeignNode.classify(child);
      if (f != null) {
        if (foreign.isEmpty()) {
          foreign = new java.util.ArrayList<>(2);
        }
        foreign.add(f);
      }
    }
    queue.sort(QueueNode.ORDER);
    return new Listing(
        queue, false, foreign.isEmpty() ? List.of() : Collections.unmodifiableList(foreign));
  }

  /**
   * Nodes that know their creation zxid, in creation order ({@link QueueNode#BY_CREATION}).
   *
   * @param resolved the nodes, each with its czxid; sorted here
   */
  public static Listing byCreation(List<QueueNode> resolved) {
    List<QueueNode> sorted = new java.util.ArrayList<>(resolved);
    sorted.sort(QueueNode.BY_CREATION);
    return new Listing(sorted, true, List.of());
  }

  /**
   * Whether the sequences of this listing cannot be trusted for order ({@link
   * QueueNode#nearOverflow}); always false for a listing in creation order.
   */
  public boolean nearOverflow() {
    return nearOverflow;
  }

  /**
   * This listing in creation order, made once by {@code resolve} whoever asks first; the others
   * share its future (which completes with null if the reads failed).
   */
  public synchronized CompletableFuture<Listing> inCreationOrder(
      Supplier<CompletableFuture<Listing>> resolve) {
    if (creationOrder == null) {
      creationOrder = resolve.get();
    }
    return creationOrder;
  }

  /**
   * The foreign children of this listing whose names alone do not prove them lock nodes, proven by
   * {@code read} (the ones whose stat shows an ephemeral node, {@link ForeignNode#ephemeral}), made
   * once by whoever asks first; the others share its future (which completes with null if the reads
   * failed).
   */
  public synchronized CompletableFuture<List<ForeignNode>> foreignByStat(
      Supplier<CompletableFuture<List<ForeignNode>>> read) {
    if (foreignByStat == null) {
      foreignByStat = read.get();
    }
    return foreignByStat;
  }

  /**
   * The index of the node named {@code name}, or -1: a binary search (a hash in creation order).
   */
  public int indexOfName(String name) {
    if (byCreation) {
      return byCreationIndexOf(name);
    }
    QueueNode key = QueueNode.parse(name);
    if (key == null) {
      return -1;
    }
    int i = Collections.binarySearch(nodes, key, QueueNode.ORDER);
    if (i >= 0) {
      return i;
    }
    // not found: our node is gone (someone deleted it), which is rare; a scan makes sure, whatever
    // names foreign to the queue's order the directory holds
    for (int j = 0; j < nodes.size(); j++) {
      if (nodes.get(j).name().equals(name)) {
        return j;
      }
    }
    return -1;
  }

  private synchronized int byCreationIndexOf(String name) {
    if (byName == null) {
      byName = new HashMap<>(nodes.size() * 2);
      for (int i = 0; i < nodes.size(); i++) {
        byName.put(nodes.get(i).name(), i);
      }
    }
    Integer i = byName.get(name);
    return i == null ? -1 : i;
  }

  @Override
  public QueueNode get(int index) {
    return nodes.get(index);
  }

  @Override
  public int size() {
    return nodes.size();
  }
}
