package io.zklock.curator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.zklock.LockHandle;
import io.zklock.LockOptions;
import io.zklock.ZkLocks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.junit.jupiter.api.Test;

/**
 * How long a semaphore request that came back through admission after its session ended waits,
 * beside a request that never expired, in the same run: one permit, Curator's c0 holding it,
 * zklock's z admitted and waiting, Curator's c1 queued for admission. z's session is expired; once
 * z is back (queued for admission behind c1, admitted meanwhile), c0 returns its lease and c1 is
 * granted; then c1 returns its lease and z is granted. Each grant's wait is timed from the return
 * of the lease it waited for to the grant: for c1, which never expired, and for z, re-admitted. On
 * code that re-created z's lease without admission, z (and c1) never got the permit. For the report
 * of the fix; runs only with {@code -Dzklock.measure=true}.
 */
class SemaphoreReadmissionMeasure extends CuratorTestBase {
  private static final int ROUNDS = 10;

  @Test
  void readmittedRequest_waitsAsLongAsOneThatNeverExpired() throws Exception {
    assumeTrue(
        Boolean.getBoolean("zklock.measure"), "a measurement: run with -Dzklock.measure=true");
    List<Long> neverExpired = new ArrayList<>();
    List<Long> readmitted = new ArrayList<>();
    CuratorClient c0 = curator("c0");
    CuratorClient c1 = curator("c1");
    for (int round = 0; round < ROUNDS; round++) {
      String name = newName("readmit-measure");
      InterProcessSemaphoreV2 s0 = new InterProcessSemaphoreV2(c0.framework, "/" + name, 1);
      InterProcessSemaphoreV2 s1 = new InterProcessSemaphoreV2(c1.framework, "/" + name, 1);
      Lease held = c0.run(s0::acquire).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      String client = "z" + round;
      ZkLocks z = zklock(client);
      CompletableFuture<LockHandle> waiter =
          z.semaphore(name, 1, LockOptions.curatorCompatible()).acquireAsync();
      awaitChildren(c0, name + "/leases", 2);
      Future<Lease> queued = c1.run(() -> s1.acquire(WAIT.toSeconds(), TimeUnit.SECONDS));
      awaitChildren(c0, name + "/locks", 2);

      long expired = z.sessionId();
      server.expireSession(expired);
      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(5))
          .until(
              () ->
                  z.sessionId() != expired
                      && nodesOf(z, name, client).stream().anyMatch(n -> n.sessionId() != expired));

      long returned = System.nanoTime();
      s0.returnLease(held);
      Lease c1Lease = queued.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      neverExpired.add(System.nanoTime() - returned);
      awaitChildren(c0, name + "/leases", 2); // z admitted, its lease waiting behind c1's
      returned = System.nanoTime();
      s1.returnLease(c1Lease);
      LockHandle h = waiter.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      readmitted.add(System.nanoTime() - returned);
      assertThat(h.isHeld()).isTrue();
      h.release();
      z.close();
    }
    System.out.printf(
        Locale.ROOT,
        "semaphore, one permit, %d rounds: wait from the lease's return to the grant%n"
            + "  never expired (Curator's c1): median %.1f ms, max %.1f ms%n"
            + "  re-admitted after its session expired (zklock's z): median %.1f ms, max %.1f ms%n"
            + "  ratio of the medians (re-admitted / never expired): %.2f%n",
        ROUNDS,
        median(neverExpired),
        max(neverExpired),
        median(readmitted),
        max(readmitted),
        median(readmitted) / median(neverExpired));
  }

  private static double median(List<Long> nanos) {
    List<Long> s = new ArrayList<>(nanos);
    s.sort(null);
    return s.get(s.size() / 2) / 1e6;
  }

  private static double max(List<Long> nanos) {
    return nanos.stream().mapToLong(Long::longValue).max().orElse(0) / 1e6;
  }
}
