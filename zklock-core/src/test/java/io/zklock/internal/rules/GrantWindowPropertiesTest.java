package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link GrantWindow} against a directory's history played out as ZooKeeper keeps it: creations of
 * queue nodes (numbered by the count of creations before them, from any start, across the int
 * wrap-around), creations of other children, deletions of any child, each at its own time and
 * transaction, with the directory's {@code pzxid} at its last child change. The true grant time of
 * every holder is known from the history; the window computed from the end state alone must contain
 * it, be exact only when it is, and be exact whenever nothing changed after the holder's creation.
 */
class GrantWindowPropertiesTest {

  /** One step of a directory's history: 0..4 create a queue node, 5..7 delete, 8 other child. */
  record Step(int kind, int pick, boolean writer, int dt) {}

  @Provide
  Arbitrary<List<Step>> histories() {
    Arbitrary<Step> step =
        net.jqwik.api.Combinators.combine(
                Arbitraries.integers().between(0, 9),
                Arbitraries.integers().between(0, 1_000),
                Arbitraries.of(true, false),
                Arbitraries.integers().between(1, 50))
            .as((k, p, w, dt) -> new Step(k, p, w, dt));
    return step.list().ofMinSize(1).ofMaxSize(40);
  }

  @Provide
  Arbitrary<Integer> counterStart() {
    return Arbitraries.oneOf(
        Arbitraries.integers(),
        Arbitraries.integers().between(Integer.MAX_VALUE - 10, Integer.MAX_VALUE),
        Arbitraries.just(0));
  }

  /** A child of the played-out directory. */
  private static final class Node {
    final boolean queued; // a sequential queue node, or another child (a mark, a subdirectory)
    final int seq;
    final long czxid;
    final long ctime;
    final boolean writer;
    long granted = Long.MIN_VALUE; // when it first held
    boolean changedAfter; // a child change after its creation

    Node(boolean queued, int seq, long czxid, long ctime, boolean writer) {
      this.queued = queued;
      this.seq = seq;
      this.czxid = czxid;
      this.ctime = ctime;
      this.writer = writer;
    }
  }

  /** Who holds, by one of three rules that look only at the queue nodes ahead. */
  private static boolean holds(List<Node> queue, int i, int rule) {
    switch (rule) {
      case 0: // mutex, election
        return i == 0;
      case 1: // a semaphore of 3 permits
        return i < 3;
      default: // read-write: a reader after no writer, a writer first
        if (queue.get(i).writer) {
          return i == 0;
        }
        for (int j = 0; j < i; j++) {
          if (queue.get(j).writer) {
            return false;
          }
        }
        return true;
    }
  }

  @Property(tries = 3_000)
  void windowContainsTheTrueGrant_exactOnlyWhenItIs_exactWhenNothingChangedSince(
      @ForAll("histories") List<Step> history,
      @ForAll("counterStart") int start,
      @ForAll int rule) {
    int r = Math.floorMod(rule, 3);
    List<Node> children = new ArrayList<>(); // in creation order
    int creations = start; // ZooKeeper's count of creations: the next sequence number
    // the directory's own creation, and as many transactions before the first child as the
    // creations its counter already had (from any start: up to 2^32 - 1, wrapped) took at least
    long zxid = 100;
    long dirCzxid =
        zxid
            - (Integer.toUnsignedLong(start) + GrantWindow.MAX_CREATES_PER_TRANSACTION - 1)
                / GrantWindow.MAX_CREATES_PER_TRANSACTION;
    long pzxid = 0;
    long t = 1_000;
    for (Step s : history) {
      t += s.dt();
      zxid++;
      if (s.kind() <= 4 || s.kind() == 8) {
        children.add(new Node(s.kind() <= 4, creations, zxid, t, s.writer()));
        creations++;
      } else if (!children.isEmpty()) {
        children.remove(s.pick() % children.size());
      } else {
        zxid--; // nothing to delete: no change
        continue;
      }
      pzxid = zxid;
      for (Node n : children) {
        if (n.czxid != zxid) {
          n.changedAfter = true;
        }
      }
      List<Node> queue = children.stream().filter(n -> n.queued).toList();
      for (int i = 0; i < queue.size(); i++) {
        Node n = queue.get(i);
        if (n.granted == Long.MIN_VALUE && holds(queue, i, r)) {
          n.granted = t;
        }
      }
    }
    List<Node> queue = children.stream().filter(n -> n.queued).toList();
    Node last = children.stream().max((a, b) -> Long.compare(a.czxid, b.czxid)).orElse(null);
    for (int h = 0; h < queue.size(); h++) {
      Node holder = queue.get(h);
      if (holder.granted == Long.MIN_VALUE) {
        continue;
      }

      GrantWindow.Window w =
          GrantWindow.of(
              holder.seq, holder.czxid, holder.ctime, h, pzxid, last.czxid, last.ctime, dirCzxid);

      assertThat(w.earliestMillis()).isLessThanOrEqualTo(holder.granted);
      assertThat(w.latestMillis()).isGreaterThanOrEqualTo(holder.granted);
      if (w.exact()) {
        assertThat(holder.granted).isEqualTo(holder.ctime);
      }
      if (!holder.changedAfter) {
        assertThat(w.exact()).as("nothing changed since its creation").isTrue();
      }
    }
  }

  @Example
  void grantedByADeletion_thenANewArrival_boundedByTheArrival() {
    // holder 1 (zxid 11, t=100) behind node 0; node 0 deleted (zxid 12); node 2 created (zxid 13,
    // t=400), the last change: the grant came after 100 and no later than 400
    GrantWindow.Window w = GrantWindow.of(1, 11, 100, 0, 13, 13, 400, 5);

    assertThat(w).isEqualTo(new GrantWindow.Window(100, 400));
    assertThat(w.exact()).isFalse();
    assertThat(w.bounded()).isTrue();
  }

  @Example
  void lastChangeADeletion_onlyTheListingBounds() {
    GrantWindow.Window w = GrantWindow.of(1, 11, 100, 0, 14, 13, 400, 5);

    assertThat(w.bounded()).isFalse();
    assertThat(w.earliestMillis()).isEqualTo(100);
  }

  @Example
  void nothingCreatedBeforeItIsGone_orItsCreationWasTheLastChange_exact() {
    assertThat(GrantWindow.of(0, 11, 100, 0, 20, 20, 500, 5).exact()).isTrue();
    assertThat(GrantWindow.of(7, 11, 100, 0, 11, 11, 100, 5).exact()).isTrue();
  }

  @Example
  void aCountThatMayHaveWrapped_isNotTrusted() {
    long dir = 5;
    long far = dir + (1L << 32) / GrantWindow.MAX_CREATES_PER_TRANSACTION;
    assertThat(GrantWindow.of(0, far - 2, 100, 0, far, far, 500, dir).exact()).isFalse();
    assertThat(GrantWindow.of(0, 11, 100, 0, 20, 20, 500, (1L << 32) + 5).exact())
        .as("another epoch")
        .isFalse();
  }
}
