package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * zklock's own session deadline: a holder cut off from the ensemble, whose connection is not closed
 * (a black hole: packets held), is told its lock is lost before the ensemble can expire its session
 * and grant the lock to someone else, under every {@link SuspensionPolicy}.
 */
class SessionDeadlineTest extends ZkTestSupport {
  private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);
  private static final int TRIALS = 20;
  private static final int CONCURRENT = 10;

  /** What one trial saw. */
  record Outcome(
      SuspensionPolicy policy,
      boolean toldBeforeGranted,
      boolean heldWhenGranted,
      long toldNanos,
      long grantedNanos,
      LockLostException.Reason reason) {}

  @Test
  void blackHoledHolder_isToldBeforeAnotherSessionIsGranted_inEveryTrial() throws Exception {
    // Given 20 independent trials (each its own lock, proxy and two sessions), half under each
    // suspension policy, run ten at a time
    ExecutorService pool = Executors.newFixedThreadPool(CONCURRENT);
    List<Outcome> outcomes = new ArrayList<>();
    try {
      for (int round = 0; round < TRIALS / CONCURRENT; round++) {
        List<Future<Outcome>> futures = new ArrayList<>();
        for (int i = 0; i < CONCURRENT; i++) {
          int trial = round * CONCURRENT + i;
          SuspensionPolicy policy = SuspensionPolicy.values()[trial % 2];
          futures.add(pool.submit(() -> trial("deadline-" + trial, policy)));
        }
        for (Future<Outcome> f : futures) {
          outcomes.add(f.get(60, TimeUnit.SECONDS));
        }
      }
    } finally {
      pool.shutdownNow();
    }

    // Then in every trial the holder was told, and no longer held, before the other was granted
    List<Long> gapsMillis = new ArrayList<>();
    for (Outcome o : outcomes) {
      assertThat(o.toldBeforeGranted())
          .as(
              "holder (%s) told of its loss before the other session's acquire() returned: %s",
              o.policy(), o)
          .isTrue();
      assertThat(o.heldWhenGranted())
          .as("holder (%s) still isHeld() when the other was granted: %s", o.policy(), o)
          .isFalse();
      gapsMillis.add(TimeUnit.NANOSECONDS.toMillis(o.grantedNanos() - o.toldNanos()));
    }
    report("all", gapsMillis);
    for (SuspensionPolicy p : SuspensionPolicy.values()) {
      List<Long> gaps = new ArrayList<>();
      for (Outcome o : outcomes) {
        if (o.policy() == p) {
          gaps.add(TimeUnit.NANOSECONDS.toMillis(o.grantedNanos() - o.toldNanos()));
        }
      }
      report(p.name(), gaps);
    }
  }

  @Test
  void declaredLoss_opensANewSession_onWhichAWaiterIsGrantedOnceTheNetworkHeals() throws Exception {
    try (FaultProxy proxy = FaultProxy.start(server.connectString())) {
      ZkLocks locks =
          track(
              ZkLocks.builder(proxy.connectString())
                  .namespace(namespace)
                  .sessionTimeout(SESSION_TIMEOUT)
                  .build());
      List<String> states = new java.util.concurrent.CopyOnWriteArrayList<>();
      locks.addSessionListener((st, id) -> states.add(st + ":" + Long.toHexString(id)));
      long oldSession = locks.sessionId();
      // Given a holder and a second request of the same session waiting behind it
      LockHandle held = locks.mutex("heal").acquire();
      java.util.concurrent.CompletableFuture<LockHandle> waiting =
          locks.mutex("heal").acquireAsync();

      // When the connection is black-holed until the session is declared lost, then heals
      proxy.blackhole();
      LockLostException lost =
          held.lost().get(SESSION_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
      assertThat(lost.reason()).isEqualTo(LockLostException.Reason.SESSION_EXPIRED);
      assertThat(locks.sessionState()).isEqualTo(SessionState.LOST);
      assertThat(waiting).isNotDone();
      proxy.pass();

      // Then a new session is opened (the old one never comes back) and the waiter is granted on it
      LockHandle granted = waiting.get(SESSION_TIMEOUT.toMillis() * 3, TimeUnit.MILLISECONDS);
      assertThat(granted.isHeld()).isTrue();
      assertThat(locks.sessionId()).isNotEqualTo(oldSession).isNotZero();
      assertThat(states)
          .containsSubsequence(
              "LOST:" + Long.toHexString(oldSession),
              "CONNECTED:" + Long.toHexString(locks.sessionId()));
      assertThat(states).doesNotContain("CONNECTED:" + Long.toHexString(oldSession));
      granted.release();
      awaitNoLockNodes();
    }
  }

  private static void report(String what, List<Long> gapsMillis) {
    Collections.sort(gapsMillis);
    System.out.printf(
        "SessionDeadlineTest: granted - told, %s, %d trials (ms): min %d, median %d, max %d: %s%n",
        what,
        gapsMillis.size(),
        gapsMillis.get(0),
        gapsMillis.get(gapsMillis.size() / 2),
        gapsMillis.get(gapsMillis.size() - 1),
        gapsMillis);
  }

  private Outcome trial(String lockName, SuspensionPolicy policy) throws Exception {
    FaultProxy proxy = FaultProxy.start(server.connectString());
    try (ZkLocks other = builder().sessionTimeout(SESSION_TIMEOUT).build()) {
      ZkLocks holder =
          ZkLocks.builder(proxy.connectString())
              .namespace(namespace)
              .sessionTimeout(SESSION_TIMEOUT)
              .suspensionPolicy(policy)
              .build();
      try {
        assertThat(holder.negotiatedSessionTimeout()).isEqualTo(SESSION_TIMEOUT);
        // Given a holder behind the proxy, and another session waiting for the same lock
        LockHandle held = holder.mutex(lockName).acquire();
        long[] toldAt = new long[1];
        held.lost()
            .thenRun(
                () -> {
                  synchronized (toldAt) {
                    toldAt[0] = System.nanoTime();
                  }
                });

        // When the holder's connection is black-holed (not closed)
        proxy.blackhole();
        LockHandle granted = other.mutex(lockName).acquire();

        // Then, the moment the other session holds the lock, the holder has been told
        long grantedAt = System.nanoTime();
        boolean told = held.lost().isDone();
        boolean stillHeld = held.isHeld();
        LockLostException.Reason reason = told ? held.lost().getNow(null).reason() : null;
        granted.release();
        // the instant of telling, for the figures (recorded by a callback, a hair after it)
        long told0;
        try {
          told0 =
              org.awaitility.Awaitility.await()
                  .atMost(Duration.ofSeconds(5))
                  .pollInterval(Duration.ofMillis(10))
                  .until(
                      () -> {
                        synchronized (toldAt) {
                          return toldAt[0];
                        }
                      },
                      t -> t != 0);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
          told0 = 0; // never told: the assertions on the outcome say so
        }
        return new Outcome(policy, told, stillHeld, told0, grantedAt, reason);
      } finally {
        proxy.close(); // first, so that closing the holder's handle does not wait on a black hole
        holder.close();
      }
    } finally {
      proxy.close();
    }
  }
}
