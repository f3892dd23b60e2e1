package io.zklock.micrometer;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.zklock.LockEvent;
import io.zklock.LockEventListener;
import io.zklock.SessionState;
import io.zklock.ZkLocks;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Micrometer meters for zklock, made from the lock events of zklock-core: a {@link
 * LockEventListener} to add to the {@link ZkLocks.Builder} (or to a built instance, {@link
 * ZkLocks#addEventListener}), and the {@link MeterBinder} that publishes its meters. It sees every
 * lock of the instance, however it was obtained; no lock or handle is wrapped.
 *
 * <pre>{@code
 * ZkLockMetrics metrics = ZkLockMetrics.builder()
 *     .lockNameTags(LockNameTags.allow(Set.of("nightly-report")))
 *     .build();
 * ZkLocks locks = ZkLocks.builder(connect).eventListener(metrics).build();
 * metrics.bindTo(meterRegistry);
 * }</pre>
 *
 * <h2>Meters</h2>
 *
 * The lock meters are those that Micrometer's meter handler makes of zklock's observations ({@link
 * ZkLockObservations}, named and keyed by {@link DefaultLockObservationConvention} or a {@link
 * LockObservationConvention} of your own): this class observes each request into a registry of its
 * own whose only handler is that meter handler. So an application has the same meters, with the
 * same tags, whether they come from here or from observations into a registry that has the handler
 * (Spring Boot's): one set, never both ({@link Builder#lockMeters}). Every lock meter has the tags
 * {@code lock} (the lock's name where {@link LockNameTags} allows it, else {@value
 * LockNameTags#OTHER}) and {@code kind} ({@code mutex}, {@code read}, {@code write}, {@code
 * simple}, {@code semaphore}, {@code multi}, {@code cohort}, {@code cohort-read}, {@code
 * cohort-write}, {@code election}; for the coordination recipes' waits {@code latch}, {@code
 * barrier}, {@code double-barrier-enter}, {@code double-barrier-leave}, {@code condition}). As
 * Micrometer advises, nothing is counted that a timer already counts: a timer's count is the number
 * of events.
 *
 * <ul>
 *   <li>{@code zklock.lock.wait} (timer, tags {@code outcome}: {@code granted}, {@code timeout},
 *       {@code busy}, {@code cancelled}, {@code failed}; for a coordination wait {@code passed},
 *       {@code timeout}, {@code cancelled}, {@code failed}, and {@code lost} for a condition waiter
 *       whose lock was lost; and {@code error}: {@code none}, or the class of a failure): from a
 *       request to its outcome; {@code busy} is a {@code tryAcquire()} that found the lock held. A
 *       coordination wait has no hold meter: nothing is held.
 *   <li>{@code zklock.lock.wait.active} (long task timer): requests waiting now, and for how long.
 *   <li>{@code zklock.lock.wait.queued} (counter): requests that queued behind others.
 *   <li>{@code zklock.lock.hold} (timer, tags {@code end}: {@code released}, {@code lost}; {@code
 *       reason}: {@code none} for a release, else why it was lost: {@code session_expired}, {@code
 *       node_deleted}, {@code suspended}, {@code closed}, {@code lease_expired}; {@code error}:
 *       {@code none}): from grant to release or loss.
 *   <li>{@code zklock.lock.hold.active} (long task timer): grants held now, and for how long: a
 *       holder that is stuck shows here while it holds, not only when it ends.
 *   <li>{@code zklock.session.state} (gauge, tag {@code state}, and {@code client} when {@link
 *       Builder#client} names the instance): 1 for the session's current state, 0 for the others.
 * </ul>
 *
 * Recording starts with the first {@link #bindTo}: events before it are not recorded. Several
 * registries may be bound; each gets every meter. Use one instance per {@link ZkLocks} (its session
 * gauge follows one session). This listener is non-blocking: it is called on the thread of each
 * step (see {@link LockEventListener}).
 */
public final class ZkLockMetrics implements LockEventListener, MeterBinder {
  static final String WAIT = DefaultLockObservationConvention.WAIT_NAME;
  static final String HOLD = DefaultLockObservationConvention.HOLD_NAME;
  static final String ACTIVE = ".active";
  static final String SESSION_STATE = "zklock.session.state";

  private final Tags common;
  private final String client;
  private final CompositeMeterRegistry registry = new CompositeMeterRegistry();
  private final ZkLockObservations lockMeters; // null: the session gauge only
  private final AtomicReference<SessionState> state = new AtomicReference<>();
  private volatile boolean bound;

  private ZkLockMetrics(Builder b) {
    this.common = b.tags;
    this.client = b.client;
    registry.config().commonTags(common);
    if (b.lockMeters) {
      ObservationRegistry observations = ObservationRegistry.create();
      observations
          .observationConfig()
          .observationHandler(new DefaultMeterObservationHandler(registry));
      ZkLockObservations.Builder o = ZkLockObservations.builder(observations).lockNameTags(b.names);
      b.conventions.forEach(o::convention);
      this.lockMeters = o.build();
    } else {
      this.lockMeters = null;
    }
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
        Gauge.Builder<AtomicReference<SessionState>> g =
            Gauge.builder(SESSION_STATE, state, r -> r.get() == s ? 1 : 0)
                .description("1 for the session's current state, 0 for the others")
                .tags(common)
                .tag("state", s.name().toLowerCase(Locale.ROOT));
        if (client != null) {
          g.tag("client", client);
        }
        g.register(registry);
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
    if (bound && lockMeters != null) {
      lockMeters.onEvent(e);
    }
  }

  /** Builds a {@link ZkLockMetrics}. */
  public static final class Builder {
    private LockNameTags names = LockNameTags.none();
    private Tags tags = Tags.empty();
    private String client;
    private boolean lockMeters = true;
    private final List<LockObservationConvention> conventions = new ArrayList<>();

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

    /**
     * Names the instance on the session gauge, as its tag {@code client}: for an application with
     * several {@link ZkLocks} (Spring Boot's starter names each by its bean). Default: no such tag.
     */
    public Builder client(String name) {
      this.client = Objects.requireNonNull(name, "name");
      return this;
    }

    /**
     * Names and keys the lock meters of the phases {@code convention} supports, as for {@link
     * ZkLockObservations.Builder#convention}: give both the same conventions.
     */
    public Builder convention(LockObservationConvention convention) {
      conventions.add(Objects.requireNonNull(convention, "convention"));
      return this;
    }

    /**
     * Whether this instance makes the lock meters (default true). False leaves only the session
     * gauge: for an application whose {@link ZkLockObservations} go to an observation registry with
     * Micrometer's meter handler (Spring Boot's), which makes the same lock meters.
     */
    public Builder lockMeters(boolean lockMeters) {
      this.lockMeters = lockMeters;
      return this;
    }

    public ZkLockMetrics build() {
      return new ZkLockMetrics(this);
    }
  }
}
