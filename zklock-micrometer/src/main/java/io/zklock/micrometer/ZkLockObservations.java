package io.zklock.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.zklock.LockEvent;
import io.zklock.LockEventListener;
import io.zklock.ZkLocks;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Micrometer Observations of zklock's lock requests, made from the lock events of zklock-core: with
 * Micrometer Tracing each request is a span, and with Micrometer's meter handler (Spring Boot
 * registers one) each is timed. Add it to the {@link ZkLocks.Builder}, or to a built instance
 * ({@link ZkLocks#addEventListener}):
 *
 * <pre>{@code
 * ZkLocks locks = ZkLocks.builder(connect)
 *     .eventListener(ZkLockObservations.of(observationRegistry))
 *     .build();
 * }</pre>
 *
 * <ul>
 *   <li>a wait ({@value DefaultLockObservationConvention#WAIT_NAME}, "zklock wait &lt;kind&gt;"):
 *       from the request to its outcome. Its parent is the observation current on the thread that
 *       asked for the lock (a request's span, say). Each time the request waits behind others, an
 *       event {@code queued} is added. A failure is the observation's error.
 *   <li>a hold ({@value DefaultLockObservationConvention#HOLD_NAME}, "zklock hold &lt;kind&gt;"):
 *       from the grant to its release or loss, a child of its wait (a coordination recipe's wait
 *       has none: nothing is held).
 * </ul>
 *
 * Their names and key values are {@link DefaultLockObservationConvention}'s unless a {@link
 * LockObservationConvention} is given; the lock's name is a low-cardinality value only as {@link
 * LockNameTags} allows. The meters that a meter handler makes of these observations are the very
 * meters of {@link ZkLockMetrics} (same names, same tags): use one or the other for a {@link
 * io.micrometer.core.instrument.MeterRegistry}, not both ({@link
 * ZkLockMetrics.Builder#lockMeters}). This listener is non-blocking: it runs on the thread of each
 * step (the caller's for the request, which is how it finds the parent).
 */
public final class ZkLockObservations implements LockEventListener {
  private final ObservationRegistry registry;
  private final LockNameTags names;
  private final LockObservationConvention waitConvention;
  private final LockObservationConvention holdConvention;
  private final Map<Long, Observation> waits = new ConcurrentHashMap<>();
  private final Map<Long, Observation> holds = new ConcurrentHashMap<>();

  private ZkLockObservations(Builder b) {
    this.registry = b.registry;
    this.names = b.names;
    this.waitConvention = b.waitConvention;
    this.holdConvention = b.holdConvention;
  }

  /** Observations into {@code registry}, with no lock name as a low-cardinality value. */
  public static ZkLockObservations of(ObservationRegistry registry) {
    return builder(registry).build();
  }

  /** Observations into {@code registry}, lock names guarded by {@code names}. */
  public static ZkLockObservations of(ObservationRegistry registry, LockNameTags names) {
    return builder(registry).lockNameTags(names).build();
  }

  /** Starts building observations into {@code registry}. */
  public static Builder builder(ObservationRegistry registry) {
    return new Builder(registry);
  }

  @Override
  public boolean isNonBlocking() {
    return true;
  }

  @Override
  public void onEvent(LockEvent e) {
    if (registry.isNoop()) {
      return;
    }
    switch (e.type()) {
      case REQUESTED -> {
        Observation wait = observation(LockObservationContext.Phase.WAIT, e, null);
        wait.start();
        waits.put(e.requestId(), wait);
      }
      case QUEUED -> {
        Observation wait = waits.get(e.requestId());
        if (wait != null) {
          wait.event(Observation.Event.of("queued", "queued behind " + e.position()));
        }
      }
      case GRANTED -> {
        Observation wait = endWait(e, "granted", null);
        Observation hold = observation(LockObservationContext.Phase.HOLD, e, wait);
        ((LockObservationContext) hold.getContext()).granted(e.fencingToken());
        hold.start();
        holds.put(e.requestId(), hold);
      }
      case PASSED -> endWait(e, "passed", null); // a coordination wait: no hold follows
      case TIMED_OUT -> endWait(e, e.reason().equals("busy") ? "busy" : "timeout", null);
      case CANCELLED -> endWait(e, "cancelled", null);
      case FAILED -> endWait(e, "failed", e.failure());
      case RELEASED -> endHold(e, "released", "none");
      case LOST -> {
        if (e.isCoordination()) {
          endWait(e, "lost", null); // a condition waiter's lock was lost: its wait ends
        } else {
          endHold(e, "lost", e.reason().toLowerCase(Locale.ROOT));
        }
      }
      default -> {}
    }
  }

  private Observation observation(
      LockObservationContext.Phase phase, LockEvent e, Observation parent) {
    LockObservationContext context =
        new LockObservationContext(phase, e.lockName(), names.tagValue(e.lockName()), e.kind());
    boolean wait = phase == LockObservationContext.Phase.WAIT;
    Observation o =
        Observation.createNotStarted(
            wait ? waitConvention : holdConvention,
            wait ? DefaultLockObservationConvention.WAIT : DefaultLockObservationConvention.HOLD,
            () -> context,
            registry);
    if (parent != null) {
      o.parentObservation(parent);
    }
    return o;
  }

  private Observation endWait(LockEvent e, String outcome, Throwable failure) {
    Observation wait = waits.remove(e.requestId());
    if (wait == null) {
      return null;
    }
    LockObservationContext context = (LockObservationContext) wait.getContext();
    if (e.type() == LockEvent.Type.GRANTED) {
      context.granted(e.fencingToken());
    }
    context.end(outcome, null);
    if (failure != null) {
      wait.error(failure);
    }
    wait.stop();
    return wait;
  }

  private void endHold(LockEvent e, String outcome, String reason) {
    Observation hold = holds.remove(e.requestId());
    if (hold == null) {
      return;
    }
    ((LockObservationContext) hold.getContext()).end(outcome, reason);
    hold.stop();
  }

  /** Builds a {@link ZkLockObservations}. */
  public static final class Builder {
    private final ObservationRegistry registry;
    private LockNameTags names = LockNameTags.none();
    private LockObservationConvention waitConvention;
    private LockObservationConvention holdConvention;

    private Builder(ObservationRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry");
    }

    /** Which lock names are low-cardinality values (default: none, every lock is "other"). */
    public Builder lockNameTags(LockNameTags names) {
      this.names = Objects.requireNonNull(names, "names");
      return this;
    }

    /**
     * Names and keys the observations of the phases whose context {@code convention} supports (a
     * wait's, a hold's, or both). Without one, a registry's global convention for them is used,
     * else {@link DefaultLockObservationConvention}'s, as Micrometer chooses.
     */
    public Builder convention(LockObservationConvention convention) {
      Objects.requireNonNull(convention, "convention");
      if (convention.supportsContext(sample(LockObservationContext.Phase.WAIT))) {
        waitConvention = convention;
      }
      if (convention.supportsContext(sample(LockObservationContext.Phase.HOLD))) {
        holdConvention = convention;
      }
      return this;
    }

    static LockObservationContext sample(LockObservationContext.Phase phase) {
      return new LockObservationContext(phase, "", LockNameTags.OTHER, "mutex");
    }

    public ZkLockObservations build() {
      return new ZkLockObservations(this);
    }
  }
}
