package io.zklock.internal.recipe;

import static io.zklock.internal.engine.EngineFixture.DIR;
import static io.zklock.internal.engine.EngineFixture.OTHER_SESSION;
import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.Leader;
import io.zklock.internal.engine.EngineFixture;
import io.zklock.internal.rules.NodeKind;
import io.zklock.internal.rules.QueueNode;
import io.zklock.internal.zk.Session;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;

/**
 * Who leads, as {@code LeaderWatch} tells its observers, without a server: through the session's
 * seam on the engine's {@code FakeZooKeeper}, with the session's connection news given by the test.
 */
class LeaderWatchFakeTest {
  private final EngineFixture f = new EngineFixture();
  private final List<Session.Observer> following = new ArrayList<>();
  private final List<Optional<String>> heard = new ArrayList<>();
  private final LeaderWatch watch =
      new LeaderWatch(
          f.session,
          following::add,
          following::remove,
          "orders",
          DIR,
          Runnable::run,
          NodeKind.ELECTION);

  LeaderWatchFakeTest() {
    watch.add(now -> heard.add(now.map(Leader::participantId)));
  }

  private String joins(String participant) {
    return f.zk.create(
        OTHER_SESSION,
        DIR + "/" + QueueNode.prefix(NodeKind.ELECTION, QueueNode.newAttemptId()),
        ("{\"kind\":\"election\",\"participant\":\"" + participant + "\"}")
            .getBytes(StandardCharsets.UTF_8),
        CreateMode.EPHEMERAL_SEQUENTIAL);
  }

  @Test
  void nobody_thenAParticipantJoins_heardOnce() {
    watch.start();
    f.settle();
    assertThat(heard).containsExactly(Optional.empty());
    assertThat(following).as("follows the session's connections").hasSize(1);

    joins("first");
    f.settle();

    assertThat(heard).containsExactly(Optional.empty(), Optional.of("first"));
  }

  @Test
  void aParticipantQueuesBehind_nothingHeard_theHeadLeaves_theNextHeard() {
    String first = joins("first");
    watch.start();
    f.settle();
    joins("second");
    f.settle();
    assertThat(heard).as("the head did not change").containsExactly(Optional.of("first"));

    f.zk.delete(first);
    f.settle();

    assertThat(heard).containsExactly(Optional.of("first"), Optional.of("second"));
  }

  @Test
  void reconnected_readAgain_sameLeaderNotToldTwice() {
    joins("first");
    watch.start();
    f.settle();
    f.session.disconnect();
    f.session.reconnect();

    following.forEach(o -> o.connected(f.session.current()));
    f.settle();

    assertThat(heard).containsExactly(Optional.of("first"));
  }

  @Test
  void stopped_nothingMoreHeard() {
    String first = joins("first");
    joins("second");
    watch.start();
    f.settle();

    watch.stop();
    f.zk.delete(first);
    f.settle();

    assertThat(heard).containsExactly(Optional.of("first"));
    assertThat(following).isEmpty();
  }
}
