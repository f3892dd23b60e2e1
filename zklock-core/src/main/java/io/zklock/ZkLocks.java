package io.zklock;

import io.zklock.internal.ZkLocksFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

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
   *     segments, characters ZooKeeper refuses in a path (control characters, U+D800 to U+F8FF and
   *     so any character beyond U+FFFF such as an emoji, U+FFF0 to U+FFFF), or is too long; or if,
   *     under the root namespace {@code "/"}, it would lie in ZooKeeper's reserved {@code
   *     /zookeeper}
   */
  DistributedLock mutex(String name);

  /**
   * A mutex with options: {@code mutex(name, LockOptions.cohort())} makes a cohort mutex, whose
   * requests from this {@code ZkLocks} share one lock node and hand the lock to each other in
   * memory, giving the node back to other clients after a bound (see {@link LockOptions}). Every
   * call with the same name and options returns a lock backed by the same cohort.
   *
   * @param name the lock's name, as for {@link #mutex(String)}
   * @param options the options; every client of a name should use cohort mode or none (their
   *     fencing tokens are not comparable, see {@link LockOptions})
   * @throws IllegalArgumentException if the name is not valid, or this {@code ZkLocks} already made
   *     a cohort lock of this name with other options
   */
  DistributedLock mutex(String name, LockOptions options);

  /** A fair read-write lock; see {@link ReadWriteLock}. */
  ReadWriteLock readWriteLock(String name);

  /**
   * A read-write lock with options: {@code readWriteLock(name, LockOptions.cohort())} makes a
   * cohort read-write lock. Its write requests from this {@code ZkLocks} share one write node and
   * hand the write lock to each other in memory, as a cohort {@link #mutex(String, LockOptions)
   * mutex} does; its read requests from this {@code ZkLocks} share one read node: any number of
   * them hold at once on it, and it is deleted when the last of them releases. The same bounds keep
   * other clients from starving: the write node is given back after K handoffs or T of holding when
   * anyone waits behind it; once a writer (of another client, or this one's own write side) is seen
   * waiting behind the read node, and once the read node has had K local grants after its first or
   * was granted T ago, new local readers wait, and queue with a new read node behind that writer
   * when the last holder releases. Fencing tokens are cohort tokens, {@code (czxid << 16) | k};
   * readers that hold at once may share a node's czxid (tokens fence writers). {@link
   * ReadWriteLock#downgrade} is not supported (it throws {@link UnsupportedOperationException}),
   * and neither is a downgrade through {@link ReadWriteLock#asReadWriteLock()}. Every call with the
   * same name and options returns the same lock.
   *
   * @param name the lock's name, as for {@link #mutex(String)}
   * @param options the options; every client of a name should use cohort mode or none
   * @throws IllegalArgumentException if the name is not valid, this {@code ZkLocks} already made a
   *     cohort read-write lock of this name with other options, or the options set a {@link
   *     LockOptions#lockDelay(java.time.Duration) lock-delay} (the plain mutex's only)
   */
  ReadWriteLock readWriteLock(String name, LockOptions options);

  /**
   * The simplest lock: one EPHEMERAL node, {@code <namespace>/<name>/x-lock}, owned by whoever
   * created it; its data names the owner (client, session, a random attempt id), so that a create
   * or delete whose reply was lost to a connection loss is checked by reading the node back. {@code
   * tryAcquire()} costs a single create and leaves nothing behind when busy: good for "run at most
   * once" jobs. The fencing token is the node's creation zxid.
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
   * @param permits how many leases may be held at once; every client of the semaphore must give the
   *     same number (the first stores it; requests with another are refused, see {@link
   *     DistributedSemaphore})
   * @throws IllegalArgumentException if the name is not valid or {@code permits < 1}
   */
  DistributedSemaphore semaphore(String name, int permits);

  /**
   * A count-down latch shared by every process that uses {@code name}; see {@link
   * DistributedCountDownLatch}.
   *
   * @param name the latch's name, as for {@link #mutex}
   * @param count how many count-downs open the latch; every client of the latch must give the same
   *     number (the first stores it; a call with another is refused)
   * @throws IllegalArgumentException if the name is not valid or {@code count < 1}
   */
  DistributedCountDownLatch countDownLatch(String name, int count);

  /**
   * A barrier that one process sets and removes, and others wait on; see {@link
   * DistributedBarrier}.
   *
   * @param name the barrier's name, as for {@link #mutex}
   * @throws IllegalArgumentException if the name is not valid
   */
  DistributedBarrier barrier(String name);

  /**
   * A double barrier for a group of {@code members}; see {@link DistributedDoubleBarrier}. Each
   * call makes one member.
   *
   * @param name the barrier's name, as for {@link #mutex}
   * @param members the group's size; every client must give the same number (the first stores it)
   * @throws IllegalArgumentException if the name is not valid or {@code members < 1}
   */
  DistributedDoubleBarrier doubleBarrier(String name, int members);

  /**
   * A semaphore with options: {@code semaphore(name, permits, LockOptions.curatorCompatible())}
   * shares its leases with Apache Curator's {@code InterProcessSemaphoreV2} on the path {@code
   * name} (see {@link LockOptions}): its requests are admitted one at a time by a
   * Curator-compatible mutex in {@code <name>/locks}, as Curator's are, and its leases are named
   * {@code _c_<uuid>-lease-<sequence>} in {@code <name>/leases}. At most {@code permits} leases are
   * held at once across both libraries when every client gives the same count (Curator does not
   * store it; zklock's clients still check it among themselves). Cohort options do not apply.
   *
   * <p>{@code semaphore(name, permits, LockOptions.kazooCompatible())} shares its permits with
   * Python kazoo's {@code Semaphore} on the path {@code name}, in kazoo's layout: requests are
   * admitted one at a time, in arrival order across both libraries, by a kazoo-compatible mutex at
   * the sibling path {@code <name>-__lock__}; the admitted request creates its lease, an
   * unsequenced {@code <name>/<32 hex>} node, while fewer than {@code permits} children are there,
   * and otherwise alone watches them. The count is the path's data as plain text ({@code "3"}), as
   * kazoo stores it; another count is refused, as kazoo refuses it.
   *
   * @throws IllegalArgumentException as {@link #semaphore(String, int)}, for cohort options, or for
   *     a {@link LockOptions#lockDelay(java.time.Duration) lock-delay} (the plain mutex's only)
   */
  DistributedSemaphore semaphore(String name, int permits, LockOptions options);

  /**
   * A lock over several locks, all or nothing. The parts are acquired one after the other in one
   * canonical order (by lock directory, then kind, whatever order they are given in), so
   * multi-locks over overlapping sets cannot deadlock; {@code tryAcquire(timeout)} has one deadline
   * for the whole set; whatever was acquired is released if a later part fails, times out, is
   * interrupted or cancelled (on a failure or timeout, before the call returns: right after it,
   * another session finds those parts free; a part lost while later ones are awaited makes the
   * multi-lock give everything back and start again). The handle's {@link
   * LockHandle#fencingToken()} is the largest of the parts' tokens, its {@link LockHandle#path()}
   * the first part's, and its {@link LockHandle#lost()} completes when any part is lost (the other
   * parts stay held until the handle is released). Nested multi-locks are flattened.
   *
   * @param locks the parts: locks made by a {@link ZkLocks} (mutex, simple lock, either side of a
   *     read-write lock, multi-lock)
   * @throws IllegalArgumentException if no lock is given, a part is null, a part is not made by
   *     zklock, or two parts share a lock directory (for example both sides of one read-write lock,
   *     which would wait for each other)
   */
  DistributedLock multiLock(DistributedLock... locks);

  /**
   * Leader election among participants of the same name; call {@link LeaderElection#start()} to
   * take part, or only {@link LeaderElection#addObserver} to follow who leads without taking part.
   *
   * @param name the election's name, as for {@link #mutex}
   * @param participantId this participant's id, shown to every participant by {@link
   *     LeaderElection#leader()}
   * @throws IllegalArgumentException if the name is not valid, or the id is blank, longer than 256
   *     characters or has control characters
   */
  LeaderElection leaderElection(String name, String participantId);

  /**
   * Leader election with options: {@code leaderElection(name, id, LockOptions.curatorCompatible())}
   * takes part in the same election as Apache Curator's {@code LeaderLatch} on the path {@code
   * name} (see {@link LockOptions}): its node is named as LeaderLatch names its own ({@code
   * _c_<uuid>-latch-<sequence>}) and its data is the participant id alone, as LeaderLatch writes
   * it, so that each library's clients see the other's leader and leadership passes between them in
   * queue order. With {@link LockOptions#kazooCompatible()} it takes part in the same election as
   * Python kazoo's {@code Election} on the path (a kazoo {@code Lock} whose head leads): its node
   * is named as kazoo's ({@code <id>__lock__<sequence>}), and kazoo's participants are named by the
   * identifier given to kazoo. Cohort options do not apply to an election.
   *
   * @throws IllegalArgumentException as {@link #leaderElection(String, String)}, for cohort
   *     options, or for a {@link LockOptions#lockDelay(java.time.Duration) lock-delay} (the plain
   *     mutex's only)
   */
  LeaderElection leaderElection(String name, String participantId, LockOptions options);

  /**
   * Who holds the lock {@code name} and who waits, in queue order, with what each owner wrote into
   * its node (client name, host, pid, session, since when, fencing token, {@link
   * Builder#ownerData(String) owner data}): for every kind of lock made by zklock (mutex, either
   * side of a read-write lock, simple lock, semaphore, leader election). Holders and waiters are
   * decided by the same ordering rules the lock's own clients follow, so a semaphore with 3 permits
   * and 5 requests shows 3 holders and 2 waiters.
   *
   * <p>This reads the lock directory and its nodes (pipelined: a few round trips, whatever the
   * queue's length) on the calling thread. It is a snapshot, not atomic: a grant or release in
   * between may show in one node and not another. It changes nothing and sets no watch.
   *
   * @param name the lock's name, as given to {@link #mutex} and the others (for a semaphore, its
   *     name; for an election, its name)
   * @return the lock, or empty if nobody holds or waits (also when no such lock exists)
   * @throws IllegalArgumentException if the name is not valid
   * @throws ZkLockException if this instance is closed, no connection is made within the connect
   *     timeout, the reads are not authorized, or the calling thread is interrupted (its interrupt
   *     status is then set)
   */
  Optional<LockInfo> inspect(String name);

  /**
   * Every lock at or below {@code under} (relative to the namespace; {@code ""} for all) that is
   * held or waited for now, sorted by name, each as {@link #inspect} returns it. This is what
   * {@code zklock ls} shows. It walks the namespace's tree: its cost grows with the number of lock
   * directories.
   *
   * @param under a lock name or a prefix of lock names such as {@code "orders"}, or {@code ""}
   * @throws IllegalArgumentException if {@code under} is neither empty nor a valid name
   * @throws ZkLockException as {@link #inspect}
   */
  List<LockInfo> inspectAll(String under);

  /**
   * Forcibly releases the lock {@code name}: deletes the node of every current holder (the one
   * holder of an exclusive lock, every holding reader, every held semaphore lease, the election's
   * leader), as an operator would by hand. Each holder's process hears of it through the watch on
   * its own node and completes its {@link LockHandle#lost()} with {@link
   * LockLostException.Reason#NODE_DELETED} (an election's leader hears {@code revoked} and joins
   * again); the next waiters are granted as after a release.
   *
   * <p>This breaks the lock's promise to its holder, which may still be in its critical section
   * until it hears of the deletion: use it on holders that are stuck, with fenced resources. The
   * cooperative form is {@link #requestRelease}. Another library's lock node ({@link
   * LockNode.Kind#FOREIGN}, or a kazoo client's in a kazoo-compatible queue) is left alone: its
   * client would not hear of the deletion.
   *
   * @param name the lock's name
   * @return the holders whose nodes this call deleted (a holder that released meanwhile is not
   *     among them); empty if the lock was free
   * @throws IllegalArgumentException if the name is not valid
   * @throws ZkLockException as {@link #inspect}, or if this client may not delete the nodes (ACL)
   */
  List<LockNode> forceRelease(String name);

  /**
   * Forcibly releases one holder, found by {@link #inspect}: deletes its node if it is still there.
   * For the simple lock, whose node name every holder reuses, the node is deleted only if it is
   * still this holder's (same fencing token). Another library's node ({@link
   * LockNode.Kind#FOREIGN}, or a kazoo client's in a kazoo-compatible queue, whose client name is
   * {@code "(kazoo)"}) is left alone and this returns false: its client would not hear of it.
   *
   * @param holder a node returned by {@link #inspect} or {@link #inspectAll} of this namespace
   * @return whether this call deleted it
   * @throws IllegalArgumentException if the node is not under this instance's namespace
   * @throws ZkLockException as {@link #forceRelease(String)}
   */
  boolean forceRelease(LockNode holder);

  /**
   * Asks every current holder of the lock {@code name} to release it, without taking it away: each
   * holder's {@link LockHandle#onReleaseRequested(Runnable)} actions run, in its own process, as
   * soon as it hears of the request (usually within a round trip; at most about 75 ms plus a round
   * trip after its grant). Whether and when to release is up to the holder; a holder that ignores
   * the request keeps the lock. The request is marked in the holder's node (its data gains a field
   * naming this client), so {@link #inspect} shows it, and it lasts as long as that node. Another
   * library's lock node ({@link LockNode.Kind#FOREIGN}) is not asked.
   *
   * @param name the lock's name
   * @return the holders asked (including any asked before by someone else); empty if the lock was
   *     free
   * @throws IllegalArgumentException if the name is not valid
   * @throws ZkLockException as {@link #inspect}, or if this client may not write the holders' nodes
   *     (ACL)
   */
  List<LockNode> requestRelease(String name);

  /**
   * Keeps the lock {@code name} closed for {@code duration} from now, as the ensemble's clock
   * counts, whatever happens to this client: a mark that outlives its session, its process and a
   * {@link #close()}. It is for a holder that must keep others out for a minimum time even if it
   * ends early or dies, as ShedLock's {@code lockAtLeastFor} asks. The lock itself is not changed:
   * others ask {@link #holdOffRemaining} before they use a grant, and give it back while the mark
   * is in force.
   *
   * <p>The mark is a persistent znode in the lock's directory, {@code hold-off}, whose data is the
   * duration: its creation time ({@code ctime}), stamped by the ZooKeeper leader that applied the
   * write, is the start. A later call replaces the mark (a new start and duration) in one
   * transaction. The mark stays until a {@link #holdOffRemaining} finds it run out and deletes it.
   *
   * <p>What it rests on: only the clocks of the ZooKeeper servers, never a client's. The start and
   * the "now" of {@link #holdOffRemaining} are both stamped by the leader; if the leader changes
   * between the two, the skew between the two servers' clocks shortens or lengthens the hold-off by
   * as much. It cannot promise anything to a reader that does not ask.
   *
   * @param duration how long the lock stays closed from now; at least 1 ms, at most about 24 days
   * @throws IllegalArgumentException if the name or the duration is invalid
   * @throws ZkLockException if the {@link ZkLocks} is closed, no server answers within the connect
   *     timeout, or the server refuses the write (ACL)
   */
  void holdOff(String name, Duration duration);

  /**
   * How long the lock {@code name} stays closed by its {@link #holdOff} mark, as the ensemble's
   * clock counts: the mark's start (its {@code ctime}) plus its duration, less the time of a write
   * made now to the mark (its {@code mtime}; the write changes neither the start nor the duration).
   * One round trip without a mark, two with one. A mark that has run out is deleted.
   *
   * @return the time left, or {@link Duration#ZERO} if the lock has no mark in force
   * @throws IllegalArgumentException if the name is invalid
   * @throws ZkLockException if the {@link ZkLocks} is closed, no server answers within the connect
   *     timeout, or the server refuses the write (ACL)
   */
  Duration holdOffRemaining(String name);

  /**
   * Watches the locks at or below {@code under} (relative to the namespace; empty for all) and
   * tells {@code onChange} which lock changed: its name, as {@link #inspect} takes it, after a
   * request queued, was granted, released, lost or asked to release. A {@code null} name means
   * "anything may have changed": the first time the watch is set, and after a reconnection or a new
   * session, when changes may have gone unseen; read everything again then. A name may be told for
   * a directory that holds no lock any more, or several times for one change.
   *
   * <p>It creates nothing: the namespace need not exist (its creation is told). On a ZooKeeper 3.6+
   * server it costs one persistent recursive watch; a 3.5 server gets a child watch per directory
   * instead (see {@link LockWatch.Mode#PER_DIRECTORY}). A 3.5 server is recognised by its answer to
   * the 3.6 request: it closes the connection. So, on a 3.5 server, the first watch of an instance
   * costs one dropped connection (the session survives, suspended for a moment, and its locks with
   * it unless the {@link SuspensionPolicy} treats suspension as loss): watch from an instance that
   * holds no locks, as {@code zklock ui} does. {@code onChange} runs on the library's threads,
   * never on ZooKeeper's event thread, and must not block for long; it may run on several threads
   * at once.
   *
   * @param under a lock name or a prefix of lock names, or empty for the whole namespace
   * @param onChange told the name of each changed lock, or {@code null} for all
   * @return the watch; {@link LockWatch#close()} removes it. {@link #close()} removes it too
   * @throws IllegalArgumentException if {@code under} is not empty and not a valid lock name
   */
  LockWatch watchLocks(String under, Consumer<String> onChange);

  /**
   * What this instance holds and waits for, with its session's state: the application's own view
   * (the {@code /actuator/zklock} endpoint of the Spring Boot starters shows it). Read from memory,
   * without a request to ZooKeeper; it never blocks and never fails, also after {@link #close()}
   * (then the list is empty). {@link #inspect} and {@link #inspectAll} show every client's view, as
   * the ensemble has it.
   *
   * @return a snapshot, its requests longest-waiting first
   */
  LocalLocks localLocks();

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

  /**
   * How many lock events were dropped because a blocking {@link LockEventListener}'s queue was full
   * (see {@link LockEventListener}); 0 when no listener is slow, or none is added.
   */
  long droppedEvents();

  /**
   * Adds a lock event listener to this built instance, as {@link Builder#eventListener} does before
   * the build (for instruments that find the instance already built: a framework's metrics of every
   * client it is given). It first hears the session's current state (a {@link
   * LockEvent.Type#SESSION} event), then every step that happens from now on: a request under way
   * is told from its next step, if it was made while someone listened. Isolated as {@link
   * LockEventListener} says. On a closed instance it does nothing.
   *
   * @throws NullPointerException if {@code listener} is null
   */
  void addEventListener(LockEventListener listener);

  /**
   * Removes a lock event listener added with {@link #addEventListener} or {@link
   * Builder#eventListener} (the first one added, if it was added twice); a blocking listener's
   * thread ends once it has heard what was already queued for it. Does nothing if it is not there.
   */
  void removeEventListener(LockEventListener listener);

  /** Adds a session listener. */
  void addSessionListener(SessionListener listener);

  /** Removes a session listener. */
  void removeSessionListener(SessionListener listener);

  /**
   * Stops this instance without closing it: as {@link #close()}, it releases every lock it holds
   * (their handles are lost, reason {@link LockLostException.Reason#CLOSED}), withdraws every
   * waiting request (they fail with {@link ZkLockException}) and ends the session at once, so that
   * other clients get the locks without waiting for a session timeout; but the instance, its lock
   * objects and its listeners stay, and {@link #start()} opens a new session for them. While
   * stopped, every request fails at once with a {@link ZkLockException} saying so, and {@link
   * #sessionState()} is {@link SessionState#CLOSED}. What was under way on the instance ends with
   * the session: a leader election, a lock watch or a cohort lock's holds; make them again after
   * {@link #start()}. For a framework's lifecycle: Spring's context stop and start, a checkpoint
   * and its restore. Does nothing if stopped or closed already.
   */
  void stop();

  /**
   * Opens a new session after {@link #stop()}, waiting for it as {@link Builder#build()} does (up
   * to the connect timeout, {@code connectInBackground} or not): then the instance's lock objects
   * work again. Does nothing if the instance runs.
   *
   * @throws ZkLockException if the instance is closed, or if no session could be opened: it then
   *     stays stopped, and {@code start()} may be called again
   */
  void start();

  /**
   * Releases every lock this instance holds, withdraws every waiting request (they fail with {@link
   * ZkLockException}) and ends the session, for good: see {@link #stop()} for a pause. Idempotent.
   */
  @Override
  void close();

  /** Builds a {@link ZkLocks}. Every setting but the connect string has a sensible default. */
  final class Builder {
    private final ZkLocksFactory factory; // the settings, checked as they are set

    Builder(String connectString) {
      this.factory = new ZkLocksFactory(connectString);
    }

    /**
     * The parent znode of every lock, an absolute ZooKeeper path (default {@code /zklock}). It is
     * created on first use.
     */
    public Builder namespace(String namespace) {
      factory.namespace(namespace);
      return this;
    }

    /**
     * The session timeout asked of the ensemble (default 15 s); the ensemble may clamp it to
     * between 2 and 20 ticks (see {@link ZkLocks#negotiatedSessionTimeout()}). A holder that cannot
     * reach the ensemble for this long loses its locks, and is told a margin before.
     */
    public Builder sessionTimeout(Duration timeout) {
      factory.sessionTimeout(timeout);
      return this;
    }

    /**
     * How long {@link #build()} waits for the first connection (default 10 s); with {@link
     * #connectInBackground()}, how long each request made before it waits for it.
     */
    public Builder connectTimeout(Duration timeout) {
      factory.connectTimeout(timeout);
      return this;
    }

    /** The name shown by {@code zklock ls} for this client's locks (default {@code host:pid}). */
    public Builder clientName(String name) {
      factory.clientName(name);
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
      factory.authorization(scheme, credentials);
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
     * authenticated, {@link NodeAcl#open()} otherwise. Directories that exist already keep their
     * ACL; see {@link #trustExistingAcl()} for how an authenticated client treats them.
     */
    public Builder acl(NodeAcl acl) {
      factory.acl(Objects.requireNonNull(acl, "acl"));
      return this;
    }

    /**
     * Lets a client with an identity queue in directories that already exist with an ACL letting
     * other identities write. By default such a client refuses them.
     *
     * <p>ZooKeeper's right to delete a node is the DELETE permission on its parent: in a directory
     * that other identities may write (for example a namespace or lock directory made earlier by an
     * anonymous client, {@code world:anyone:cdrwa}), anyone of them can delete this client's lock
     * node, whatever the node's own ACL. So, when {@link #authorization} or {@link #digest} is set,
     * zklock creates the directories it needs with its {@link #acl} and, before the first request
     * in a lock directory, reads the ACL of the namespace, of every directory between it and the
     * lock directory, and of the lock directory itself: if one grants CREATE, DELETE, WRITE or
     * ADMIN to an identity that is not this client's (and that {@link #acl} does not grant the same
     * rights), the request fails with a {@link ZkLockException} that names the directory and its
     * ACL. Read access for anyone is fine. Each directory is checked once per {@code ZkLocks}.
     *
     * <p>Call this to skip the check, when sharing a directory with other identities is intended
     * (they are trusted not to delete each other's nodes), or while migrating; better, restrict the
     * existing directories with {@code setAcl} (see docs/ops.md). Clients without an identity never
     * check: everything they create is open anyway.
     */
    public Builder trustExistingAcl() {
      factory.trustExistingAcl();
      return this;
    }

    /** Connects with TLS (the servers' secure client port). */
    public Builder tls(TlsConfig tls) {
      factory.tls(Objects.requireNonNull(tls, "tls"));
      return this;
    }

    /**
     * What held locks do while the connection is suspended; default {@link
     * SuspensionPolicy#WAIT_FOR_EXPIRY}.
     */
    public Builder suspensionPolicy(SuspensionPolicy policy) {
      factory.suspensionPolicy(Objects.requireNonNull(policy, "policy"));
      return this;
    }

    /**
     * A small payload about this client written into every lock node it creates, next to its client
     * name, host and pid (like Curator's {@code setNodeData}): for example a job id or a URL.
     * {@link ZkLocks#inspect} and {@code zklock ls} show it. It is fixed for the life of the
     * instance. Default: none.
     *
     * @param data text of at most 1024 bytes in UTF-8
     * @throws IllegalArgumentException if {@code data} is longer, or null
     */
    public Builder ownerData(String data) {
      factory.ownerData(data);
      return this;
    }

    /**
     * Adds a listener of every step of every lock request of the instance (requested, queued,
     * granted, released, lost, timed out, cancelled, failed), of every blocking wait of its
     * coordination recipes (latch, barriers, conditions: passed rather than granted, never held)
     * and of its session's changes: see {@link LockEvent} for the steps, and {@link
     * LockEventListener} for how a listener is isolated from the locks (one that throws or blocks
     * cannot break or stall them). Listeners are called in the order added. With none (the
     * default), no event is made.
     *
     * @throws NullPointerException if {@code listener} is null
     */
    public Builder eventListener(LockEventListener listener) {
      factory.eventListener(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /**
     * Makes {@link #build()} return at once, before any server has answered, and connect in the
     * background (as a Curator client can be started before its ensemble): for applications that
     * must start while ZooKeeper is still coming up. Requests made before the first connection wait
     * for it; then each one waits at most the {@linkplain #connectTimeout connect timeout}, counted
     * from the request, and fails with a {@link ZkLockException} naming the connect string if no
     * server has answered by then ({@code tryAcquire(timeout)} with a shorter timeout returns empty
     * at its own timeout; {@code tryAcquire()}, which never waits, fails at once, as while
     * disconnected). So do {@link ZkLocks#inspect} and the other reads, which always wait up to the
     * connect timeout. Until the first connection the {@linkplain ZkLocks#sessionState() state} is
     * {@link SessionState#SUSPENDED} and {@link ZkLocks#sessionId()} is 0. Once connected, the
     * instance behaves as one built the usual way.
     *
     * <p>What is lost: {@code build()} no longer fails on a wrong connect string, unknown host, bad
     * TLS setup, failed authentication or missing chroot; requests then time out, and the cause is
     * only in the log. The namespace is created with the first lock directory, not by {@code
     * build()}.
     */
    public Builder connectInBackground() {
      factory.connectInBackground();
      return this;
    }

    /**
     * Whether the requests that this instance's threads issue while others are in flight go out
     * together (default: off, or the system property {@code io.zklock.batching}). Batched, the lock
     * nodes that threads create meanwhile are created in one {@code multi} request, their deletions
     * likewise, and their listings in one read-only {@code multi} (ZooKeeper 3.6+; with a 3.5
     * server listings go one by one): one packet, one proposal and one log entry for many
     * operations, which is what bounds a busy client of many threads taking distinct locks. Nothing
     * waits on a timer: a request issued while few are in flight goes out at once, so a lone
     * thread's latency is what it is unbatched. A batch never ties unrelated locks together: one
     * whose operation fails is sent again without the failed one, and each request hears only its
     * own outcome. Ordering, fairness and fencing are unchanged (docs/guarantees.md).
     *
     * <p>The trade, and why it is off by default: a request issued while the instance already has
     * three packets and a dozen calls in flight (six or more threads at work) waits for the next
     * answer instead of going out at once, which adds up to one server reply's time to its latency
     * and repays it only when the batch saves the server more than that; with fewer calls
     * outstanding every request goes out at once, as unbatched. Where most acquisitions meet a lock
     * for the first time (a new directory each) there is little to batch and the waits remain: with
     * a 1 ms round trip, 32 threads taking fresh names ran at 0.92x of unbatched. A batch one of
     * whose operations fails (a lock directory reaped, a node deleted by hand) costs its other
     * operations another round trip; and {@code build()} asks the server once whether it answers
     * read-only {@code multi} (a server before 3.6 answers by closing that connection, and the
     * client connects again before {@code build()} returns; the session lives on). Turn it on for a
     * client whose many threads take many distinct, already used locks at once (32 threads of one
     * instance: 2.5x the rate of Curator, a third of a request per acquisition).
     */
    public Builder batching(boolean on) {
      factory.batching(on);
      return this;
    }

    /**
     * Connects, waiting up to the connect timeout (unless {@link #connectInBackground()}), and
     * never longer. If no server has answered after 100 ms, it probes each server once by hand,
     * beside ZooKeeper's client, to name the cause (resolving its name, opening a socket, making
     * the TLS handshake). When every server failed in a way that waiting cannot mend (no host of
     * the connect string resolves, every server refused the connection, a TLS key or trust store
     * that cannot be loaded, a TLS mismatch) it fails at once, without waiting out the connect
     * timeout; a server that accepts the connection but does not answer is waited for until the
     * end. A service that starts while its ensemble is still coming up (and refuses connections)
     * should use {@link #connectInBackground()}.
     *
     * @throws ZkLockException naming the connect string and the cause if no session could be
     *     established (unknown host, connection refused, TLS key or trust store unreadable, TLS
     *     handshake failed, a plain client on a TLS port, failed authentication, missing chroot),
     *     with the underlying exception as its cause where there is one
     * @throws IllegalArgumentException if the {@link #acl} names the creator (see {@link
     *     NodeAcl#needsAuthentication()}) but no {@link #authorization} is set; thrown before
     *     connecting
     */
    public ZkLocks build() {
      return factory.build();
    }
  }
}
