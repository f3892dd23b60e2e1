package io.zklock.micrometer;

import io.micrometer.common.KeyValue;
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
 * Micrometer Tracing, each request is a span. Add it to the {@link ZkLocks.Builder}:
 *
 * <pre>{@code
 * ZkLocks locks = ZkLocks.builder(connect)
 *     .eventListener(ZkLockObservations.of(observationRegistry))
 *     .build();
 * }</pre>
 *
 * <ul>
 *   <li>{@value #WAIT} ("zklock wait &lt;kind&gt;"): from the request to its outcome. Its parent is
 *       the observation current on the thread that asked for the lock (a request's span, say).
 *       Low-cardinality key values: {@code zklock.lock.kind}, {@code zklock.lock.outcome} (granted,
 *       timeout, busy, cancelled, failed; for a coordination recipe's wait, kinds {@code latch},
 *       {@code barrier}, {@code double-barrier-enter}, {@code double-barrier-leave}, {@code
 *       condition}: passed, timeout, cancelled, failed, lost) and {@code zklock.lock.name} as
 *       {@link LockNameTags} allows it; high-cardinality: the full {@code zklock.lock.name.full}
 *       and the grant's {@code zklock.lock.token}. Each time the request waits behind others, an
 *       event {@code queued} is added. A failure is the observation's error.
 *   <li>{@value #HOLD} ("zklock hold &lt;kind&gt;"): from the grant to its release or loss, a child
 *       of its wait (a coordination wait has none: nothing is held); {@code zklock.lock.outcome} is
 *       {@code released} or {@code lost}, with {@code zklock.lock.loss.reason} ({@code none},
 *       {@code session_expired}, {@code node_deleted}, {@code suspended}, {@code closed}, {@code
 *       lease_expired}).
 * </ul>
 *
 * A registry with a meter handler also makes timers of these observations; {@link ZkLockMetrics} is
 * the fuller set of meters, so use the two together only with tracing handlers, or accept both
 * sets. This listener is non-blocking: it runs on the thread of each step (the caller's for the
 * request, which is how it finds the parent).
 */
public final class ZkLockObservations implements LockEventListener {
  /** The observation of a wait. */
  public static final String WAIT = "zklock.wait";

  /** The observation of a hold. */
  public static final String HOLD = "zklock.hold";

  private final ObservationRegistry registry;
  private final LockNameTags names;
  private final Map<Long, Observation> waits = new ConcurrentHashMap<>();
  private final Map<Long, Observation> holds = new ConcurrentHashMap<>();

  private ZkLockObservations(ObservationRegistry registry, LockNameTags names) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.names = Objects.requireNonNull(names, "names");
  }

  /** Observations into {@code registry}, with no lock name as a low-cardinality value. */
  public static ZkLockObservations of(ObservationRegistry registry) {
    return new ZkLockObservations(registry, LockNameTags.none());
  }

  /** Observations into {@code registry}, lock names guarded by {@code names}. */
  public static ZkLockObservations of(ObservationRegistry registry, LockNameTags names) {
    return new ZkLockObservations(registry, names);
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
        Observation wait = observation(WAIT, e, null);
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
        Observation hold = observation(HOLD, e, wait);
        hold.highCardinalityKeyValue("zklock.lock.token", Long.toString(e.fencingToken()));
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

  private Observation observation(String name, LockEvent e, Observation parent) {
    Observation o =
        Observation.createNotStarted(name, registry)
            .contextualName(name.replace('.', ' ') + " " + e.kind())
            .lowCardinalityKeyValue("zklock.lock.kind", e.kind())
            .lowCardinalityKeyValue("zklock.lock.name", names.tagValue(e.lockName()))
            .highCardinalityKeyValue("zklock.lock.name.full", e.lockName());
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
    wait.lowCardinalityKeyValue("zklock.lock.outcome", outcome);
    if (e.type() == LockEvent.Type.GRANTED) {
      wait.highCardinalityKeyValue(
          KeyValue.of("zklock.lock.token", Long.toString(e.fencingToken())));
    }
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
    hold.lowCardinalityKeyValue("zklock.lock.outcome", outcome);
    hold.lowCardinalityKeyValue("zklock.lock.loss.reason", reason);
    hold.stop();
  }
}
