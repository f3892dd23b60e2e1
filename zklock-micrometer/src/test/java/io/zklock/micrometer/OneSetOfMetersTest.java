package io.zklock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.zklock.LockEventListener;
import io.zklock.LockHandle;
import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One set of meters, one vocabulary: the meters {@link ZkLockMetrics} makes alone are the meters a
 * meter handler makes of {@link ZkLockObservations} (Spring Boot's setup, where ZkLockMetrics keeps
 * only its session gauge), with the same names, tags and counts; and a {@link
 * LockObservationConvention} reshapes both alike.
 */
class OneSetOfMetersTest {
  private static EmbeddedZooKeeper zk;

  @BeforeAll
  static void startServer() {
    zk = EmbeddedZooKeeper.standalone().start();
  }

  @AfterAll
  static void stopServer() {
    zk.close();
  }

  /** The meters of the metrics alone, as a registry of their own holds them. */
  private static MeterRegistry metricsAlone(LockObservationConvention convention) throws Exception {
    MeterRegistry registry = new SimpleMeterRegistry();
    ZkLockMetrics.Builder b = ZkLockMetrics.builder().lockNameTags(guard());
    if (convention != null) {
      b.convention(convention);
    }
    ZkLockMetrics metrics = b.build();
    metrics.bindTo(registry);
    run(metrics);
    return registry;
  }

  /** The meters of observations into a registry with the meter handler, beside the gauge. */
  private static MeterRegistry observedWithAMeterHandler(LockObservationConvention convention)
      throws Exception {
    MeterRegistry registry = new SimpleMeterRegistry();
    ObservationRegistry observations = ObservationRegistry.create();
    observations
        .observationConfig()
        .observationHandler(new DefaultMeterObservationHandler(registry));
    ZkLockObservations.Builder o = ZkLockObservations.builder(observations).lockNameTags(guard());
    if (convention != null) {
      o.convention(convention);
    }
    ZkLockMetrics gauge = ZkLockMetrics.builder().lockMeters(false).build();
    gauge.bindTo(registry);
    run(o.build(), gauge);
    return registry;
  }

  private static LockNameTags guard() {
    return LockNameTags.allow(Set.of("orders"));
  }

  /** The same requests each time: a grant and release, a busy try, a waiter that queues. */
  private static void run(LockEventListener... listeners) throws Exception {
    ZkLocks.Builder b = ZkLocks.builder(zk.connectString());
    for (LockEventListener l : listeners) {
      b.eventListener(l);
    }
    try (ZkLocks locks = b.build();
        ZkLocks other = ZkLocks.builder(zk.connectString()).build()) {
      locks.mutex("orders").acquire().release();
      LockHandle held = other.mutex("billing/7").acquire();
      assertThat(locks.mutex("billing/7").tryAcquire()).isEmpty();
      CompletableFuture<LockHandle> queued = locks.mutex("billing/7").acquireAsync();
      await().until(() -> locks.localLocks().waiting().size() == 1);
      held.release();
      queued.get(30, TimeUnit.SECONDS).release();
    }
  }

  /** Every meter as "name{tag=value,...} count", the counts of timers and counters. */
  private static Set<String> described(MeterRegistry registry) {
    Set<String> out = new TreeSet<>();
    for (Meter m : registry.getMeters()) {
      StringBuilder s = new StringBuilder(m.getId().getName()).append('{');
      for (Tag t : m.getId().getTags()) {
        s.append(t.getKey()).append('=').append(t.getValue()).append(',');
      }
      s.append('}');
      if (m instanceof io.micrometer.core.instrument.Timer t) {
        s.append(' ').append(t.count());
      } else if (m instanceof io.micrometer.core.instrument.Counter c) {
        s.append(' ').append((long) c.count());
      }
      out.add(s.toString());
    }
    return out;
  }

  @Test
  void metricsAlone_andObservationsWithAMeterHandler_makeTheSameMeters() throws Exception {
    Set<String> alone = described(metricsAlone(null));
    Set<String> observed = described(observedWithAMeterHandler(null));

    assertThat(observed).as("observed with a meter handler, beside the gauge").isEqualTo(alone);
    assertThat(alone)
        .as("one vocabulary, the lock name guarded")
        .contains(
            "zklock.lock.wait{error=none,kind=mutex,lock=orders,outcome=granted,} 1",
            "zklock.lock.wait{error=none,kind=mutex,lock=other,outcome=busy,} 1",
            "zklock.lock.wait{error=none,kind=mutex,lock=other,outcome=granted,} 1",
            "zklock.lock.wait.queued{kind=mutex,lock=other,} 1",
            "zklock.lock.hold{end=released,error=none,kind=mutex,lock=orders,reason=none,} 1",
            "zklock.lock.hold{end=released,error=none,kind=mutex,lock=other,reason=none,} 1",
            "zklock.session.state{state=connected,}")
        .allMatch(
            m ->
                m.startsWith("zklock.lock.wait")
                    || m.startsWith("zklock.lock.hold")
                    || m.startsWith("zklock.session.state"),
            "only zklock.lock.wait*, zklock.lock.hold* and zklock.session.state");
  }

  @Test
  void aConvention_reshapesTheMetersOfEitherWay_alike() throws Exception {
    LockObservationConvention waits =
        new DefaultLockObservationConvention(LockObservationContext.Phase.WAIT) {
          @Override
          public String getName() {
            return "locks.acquire";
          }

          @Override
          public KeyValues getLowCardinalityKeyValues(LockObservationContext c) {
            return super.getLowCardinalityKeyValues(c).and("team", "payments");
          }
        };

    Set<String> alone = described(metricsAlone(waits));
    Set<String> observed = described(observedWithAMeterHandler(waits));

    assertThat(observed).isEqualTo(alone);
    assertThat(alone)
        .contains(
            "locks.acquire{error=none,kind=mutex,lock=orders,outcome=granted,team=payments,} 1",
            "zklock.lock.hold{end=released,error=none,kind=mutex,lock=orders,reason=none,} 1")
        .noneMatch(m -> m.startsWith("zklock.lock.wait"));
  }

  @Test
  void addedToABuiltInstance_measuresWhatComesNext_andTheSessionAtOnce() throws Exception {
    MeterRegistry registry = new SimpleMeterRegistry();
    ZkLockMetrics metrics = ZkLockMetrics.builder().client("app").build();
    metrics.bindTo(registry);
    try (ZkLocks locks = ZkLocks.builder(zk.connectString()).build()) {
      locks.addEventListener(metrics);
      locks.mutex("late").acquire().release();

      assertThat(
              registry
                  .get("zklock.session.state")
                  .tags("state", "connected", "client", "app")
                  .gauge()
                  .value())
          .as("the session's state, told at the add")
          .isEqualTo(1.0);
      assertThat(registry.get("zklock.lock.wait").tag("outcome", "granted").timer().count())
          .isEqualTo(1);
    }
    assertThat(List.of(registry.find("zklock.session.state").gauges().size())).containsExactly(4);
  }
}
