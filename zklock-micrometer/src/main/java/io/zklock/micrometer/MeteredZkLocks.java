package io.zklock.micrometer;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.zklock.DistributedLock;
import io.zklock.DistributedSemaphore;
import io.zklock.LeaderElection;
import io.zklock.LockInfo;
import io.zklock.LockNode;
import io.zklock.LockOptions;
import io.zklock.ReadWriteLock;
import io.zklock.SessionListener;
import io.zklock.SessionState;
import io.zklock.ZkLocks;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link ZkLocks} that measures what is done through it, and the {@link MeterBinder} that
 * publishes the measures. zklock-core has no metrics hook: this decorator sees only the calls made
 * through it (and the locks, handles and {@link java.util.concurrent.locks.Lock} views it returns),
 * so make every lock from it.
 *
 * <pre>{@code
 * MeteredZkLocks locks = MeteredZkLocks.builder(ZkLocks.builder(connect).build())
 *     .lockNameTags(LockNameTags.allow(Set.of("nightly-report")))
 *     .build();
 * locks.bindTo(meterRegistry);          // Spring Boot binds every MeterBinder bean itself
 * }</pre>
 *
 * <h2>Meters</h2>
 *
 * Every lock meter has the tags {@code lock} (the lock's name where {@link LockNameTags} allows it,
 * else {@value LockNameTags#OTHER}) and {@code kind} ({@code mutex}, {@code read}, {@code write},
 * {@code simple}, {@code semaphore}, {@code multi}).
 *
 * <ul>
 *   <li>{@code zklock.lock.wait} (timer, tag {@code outcome}: granted, timeout, cancelled, failed):
 *       from a request to its outcome. {@code tryAcquire()} on a busy lock is a timeout of zero
 *       wait; an interrupt or a cancelled future is a cancellation.
 *   <li>{@code zklock.lock.grants}, {@code .timeouts}, {@code .cancellations}, {@code .failures}
 *       (counters): the same outcomes, counted.
 *   <li>{@code zklock.lock.hold} (timer, tag {@code end}: released, lost): from grant to release or
 *       loss.
 *   <li>{@code zklock.lock.losses} (counter, tag {@code reason}: session_expired, node_deleted,
 *       suspended, closed, lease_expired): grants lost while held. A handle's loss is counted when
 *       zklock reports it ({@code LockHandle#lost()}); a {@code Lock} view's when its owner's
 *       {@code unlock()} throws.
 *   <li>{@code zklock.lock.pending} (gauge): requests waiting now; {@code zklock.lock.held}
 *       (gauge): grants held now.
 *   <li>{@code zklock.session.state} (gauge, tag {@code state}): 1 for the session's current state,
 *       0 for the others.
 * </ul>
 *
 * Leased views ({@link DistributedLock#withLease}) of the locks made here are measured like the
 * locks themselves. Recording starts with the first {@link #bindTo}: events before it are not
 * counted. Leader elections, inspection and forced or requested releases are passed through
 * unmeasured (a forced release shows as the holder's loss).
 */
public final class MeteredZkLocks implements ZkLocks, MeterBinder {
  private final ZkLocks delegate;
  private final Meters meters;
  private final Tags commonTags;

  private MeteredZkLocks(Builder b) {
    this.delegate = b.locks;
    this.commonTags = b.tags;
    this.meters = new Meters(b.clock, b.lockNameTags, b.tags);
  }

  /** Starts building a measured view of {@code locks}. */
  public static Builder builder(ZkLocks locks) {
    return new Builder(locks);
  }

  /** A measured view of {@code locks} with the defaults: no lock name in tags. */
  public static MeteredZkLocks of(ZkLocks locks) {
    return builder(locks).build();
  }

  /** The {@link ZkLocks} this measures. */
  public ZkLocks delegate() {
    return delegate;
  }

  /**
   * Registers the gauges in {@code registry} and records every later event there too. Binding
   * several registries is allowed; binding one registry again does nothing.
   */
  @Override
  public void bindTo(MeterRegistry registry) {
    if (!meters.bind(registry)) {
      return;
    }
    Gauge.builder(Meters.PENDING, meters.pending, Number::doubleValue)
        .description("zklock requests waiting now")
        .tags(commonTags)
        .register(registry);
    Gauge.builder(Meters.HELD, meters.held, Number::doubleValue)
        .description("zklock grants held now")
        .tags(commonTags)
        .register(registry);
    for (SessionState state : SessionState.values()) {
      Gauge.builder(Meters.SESSION_STATE, delegate, l -> l.sessionState() == state ? 1 : 0)
          .description("1 for the ZooKeeper session's current state, 0 for the others")
          .tags(commonTags)
          .tag("state", state.name().toLowerCase(Locale.ROOT))
          .register(registry);
    }
  }

  @Override
  public DistributedLock mutex(String name) {
    return new MeteredLock(delegate.mutex(name), meters, "mutex");
  }

  @Override
  public DistributedLock mutex(String name, LockOptions options) {
    return new MeteredLock(delegate.mutex(name, options), meters, "mutex");
  }

  @Override
  public ReadWriteLock readWriteLock(String name) {
    return new MeteredReadWriteLock(delegate.readWriteLock(name), meters);
  }

  @Override
  public ReadWriteLock readWriteLock(String name, LockOptions options) {
    return new MeteredReadWriteLock(delegate.readWriteLock(name, options), meters);
  }

  @Override
  public DistributedLock simpleLock(String name) {
    return new MeteredLock(delegate.simpleLock(name), meters, "simple");
  }

  @Override
  public DistributedSemaphore semaphore(String name, int permits) {
    return new MeteredSemaphore(delegate.semaphore(name, permits), meters);
  }

  @Override
  public DistributedSemaphore semaphore(String name, int permits, LockOptions options) {
    return new MeteredSemaphore(delegate.semaphore(name, permits, options), meters);
  }

  /** A measured multi-lock over the parts (measured or not); its name is zklock's. */
  @Override
  public DistributedLock multiLock(DistributedLock... locks) {
    Objects.requireNonNull(locks, "locks");
    DistributedLock[] parts = new DistributedLock[locks.length];
    for (int i = 0; i < locks.length; i++) {
      parts[i] = locks[i] == null ? null : MeteredLock.unwrap(locks[i]);
    }
    return new MeteredLock(delegate.multiLock(parts), meters, "multi");
  }

  /** Not measured: the election of zklock itself. */
  @Override
  public LeaderElection leaderElection(String name, String participantId) {
    return delegate.leaderElection(name, participantId);
  }

  /** Not measured: the election of zklock itself. */
  @Override
  public LeaderElection leaderElection(String name, String participantId, LockOptions options) {
    return delegate.leaderElection(name, participantId, options);
  }

  @Override
  public Optional<LockInfo> inspect(String name) {
    return delegate.inspect(name);
  }

  @Override
  public List<LockInfo> inspectAll(String under) {
    return delegate.inspectAll(under);
  }

  /** Forced releases are not counted here; the holders' handles count their losses. */
  @Override
  public List<LockNode> forceRelease(String name) {
    return delegate.forceRelease(name);
  }

  @Override
  public boolean forceRelease(LockNode holder) {
    return delegate.forceRelease(holder);
  }

  @Override
  public List<LockNode> requestRelease(String name) {
    return delegate.requestRelease(name);
  }

  @Override
  public void holdOff(String name, java.time.Duration duration) {
    delegate.holdOff(name, duration);
  }

  @Override
  public java.time.Duration holdOffRemaining(String name) {
    return delegate.holdOffRemaining(name);
  }

  @Override
  public Duration negotiatedSessionTimeout() {
    return delegate.negotiatedSessionTimeout();
  }

  @Override
  public SessionState sessionState() {
    return delegate.sessionState();
  }

  @Override
  public long sessionId() {
    return delegate.sessionId();
  }

  @Override
  public String clientName() {
    return delegate.clientName();
  }

  @Override
  public String namespace() {
    return delegate.namespace();
  }

  @Override
  public void addSessionListener(SessionListener listener) {
    delegate.addSessionListener(listener);
  }

  @Override
  public void removeSessionListener(SessionListener listener) {
    delegate.removeSessionListener(listener);
  }

  /** Closes the measured {@link ZkLocks}. */
  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public String toString() {
    return "Metered" + delegate;
  }

  /** Builds a {@link MeteredZkLocks}. */
  public static final class Builder {
    private final ZkLocks locks;
    private LockNameTags lockNameTags = LockNameTags.none();
    private Tags tags = Tags.empty();
    private Clock clock = Clock.SYSTEM;

    private Builder(ZkLocks locks) {
      this.locks = Objects.requireNonNull(locks, "locks");
    }

    /** Which lock names get their own {@code lock} tag (default {@link LockNameTags#none()}). */
    public Builder lockNameTags(LockNameTags lockNameTags) {
      this.lockNameTags = Objects.requireNonNull(lockNameTags, "lockNameTags");
      return this;
    }

    /** Tags added to every meter, for example the client's name. */
    public Builder tags(Iterable<Tag> tags) {
      this.tags = Tags.of(tags);
      return this;
    }

    /** The clock that times waits and holds (default {@link Clock#SYSTEM}'s monotonic time). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Builds the measured view; {@link #bindTo} it to start recording. */
    public MeteredZkLocks build() {
      return new MeteredZkLocks(this);
    }
  }
}
