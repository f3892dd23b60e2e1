package io.zklock.internal.engine;

import io.zklock.LockEvent;
import io.zklock.LockEventListener;
import io.zklock.SessionState;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners of one {@code ZkLocks} and how an event reaches them, isolated as {@link
 * LockEventListener} documents: a non-blocking listener is called in place, any other through a
 * bounded queue drained by a daemon thread of its own that drops and counts on overflow; every
 * exception of a listener is caught and its first one logged. The JDK Flight Recorder events
 * ({@link FlightEvents}) are made here too, while a recording wants them. Listeners may be added
 * and removed at any time ({@link #add}, {@link #remove}); while there is none, unless such a
 * recording runs, {@link #on()} is false, and callers make no event at all. {@link #NONE} never has
 * one.
 */
public final class Events {
  private static final Logger log = LoggerFactory.getLogger(Events.class);

  /** No listener, ever: {@link #add} does nothing. */
  public static final Events NONE = new Events("none", true);

  private final String name;
  private final AtomicLong ids = new AtomicLong();
  // copied on write, under this object's monitor; read without it by every emit
  private volatile Sink[] sinks = new Sink[0];
  private int threads; // guarded by this
  private boolean closed; // guarded by this

  private Events(String name, boolean closed) {
    this.name = name;
    this.closed = closed;
  }

  /**
   * The dispatcher of {@code listeners}, more of which may be added later. Starts one thread per
   * blocking listener, named after {@code name}; {@link #close()} ends them.
   */
  public static Events of(List<LockEventListener> listeners, String name) {
    Events events = new Events(name, false);
    for (LockEventListener l : listeners) {
      events.add(l);
    }
    return events;
  }

  /**
   * Adds a listener, which hears the events made from now on (a request under way when it is added
   * is told from its next step, if it makes events at all). Does nothing once closed.
   */
  public synchronized void add(LockEventListener listener) {
    if (closed) {
      return;
    }
    Sink sink =
        listener.isNonBlocking()
            ? new Sink(listener)
            : new Queued(listener, "zklock-events-" + name + "-" + ++threads);
    Sink[] grown = Arrays.copyOf(sinks, sinks.length + 1);
    grown[sinks.length] = sink;
    sinks = grown;
  }

  /**
   * {@link #add}s a listener and tells it, before anything else, the session's state: {@code state}
   * and {@code sessionId}, read by the caller after the add. A session change told meanwhile waits
   * for this ({@link #session} holds the same monitor), so the listener never hears an older state
   * after a newer one.
   */
  public synchronized void add(
      LockEventListener listener, Supplier<SessionState> state, LongSupplier sessionId) {
    if (closed) {
      return;
    }
    add(listener);
    sinks[sinks.length - 1].accept(sessionEvent(state.get(), sessionId.getAsLong()));
  }

  /**
   * Removes the first listener added that is {@code listener}; a blocking one's thread ends once it
   * has delivered what was queued for it. Returns whether there was one.
   */
  public synchronized boolean remove(LockEventListener listener) {
    Sink[] now = sinks;
    for (int i = 0; i < now.length; i++) {
      if (now[i].listener == listener) {
        Sink[] shrunk = new Sink[now.length - 1];
        System.arraycopy(now, 0, shrunk, 0, i);
        System.arraycopy(now, i + 1, shrunk, i, now.length - i - 1);
        sinks = shrunk;
        now[i].close();
        return true;
      }
    }
    return false;
  }

  /**
   * Whether anyone listens (a listener, or a Flight Recorder recording with zklock's events
   * enabled): when false, make no event.
   */
  public boolean on() {
    return sinks.length > 0 || FlightEvents.recording();
  }

  /** A new request id, unique within this instance. */
  public long nextId() {
    return ids.incrementAndGet();
  }

  /** Hands {@code event} to every listener; never throws, never blocks. */
  public void emit(LockEvent event) {
    for (Sink s : sinks) {
      s.accept(event);
    }
    if (FlightEvents.recording()) {
      try {
        FlightEvents.accept(this, event);
      } catch (RuntimeException e) {
        log.debug("flight recorder event of {} failed", event.type(), e);
      }
    }
  }

  /** Tells a session change. */
  public synchronized void session(SessionState state, long sessionId) {
    if (on()) {
      emit(sessionEvent(state, sessionId));
    }
  }

  private static LockEvent sessionEvent(SessionState state, long sessionId) {
    return new LockEvent(
        LockEvent.Type.SESSION, "", "", 0L, sessionId, 0L, -1, Duration.ZERO, "", null, state);
  }

  /** Events dropped so far because a blocking listener's queue was full. */
  public long dropped() {
    long d = 0;
    for (Sink s : sinks) {
      d += s.dropped();
    }
    return d;
  }

  /**
   * Ends the listeners' threads once they have delivered what was queued before. Idempotent. A
   * listener that never returns keeps its (daemon) thread.
   */
  public synchronized void close() {
    closed = true;
    for (Sink s : sinks) {
      s.close();
    }
  }

  /** A listener called in place. */
  private static class Sink {
    final LockEventListener listener;
    private final AtomicBoolean warned = new AtomicBoolean();

    Sink(LockEventListener listener) {
      this.listener = listener;
    }

    void accept(LockEvent event) {
      call(event);
    }

    final void call(LockEvent event) {
      try {
        listener.onEvent(event);
      } catch (RuntimeException | Error e) {
        if (e instanceof VirtualMachineError vme) {
          throw vme;
        }
        if (warned.compareAndSet(false, true)) {
          log.warn(
              "lock event listener {} threw on {}; ignored (later failures are logged at debug)",
              listener,
              event.type(),
              e);
        } else {
          log.debug("lock event listener {} threw on {}", listener, event.type(), e);
        }
      }
    }

    long dropped() {
      return 0;
    }

    void close() {}
  }

  /** A listener called on a thread of its own, through a bounded queue. */
  private static final class Queued extends Sink implements Runnable {
    private static final LockEvent STOP =
        new LockEvent(
            LockEvent.Type.SESSION, "", "", 0L, 0L, 0L, -1, Duration.ZERO, "", null, null);

    private final BlockingQueue<LockEvent> queue =
        new ArrayBlockingQueue<>(LockEventListener.QUEUE_CAPACITY);
    private final AtomicLong dropped = new AtomicLong();
    private volatile boolean stopping;
    private final Thread thread;

    Queued(LockEventListener listener, String threadName) {
      super(listener);
      this.thread = new Thread(this, threadName);
      thread.setDaemon(true);
      thread.start();
    }

    @Override
    void accept(LockEvent event) {
      if (!queue.offer(event)) {
        if (dropped.getAndIncrement() == 0) {
          log.warn(
              "lock event listener {} is too slow: its queue of {} events is full; dropping"
                  + " events (counted by ZkLocks.droppedEvents())",
              listener,
              LockEventListener.QUEUE_CAPACITY);
        }
      }
    }

    @Override
    public void run() {
      try {
        while (true) {
          LockEvent e = stopping ? queue.poll() : queue.take();
          if (e == null || e == STOP) {
            return; // closed, and every event before the close was delivered
          }
          call(e);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    long dropped() {
      return dropped.get();
    }

    @Override
    void close() {
      stopping = true; // seen after the listener's current event if the queue is full
      queue.offer(STOP);
    }
  }
}
