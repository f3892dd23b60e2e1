package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Node names, their parsing and the queue's order, at their edges ({@link QueueNode}). */
class QueueNodeRulesTest {
  private static final String ID = "0123456789ab";

  private static QueueNode node(String kind, int seq) {
    return QueueNode.parse(kind + "-" + ID + "-" + String.format("%010d", seq));
  }

  @Test
  void parse_readsKindAttemptAndSequence() {
    QueueNode n = QueueNode.parse("w-" + ID + "-0000000017");

    assertThat(n).isEqualTo(new QueueNode("w-" + ID + "-0000000017", NodeKind.WRITE, ID, 17, 0L));
  }

  @Test
  void parse_sequenceOfTenOrElevenCharacters_only() {
    assertThat(QueueNode.parse("m-" + ID + "-2147483647").sequence()).isEqualTo(Integer.MAX_VALUE);
    assertThat(QueueNode.parse("m-" + ID + "--2147483648").sequence()).isEqualTo(Integer.MIN_VALUE);
    assertThat(QueueNode.parse("m-" + ID + "-000000001")).as("nine digits").isNull();
    assertThat(QueueNode.parse("m-" + ID + "-000000000001")).as("twelve digits").isNull();
    assertThat(QueueNode.parse("m-" + ID + "-00000000x1")).as("not a number").isNull();
    assertThat(QueueNode.parse("m-" + ID + "-9999999999")).as("beyond an int").isNull();
  }

  @Test
  void parse_foreignNames_null() {
    assertThat(QueueNode.parse("x-lock")).as("the simple lock's node").isNull();
    assertThat(QueueNode.parse("x-" + ID + "-0000000001")).as("simple kind never queues").isNull();
    assertThat(QueueNode.parse("-" + ID + "-0000000001")).as("no kind").isNull();
    assertThat(QueueNode.parse("mutex")).as("no dash").isNull();
    assertThat(QueueNode.parse("q-" + ID + "-0000000001")).as("unknown kind").isNull();
    assertThat(QueueNode.parse("m-" + ID + "x0000000001")).as("no dash after the id").isNull();
    assertThat(QueueNode.parse("m-0123456789a-0000000001")).as("short id").isNull();
    assertThat(QueueNode.parse("m-" + ID + "-")).as("nothing after the id").isNull();
    assertThat(QueueNode.parse("m-" + ID)).as("no sequence").isNull();
    assertThat(QueueNode.parse("")).isNull();
  }

  @Test
  void order_bySequenceWithWrapAround_thenByName() {
    QueueNode max = node("m", Integer.MAX_VALUE);
    QueueNode wrapped = QueueNode.parse("m-" + ID + "--2147483648");
    QueueNode a = QueueNode.parse("m-aaaaaaaaaaaa-0000000005");
    QueueNode b = QueueNode.parse("r-aaaaaaaaaaaa-0000000005");

    assertThat(QueueNode.ORDER.compare(max, wrapped)).as("wrapped comes after").isNegative();
    assertThat(QueueNode.ORDER.compare(wrapped, max)).isPositive();
    assertThat(QueueNode.ORDER.compare(node("m", 4), node("m", 5))).isNegative();
    assertThat(QueueNode.ORDER.compare(node("m", 5), node("m", 4))).isPositive();
    assertThat(QueueNode.ORDER.compare(a, b)).as("same sequence: by name").isNegative();
    assertThat(QueueNode.ORDER.compare(b, a)).isPositive();
    assertThat(QueueNode.ORDER.compare(a, a)).isZero();
  }

  @Test
  void byCreation_byCzxidThenName() {
    QueueNode early = node("m", 9).withCzxid(100);
    QueueNode late = node("m", 1).withCzxid(200);
    QueueNode lateToo = node("r", 1).withCzxid(200);

    assertThat(QueueNode.BY_CREATION.compare(early, late)).isNegative();
    assertThat(QueueNode.BY_CREATION.compare(late, early)).isPositive();
    assertThat(QueueNode.BY_CREATION.compare(late, lateToo)).isNegative();
    assertThat(late.czxid()).isEqualTo(200);
    assertThat(late.withCzxid(7))
        .isEqualTo(new QueueNode(late.name(), late.kind(), late.attemptId(), late.sequence(), 7));
  }

  @Test
  void nearOverflow_marginExact() {
    int m = QueueNode.OVERFLOW_MARGIN;
    assertThat(QueueNode.nearOverflow(List.of())).isFalse();
    assertThat(QueueNode.nearOverflow(List.of(node("m", 0), node("m", 1000)))).isFalse();
    assertThat(QueueNode.nearOverflow(List.of(node("m", Integer.MAX_VALUE - m)))).isFalse();
    assertThat(QueueNode.nearOverflow(List.of(node("m", 1), node("m", Integer.MAX_VALUE - m + 1))))
        .isTrue();
    QueueNode low = new QueueNode("m", NodeKind.MUTEX, ID, Integer.MIN_VALUE + m, 0);
    QueueNode lower = new QueueNode("m", NodeKind.MUTEX, ID, Integer.MIN_VALUE + m - 1, 0);
    assertThat(QueueNode.nearOverflow(List.of(low))).isFalse();
    assertThat(QueueNode.nearOverflow(List.of(node("m", 1), lower))).isTrue();
  }

  @Test
  void newAttemptId_twelveCharactersOfTheAlphabet_random() {
    Set<String> seen = new HashSet<>();
    Set<Character> letters = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      String id = QueueNode.newAttemptId();
      assertThat(id).hasSize(QueueNode.ATTEMPT_ID_LENGTH).matches("[0-9a-v]{12}");
      seen.add(id);
      for (char c : id.toCharArray()) {
        letters.add(c);
      }
      assertThat(QueueNode.parse(QueueNode.prefix(NodeKind.READ, id) + "0000000003").attemptId())
          .isEqualTo(id);
    }
    assertThat(seen).as("ids do not repeat").hasSize(200);
    assertThat(letters).as("every letter of the alphabet appears").hasSize(32);
  }

  @Test
  void prefix_kindAttemptAndDash() {
    assertThat(QueueNode.prefix(NodeKind.MUTEX, ID)).isEqualTo("m-" + ID + "-");
    assertThat(QueueNode.prefix(NodeKind.SEMAPHORE, ID)).isEqualTo("s-" + ID + "-");
  }

  @Test
  void queue_skipsForeignNamesAndSorts_indexOfFindsByName() {
    List<String> children = new ArrayList<>();
    children.add("r-" + ID + "-0000000003");
    children.add("x-lock");
    children.add("w-" + ID + "-0000000001");
    children.add("junk");
    children.add("m-" + ID + "-0000000002");

    List<QueueNode> q = QueueNode.queue(children);

    assertThat(q).extracting(QueueNode::sequence).containsExactly(1, 2, 3);
    assertThat(QueueNode.indexOf(q, "w-" + ID + "-0000000001")).isZero();
    assertThat(QueueNode.indexOf(q, "r-" + ID + "-0000000003")).isEqualTo(2);
    assertThat(QueueNode.indexOf(q, "x-lock")).isEqualTo(-1);
    assertThat(QueueNode.queue(List.of())).isEmpty();
  }

  @Test
  void nodeKind_prefixesLabelsAndExclusivity() {
    for (NodeKind k : NodeKind.values()) {
      // a Curator-compatible kind's "prefix" is Curator's lock name, after _c_<uuid>-, a
      // kazoo-compatible kind's kazoo's marker, before the sequence: never ours
      assertThat(NodeKind.ofPrefix(k.prefix())).isSameAs(k.compatible() ? null : k);
    }
    assertThat(NodeKind.ofPrefix("q")).isNull();
    assertThat(NodeKind.ofPrefix("")).isNull();
    assertThat(NodeKind.MUTEX.label()).isEqualTo("mutex");
    assertThat(NodeKind.READ.label()).isEqualTo("read");
    assertThat(NodeKind.WRITE.label()).isEqualTo("write");
    assertThat(NodeKind.SEMAPHORE.label()).isEqualTo("semaphore");
    assertThat(NodeKind.ELECTION.label()).isEqualTo("election");
    assertThat(NodeKind.SIMPLE.label()).isEqualTo("simple");
    assertThat(NodeKind.MUTEX.exclusive()).isTrue();
    assertThat(NodeKind.WRITE.exclusive()).isTrue();
    assertThat(NodeKind.ELECTION.exclusive()).isTrue();
    assertThat(NodeKind.SIMPLE.exclusive()).isTrue();
    assertThat(NodeKind.READ.exclusive()).isFalse();
    assertThat(NodeKind.SEMAPHORE.exclusive()).isFalse();
  }
}
