package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The Curator-compatible kinds (issue 28): their names parse as Curator writes them, and zklock's
 * ordering rules agree with Curator's recipes on who holds, for any queue of Curator's and zklock's
 * nodes whose sequence counter has not wrapped. Curator's rules are written out here as its 5.9
 * source has them ({@code StandardLockInternalsDriver}, {@code InterProcessReadWriteLock}):
 * children sorted by the text after the lock name; a mutex or writer holds at index 0; a reader
 * holds when no {@code __WRIT__} node is ahead of it.
 */
class CuratorNamesPropertiesTest {

  @Example
  void parse_curatorProtectedNames() {
    String id = "0b3c1f2e-4d5a-4b6c-8d7e-9f0a1b2c3d4e";
    assertThat(QueueNode.parse("_c_" + id + "-lock-0000000017"))
        .isEqualTo(
            new QueueNode("_c_" + id + "-lock-0000000017", NodeKind.CURATOR_MUTEX, id, 17, 0L));
    assertThat(QueueNode.parse("_c_" + id + "-__READ__0000000003").kind())
        .isEqualTo(NodeKind.CURATOR_READ);
    assertThat(QueueNode.parse("_c_" + id + "-__WRIT__0000000004").kind())
        .isEqualTo(NodeKind.CURATOR_WRITE);
    assertThat(QueueNode.parse("_c_" + id + "-lock--2147483648").sequence())
        .isEqualTo(Integer.MIN_VALUE);
    assertThat(QueueNode.parse("_c_" + id + "-latch-0000000001").kind())
        .isEqualTo(NodeKind.CURATOR_LATCH);
    assertThat(QueueNode.parse("_c_" + id + "-lease-0000000001").kind())
        .isEqualTo(NodeKind.CURATOR_LEASE);
    assertThat(QueueNode.parse("_c_" + id + "-queue-0000000001")).as("not a lock name").isNull();
    assertThat(QueueNode.parse("_c_" + id + "-lock-00000001")).as("short sequence").isNull();
    assertThat(QueueNode.parse("_c_" + id + "-lock-000000001x")).as("not digits").isNull();
    assertThat(QueueNode.parse("_c_" + id + "-lock-+000000001")).as("a sign").isNull();
    assertThat(QueueNode.parse("_c_short-lock-0000000001")).as("short id").isNull();
    assertThat(QueueNode.parse("lock-0000000001")).as("unprotected").isNull();
    assertThat(QueueNode.parse("__READ__-0123456789ab-0000000001"))
        .as("a Curator lock name is not one of our prefixes")
        .isNull();
  }

  @Example
  void prefix_andAttemptId_areCuratorsProtectedForm() {
    String id = QueueNode.newAttemptId(NodeKind.CURATOR_MUTEX);
    assertThat(UUID.fromString(id).toString()).isEqualTo(id);
    assertThat(QueueNode.prefix(NodeKind.CURATOR_MUTEX, id)).isEqualTo("_c_" + id + "-lock-");
    assertThat(QueueNode.prefix(NodeKind.CURATOR_WRITE, id)).isEqualTo("_c_" + id + "-__WRIT__");
    assertThat(QueueNode.newAttemptId(NodeKind.MUTEX)).hasSize(QueueNode.ATTEMPT_ID_LENGTH);
  }

  @Example
  void wrappedCounter_curatorOrdersWrongly_weDoNot() {
    // The 2^31 wrap: Curator compares the text, so "-2147483648" sorts before "2147483647".
    String a = name(NodeKind.CURATOR_MUTEX, Integer.MAX_VALUE);
    String b = name(NodeKind.CURATOR_MUTEX, Integer.MIN_VALUE);
    assertThat(curatorSorted(List.of(a, b))).containsExactly(b, a);
    assertThat(QueueNode.queue(List.of(b, a))).extracting(QueueNode::name).containsExactly(a, b);
  }

  @Provide
  Arbitrary<List<NodeKind>> rwKinds() {
    return Arbitraries.of(NodeKind.CURATOR_READ, NodeKind.CURATOR_WRITE)
        .list()
        .ofMinSize(1)
        .ofMaxSize(40);
  }

  @Provide
  Arbitrary<Integer> firstSequence() {
    return Arbitraries.integers().between(0, Integer.MAX_VALUE - 100);
  }

  @Property(tries = 300)
  void mutex_sameOrderAndSameHolderAsCurator(
      @ForAll("firstSequence") int first,
      @ForAll @net.jqwik.api.constraints.IntRange(min = 1, max = 40) int size,
      @ForAll long seed) {
    List<NodeKind> kinds = Collections.nCopies(size, NodeKind.CURATOR_MUTEX);
    List<String> names = created(kinds, first, new Random(seed));
    List<String> shuffled = shuffled(names, seed);

    List<QueueNode> ours = QueueNode.queue(shuffled);
    List<String> theirs = curatorSorted(shuffled);

    assertThat(ours).extracting(QueueNode::name).containsExactlyElementsOf(theirs);
    for (int i = 0; i < ours.size(); i++) {
      Ordering.Decision d = Ordering.forKind(NodeKind.CURATOR_MUTEX).decide(ours, i);
      assertThat(d instanceof Ordering.Hold).as("holds at %d", i).isEqualTo(i == 0);
      if (d instanceof Ordering.Watch w) {
        assertThat(w.node().name())
            .as("watches the node Curator's waiter at the same place watches")
            .isEqualTo(theirs.get(i - 1));
      }
    }
  }

  @Property(tries = 300)
  void readWrite_sameHoldersAsCurator(
      @ForAll("rwKinds") List<NodeKind> kinds,
      @ForAll("firstSequence") int first,
      @ForAll long seed) {
    List<String> names = created(kinds, first, new Random(seed));
    List<String> shuffled = shuffled(names, seed);

    List<QueueNode> ours = QueueNode.queue(shuffled);
    List<String> theirs = curatorSorted(shuffled);

    assertThat(ours).extracting(QueueNode::name).containsExactlyElementsOf(theirs);
    for (int i = 0; i < ours.size(); i++) {
      boolean weHold =
          Ordering.forKind(ours.get(i).kind()).decide(ours, i) instanceof Ordering.Hold;
      assertThat(weHold).as("holds at %d of %s", i, theirs).isEqualTo(curatorHolds(theirs, i));
    }
  }

  // ---------------------------------------------------------------- Curator's rules, written out

  private static final String[] LOCK_NAMES = {"lock-", "__READ__", "__WRIT__"};

  /** Curator's {@code standardFixForSorting} for every lock name its recipes use on one path. */
  private static String fixForSorting(String str) {
    for (String lockName : LOCK_NAMES) {
      int index = str.lastIndexOf(lockName);
      if (index >= 0) {
        str = str.substring(index + lockName.length());
      }
    }
    return str;
  }

  private static List<String> curatorSorted(List<String> children) {
    List<String> sorted = new ArrayList<>(children);
    sorted.sort((l, r) -> fixForSorting(l).compareTo(fixForSorting(r)));
    return sorted;
  }

  /** Curator's mutex and writer: index 0; its reader: no writer ahead. */
  private static boolean curatorHolds(List<String> sorted, int index) {
    String node = sorted.get(index);
    if (!node.contains("__READ__")) {
      return index == 0;
    }
    for (int j = 0; j < index; j++) {
      if (sorted.get(j).contains("__WRIT__")) {
        return false;
      }
    }
    return true;
  }

  private static String name(NodeKind kind, int seq) {
    return QueueNode.prefix(kind, UUID.randomUUID().toString()) + String.format("%010d", seq);
  }

  private static List<String> created(List<NodeKind> kinds, int first, Random random) {
    List<String> names = new ArrayList<>();
    int seq = first;
    for (NodeKind k : kinds) {
      names.add(name(k, seq));
      seq += 1 + random.nextInt(3); // gaps: nodes made and gone meanwhile
    }
    return names;
  }

  private static List<String> shuffled(List<String> names, long seed) {
    List<String> out = new ArrayList<>(names);
    Collections.shuffle(out, new Random(seed));
    return out;
  }
}
