package io.zklock;

import io.zklock.internal.Args;
import io.zklock.internal.SessionConfig;
import io.zklock.internal.ZkLocksImpl;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The entry point: one ZooKeeper session, shared by every lock made from it.
 *
 * <pre>{@code
 * try (ZkLocks locks = ZkLocks.builder("zk1:2181,zk2:2181,zk3:2181").build()) {
 *   DistributedLock lock = locks.mutex("orders/42");
 *   try (LockHandle held = lock.acquire()) {
 *     ledger.write(entry, held.fencingToken());
 *   }
 * }
 * }</pre>
 *
 * <p>The session moves through {@link SessionState}s; after an expiry a new session is established
 * automatically (locks held by the old one are lost and their holders told, waiting requests queue
 * again). Instances are thread-safe. {@link #close()} releases everything and ends the session.
 */
public interface ZkLocks extends AutoCloseable {

  /**
   * Starts building a {@link ZkLocks}.
   *
   * @param connectString ZooKeeper's connect string, {@code host:port[,host:port...][/chroot]}
   * @throws IllegalArgumentException if the connect string is null, empty or malformed
   */
  static Builder builder(String connectString) {
    return new Builder(connectString);
  }

  /**
   * A fair, herd-free mutex: requests are granted in arrival order, each waiter is woken only by
   * its predecessor. One lock node per request.
   *
   * @param name the lock's name, a relative path such as {@code "orders/42"}
   * @throws IllegalArgumentException if the name is empty, has empty, {@code .} or {@code ..}
   *     segments, control characters, starts with the reserved {@code zookeeper}, or is too long
   */
  DistributedLock mutex(String name);

  /**
   * A mutex with options: {@code mutex(name, LockOptions.cohort())} makes a cohort mutex, whose
   * requests from this {@code ZkLocks} share one lock node and hand the lock to each other in
   * memory, giving the node back to other clients after a bound (see {@link LockOptions}). Every
   * call with the same name and options returns a lock backed by the same cohort.
   *
   * <p>This default supports {@link LockOptions#defaults()} only (it is {@link #mutex(String)});
   * the instances made by {@link #builder} support every option.
   *
   * @param name the lock's name, as for {@link #mutex(String)}
   * @param options the options; every client of a name should use cohort mode or none (their
   *     fencing tokens are not comparable, see {@link LockOptions})
   * @throws IllegalArgumentException if the name is not valid, or this {@code ZkLocks} already made
   *     a cohort lock of this name with other options
   * @throws UnsupportedOperationException if this implementation does not support the options
   */
  default DistributedLock mutex(String name, LockOptions options) {
    if (!options.isCohort()) {
      return mutex(name);
    }
    throw new UnsupportedOperationException(
        getClass().getName() + " does not support " + options + " for " + name);
  }

  /** A fair read-write lock; see {@link ReadWriteLock}. */
  ReadWriteLock readWriteLock(String name);

  /**
   * The simplest lock (seeds 000 §2.1 and 001): one EPHEMERAL node, {@code
   * <namespace>/<name>/x-lock}, owned by whoever created it; its data names the owner (client,
   * session, a random attempt id), so that a create or delete whose reply was lost to a connection
   * loss is checked by reading the node back. {@code tryAcquire()} costs a single create and leaves
   * nothing behind when busy: good for "run at most once" jobs. The fencing token is the node's
   * creation zxid.
   *
   * <p>Blocking waiters watch the node and all try to create it again when it goes: the lock is not
   * fair (a newcomer may win over a long waiter) and every waiter wakes on each release (a herd).
   * Prefer {@link #mutex} when several processes wait.
   *
   * @param name the lock's name, as for {@link #mutex}
   * @throws IllegalArgumentException if the name is not valid
   */
  DistributedLock simpleLock(String name);

  /**
   * A counting semaphore with {@code permits} leases; see {@link DistributedSemaphore}.
   *
   * @param name the semaphore's name, as for {@link #mutex}
   * @param permits how many leases may be held at once; every client of the semaphore should give
   *     the same number (see {@link DistributedSemaphore} for what happens when they do not)
   * @throws IllegalArgumentException if the name is not valid or {@code permits < 1}
   */
  DistributedSemaphore semaphore(String name, int permits);

  /**
   * A lock over several locks, all or nothing. The parts are acquired one after the other in one
   * canonical order (by lock directory, then kind, whatever order they are given in), so
   * multi-locks over overlapping sets cannot deadlock; {@code tryAcquire(timeout)} has one deadline
   * for the whole set; whatever was acquired is released if a later part fails, times out, is
   * interrupted or cancelled. The handle's {@link LockHandle#fencingToken()} is the largest of the
   * parts' tokens, its {@link LockHandle#path()} the first part's, and its {@link
   * LockHandle#lost()} completes when any part is lost (the other parts stay held until the handle
   * is released). Nested multi-locks are flattened.
   *
   * @param locks the parts: locks made by a {@link ZkLocks} (mutex, simple lock, either side of a
   *     read-write lock, multi-lock)
   * @throws IllegalArgumentException if no lock is given, a part is null, a part is not made by
   *     zklock, or two parts share a lock directory (for example both sides of one read-write lock,
   *     which would wait for each other)
   */
  DistributedLock multiLock(DistributedLock... locks);

  /**
   * Leader election among participants of the same name; call {@link LeaderElection#start()}.
   *
   * @param name the election's name, as for {@link #mutex}
   * @param participantId this participant's id, shown to every participant by {@link
   *     LeaderElection#leader()}
   * @throws IllegalArgumentException if the name is not valid, or the id is blank, longer than 256
   *     characters or has control characters
   */
  LeaderElection leaderElection(String name, String participantId);

  /** The session's current state. */
  SessionState sessionState();

  /** The current ZooKeeper session id (changes after an expiry), or 0 when closed. */
  long sessionId();

  /**
   * The session timeout the ensemble granted, which may differ from the one asked for with {@link
   * Builder#sessionTimeout}: servers clamp it to their {@code minSessionTimeout..maxSessionTimeout}
   * (by default 2 to 20 ticks), and zklock logs a warning naming both values when they differ. This
   * is the timeout that counts: a holder cut off from the ensemble is told its locks are lost a
   * margin before this much time has passed since the ensemble last answered it (see
   * docs/guarantees.md). The value of the current session, or of the last one once closed.
   */
  Duration negotiatedSessionTimeout();

  /** The name this client gives in its lock nodes' data. */
  String clientName();

  /** The namespace under which every lock lives, for example {@code /zklock}. */
  String namespace();

  /** Adds a session listener. */
  void addSessionListener(SessionListener listener);

  /** Removes a session listener. */
  void removeSessionListener(SessionListener listener);

  /**
   * Releases every lock this instance holds, withdraws every waiting request (they fail with {@link
   * ZkLockException}) and ends the session. Idempotent.
   */
  @Override
  void close();

  /** Builds a {@link ZkLocks}. Every setting but the connect string has a sensible default. */
  final class Builder {
    private final String connectString;
    private String namespace = "/zklock";
    private Duration sessionTimeout = Duration.ofSeconds(15);
    private Duration connectTimeout = Duration.ofSeconds(10);
    private String clientName;
    private final List<SessionConfig.Auth> auth = new ArrayList<>();
    private NodeAcl acl;
    private TlsConfig tls;
    private SuspensionPolicy suspensionPolicy = SuspensionPolicy.WAIT_FOR_EXPIRY;

    Builder(String connectString) {
      this.connectString = Args.connectString(connectString);
    }

    /**
     * The parent znode of every lock, an absolute ZooKeeper path (default {@code /zklock}). It is
     * created on first use.
     */
    public Builder namespace(String namespace) {
      this.namespace = Args.namespace(namespace);
      return this;
    }

    /**
     * The session timeout asked of the ensemble (default 15 s); the ensemble may clamp it to
     * between 2 and 20 ticks (see {@link ZkLocks#negotiatedSessionTimeout()}). A holder that cannot
     * reach the ensemble for this long loses its locks, and is told a margin before.
     */
    public Builder sessionTimeout(Duration timeout) {
      this.sessionTimeout = Args.positiveMillis(timeout, "sessionTimeout");
      return this;
    }

    /** How long {@link #build()} waits for the first connection (default 10 s). */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = Args.positiveMillis(timeout, "connectTimeout");
      return this;
    }

    /** The name shown by {@code zklock ls} for this client's locks (default {@code host:pid}). */
    public Builder clientName(String name) {
      this.clientName = Args.clientName(name);
      return this;
    }

    /**
     * Adds authentication, as ZooKeeper's {@code addAuthInfo}: for example {@code
     * authorization("digest", "user:password".getBytes(UTF_8))}.
     */
    public Builder authorization(String scheme, byte[] credentials) {
      Objects.requireNonNull(scheme, "scheme");
      Objects.requireNonNull(credentials, "credentials");
      if (scheme.isBlank()) {
        throw new IllegalArgumentException("authorization scheme must not be blank");
      }
      auth.add(new SessionConfig.Auth(scheme, credentials.clone()));
      return this;
    }

    /** Shorthand for {@code authorization("digest", (user + ":" + password).getBytes(UTF_8))}. */
    public Builder digest(String user, String password) {
      Objects.requireNonNull(user, "user");
      Objects.requireNonNull(password, "password");
      if (user.isEmpty() || user.indexOf(':') >= 0) {
        throw new IllegalArgumentException(
            "digest user must be non-empty without ':': '" + user + "'");
      }
      return authorization("digest", (user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The ACL of the znodes zklock creates. Default: {@link NodeAcl#creatorAllWorldRead()} when
     * authenticated, {@link NodeAcl#open()} otherwise.
     */
    public Builder acl(NodeAcl acl) {
      this.acl = Objects.requireNonNull(acl, "acl");
      return this;
    }

    /** Connects with TLS (the servers' secure client port). */
    public Builder tls(TlsConfig tls) {
      this.tls = Objects.requireNonNull(tls, "tls");
      return this;
    }

    /**
     * What held locks do while the connection is suspended; default {@link
     * SuspensionPolicy#WAIT_FOR_EXPIRY}.
     */
    public Builder suspensionPolicy(SuspensionPolicy policy) {
      this.suspensionPolicy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Connects, waiting up to the connect timeout. If no server answered by then, it probes each
     * server once more by hand to name the cause (resolving its name, opening a socket, making the
     * TLS handshake), which takes up to the connect timeout again, and at most 2 s, per server.
     *
     * @throws ZkLockException naming the connect string and the cause if no session could be
     *     established (unknown host, connection refused, TLS key or trust store unreadable, TLS
     *     handshake failed, a plain client on a TLS port, failed authentication, missing chroot),
     *     with the underlying exception as its cause where there is one
     */
    public ZkLocks build() {
      NodeAcl effectiveAcl = acl;
      if (effectiveAcl == null) {
        effectiveAcl = auth.isEmpty() ? NodeAcl.open() : NodeAcl.creatorAllWorldRead();
      }
      if (effectiveAcl.needsAuthentication() && auth.isEmpty()) {
        throw new IllegalArgumentException(
            "ACL " + effectiveAcl + " names the creator: it needs authorization(...) too");
      }
      String name = clientName != null ? clientName : defaultClientName();
      SessionConfig config =
          new SessionConfig(
              connectString,
              namespace,
              sessionTimeout,
              connectTimeout,
              name,
              List.copyOf(auth),
              effectiveAcl,
              tls,
              suspensionPolicy);
      return ZkLocksImpl.connect(config);
    }

    private static String defaultClientName() {
      String host;
      try {
        host = InetAddress.getLocalHost().getHostName();
      } catch (Exception e) {
        host = "localhost";
      }
      return host + ":" + ProcessHandle.current().pid();
    }
  }
}
