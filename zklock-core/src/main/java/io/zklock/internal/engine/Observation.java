package io.zklock.internal.engine;

import io.zklock.LockEvent;
import io.zklock.LockLostException;
import io.zklock.internal.rules.Clock;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * One request or wait told to the instance's lock event listeners: made only when someone listens
 * ({@link Events#on()}), so that a request nobody listens to makes no event. Its wait ends once
 * (granted, passed, timed out, cancelled, failed or lost: the first to happen is told). A lock's
 * acquisition goes on to a hold (the recipes' observed handle tells its end); a coordination wait
 * ({@link #observed}, or {@link #begin} then {@link #waited} or {@link #waitThrew}) never holds.
 */
public final class Observation {
  private final Events events;
  private final Clock clock;
  private final LongSupplier session;
  private final String name;
  private final String kind;
  private final long id;
  private final long start;
  private final AtomicBoolean waitEnded = new AtomicBoolean();

  private Observation(Events events, Clock clock, LongSupplier session, String name, String kind) {
    this.events = events;
    this.clock = clock;
    this.session = session;
    this.name = name;
    this.kind = kind;
    this.id = events.nextId();
    this.start = clock.nanoTime();
    emit(LockEvent.Type.REQUESTED, 0L, -1, Duration.ZERO, "", null);
  }

  /**
   * Tells the request, or returns null if nobody listens.
   *
   * @param session the id of the session the events name, read at each event
   */
  public static Observation begin(
      Events events, Clock clock, LongSupplier session, String name, String kind) {
    return events.on() ? new Observation(events, clock, session, name, kind) : null;
  }

  /** A coordination wait: true if what it waited for happened, false at its time-out. */
  @FunctionalInterface
  public interface PassingWait {
    boolean run() throws InterruptedException;
  }

  /**
   * Runs {@code wait}, told as a coordination wait of {@code kind} named {@code name}: passed,
   * timed out, cancelled (interrupted) or failed. Nothing is made or told when nobody listens.
   */
  public static boolean observed(
      Events events, Clock clock, LongSupplier session, String name, String kind, PassingWait wait)
      throws InterruptedException {
    Observation o = begin(events, clock, session, name, kind);
    try {
      boolean passed = wait.run();
      waited(o, passed);
      return passed;
    } catch (InterruptedException | RuntimeException | Error e) {
      waitThrew(o, e, 0L);
      throw e;
    }
  }

  /**
   * Ends a coordination wait ({@link io.zklock.LockEvent#isCoordination()}) that returned: passed,
   * or timed out. Does nothing for null (nobody listened at its start).
   */
  public static void waited(Observation o, boolean passed) {
    if (o == null) {
      return;
    }
    if (passed) {
      o.passed();
    } else {
      o.notGranted(false);
    }
  }

  /**
   * Ends a coordination wait that threw {@code t}: cancelled (interrupted), lost (a {@link
   * LockLostException}: the token of the grant lost is {@code token}), or failed. Does nothing for
   * null.
   */
  public static void waitThrew(Observation o, Throwable t, long token) {
    if (o == null) {
      return;
    }
    if (t instanceof InterruptedException || t instanceof CancellationException) {
      o.cancelled();
    } else if (t instanceof LockLostException lost) {
      if (o.waitEnded.compareAndSet(false, true)) {
        o.emit(LockEvent.Type.LOST, token, -1, o.since(o.start), lost.reason().name(), null);
      }
    } else {
      o.failed(t);
    }
  }

  public void passed() {
    if (waitEnded.compareAndSet(false, true)) {
      emit(LockEvent.Type.PASSED, 0L, -1, since(start), "", null);
    }
  }

  /** The request waits behind {@code position} others. */
  public void queued(int position) {
    if (!waitEnded.get()) {
      emit(LockEvent.Type.QUEUED, 0L, position, Duration.ZERO, "", null);
    }
  }

  /**
   * The request was granted with {@code token}: true if told, false if the wait had ended already
   * (cancelled), when the grant must be given back.
   */
  public boolean granted(long token) {
    if (!waitEnded.compareAndSet(false, true)) {
      return false;
    }
    emit(LockEvent.Type.GRANTED, token, -1, since(start), "", null);
    return true;
  }

  /** The request ended without a grant: busy ({@code tryAcquire()}) or at its timeout. */
  public void notGranted(boolean busy) {
    if (waitEnded.compareAndSet(false, true)) {
      emit(LockEvent.Type.TIMED_OUT, 0L, -1, since(start), busy ? "busy" : "timeout", null);
    }
  }

  public void cancelled() {
    if (waitEnded.compareAndSet(false, true)) {
      emit(LockEvent.Type.CANCELLED, 0L, -1, since(start), "", null);
    }
  }

  public void failed(Throwable failure) {
    if (waitEnded.compareAndSet(false, true)) {
      emit(LockEvent.Type.FAILED, 0L, -1, since(start), "", failure);
    }
  }

  /** A hold granted at {@code granted} ({@link Clock} time) ended by its release. */
  public void released(long token, long granted) {
    emit(LockEvent.Type.RELEASED, token, -1, since(granted), "", null);
  }

  /** A hold granted at {@code granted} ({@link Clock} time) was lost, for {@code reason}. */
  public void lost(long token, long granted, LockLostException.Reason reason) {
    emit(LockEvent.Type.LOST, token, -1, since(granted), reason.name(), null);
  }

  /** The {@link Clock}'s time now, for a hold's start. */
  public long now() {
    return clock.nanoTime();
  }

  private Duration since(long from) {
    return Duration.ofNanos(Math.max(0L, clock.nanoTime() - from));
  }

  private void emit(
      LockEvent.Type type,
      long token,
      int position,
      Duration elapsed,
      String reason,
      Throwable failure) {
    events.emit(
        new LockEvent(
            type,
            name,
            kind,
            id,
            session.getAsLong(),
            token,
            position,
            elapsed,
            reason,
            failure,
            null));
  }
}
