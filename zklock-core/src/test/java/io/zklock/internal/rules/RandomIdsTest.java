package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RandomIdsTest {
  private static List<String> draw(RandomIds ids) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      out.add(ids.attemptId());
      out.add(ids.attemptId(NodeKind.CURATOR_MUTEX));
      out.add(ids.uuid());
    }
    return out;
  }

  @Test
  void seeded_givesTheSameIdsForTheSameSeed_andOthersForAnother() {
    assertThat(draw(RandomIds.seeded(42)))
        .as("a run replayed from its seed names its nodes alike")
        .isEqualTo(draw(RandomIds.seeded(42)))
        .isNotEqualTo(draw(RandomIds.seeded(43)));
  }

  @Test
  void ids_haveTheShapesNodeNamesNeed() {
    RandomIds ids = RandomIds.seeded(7);
    for (int i = 0; i < 1000; i++) {
      String a = ids.attemptId();
      assertThat(a).hasSize(QueueNode.ATTEMPT_ID_LENGTH).matches("[0-9a-v]+");
      String u = ids.uuid();
      UUID parsed = UUID.fromString(u);
      assertThat(parsed.version())
          .as("a random UUID, as UUID.randomUUID() makes: " + u)
          .isEqualTo(4);
      assertThat(parsed.variant()).isEqualTo(2);
      assertThat(ids.attemptId(NodeKind.CURATOR_LEASE)).hasSize(QueueNode.CURATOR_ID_LENGTH);
      assertThat(RandomIds.SECURE.attemptId()).hasSize(QueueNode.ATTEMPT_ID_LENGTH);
    }
  }

  /**
   * Draws whose attempt id would end in {@code lock} (or {@code latch}): in a plain name that is
   * {@code ...lock-<sequence>}, where Curator's recipes and Go's client read a sequence (and skip
   * or fail on every other plain name), so their clients would wait for that one node of zklock's
   * and not for the others.
   */
  @Test
  void attemptIds_neverEndInLockOrLatch_theMarkersCuratorAndGoReadASequenceAfter() {
    // base 32, five bits a character from the lowest: characters 8..11 and 7..11 of the id
    long lock = (21L << 40) | (24L << 45) | (12L << 50) | (20L << 55); // l o c k
    long latch = (21L << 35) | (10L << 40) | (29L << 45) | (12L << 50) | (17L << 55); // l a t c h
    long plain = 1L;
    java.util.Iterator<Long> draws = List.of(lock, latch, plain).iterator();
    RandomIds ids =
        RandomIds.of(
            new java.util.Random() {
              @Override
              public long nextLong() {
                return draws.next();
              }
            });

    String id = ids.attemptId();

    assertThat(id).doesNotEndWith("lock").doesNotEndWith("latch").isEqualTo("100000000000");
    String name = QueueNode.prefix(NodeKind.MUTEX, id) + "0000000017";
    assertThat(ClientOrder.goSequence(name))
        .as("Go's client reads no sequence from a plain name")
        .isEqualTo(ClientOrder.NO_SEQUENCE);
  }
}
