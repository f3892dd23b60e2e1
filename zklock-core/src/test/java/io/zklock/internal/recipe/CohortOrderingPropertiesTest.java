package io.zklock.internal.recipe;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.Ordering;
import io.zklock.internal.rules.OrderingPropertiesTest;
import io.zklock.internal.rules.QueueNode;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The node kinds of cohort read-write locks order exactly like the plain ones: a cohort write node
 * like a {@code w-} node, a cohort read node like an {@code r-} node, in any mix; and the cohort's
 * rule of who "waits behind" its node.
 */
class CohortOrderingPropertiesTest {

  private static final List<NodeKind> RW =
      List.of(NodeKind.READ, NodeKind.WRITE, NodeKind.COHORT_READ, NodeKind.COHORT_WRITE);

  @Provide
  Arbitrary<List<NodeKind>> mixed() {
    return Arbitraries.of(RW).list().ofMinSize(1).ofMaxSize(40);
  }

  @Provide
  Arbitrary<Integer> sequences() {
    return Arbitraries.oneOf(
        Arbitraries.integers().between(0, 1000),
        Arbitraries.integers().between(Integer.MAX_VALUE - 30, Integer.MAX_VALUE));
  }

  private static NodeKind plain(NodeKind k) {
    switch (k) {
      case COHORT_READ:
        return NodeKind.READ;
      case COHORT_WRITE:
      case COHORT:
        return NodeKind.WRITE;
      default:
        return k;
    }
  }

  private static List<QueueNode> asPlain(List<QueueNode> queue) {
    List<QueueNode> out = new ArrayList<>();
    for (QueueNode n : queue) {
      out.add(new QueueNode(n.name(), plain(n.kind()), n.attemptId(), n.sequence(), n.czxid()));
    }
    return out;
  }

  @Property
  void cohortKinds_decideAsTheirPlainKinds(
      @ForAll("mixed") List<NodeKind> kinds, @ForAll("sequences") int first) {
    List<QueueNode> queue = QueueNode.queue(OrderingPropertiesTest.created(kinds, first));
    List<QueueNode> plain = asPlain(queue);
    for (int i = 0; i < queue.size(); i++) {
      Ordering.Decision d = Ordering.forKind(queue.get(i).kind()).decide(queue, i);
      Ordering.Decision p = Ordering.forKind(plain.get(i).kind()).decide(plain, i);
      assertThat(d.getClass()).as("decision %d of %s", i, kinds).isEqualTo(p.getClass());
      if (d instanceof Ordering.Watch w) {
        Ordering.Watch pw = (Ordering.Watch) p;
        assertThat(w.node().name()).isEqualTo(pw.node().name());
        assertThat(w.allAheadGone()).isEqualTo(pw.allAheadGone());
      }
    }
  }

  @Property
  void parse_roundTripsCohortNames(@ForAll("mixed") List<NodeKind> kinds) {
    for (String name : OrderingPropertiesTest.created(kinds, 5)) {
      QueueNode n = QueueNode.parse(name);
      assertThat(n).as(name).isNotNull();
      assertThat(name).startsWith(n.kind().prefix() + "-");
    }
  }

  /**
   * Someone waits behind a cohort's node at {@code index}: anyone in exclusive mode; a node that
   * the shared rule would hold up (an exclusive node) in shared mode.
   */
  @Property
  void waitsBehind_anyoneForExclusive_anExclusiveNodeForShared(
      @ForAll("mixed") List<NodeKind> kinds, @ForAll int pick) {
    List<QueueNode> queue = QueueNode.queue(OrderingPropertiesTest.created(kinds, 7));
    int index = Math.floorMod(pick, queue.size());
    assertThat(CohortLock.waitsBehind(queue, index, false)).isEqualTo(index < queue.size() - 1);
    boolean writerBehind = false;
    for (int j = index + 1; j < queue.size(); j++) {
      writerBehind |= queue.get(j).kind().exclusive();
    }
    assertThat(CohortLock.waitsBehind(queue, index, true)).isEqualTo(writerBehind);
  }

  @Property
  void waitsBehind_nearOverflow_anyOtherNodeCounts(
      @ForAll("mixed") List<NodeKind> kinds, @ForAll int pick) {
    List<QueueNode> queue =
        QueueNode.queue(OrderingPropertiesTest.created(kinds, Integer.MAX_VALUE - 50));
    int index = Math.floorMod(pick, queue.size());
    assertThat(CohortLock.waitsBehind(queue, index, false)).isEqualTo(queue.size() > 1);
    boolean otherWriter = false;
    for (int j = 0; j < queue.size(); j++) {
      otherWriter |= j != index && queue.get(j).kind().exclusive();
    }
    assertThat(CohortLock.waitsBehind(queue, index, true)).isEqualTo(otherWriter);
  }

  @Example
  void kinds_prefixesAndExclusivity() {
    assertThat(NodeKind.COHORT_WRITE.prefix()).isEqualTo("cw");
    assertThat(NodeKind.COHORT_READ.prefix()).isEqualTo("cr");
    assertThat(NodeKind.COHORT_WRITE.exclusive()).isTrue();
    assertThat(NodeKind.COHORT_READ.exclusive()).isFalse();
    assertThat(NodeKind.ofPrefix("cr")).isEqualTo(NodeKind.COHORT_READ);
    assertThat(NodeKind.ofPrefix("cw")).isEqualTo(NodeKind.COHORT_WRITE);
    assertThat(NodeKind.COHORT_READ.cohort()).isTrue();
    assertThat(NodeKind.READ.cohort()).isFalse();
  }
}
