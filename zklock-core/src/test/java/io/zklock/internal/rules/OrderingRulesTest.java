package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The ordering rules ({@link Ordering}) at their edges: indexes, the lease bound, the kinds. */
class OrderingRulesTest {
  private static QueueNode n(String kind, int seq) {
    return QueueNode.parse(kind + "-0123456789ab-" + String.format("%010d", seq));
  }

  private final List<QueueNode> q = List.of(n("w", 1), n("r", 2), n("r", 3), n("w", 4), n("r", 5));

  @Test
  void exclusive_headHolds_secondWatchesTheHeadWithNothingElseAhead_thirdDoesNot() {
    assertThat(Ordering.exclusive(q, 0)).isEqualTo(new Ordering.Hold());
    assertThat(Ordering.exclusive(q, 1)).isEqualTo(new Ordering.Watch(q.get(0), true));
    assertThat(Ordering.exclusive(q, 2)).isEqualTo(new Ordering.Watch(q.get(1), false, q.get(0)));
  }

  @Test
  void exclusive_looksAheadToThePredecessorsPredecessor_sharedNever() {
    assertThat(((Ordering.Watch) Ordering.exclusive(q, 1)).lookAhead()).isNull();
    assertThat(((Ordering.Watch) Ordering.exclusive(q, 4)).lookAhead()).isEqualTo(q.get(2));
    assertThat(((Ordering.Watch) Ordering.shared(q, 4)).lookAhead()).isNull();
  }

  @Test
  void heldOnlyAtHead_exactlyTheQueuedExclusiveKinds() {
    for (NodeKind k : NodeKind.values()) {
      assertThat(Ordering.heldOnlyAtHead(k))
          .as("%s", k)
          .isEqualTo(k.exclusive() && k != NodeKind.SIMPLE);
    }
  }

  @Test
  void shared_watchesTheLastWriterAhead_flaggingWhetherItIsTheHead() {
    assertThat(Ordering.shared(q, 1)).isEqualTo(new Ordering.Watch(q.get(0), true));
    assertThat(Ordering.shared(q, 2)).isEqualTo(new Ordering.Watch(q.get(0), true));
    assertThat(Ordering.shared(q, 4)).isEqualTo(new Ordering.Watch(q.get(3), false));
    List<QueueNode> readers = List.of(n("r", 1), n("r", 2));
    assertThat(Ordering.shared(readers, 1)).isEqualTo(new Ordering.Hold());
    assertThat(Ordering.shared(readers, 0)).isEqualTo(new Ordering.Hold());
  }

  @Test
  void lease_holdsBelowThePermits_waitsForTheQueueFromThere() {
    Ordering.Rule two = Ordering.lease(2);
    assertThat(two.decide(q, 0)).isEqualTo(new Ordering.Hold());
    assertThat(two.decide(q, 1)).isEqualTo(new Ordering.Hold());
    assertThat(two.decide(q, 2)).isEqualTo(new Ordering.WatchQueue());
    assertThat(Ordering.lease(1).decide(q, 1)).isEqualTo(new Ordering.WatchQueue());
    assertThatThrownBy(() -> Ordering.lease(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("permits must be at least 1: 0");
    assertThatThrownBy(() -> two.decide(q, 5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("index 5 not in a queue of 5");
  }

  @Test
  void everyRule_refusesAnIndexOutsideTheQueue() {
    for (int bad : new int[] {-1, 5}) {
      assertThatThrownBy(() -> Ordering.exclusive(q, bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("index " + bad + " not in a queue of 5");
      assertThatThrownBy(() -> Ordering.shared(q, bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("index " + bad + " not in a queue of 5");
      assertThatThrownBy(() -> Ordering.lease(3).decide(q, bad))
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThatThrownBy(() -> Ordering.exclusive(List.of(), 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void forKind_readIsShared_exclusiveKindsAreExclusive_othersRefused() {
    assertThat(Ordering.forKind(NodeKind.READ).decide(q, 2))
        .isEqualTo(new Ordering.Watch(q.get(0), true));
    for (NodeKind k : new NodeKind[] {NodeKind.MUTEX, NodeKind.WRITE, NodeKind.ELECTION}) {
      assertThat(Ordering.forKind(k).decide(q, 2))
          .as("%s", k)
          .isEqualTo(new Ordering.Watch(q.get(1), false, q.get(0)));
    }
    for (NodeKind k : new NodeKind[] {NodeKind.SEMAPHORE, NodeKind.SIMPLE}) {
      assertThatThrownBy(() -> Ordering.forKind(k))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("no queue rule for " + k);
    }
  }
}
