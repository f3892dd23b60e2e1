package io.zklock.micrometer;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.zklock.LockLostException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The meters of one {@link MeteredZkLocks}, recorded into every registry it is bound to. */
final class Meters {
  static final String WAIT = "zklock.lock.wait";
  static final String HOLD = "zklock.lock.hold";
  static final String GRANTS = "zklock.lock.grants";
  static final String TIMEOUTS = "zklock.lock.timeouts";
  static final String CANCELLATIONS = "zklock.lock.cancellations";
  static final String FAILURES = "zklock.lock.failures";
  static final String LOSSES = "zklock.lock.losses";
  static final String PENDING = "zklock.lock.pending";
  static final String HELD = "zklock.lock.held";
  static final String SESSION_STATE = "zklock.session.state";

  /** How a request ended, the {@code outcome} tag of {@value #WAIT}. */
  enum Outcome {
    GRANTED,
    TIMEOUT,
    CANCELLED,
    FAILED;

    String tag() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  final Clock clock;
  final AtomicInteger pending = new AtomicInteger();
  final AtomicInteger held = new AtomicInteger();
  private final LockNameTags names;
  private final Tags common;
  private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

  Meters(Clock clock, LockNameTags names, Tags common) {
    this.clock = clock;
    this.names = names;
    this.common = common;
  }

  /** Adds {@code registry}; false if it was bound already (by identity). */
  synchronized boolean bind(MeterRegistry registry) {
    for (MeterRegistry r : registries) {
      if (r == registry) {
        return false;
      }
    }
    return registries.add(registry);
  }

  Tags tags(String lockName, String kind) {
    return common.and("lock", names.tagValue(lockName), "kind", kind);
  }

  /** One request has ended after {@code nanos} of waiting. */
  void requestEnded(Tags tags, Outcome outcome, long nanos) {
    for (MeterRegistry r : registries) {
      Timer.builder(WAIT)
          .description("time from a lock request to its outcome")
          .tags(tags)
          .tag("outcome", outcome.tag())
          .register(r)
          .record(nanos, TimeUnit.NANOSECONDS);
      String counter;
      switch (outcome) {
        case GRANTED:
          counter = GRANTS;
          break;
        case TIMEOUT:
          counter = TIMEOUTS;
          break;
        case CANCELLED:
          counter = CANCELLATIONS;
          break;
        case FAILED:
          counter = FAILURES;
          break;
        default:
          throw new IllegalArgumentException("unknown outcome " + outcome);
      }
      Counter.builder(counter).tags(tags).register(r).increment();
    }
  }

  /** A hold has ended after {@code nanos}: released ({@code loss == null}) or lost. */
  void holdEnded(Tags tags, LockLostException.Reason loss, long nanos) {
    String end = loss == null ? "released" : "lost";
    for (MeterRegistry r : registries) {
      Timer.builder(HOLD)
          .description("time a lock was held, from grant to release or loss")
          .tags(tags)
          .tag("end", end)
          .register(r)
          .record(nanos, TimeUnit.NANOSECONDS);
      if (loss != null) {
        Counter.builder(LOSSES)
            .description("locks lost while held, by reason")
            .tags(tags)
            .tag("reason", loss.name().toLowerCase(Locale.ROOT))
            .register(r)
            .increment();
      }
    }
  }
}
