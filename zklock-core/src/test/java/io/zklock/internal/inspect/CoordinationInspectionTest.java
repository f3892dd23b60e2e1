package io.zklock.internal.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.LockInfo;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link Inspection#decideCoordination}: a recipe's entry from its directory's data and names. */
class CoordinationInspectionTest {

  @Test
  void latch_countLeftAndWhetherOpen() {
    Map<String, String> data = Map.of("kind", "latch", "count", "3", "remaining", "0");
    LockInfo open =
        Inspection.decideCoordination("l", "/ns/l", data, List.of("c-a", "c-b", "c-c", "open"))
            .orElseThrow();
    assertThat(open.kind()).isEqualTo(LockInfo.Kind.LATCH);
    assertThat(open.state()).isEqualTo(Map.of("count", "3", "remaining", "0", "open", "true"));
    assertThat(open.holders()).isEmpty();
    assertThat(open.waiters()).isEmpty();
    assertThat(
            Inspection.decideCoordination(
                    "l",
                    "/ns/l",
                    Map.of("kind", "latch", "count", "3", "remaining", "3"),
                    List.of())
                .orElseThrow()
                .state())
        .containsEntry("open", "false");
  }

  @Test
  void barrier_isSet() {
    assertThat(
            Inspection.decideCoordination("b", "/ns/b", Map.of("kind", "barrier"), List.of())
                .orElseThrow()
                .state())
        .isEqualTo(Map.of("set", "true"));
  }

  @Test
  void doubleBarrier_countsOnlyItsRoundsMembers() {
    Map<String, String> data =
        Map.of("kind", "double-barrier", "members", "3", "round", "7", "phase", "entering");
    LockInfo d =
        Inspection.decideCoordination(
                "d", "/ns/d", data, List.of("m-6-old", "m-7-a", "m-7-b", "m-70-x", "ready-6"))
            .orElseThrow();
    assertThat(d.kind()).isEqualTo(LockInfo.Kind.DOUBLE_BARRIER);
    assertThat(d.state())
        .isEqualTo(Map.of("members", "3", "round", "7", "phase", "entering", "entered", "2"));
  }

  @Test
  void condition_countsItsWaiters_andNamesItsLock() {
    LockInfo c =
        Inspection.decideCoordination(
                "a/job.cond-ready",
                "/ns/a/job.cond-ready",
                Map.of(),
                List.of("cv-x-0000000001", "cv-y-0000000002", "foreign"))
            .orElseThrow();
    assertThat(c.kind()).isEqualTo(LockInfo.Kind.CONDITION);
    assertThat(c.state()).isEqualTo(Map.of("lock", "a/job", "condition", "ready", "waiting", "2"));
    assertThat(
            Inspection.decideCoordination(
                "a/job.cond-ready", "/ns/a/job.cond-ready", Map.of(), List.of()))
        .as("nobody waits")
        .isEmpty();
  }

  @Test
  void otherDirectories_areNoEntry() {
    assertThat(Inspection.decideCoordination("x", "/ns/x", Map.of(), List.of("a"))).isEmpty();
    assertThat(
            Inspection.decideCoordination(
                "x", "/ns/x", Map.of("kind", "semaphore"), List.of("leases")))
        .isEmpty();
    assertThat(Inspection.isConditionDir("/ns/x.cond-")).isFalse();
    assertThat(Inspection.isConditionDir("/ns/.cond-a")).isFalse();
  }
}
