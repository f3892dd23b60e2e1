package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The ordering rules as pure functions of the child list: who holds, whom a waiter watches, and
 * that the order of nodes survives the wrap-around of ZooKeeper's signed 32-bit sequence counter.
 */
public class OrderingPropertiesTest {

  /**
   * Names as ZooKeeper makes them: the parent's counter, formatted %010d, which may be negative.
   */
  public static List<String> created(List<NodeKind> kinds, int firstSequence) {
    List<String> names = new ArrayList<>();
    int seq = firstSequence;
    for (NodeKind k : kinds) {
      names.add(QueueNode.prefix(k, QueueNode.newAttemptId()) + String.format("%010d", seq));
      seq++; // wraps from Integer.MAX_VALUE to Integer.MIN_VALUE, as ZooKeeper's counter does
    }
    return names;
  }

  @Provide
  Arbitrary<Integer> sequences() {
    return Arbitraries.oneOf(
        Arbitraries.integers(),
        Arbitraries.integers().between(Integer.MAX_VALUE - 60, Integer.MAX_VALUE),
        Arbitraries.integers().between(-1, 60).map(i -> i));
  }

  @Provide
  Arbitrary<List<NodeKind>> mixed() {
    return Arbitraries.of(NodeKind.READ, NodeKind.WRITE).list().ofMinSize(1).ofMaxSize(60);
  }

  @Property
  void queue_sortsInCreationOrder_acrossWrapAround(
      @ForAll("mixed") List<NodeKind> kinds, @ForAll("sequences") int first, @ForAll long seed) {
    List<String> names = created(kinds, first);
    List<String> shuffled = new ArrayList<>(names);
    Collections.shuffle(shuffled, new Random(seed));

    List<QueueNode> queue = QueueNode.queue(shuffled);

    assertThat(queue)
        .extracting(QueueNode::name)
        .as("queue order = creation order")
        .containsExactlyElementsOf(names);
  }

  @Property
  void parse_roundTripsEveryName(
      @ForAll("mixed") List<NodeKind> kinds, @ForAll("sequences") int first) {
    for (String name : created(kinds, first)) {
      QueueNode n = QueueNode.parse(name);
      assertThat(n).as("parse(%s)", name).isNotNull();
      assertThat(QueueNode.prefix(n.kind(), n.attemptId()) + String.format("%010d", n.sequence()))
          .isEqualTo(name);
    }
  }

  @Example
  void parse_rejectsForeignNames() {
    assertThat(QueueNode.parse("lock")).isNull();
    assertThat(QueueNode.parse("x-0123456789ab-0000000001")).isNull();
    assertThat(QueueNode.parse("m-short-0000000001")).isNull();
    assertThat(QueueNode.parse("m-0123456789ab-12")).isNull();
    assertThat(QueueNode.parse("m-0123456789ab-00000000zz")).isNull();
    assertThat(QueueNode.parse("m-0123456789ab-0000000001")).isNotNull();
    assertThat(QueueNode.parse("m-0123456789ab--2147483648").sequence())
        .isEqualTo(Integer.MIN_VALUE);
  }

  @Property
  void exclusive_firstHolds_othersWatchTheirImmediatePredecessor(
      @ForAll @IntRange(min = 1, max = 80) int n, @ForAll("sequences") int first) {
    List<QueueNode> queue = QueueNode.queue(created(Collections.nCopies(n, NodeKind.MUTEX), first));
    for (int i = 0; i < n; i++) {
      Ordering.Decision d = Ordering.exclusive(queue, i);
      if (i == 0) {
        assertThat(d).as("head holds").isInstanceOf(Ordering.Hold.class);
      } else {
        assertThat(d).isInstanceOf(Ordering.Watch.class);
        Ordering.Watch w = (Ordering.Watch) d;
        assertThat(w.node()).as("node %d watches its predecessor", i).isEqualTo(queue.get(i - 1));
        assertThat(w.allAheadGone())
            .as("handoff without re-read only behind the head")
            .isEqualTo(i == 1);
      }
    }
  }

  /** The holders a rule grants in a queue: every index whose decision is Hold. */
  static List<Integer> holders(List<QueueNode> queue) {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < queue.size(); i++) {
      if (Ordering.forKind(queue.get(i).kind()).decide(queue, i) instanceof Ordering.Hold) {
        out.add(i);
      }
    }
    return out;
  }

  @Property
  void readWrite_holdersAreAWriterAloneOrALeadingRunOfReaders(
      @ForAll("mixed") List<NodeKind> kinds, @ForAll("sequences") int first) {
    List<QueueNode> queue = QueueNode.queue(created(kinds, first));

    List<Integer> holders = holders(queue);

    if (queue.get(0).kind() == NodeKind.WRITE) {
      assertThat(holders).as("a writer at the head holds alone").containsExactly(0);
    } else {
      int run = 0;
      while (run < queue.size() && queue.get(run).kind() == NodeKind.READ) {
        run++;
      }
      List<Integer> expected = new ArrayList<>();
      for (int i = 0; i < run; i++) {
        expected.add(i);
      }
      assertThat(holders).as("the leading readers hold together, nobody else").isEqualTo(expected);
    }
  }

  @Property
  void shared_readerWatchesTheLastWriterAheadOfIt(
      @ForAll("mixed") List<NodeKind> kinds, @ForAll("sequences") int first) {
    List<QueueNode> queue = QueueNode.queue(created(kinds, first));
    for (int i = 0; i < queue.size(); i++) {
      if (queue.get(i).kind() != NodeKind.READ) {
        continue;
      }
      int lastWriter = -1;
      for (int j = 0; j < i; j++) {
        if (queue.get(j).kind() == NodeKind.WRITE) {
          lastWriter = j;
        }
      }
      Ordering.Decision d = Ordering.shared(queue, i);
      if (lastWriter < 0) {
        assertThat(d).isInstanceOf(Ordering.Hold.class);
      } else {
        Ordering.Watch w = (Ordering.Watch) d;
        assertThat(w.node()).isEqualTo(queue.get(lastWriter));
        assertThat(w.allAheadGone()).isEqualTo(lastWriter == 0);
      }
    }
  }

  /**
   * Liveness and herd-freedom by simulation: repeatedly the holders finish (are deleted); the
   * waiters whose watched node was deleted are the only ones woken. Every node is eventually
   * granted, in an order where no writer is overtaken by a later reader, and a writer's deletion
   * wakes only nodes that can then run or must re-check.
   */
  @Property
  void simulation_everyoneIsGrantedInFifoOrder_andOnlyWatchersWake(
      @ForAll("mixed") List<NodeKind> kinds, @ForAll("sequences") int first) {
    List<QueueNode> queue = new ArrayList<>(QueueNode.queue(created(kinds, first)));
    List<QueueNode> grantOrder = new ArrayList<>();
    int rounds = 0;
    while (!queue.isEmpty()) {
      assertThat(rounds++).as("terminates").isLessThan(kinds.size() + 1);
      List<Integer> holders = holders(queue);
      assertThat(holders).as("someone always holds").isNotEmpty();
      List<QueueNode> finishing = new ArrayList<>();
      for (int h : holders) {
        finishing.add(queue.get(h));
      }
      // who watches the finishing nodes (the only ones notified)
      for (int i = 0; i < queue.size(); i++) {
        Ordering.Decision d = Ordering.forKind(queue.get(i).kind()).decide(queue, i);
        if (d instanceof Ordering.Watch w) {
          assertThat(queue.indexOf(w.node())).as("watch only nodes ahead").isLessThan(i);
          if (w.node().kind() == NodeKind.READ) {
            assertThat(queue.get(i).kind())
                .as("only writers watch readers")
                .isEqualTo(NodeKind.WRITE);
          }
        }
      }
      grantOrder.addAll(finishing);
      queue.removeAll(finishing);
    }
    List<QueueNode> sorted = new ArrayList<>(grantOrder);
    sorted.sort(QueueNode.ORDER);
    assertThat(grantOrder).as("granted in arrival order").isEqualTo(sorted);
  }

  @Property
  void exclusive_eachNodeIsWatchedByAtMostOneWaiter(
      @ForAll @Size(min = 1, max = 60)
          List<@net.jqwik.api.constraints.IntRange(min = 0, max = 1) Integer> kindBits,
      @ForAll("sequences") int first) {
    List<NodeKind> kinds = new ArrayList<>();
    for (int b : kindBits) {
      kinds.add(b == 0 ? NodeKind.MUTEX : NodeKind.WRITE);
    }
    List<QueueNode> queue = QueueNode.queue(created(kinds, first));
    List<QueueNode> watched = new ArrayList<>();
    for (int i = 0; i < queue.size(); i++) {
      if (Ordering.exclusive(queue, i) instanceof Ordering.Watch w) {
        assertThat(watched)
            .as("no herd: %s watched twice", w.node().name())
            .doesNotContain(w.node());
        watched.add(w.node());
      }
    }
  }

  @Property
  void exclusive_looksAheadExactlyToThePredecessorsPredecessor_andNothingIsWatchedByMoreThanTwo(
      @ForAll @Size(min = 1, max = 60)
          List<@net.jqwik.api.constraints.IntRange(min = 0, max = 2) Integer> kindBits,
      @ForAll("sequences") int first) {
    List<NodeKind> kinds = new ArrayList<>();
    for (int b : kindBits) {
      kinds.add(b == 0 ? NodeKind.MUTEX : b == 1 ? NodeKind.WRITE : NodeKind.READ);
    }
    List<QueueNode> queue = QueueNode.queue(created(kinds, first));
    java.util.Map<QueueNode, Integer> watchers = new java.util.HashMap<>();
    for (int i = 0; i < queue.size(); i++) {
      if (Ordering.exclusive(queue, i) instanceof Ordering.Watch w) {
        assertThat(w.lookAhead())
            .as("index %d looks ahead to index %d, the head needs no look-ahead", i, i - 2)
            .isEqualTo(i >= 2 ? queue.get(i - 2) : null);
        assertThat(w.allAheadGone()).as("look-ahead iff not behind the head").isEqualTo(i == 1);
        watchers.merge(w.node(), 1, Integer::sum);
        if (w.lookAhead() != null) {
          watchers.merge(w.lookAhead(), 1, Integer::sum);
        }
      }
    }
    for (var e : watchers.entrySet()) {
      assertThat(e.getValue())
          .as("exclusive waiters watching %s (the watch-event bound)", e.getKey().name())
          .isLessThanOrEqualTo(2);
    }
  }

  @Property
  void exclusive_afterTheLookAheadGoes_theRuleNamesTheSameNode_headOnlyWhenNothingElseIsAhead(
      @ForAll @IntRange(min = 3, max = 40) int n,
      @ForAll("sequences") int first,
      @ForAll long seed) {
    // a waiter at index i looks ahead to i-2; any nodes ahead of it may go (releases, withdrawals)
    List<QueueNode> queue = QueueNode.queue(created(Collections.nCopies(n, NodeKind.MUTEX), first));
    Random random = new Random(seed);
    int i = 2 + random.nextInt(n - 2);
    Ordering.Watch w = (Ordering.Watch) Ordering.exclusive(queue, i);
    List<QueueNode> later = new ArrayList<>(queue);
    later.remove(w.lookAhead());
    for (int j = i - 3; j >= 0; j--) {
      if (random.nextBoolean()) {
        later.remove(j);
      }
    }
    Ordering.Watch again = (Ordering.Watch) Ordering.exclusive(later, later.indexOf(queue.get(i)));
    assertThat(again.node()).as("the predecessor is still the one watched").isEqualTo(w.node());
    assertThat(again.allAheadGone())
        .as("the predecessor is the head exactly when nothing else is left ahead of it")
        .isEqualTo(later.indexOf(w.node()) == 0);
    assertThat(again.lookAhead())
        .isEqualTo(again.allAheadGone() ? null : later.get(later.indexOf(w.node()) - 1));
  }
}
