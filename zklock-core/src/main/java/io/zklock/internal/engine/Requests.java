package io.zklock.internal.engine;

import io.zklock.LocalRequest;
import io.zklock.internal.rules.Clock;
import io.zklock.internal.zk.Session;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The requests of one {@link io.zklock.ZkLocks} that are pending or held: each hears the session's
 * news (suspended, expired, closed) through here, and its holds that last get their own-node watch
 * through here ({@link #ownWatchLater}).
 */
public final class Requests {
  /**
   * How long after {@link LockRequest#OWN_WATCH_DELAY_MILLIS} a hold's own-node watch may be set at
   * the latest: the holds of one instance share one timer, which wakes at most this often.
   */
  static final long OWN_WATCH_SLACK_MILLIS = 25;

  /**
   * The requests pending or held, in the order they were added: the session's news reaches them in
   * that order (an expiry queues them again oldest first), the same on every run.
   */
  private final ConcurrentSkipListMap<Long, LockRequest> active = new ConcurrentSkipListMap<>();

  private final Map<LockRequest, Long> order = new ConcurrentHashMap<>();
  private final AtomicLong added = new AtomicLong();
  private final Later ownWatches;

  /** {@code scheduler} and {@code clock}: where and by which clock the own-node watches wait. */
  public Requests(ScheduledExecutorService scheduler, Clock clock) {
    this.ownWatches =
        new Later(
            scheduler,
            clock,
            TimeUnit.MILLISECONDS.toNanos(LockRequest.OWN_WATCH_DELAY_MILLIS),
            TimeUnit.MILLISECONDS.toNanos(OWN_WATCH_SLACK_MILLIS));
  }

  /**
   * Runs {@code watch} between {@link LockRequest#OWN_WATCH_DELAY_MILLIS} and that plus {@link
   * #OWN_WATCH_SLACK_MILLIS} from now, unless the returned entry is cancelled first.
   */
  Later.Entry ownWatchLater(Runnable watch) {
    return ownWatches.add(watch);
  }

  void add(LockRequest r) {
    long k = added.incrementAndGet();
    if (order.putIfAbsent(r, k) == null) {
      active.put(k, r);
    }
  }

  void remove(LockRequest r) {
    Long k = order.remove(r);
    if (k != null) {
      active.remove(k);
    }
  }

  /** Number of requests pending or held, for tests and metrics. */
  int size() {
    return active.size();
  }

  /**
   * What {@link io.zklock.ZkLocks#localLocks()} shows: every request pending or held,
   * longest-waiting first. Each request is read under its own monitor, one after the other.
   */
  public List<LocalRequest> snapshot(Clock clock) {
    long now = clock.nanoTime();
    List<LockRequest> sorted = new ArrayList<>(active.values());
    sorted.sort(Comparator.comparingLong(r -> r.startNanos() - now));
    List<LocalRequest> out = new ArrayList<>(sorted.size());
    for (LockRequest r : sorted) {
      LocalRequest s = r.snapshot(now);
      if (s != null) {
        out.add(s);
      }
    }
    return out;
  }

  /** The connection dropped; the session may be alive. */
  public void suspended() {
    active.values().forEach(LockRequest::sessionSuspended);
  }

  /** Session {@code sessionId} ended, and every ephemeral node it made with it. */
  public void expired(long sessionId) {
    active.values().forEach(r -> r.sessionExpired(sessionId));
  }

  /** The instance was closed. */
  public void closed() {
    active.values().forEach(LockRequest::sessionClosed);
  }

  /** The session's news, passed on to every active request: the observer a session is given. */
  public Session.Observer sessionObserver() {
    return new Session.Observer() {
      @Override
      public void connected(Session.Conn conn) {}

      @Override
      public void suspended(Session.Conn conn) {
        Requests.this.suspended();
      }

      @Override
      public void expired(Session.Conn expired) {
        Requests.this.expired(expired.sessionId());
      }

      @Override
      public void closed() {
        Requests.this.closed();
      }
    };
  }
}
