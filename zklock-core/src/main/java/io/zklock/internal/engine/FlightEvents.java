package io.zklock.internal.engine;

import io.zklock.LockEvent;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;
import jdk.jfr.Timespan;

/**
 * zklock's JDK Flight Recorder events, made from the lock events of every {@code ZkLocks} while a
 * recording has them enabled: {@code io.zklock.LockWait} and {@code io.zklock.LockHold} (durations:
 * from request to outcome, from grant to release or loss; a coordination recipe's wait is a {@code
 * LockWait} with no hold, outcome {@code passed} when it passed), {@code io.zklock.LockLost} and
 * {@code io.zklock.SessionState} (instants); and {@code io.zklock.RecipeMix} (an instant, told by
 * the request that refused, not made from the lock events). No recording, no cost beyond one static
 * check per request: the recorder is asked only once it is initialized, and then only whether these
 * events are on. The default thresholds are in the classes; the shipped {@code META-INF/zklock.jfc}
 * sets them for a recording (docs/ops.md).
 */
final class FlightEvents {
  private FlightEvents() {}

  /** The common fields of the wait and hold events. */
  @Category({"zklock", "Locks"})
  @StackTrace(false)
  abstract static class LockStep extends Event {
    @Label("Lock Name")
    String lockName;

    @Label("Kind")
    @Description(
        "mutex, read, write, simple, semaphore, multi, cohort, election...; for a coordination"
            + " wait latch, barrier, double-barrier-enter, double-barrier-leave, condition")
    String kind;

    @Label("Fencing Token")
    long token;

    @Label("Outcome")
    String outcome;

    @Label("Session Id")
    long sessionId;
  }

  @Name("io.zklock.LockWait")
  @Label("Lock Wait")
  @Description(
      "From a lock request to its outcome: granted, timeout, busy, cancelled, failed; for a"
          + " coordination wait: passed, timeout, cancelled, failed, lost")
  @Threshold("10 ms")
  static final class Wait extends LockStep {}

  @Name("io.zklock.LockHold")
  @Label("Lock Hold")
  @Description("From a grant to its release or loss")
  @Threshold("100 ms")
  static final class Hold extends LockStep {}

  @Name("io.zklock.LockLost")
  @Label("Lock Lost")
  @Description("A grant lost while held: session expired, node deleted, suspended, closed, lease")
  @Category({"zklock", "Locks"})
  @StackTrace(false)
  static final class Lost extends Event {
    @Label("Lock Name")
    String lockName;

    @Label("Kind")
    String kind;

    @Label("Fencing Token")
    long token;

    @Label("Reason")
    String reason;

    @Label("Held For")
    @Timespan(Timespan.NANOSECONDS)
    long heldFor;

    @Label("Session Id")
    long sessionId;
  }

  @Name("io.zklock.SessionState")
  @Label("ZooKeeper Session State")
  @Description("The session of a ZkLocks changed state: CONNECTED, SUSPENDED, LOST, CLOSED")
  @Category({"zklock", "Session"})
  @StackTrace(false)
  static final class Session extends Event {
    @Label("State")
    String state;

    @Label("Session Id")
    long sessionId;
  }

  @Name("io.zklock.RecipeMix")
  @Label("Lock Directory Mixes Recipes")
  @Description(
      "A request refused to queue beside a node of another recipe or library in its lock's"
          + " directory: that node's client holds without seeing zklock's nodes, so zklock's holder"
          + " and its waiter next in line may hold beside it")
  @Category({"zklock", "Locks"})
  @StackTrace(false)
  static final class Mix extends Event {
    @Label("Lock Name")
    String lockName;

    @Label("Directory")
    String dir;

    @Label("Refusal")
    String refusal;

    @Label("Session Id")
    long sessionId;
  }

  /**
   * A request of {@code lockName} refused to queue in {@code dir} beside another recipe's or
   * library's node ({@code refusal} says which): an instant event, whatever the lock event
   * listeners, since the refusal is what zklock's side sees of a client that may hold beside its
   * holder. Costs one static check while no recording was ever started.
   */
  static void recipeMix(String lockName, String dir, String refusal, long sessionId) {
    if (!FlightRecorder.isInitialized() || !Types.MIX.isEnabled()) {
      return;
    }
    Mix m = new Mix();
    m.lockName = lockName;
    m.dir = dir;
    m.refusal = refusal;
    m.sessionId = sessionId;
    m.commit();
  }

  /** The event types, looked up once a recording exists. */
  private static final class Types {
    static final EventType WAIT = EventType.getEventType(Wait.class);
    static final EventType HOLD = EventType.getEventType(Hold.class);
    static final EventType LOST = EventType.getEventType(Lost.class);
    static final EventType SESSION = EventType.getEventType(Session.class);
    static final EventType MIX = EventType.getEventType(Mix.class);
  }

  /** Waits and holds in progress, by request id (of every instance: ids are per instance). */
  private static final Map<Object, LockStep> open = new ConcurrentHashMap<>();

  /** Whether a recording may want zklock's events; cheap while none was ever started. */
  static boolean recording() {
    return FlightRecorder.isInitialized()
        && (Types.WAIT.isEnabled()
            || Types.HOLD.isEnabled()
            || Types.LOST.isEnabled()
            || Types.SESSION.isEnabled());
  }

  /** Turns one lock event of {@code owner} (an instance) into Flight Recorder events. */
  static void accept(Object owner, LockEvent e) {
    switch (e.type()) {
      case REQUESTED -> begin(owner, e, new Wait());
      case GRANTED -> {
        end(owner, e, "granted");
        begin(owner, e, new Hold());
      }
      case PASSED -> end(owner, e, "passed"); // a coordination wait: no hold follows
      case TIMED_OUT -> end(owner, e, e.reason());
      case CANCELLED -> end(owner, e, "cancelled");
      case FAILED -> end(owner, e, "failed");
      case RELEASED -> end(owner, e, "released");
      case LOST -> {
        end(owner, e, "lost");
        // a condition waiter's loss ends its wait; the grant's own loss is told by its lock
        if (!e.isCoordination() && Types.LOST.isEnabled()) {
          Lost l = new Lost();
          l.lockName = e.lockName();
          l.kind = e.kind();
          l.token = e.fencingToken();
          l.reason = e.reason().toLowerCase(Locale.ROOT);
          l.heldFor = e.elapsed().toNanos();
          l.sessionId = e.sessionId();
          l.commit();
        }
      }
      case SESSION -> {
        if (Types.SESSION.isEnabled()) {
          Session s = new Session();
          s.state = String.valueOf(e.sessionState());
          s.sessionId = e.sessionId();
          s.commit();
        }
      }
      default -> {}
    }
  }

  private record Key(Object owner, long requestId) {}

  private static void begin(Object owner, LockEvent e, LockStep step) {
    if (!step.isEnabled()) {
      return;
    }
    step.lockName = e.lockName();
    step.kind = e.kind();
    step.sessionId = e.sessionId();
    step.token = e.fencingToken();
    step.begin();
    open.put(new Key(owner, e.requestId()), step);
  }

  private static void end(Object owner, LockEvent e, String outcome) {
    LockStep step = open.remove(new Key(owner, e.requestId()));
    if (step == null) {
      return;
    }
    step.end();
    step.outcome = outcome;
    step.token = e.fencingToken();
    step.sessionId = e.sessionId();
    if (step.shouldCommit()) {
      step.commit();
    }
  }
}
