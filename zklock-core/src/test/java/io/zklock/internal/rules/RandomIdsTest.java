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
}
