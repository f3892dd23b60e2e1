package io.zklock;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One request seen by {@link ZkLocks#inspect(String)}: a node of a lock, holding or waiting, with
 * what its owner wrote into it. A read-only snapshot; it does not change when the lock does.
 *
 * @param name the node's name in its directory, for example {@code m-0f3k9qv2x7ab-0000000017}
 * @param path the node's full znode path
 * @param kind what kind of request the node is, for a read-write lock which side
 * @param clientName the owner's {@link ZkLocks#clientName()}, or empty if the node does not say
 * @param host the owner's host name, or empty if the node does not say
 * @param pid the owner's process id, or 0 if the node does not say
 * @param sessionId the ZooKeeper session that owns the node (its ephemeral owner, as the ensemble
 *     knows it)
 * @param since when the node was created, by the clock of the server that created it (for a holder
 *     this is when it queued, not when it was granted: see {@link #granted()})
 * @param fencingToken the node's creation zxid: a holder's {@link LockHandle#fencingToken()}. A
 *     semaphore request still waiting for admission has no lease yet: this is the token of its
 *     admission node, and its lease will have a greater one. A cohort node ({@link Kind#COHORT},
 *     {@link Kind#COHORT_WRITE}, {@link Kind#COHORT_READ}) is shared by local holders whose tokens
 *     are {@code (czxid << 16) | k}; its data says so with the field {@code "tokens"}
 * @param ownerData the payload the owner attached with {@link ZkLocks.Builder#ownerData(String)},
 *     or empty
 * @param releaseRequested whether someone asked this holder to release, with {@link
 *     ZkLocks#requestRelease(String)}
 * @param data every field of the node's data as written (values as text); empty for a node not
 *     written by zklock, except a Curator client's node in a Curator-compatible queue, whose data
 *     (as text) is under {@code "curator"}, and another library's node ({@link Kind#FOREIGN}),
 *     which names it under {@code "library"}
 * @param state where the request stands: {@link State#HOLDING} for the holders of {@link
 *     LockInfo#holders()}; for a waiter {@link State#ADMITTED} (a semaphore request let in by the
 *     admission queue, waiting for a permit) or {@link State#QUEUED}
 * @param granted for a holder, when it was granted, as far as ZooKeeper's records tell (see {@link
 *     Grant}); empty for a waiter
 */
public record LockNode(
    String name,
    String path,
    Kind kind,
    String clientName,
    String host,
    long pid,
    long sessionId,
    Instant since,
    long fencingToken,
    String ownerData,
    boolean releaseRequested,
    Map<String, String> data,
    State state,
    Optional<Grant> granted) {

  /**
   * Where a request stands. A request is shown once, whichever library made it and however many
   * nodes it has: a semaphore request admitted and waiting for its lease is its lease node, not
   * also its admission node.
   */
  public enum State {
    /** It holds the lock: the leader of an election, a lease of a semaphore that holds. */
    HOLDING,
    /**
     * A semaphore request let in by the semaphore's admission queue, waiting for a permit: its
     * lease waits for a holder to return one (or is about to be created). At most one request of a
     * semaphore is admitted at a time.
     */
    ADMITTED,
    /** It waits in the queue; a semaphore request waits for admission. */
    QUEUED
  }

  /**
   * When a holder was granted, bounded by what ZooKeeper records, by the clock of the servers that
   * stamped the nodes (as {@link LockNode#since()}).
   *
   * <p>ZooKeeper stamps a node's creation with a time, but a deletion with none that a reader can
   * see afterwards; a request queued behind others is granted by the deletion of the last one ahead
   * of it. What it does record, the directory's count of child changes and the number each
   * sequential node got from it, tells whether anything was deleted since a holder's creation, and
   * between which later creations. So: a holder that held from its creation (nothing ahead of it
   * was deleted since) has an exact grant, its creation time. Otherwise the grant came after its
   * creation and no later than the creation of the first node that follows the last change, or,
   * when a change follows every node there is, no later than the read: {@link #latest()} is then
   * empty. A simple lock's holder, whose node is created holding, is always exact.
   *
   * @param earliest the grant came at or after this: the node's creation ({@link LockNode#since()})
   * @param latest the grant came at or before this, or empty when only the time of the read bounds
   *     it; equal to {@code earliest} when the grant time is exact
   */
  public record Grant(Instant earliest, Optional<Instant> latest) {
    /** Checks that no component is null, and that the window is not reversed. */
    public Grant {
      Objects.requireNonNull(earliest, "earliest");
      Objects.requireNonNull(latest, "latest");
      if (latest.isPresent() && latest.get().isBefore(earliest)) {
        throw new IllegalArgumentException("latest " + latest.get() + " before " + earliest);
      }
    }

    /** A grant known exactly: at {@code at}. */
    public static Grant exactly(Instant at) {
      return new Grant(at, Optional.of(at));
    }

    /** Whether the grant time is known exactly: {@link #latest()} is {@link #earliest()}. */
    public boolean exact() {
      return latest.isPresent() && latest.get().equals(earliest);
    }
  }

  /** The kinds of lock node. */
  public enum Kind {
    /** A request of a {@link ZkLocks#mutex mutex}. */
    MUTEX("mutex"),
    /** A request of the read side of a {@link ZkLocks#readWriteLock read-write lock}. */
    READ("read"),
    /** A request of the write side of a {@link ZkLocks#readWriteLock read-write lock}. */
    WRITE("write"),
    /** The one node of a {@link ZkLocks#simpleLock simple lock}. */
    SIMPLE("simple"),
    /** A lease of a {@link ZkLocks#semaphore semaphore}, or a request waiting for one. */
    SEMAPHORE("semaphore"),
    /** A participant of a {@link ZkLocks#leaderElection leader election}. */
    ELECTION("election"),
    /**
     * The node of a cohort {@link ZkLocks#mutex(String, LockOptions) mutex}, shared by requests of
     * one client; its holders' fencing tokens are {@code (czxid << 16) | k}, not the czxid.
     */
    COHORT("cohort"),
    /**
     * The node of the write side of a cohort {@link ZkLocks#readWriteLock(String, LockOptions)
     * read-write lock}; tokens as for {@link #COHORT}.
     */
    COHORT_WRITE("cohort-write"),
    /**
     * The node of the read side of a cohort {@link ZkLocks#readWriteLock(String, LockOptions)
     * read-write lock}, shared by the readers of one client.
     */
    COHORT_READ("cohort-read"),
    /**
     * A node of a Curator-compatible {@link ZkLocks#mutex(String, LockOptions) mutex} ({@link
     * LockOptions#curatorCompatible()}), named as Curator's {@code InterProcessMutex} names its
     * nodes: a zklock client's (its {@link LockNode#clientName() client name} is set) or a Curator
     * client's (its client name is {@code "(curator)"}; {@link LockNode#ownerData()} is Curator's
     * node data as text, by default the client's address, also under {@code "curator"} in {@link
     * LockNode#data()}).
     */
    CURATOR_MUTEX("curator-mutex"),
    /**
     * The read side of a Curator-compatible {@link ZkLocks#readWriteLock(String, LockOptions)
     * read-write lock}, named as Curator's {@code InterProcessReadWriteLock} names its readers.
     */
    CURATOR_READ("curator-read"),
    /** The write side of a Curator-compatible read-write lock, as {@link #CURATOR_READ}. */
    CURATOR_WRITE("curator-write"),
    /**
     * A participant of a Curator-compatible {@link ZkLocks#leaderElection(String, String,
     * LockOptions) election}, named as Curator's {@code LeaderLatch} names its nodes; its data is
     * the participant id alone, shown under {@code "curator"} in {@link LockNode#data()}.
     */
    CURATOR_LATCH("curator-latch"),
    /**
     * A lease of a Curator-compatible {@link ZkLocks#semaphore(String, int, LockOptions)
     * semaphore}, named as Curator's {@code InterProcessSemaphoreV2} names its leases.
     */
    CURATOR_LEASE("curator-lease"),
    /**
     * A node of a kazoo-compatible {@link ZkLocks#mutex(String, LockOptions) mutex} or of the write
     * side of a kazoo-compatible {@link ZkLocks#readWriteLock(String, LockOptions) read-write lock}
     * ({@link LockOptions#kazooCompatible()}), named as Python kazoo's {@code Lock} and {@code
     * WriteLock} name theirs: a zklock client's (its {@link LockNode#clientName() client name} is
     * set) or a kazoo client's ({@code Lock}, {@code WriteLock} or {@code Election}: its client
     * name is {@code "(kazoo)"}, {@link LockNode#ownerData()} the identifier given to kazoo's
     * recipe, also under {@code "kazoo"} in {@link LockNode#data()}).
     */
    KAZOO_LOCK("kazoo-lock"),
    /**
     * The read side of a kazoo-compatible read-write lock, named as kazoo's {@code ReadLock} names
     * its nodes; a kazoo client's shows as for {@link #KAZOO_LOCK}.
     */
    KAZOO_READ("kazoo-read"),
    /**
     * A lease of a kazoo-compatible {@link ZkLocks#semaphore(String, int, LockOptions) semaphore},
     * named as Python kazoo's {@code Semaphore} names its leases (a bare 32-hex-digit id in the
     * semaphore's directory); a kazoo client's shows as for {@link #KAZOO_LOCK}.
     */
    KAZOO_LEASE("kazoo-lease"),
    /**
     * A node of Go's zookeeper client's {@code Lock} ({@code go-zookeeper/zk}), {@code
     * _c_<guid>-lock-<sequence>}: queued beside a Curator-compatible {@link ZkLocks#mutex(String,
     * LockOptions) mutex}'s nodes (and refused beside every other kind). Its {@link
     * LockNode#clientName() client name} is {@code "(go-zookeeper)"}, {@link LockNode#ownerData()}
     * the data given to Go's {@code LockWithData} as text, or the node's guid when that is empty;
     * the guid is also under {@code "go"} in {@link LockNode#data()}. Whether it is shown holding
     * or waiting is what Go's client decides on the directory.
     */
    GO_LOCK("go-lock"),
    /**
     * A lock node of another library (ZooKeeper's WriteLock recipe, an unknown one, ...) in a
     * lock's directory: zklock does not queue beside it, and refuses requests there. Its {@link
     * LockNode#clientName() client name} is the likely library in parentheses, such as {@code
     * "(zookeeper-recipes)"}, also under {@code "library"} in {@link LockNode#data()}; {@link
     * LockNode#ownerData()} is its data as text. Whether it is shown holding or waiting is what its
     * library's own rules likely decide among its own nodes.
     */
    FOREIGN("foreign");

    private final String label;

    Kind(String label) {
      this.label = label;
    }

    /** The word {@code zklock ls} shows for this kind, such as {@code "read"}. */
    public String label() {
      return label;
    }
  }

  /** Checks that no component is null, and copies {@code data}. */
  public LockNode {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(clientName, "clientName");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(since, "since");
    Objects.requireNonNull(ownerData, "ownerData");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(granted, "granted");
    data = Map.copyOf(data);
  }

  /** A node without {@link #granted()} (empty): a waiter, or a holder whose grant is not told. */
  public LockNode(
      String name,
      String path,
      Kind kind,
      String clientName,
      String host,
      long pid,
      long sessionId,
      Instant since,
      long fencingToken,
      String ownerData,
      boolean releaseRequested,
      Map<String, String> data,
      State state) {
    this(
        name,
        path,
        kind,
        clientName,
        host,
        pid,
        sessionId,
        since,
        fencingToken,
        ownerData,
        releaseRequested,
        data,
        state,
        Optional.empty());
  }

  /**
   * For a mutex with a {@link LockOptions#lockDelay lock-delay}: until when this request waits out
   * the delay after a failed holder (by the waiting process's clock), or empty if it never had to.
   * A node at the head of the queue whose time is still ahead is waiting, not holding: no grant is
   * made during a delay. The mark stays on the node after the delay.
   */
  public Optional<Instant> lockDelayUntil() {
    String v = data.get("lockDelayUntil");
    if (v == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.ofEpochMilli(Long.parseLong(v)));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** An election participant's id (from its node's data), or empty for other kinds. */
  public Optional<String> participantId() {
    return Optional.ofNullable(
        kind == Kind.CURATOR_LATCH
            ? data.get("curator")
            : kind == Kind.KAZOO_LOCK && !data.containsKey("participant")
                ? data.get("kazoo")
                : data.get("participant"));
  }
}
