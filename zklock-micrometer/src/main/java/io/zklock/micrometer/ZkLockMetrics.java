package io.zklock.micrometer;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.zklock.LockEvent;
import io.zklock.LockEventListener;
import io.zklock.SessionState;
import io.zklock.ZkLocks;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Micrometer meters for zklock, made from the lock events of zklock-core: a {@link
 * LockEventListener} to add to the {@link ZkLocks.Builder}, and the {@link MeterBinder} that
 * publishes its meters. It sees every lock of the instance, however it was obtained; no lock or
 * handle is wrapped.
 *
 * <pre>{@code
 * ZkLockMetrics metrics = ZkLockMetrics.builder()
 *     .lockNameTags(LockNameTags.allow(Set.of("nightly-report")))
 *     .build();
 * ZkLocks locks = ZkLocks.builder(connect).eventListener(metrics).build();
 * metrics.bindTo(meterRegistry);        // Spring Boot binds every MeterBinder bean itself
 * }</pre>
 *
 * <h2>Meters</h2>
 *
 * Every lock meter has the tags {@code lock} (the lock's name where {@link LockNameTags} allows it,
 * else {@value LockNameTags#OTHER}) and {@code kind} ({@code mutex}, {@code read}, {@code write},
 * {@code simple}, {@code semaphore}, {@code multi}, {@code cohort}, {@code cohort-read}, {@code
 * cohort-write}, {@code election}; for the coordination recipes' waits {@code latch}, {@code
 * barrier}, {@code double-barrier-enter}, {@code double-barrier-leave}, {@code condition}). As
 * Micrometer advises, nothing is counted that a timer already counts: a timer's count is the number
 * of events.
 *
 * <ul>
 *   <li>{@code zklock.lock.wait} (timer, tag {@code outcome}: {@code granted}, {@code timeout},
 *       {@code busy}, {@code cancelled}, {@code failed}; for a coordination wait {@code passed},
 *       {@code timeout}, {@code cancelled}, {@code failed}, and {@code lost} for a condition waiter
 *       whose lock was lost): from a request to its outcome; {@code busy} is a {@code tryAcquire()}
 *       that found the lock held. A coordination wait has no hold meter: nothing is held.
 *   <li>{@code zklock.lock.wait.active} (long task timer): requests waiting now, and for how long.
 *   <li>{@code zklock.lock.hold} (timer, tags {@code end}: {@code released}, {@code lost}; {@code
 *       reason}: {@code none} for a release, else why it was lost: {@code session_expired}, {@code
 *       node_deleted}, {@code suspended}, {@code closed}, {@code lease_expired}): from grant to
 *       release or loss.
 *   <li>{@code zklock.lock.hold.active} (long task timer): grants held now, and for how long: a
 *       holder that is stuck shows here while it holds, not only when it ends.
 *   <li>{@code zklock.session.state} (gauge, tag {@code state}): 1 for the session's current state,
 *       0 for the others.
 * </ul>
 *
 * Recording starts with the first {@link #bindTo}: events before it are not recorded. Several
 * registries may be bound; each gets every meter. Use one instance per {@link ZkLocks} (its session
 * gauge follows one session). This listener is non-blocking: it is called on the thread of each
 * step (see {@link LockEventListener}).
 */
public final class ZkLockMetrics implements LockEventListener, MeterBinder {
  static final String WAIT = "zklock.lock.wait";
  static final String HOLD = "zklock.lock.hold";
  static final String ACTIVE = ".active";
  static final String SESSION_STATE = "zklock.session.state";

  private final LockNameTags names;
  private final Tags common;
  private final CompositeMeterRegistry registry = new CompositeMeterRegistry();
  private final AtomicReference<SessionState> state = new AtomicReference<>();
  private final Map<Long, LongTaskTimer.Sample> waiting = new ConcurrentHashMap<>();
  private final Map<Long, LongTaskTimer.Sample> holding = new ConcurrentHashMap<>();
  private volatile boolean bound;

  private ZkLockMetrics(Builder b) {
    this.names = b.names;
    this.common = b.tags;
  }

  /** Meters with no lock name tagged and no common tag. */
  public static ZkLockMetrics create() {
    return builder().build();
  }

  /** Starts building. */
  public static Builder builder() {
    return new Builder();
  }

  /** Publishes the meters to {@code registry} too. Idempotent for the same registry. */
  @Override
  public void bindTo(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    synchronized (this.registry) {
      if (this.registry.getRegistries().contains(registry)) {
        return;
      }
      // the gauges straight into the registry: they hold no recording to miss
      for (SessionState s : SessionState.values()) {
        Gauge.builder(SESSION_STATE, state, r -> r.get() == s ? 1 : 0)
            .description("1 for the session's current state, 0 for the others")
            .tags(common)
            .tag("state", s.name().toLowerCase(Locale.ROOT))
            .register(registry);
      }
      this.registry.add(registry);
    }
    bound = true;
  }

  @Override
  public boolean isNonBlocking() {
    return true;
  }

  @Override
  public void onEvent(LockEvent e) {
    if (e.type() == LockEvent.Type.SESSION) {
      state.set(e.sessionState());
      return;
    }
    if (!bound) {
      return;
    }
    switch (e.type()) {
      case REQUESTED ->
          waiting.put(e.requestId(), active(WAIT, "lock requests waiting now", e).start());
      case GRANTED -> {
        endWait(e, "granted");
        holding.put(e.requestId(), active(HOLD, "locks held now", e).start());
      }
      case PASSED -> endWait(e, "passed"); // a coordination wait: no hold follows
      case TIMED_OUT -> endWait(e, e.reason().equals("busy") ? "busy" : "timeout");
      case CANCELLED -> endWait(e, "cancelled");
      case FAILED -> endWait(e, "failed");
      case RELEASED -> endHold(e, "released", "none");
      case LOST -> {
        if (e.isCoordination()) {
          endWait(e, "lost"); // a condition waiter's lock was lost: its wait ends
        } else {
          endHold(e, "lost", e.reason().toLowerCase(Locale.ROOT));
        }
      }
      default -> {}
    }
  }

  private Tags tags(LockEvent e) {
    return common.and("lock", names.tagValue(e.lockName()), "kind", e.kind());
  }

  private LongTaskTimer active(String name, String description, LockEvent e) {
    return LongTaskTimer.builder(name + ACTIVE)
        .description(description)
        .tags(tags(e))
        .register(registry);
  }

  private void endWait(LockEvent e, String outcome) {
    LongTaskTimer.Sample s = waiting.remove(e.requestId());
    if (s != null) {
      s.stop();
    }
    Timer.builder(WAIT)
        .description("time from a lock request to its outcome")
        .tags(tags(e))
        .tag("outcome", outcome)
        .register(registry)
        .record(e.elapsed().toNanos(), TimeUnit.NANOSECONDS);
  }

  private void endHold(LockEvent e, String end, String reason) {
    LongTaskTimer.Sample s = holding.remove(e.requestId());
    if (s != null) {
      s.stop();
    }
    Timer.builder(HOLD)
        .description("time a lock was held, from grant to release or loss")
        .tags(tags(e))
        .tag("end", end)
        .tag("reason", reason)
        .register(registry)
        .record(e.elapsed().toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Builds a {@link ZkLockMetrics}. */
  public static final class Builder {
    private LockNameTags names = LockNameTags.none();
    private Tags tags = Tags.empty();

    private Builder() {}

    /** Which lock names get their own {@code lock} tag (default: none, every lock is "other"). */
    public Builder lockNameTags(LockNameTags names) {
      this.names = Objects.requireNonNull(names, "names");
      return this;
    }

    /** Tags added to every meter. */
    public Builder tags(Iterable<io.micrometer.core.instrument.Tag> tags) {
      this.tags = Tags.of(tags);
      return this;
    }

    public ZkLockMetrics build() {
      return new ZkLockMetrics(this);
    }
  }
}
