package io.zklock.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The checker on hand-made logs: each rule must fire on the history it forbids and stay quiet on
 * the histories a correct lock produces (including the paused holder that fencing catches).
 */
class SoakCheckerTest {
  private static final long S = 1_000_000_000L;
  private final List<Event> log = new ArrayList<>();

  private void ev(double seconds, String ev, Object... kv) {
    log.add(Event.of((long) (seconds * S), ev, kv));
  }

  private Checker.Report check() {
    SoakConfig config = SoakConfig.defaults(1, Duration.ofMinutes(1), Path.of("target", "unused"));
    return new Checker(config).check(log);
  }

  private void start(String proc, String session) {
    ev(0, "PROC_SPAWN", "proc", proc, "pid", 1);
    ev(0.1, "SESSION", "proc", proc, "state", "CONNECTED", "session", session);
  }

  private void close(double t, String proc) {
    ev(t, "CLOSED", "proc", proc);
    ev(t + 0.1, "PROC_EXIT", "proc", proc, "code", 0);
  }

  /** request, grant, begin write, end write, release, with the store's decisions. */
  private void hold(
      String proc, String h, Side side, long token, String session, double from, double to) {
    ev(from - 0.01, "REQUEST", "proc", proc, "h", h, "side", side, "session", session);
    ev(from, "GRANT", "proc", proc, "h", h, "side", side, "token", token, "session", session);
    ev(to, "RELEASE_START", "proc", proc, "h", h);
    ev(to + 0.01, "RELEASE_DONE", "proc", proc, "h", h);
  }

  private void store(double t, String ev, Side side, long token, String h, String phase) {
    ev(t, ev, "key", side.dir(), "side", side.storeSide(), "token", token, "h", h, "phase", phase);
  }

  private void clean() {
    ev(99, "CLEAN_LIVE", "orphans", 0);
    ev(99.5, "CLEAN_FINAL", "remaining", 0);
  }

  @Test
  void handoffInOrder_noViolations() {
    start("a", "s1");
    start("b", "s2");
    hold("a", "a/1", Side.MUTEX, 10, "s1", 1, 2);
    store(1.1, "STORE_ACCEPT", Side.MUTEX, 10, "a/1", "begin");
    hold("b", "b/1", Side.MUTEX, 12, "s2", 2.1, 3);
    store(2.2, "STORE_ACCEPT", Side.MUTEX, 12, "b/1", "begin");
    hold("a", "a/2", Side.READ, 14, "s1", 4, 6);
    hold("b", "b/2", Side.READ, 15, "s2", 4.5, 5);
    store(4.6, "STORE_ACCEPT", Side.READ, 15, "b/2", "begin");
    store(4.7, "STORE_ACCEPT", Side.READ, 14, "a/2", "begin");
    close(10, "a");
    close(10, "b");
    clean();

    Checker.Report report = check();

    assertThat(report.violations()).isEmpty();
    assertThat(report.counter("grants")).isEqualTo(4);
  }

  @Test
  void twoLiveMutexHolders_exclusionViolation() {
    start("a", "s1");
    start("b", "s2");
    hold("a", "a/1", Side.MUTEX, 10, "s1", 1, 3);
    hold("b", "b/1", Side.MUTEX, 12, "s2", 2, 4);
    close(10, "a");
    close(10, "b");
    clean();

    assertThat(check().violations()).anyMatch(v -> v.startsWith("EXCLUSION") && v.contains("b/1"));
  }

  @Test
  void readerOverlapsWriter_exclusionViolation() {
    start("a", "s1");
    start("b", "s2");
    hold("a", "a/1", Side.READ, 10, "s1", 1, 3);
    hold("b", "b/1", Side.WRITE, 12, "s2", 2, 4);
    close(10, "a");
    close(10, "b");
    clean();

    assertThat(check().violations()).anyMatch(v -> v.startsWith("EXCLUSION"));
  }

  @Test
  void pausedHolderExpiredAndFenced_excusedAndRejectedWriteCounted() {
    start("a", "s1");
    start("b", "s2");
    ev(1.5, "FAULT_START", "kind", "PAUSE_CLIENT", "target", "a");
    ev(6, "FAULT_END", "kind", "PAUSE_CLIENT", "target", "a");
    hold("a", "a/1", Side.MUTEX, 10, "s1", 1, 6.2);
    store(1.1, "STORE_ACCEPT", Side.MUTEX, 10, "a/1", "begin");
    hold("b", "b/1", Side.MUTEX, 12, "s2", 4.6, 5);
    store(4.7, "STORE_ACCEPT", Side.MUTEX, 12, "b/1", "begin");
    store(6.1, "STORE_REJECT", Side.MUTEX, 10, "a/1", "end");
    ev(6.3, "SESSION", "proc", "a", "state", "LOST", "session", "s1");
    close(10, "a");
    close(10, "b");
    clean();

    Checker.Report report = check();

    assertThat(report.violations()).isEmpty();
    assertThat(report.counter("overlaps.excusedByExpiry")).isEqualTo(1);
    assertThat(report.counter("store.staleRejected")).isEqualTo(1);
    assertThat(report.counter("handover.checked")).isEqualTo(1);
  }

  @Test
  void overlapBeganSoonerThanTheEnsembleCanExpireTheHolder_exclusionViolation() {
    start("a", "s1");
    start("b", "s2");
    ev(1.5, "FAULT_START", "kind", "BLACKHOLE_LONG", "target", "a");
    ev(7, "FAULT_END", "kind", "BLACKHOLE_LONG", "target", "a");
    hold("a", "a/1", Side.MUTEX, 10, "s1", 1, 3);
    hold("b", "b/1", Side.MUTEX, 12, "s2", 1.6, 2); // 0.1 s after a was cut off
    ev(7.5, "SESSION", "proc", "a", "state", "LOST", "session", "s1");
    close(10, "a");
    close(10, "b");
    clean();

    assertThat(check().violations())
        .anyMatch(
            v -> v.startsWith("EXCLUSION") && v.contains("sooner than its session can expire"));
  }

  @Test
  void overlapBeganBeforeTheFault_exclusionViolation() {
    start("a", "s1");
    start("b", "s2");
    hold("a", "a/1", Side.MUTEX, 10, "s1", 1, 6);
    hold("b", "b/1", Side.MUTEX, 12, "s2", 2, 3);
    ev(4, "FAULT_START", "kind", "PAUSE_CLIENT", "target", "a");
    ev(9, "FAULT_END", "kind", "PAUSE_CLIENT", "target", "a");
    ev(9.5, "SESSION", "proc", "a", "state", "LOST", "session", "s1");
    close(10, "a");
    close(10, "b");
    clean();

    assertThat(check().violations())
        .anyMatch(v -> v.startsWith("EXCLUSION") && v.contains("before the fault"));
  }

  @Test
  void staleWriteRejectedFromHandleNeverLost_fencingViolation() {
    start("a", "s1");
    hold("a", "a/1", Side.MUTEX, 10, "s1", 1, 2);
    store(1.1, "STORE_ACCEPT", Side.MUTEX, 12, "x/1", "begin");
    store(1.2, "STORE_REJECT", Side.MUTEX, 10, "a/1", "end");
    close(10, "a");
    clean();

    assertThat(check().violations()).anyMatch(v -> v.startsWith("FENCING") && v.contains("a/1"));
  }

  @Test
  void storeAcceptedLowerToken_fencingViolation() {
    store(1, "STORE_ACCEPT", Side.MUTEX, 12, "x/1", "begin");
    store(2, "STORE_ACCEPT", Side.MUTEX, 10, "y/1", "begin");
    clean();

    assertThat(check().violations()).anyMatch(v -> v.startsWith("FENCING") && v.contains("y/1"));
  }

  @Test
  void sessionExpiredWhileHeldButLossNeverReported_livenessViolation() {
    start("a", "s1");
    ev(0.5, "REQUEST", "proc", "a", "h", "a/1", "side", Side.MUTEX, "session", "s1");
    ev(1, "GRANT", "proc", "a", "h", "a/1", "side", Side.MUTEX, "token", 10, "session", "s1");
    ev(5, "SESSION", "proc", "a", "state", "LOST", "session", "s1");
    ev(8, "RELEASE_START", "proc", "a", "h", "a/1");
    ev(8.1, "RELEASE_DONE", "proc", "a", "h", "a/1");
    close(10, "a");
    clean();

    assertThat(check().violations())
        .anyMatch(v -> v.startsWith("LIVENESS") && v.contains("lost() never completed"));
  }

  @Test
  void isHeldStillTrueAfterExpiryHeard_livenessViolation() {
    start("a", "s1");
    ev(0.5, "REQUEST", "proc", "a", "h", "a/1", "side", Side.MUTEX, "session", "s1");
    ev(1, "GRANT", "proc", "a", "h", "a/1", "side", Side.MUTEX, "token", 10, "session", "s1");
    ev(5, "SESSION", "proc", "a", "state", "LOST", "session", "s1");
    ev(5.01, "LOSS", "proc", "a", "h", "a/1", "reason", "SESSION_EXPIRED", "session", "s1");
    ev(8, "RELEASE_START", "proc", "a", "h", "a/1", "held", true);
    ev(8.1, "RELEASE_DONE", "proc", "a", "h", "a/1");
    close(10, "a");
    clean();

    assertThat(check().violations())
        .anyMatch(v -> v.startsWith("LIVENESS") && v.contains("still said isHeld()"));
  }

  @Test
  void requestWithoutOutcome_livenessViolation_unlessItsProcessWasKilled() {
    start("a", "s1");
    start("b", "s2");
    ev(1, "REQUEST", "proc", "a", "h", "a/1", "side", Side.MUTEX, "session", "s1");
    ev(1, "REQUEST", "proc", "b", "h", "b/1", "side", Side.MUTEX, "session", "s2");
    ev(2, "PROC_KILLED", "proc", "b", "pid", 2);
    close(10, "a");
    clean();

    assertThat(check().violations())
        .anyMatch(v -> v.contains("a/1") && v.contains("never ended"))
        .noneMatch(v -> v.contains("b/1"));
  }

  @Test
  void holderKilled_waiterNeverGranted_livenessViolation() {
    start("a", "s1");
    start("b", "s2");
    ev(0.9, "REQUEST", "proc", "a", "h", "a/1", "side", Side.MUTEX, "session", "s1");
    ev(1, "GRANT", "proc", "a", "h", "a/1", "side", Side.MUTEX, "token", 10, "session", "s1");
    ev(1.5, "REQUEST", "proc", "b", "h", "b/1", "side", Side.MUTEX, "session", "s2");
    ev(2, "FAULT_START", "kind", "KILL_CLIENT", "target", "a");
    ev(2, "PROC_KILLED", "proc", "a", "pid", 1);
    ev(2, "FAULT_END", "kind", "KILL_CLIENT", "target", "a");
    ev(11.5, "TIMEOUT", "proc", "b", "h", "b/1");
    close(20, "b");
    clean();

    assertThat(check().violations())
        .anyMatch(v -> v.startsWith("LIVENESS") && v.contains("nothing in soak/mutex was granted"));
  }

  @Test
  void holderKilled_waiterBehindALiveLongHolder_noViolation() {
    start("a", "s1");
    start("b", "s2");
    start("c", "s3");
    ev(0.9, "REQUEST", "proc", "a", "h", "a/1", "side", Side.READ, "session", "s1");
    ev(1, "GRANT", "proc", "a", "h", "a/1", "side", Side.READ, "token", 10, "session", "s1");
    hold("c", "c/1", Side.READ, 11, "s3", 1.2, 20); // a live reader, ahead of the writer
    ev(1.5, "REQUEST", "proc", "b", "h", "b/1", "side", Side.WRITE, "session", "s2");
    ev(2, "FAULT_START", "kind", "KILL_CLIENT", "target", "a");
    ev(2, "PROC_KILLED", "proc", "a", "pid", 1);
    ev(2, "FAULT_END", "kind", "KILL_CLIENT", "target", "a");
    ev(11.5, "TIMEOUT", "proc", "b", "h", "b/1");
    close(30, "b");
    close(30, "c");
    clean();

    assertThat(check().violations()).isEmpty();
  }

  @Test
  void nodesLeftBehind_cleanlinessViolation() {
    ev(99, "CLEAN_LIVE", "orphans", 1, "nodes", "/soak/soak/mutex/m-x-1@a");
    ev(99.5, "CLEAN_FINAL", "remaining", 1, "nodes", "/soak/soak/mutex/m-x-1");

    assertThat(check().violations()).filteredOn(v -> v.startsWith("CLEANLINESS")).hasSize(2);
  }

  @Test
  void semaphoreOverPermits_exclusionViolation() {
    start("a", "s1");
    hold("a", "a/1", Side.SEMAPHORE, 10, "s1", 1, 5);
    hold("a", "a/2", Side.SEMAPHORE, 11, "s1", 2, 5);
    hold("a", "a/3", Side.SEMAPHORE, 12, "s1", 3, 5);
    close(10, "a");
    clean();

    assertThat(check().violations()).anyMatch(v -> v.startsWith("EXCLUSION") && v.contains("a/3"));
  }
}
