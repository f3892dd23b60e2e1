package io.zklock.micrometer;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import java.util.Objects;

/**
 * zklock's names and key values, the same whichever of {@link ZkLockObservations} and {@link
 * ZkLockMetrics} makes the meters. One instance per phase: {@link #WAIT} and {@link #HOLD}.
 *
 * <table>
 *   <caption>Observations</caption>
 *   <tr><th>name (contextual name)</th><th>low-cardinality keys (meter tags)</th>
 *       <th>high-cardinality keys (span attributes)</th></tr>
 *   <tr><td>{@value #WAIT_NAME} ("zklock wait &lt;kind&gt;")</td><td>{@code lock}, {@code kind};
 *       at its end {@code outcome}</td><td>{@code lock.name}; once granted {@code token}</td></tr>
 *   <tr><td>{@value #HOLD_NAME} ("zklock hold &lt;kind&gt;")</td><td>{@code lock}, {@code kind};
 *       at its end {@code end}, {@code reason}</td><td>{@code lock.name}, {@code token}</td></tr>
 * </table>
 *
 * {@code lock} is the guarded name ({@link LockNameTags}: the name where allowed, else {@value
 * LockNameTags#OTHER}), {@code lock.name} the full name. Micrometer's meter handler makes of each
 * observation a timer of its name (its tags: the low-cardinality keys at its end, and {@code
 * error}: {@code none}, or the class of a wait's failure), a long task timer {@code <name>.active}
 * (the keys at its start) and, for the {@code queued} event of a wait that queues behind others, a
 * counter {@code zklock.lock.wait.queued}.
 */
public class DefaultLockObservationConvention implements LockObservationConvention {
  /** The name of a wait's observation. */
  public static final String WAIT_NAME = "zklock.lock.wait";

  /** The name of a hold's observation. */
  public static final String HOLD_NAME = "zklock.lock.hold";

  /** The convention of waits, as zklock defines it. */
  public static final DefaultLockObservationConvention WAIT =
      new DefaultLockObservationConvention(LockObservationContext.Phase.WAIT);

  /** The convention of holds, as zklock defines it. */
  public static final DefaultLockObservationConvention HOLD =
      new DefaultLockObservationConvention(LockObservationContext.Phase.HOLD);

  private final LockObservationContext.Phase phase;

  /** The convention of {@code phase}; extend it to change part of it. */
  public DefaultLockObservationConvention(LockObservationContext.Phase phase) {
    this.phase = Objects.requireNonNull(phase, "phase");
  }

  /** The phase whose observations this convention names. */
  public LockObservationContext.Phase phase() {
    return phase;
  }

  @Override
  public boolean supportsContext(Observation.Context context) {
    return context instanceof LockObservationContext c && c.phase() == phase;
  }

  @Override
  public String getName() {
    return phase == LockObservationContext.Phase.WAIT ? WAIT_NAME : HOLD_NAME;
  }

  @Override
  public String getContextualName(LockObservationContext context) {
    return (phase == LockObservationContext.Phase.WAIT ? "zklock wait " : "zklock hold ")
        + context.kind();
  }

  @Override
  public KeyValues getLowCardinalityKeyValues(LockObservationContext context) {
    KeyValues kv = KeyValues.of("lock", context.lockTag(), "kind", context.kind());
    String outcome = context.outcome();
    if (outcome == null) {
      return kv; // at the start: what the long task timer is tagged with
    }
    return phase == LockObservationContext.Phase.WAIT
        ? kv.and("outcome", outcome)
        : kv.and("end", outcome, "reason", context.lossReason());
  }

  @Override
  public KeyValues getHighCardinalityKeyValues(LockObservationContext context) {
    KeyValues kv = KeyValues.of("lock.name", context.lockName());
    return context.fencingToken() < 0 ? kv : kv.and("token", Long.toString(context.fencingToken()));
  }
}
