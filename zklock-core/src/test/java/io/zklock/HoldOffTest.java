package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/** {@link ZkLocks#holdOff}: a lock kept closed by the ensemble's clock, past its writer's life. */
class HoldOffTest extends ZkTestSupport {

  @Test
  void noMark_nothingRemains() {
    assertThat(client().holdOffRemaining("job")).isEqualTo(Duration.ZERO);
  }

  @Test
  void mark_remainsForItsDuration_byTheServersClock_andOutlivesItsWritersSession()
      throws Exception {
    ZkLocks writer = client("writer");
    writer.holdOff("job", Duration.ofSeconds(30));
    writer.close(); // and its session with it

    ZkLocks reader = client("reader");
    Duration left = reader.holdOffRemaining("job");
    assertThat(left).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30));

    Stat mark = raw().exists(namespace + "/job/hold-off", false);
    assertThat(mark).as("a persistent node").isNotNull();
    assertThat(mark.getEphemeralOwner()).isZero();
    assertThat(mark.getMtime())
        .as("the reader's check wrote it: the server's now")
        .isGreaterThanOrEqualTo(mark.getCtime());
  }

  @Test
  void mark_runsOut_thenIsDeleted() throws Exception {
    ZkLocks locks = client();
    locks.holdOff("job", Duration.ofMillis(300));
    assertThat(locks.holdOffRemaining("job")).isPositive();

    await().atMost(Duration.ofSeconds(20)).until(() -> locks.holdOffRemaining("job").isZero());
    assertThat(raw().exists(namespace + "/job/hold-off", false))
        .as("deleted once run out")
        .isNull();
  }

  @Test
  void aLaterMark_replacesTheEarlier_fromItsOwnStart() {
    ZkLocks locks = client();
    locks.holdOff("job", Duration.ofHours(1));
    locks.holdOff("job", Duration.ofSeconds(2));
    assertThat(locks.holdOffRemaining("job"))
        .isPositive()
        .isLessThanOrEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void theLockItself_isNotChanged_andInspectionShowsNoHolder() throws Exception {
    ZkLocks locks = client();
    locks.holdOff("job", Duration.ofSeconds(30));
    try (LockHandle h = locks.simpleLock("job").acquire()) {
      assertThat(h.isHeld()).as("the simple lock is granted beside the mark").isTrue();
      assertThat(locks.inspect("job")).get().satisfies(i -> assertThat(i.holders()).hasSize(1));
    }
    assertThat(locks.inspect("job").map(LockInfo::holders).orElse(List.of())).isEmpty();
    try (LockHandle m = locks.mutex("job").acquire()) {
      assertThat(m.isHeld()).as("a queue in the same directory ignores the mark").isTrue();
    }
  }

  @Test
  void invalidArguments_rejected() {
    ZkLocks locks = client();
    assertThatThrownBy(() -> locks.holdOff("job", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> locks.holdOff("../x", Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> locks.holdOffRemaining(""))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
