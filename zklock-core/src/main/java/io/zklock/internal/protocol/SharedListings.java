package io.zklock.internal.protocol;

import io.zklock.internal.rules.Listing;
import io.zklock.internal.zk.GuardedOps;
import io.zklock.internal.zk.ZkOps;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException.Code;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listings of a lock directory shared between the requests of one connection: a request that needs
 * a listing joins the next {@code getChildren} sent on its connection, and every request of that
 * round reads one reply, parsed and sorted once ({@link Listing}). Without it, N requests queued at
 * once would each list N children: O(N) per request, O(N²) in all (ten thousand pending {@code
 * acquireAsync()} took over a minute to queue).
 *
 * <p>Adaptive batching, per connection and directory ({@link Rounds}): with no listing in flight, a
 * request's listing is sent at once (an uncontended request pays one round trip, nothing added);
 * while one is in flight, later requests join the next round, sent as soon as the one in flight
 * returns. So at most one listing per directory is in flight on a connection, and a burst of N
 * requests costs a few listings instead of N.
 *
 * <p>Why a round's listing is good for each of its requests: a request joins only after it has sent
 * what the listing must show (its create, or the notification it acts on was received), and a round
 * is sent only after all its requests joined, on the same connection. One session's requests are
 * applied in the order they are sent, so the listing includes the request's node.
 */
public final class SharedListings {
  private static final Logger log = LoggerFactory.getLogger(SharedListings.class);

  /** What a request does with its round's reply. */
  @FunctionalInterface
  interface Reader {
    /**
     * @param rc the reply's code
     * @param listing the directory's children in queue order, when {@code rc} is OK; else null
     */
    void listed(int rc, Listing listing);

    /**
     * Like {@link #listed(int, Listing)}, with the directory's stat as the listing read it (null if
     * it failed): for a reader that needs the directory's {@code cversion} (a lock-delay).
     */
    default void listed(int rc, Listing listing, org.apache.zookeeper.data.Stat stat) {
      listed(rc, listing);
    }

    /**
     * Whether it reads the directory's stat: a round of readers that do not is listed without it
     * ({@link ZkOps#listChildren}), which may go out with other listings in one read-only multi.
     */
    default boolean needsStat() {
      return false;
    }
  }

  /** A reader under its request's guard: a throwable escaping it goes to {@code failed}. */
  private record GuardedReader(Reader reader, Consumer<Throwable> failed) implements Reader {
    @Override
    public void listed(int rc, Listing listing) {
      GuardedOps.run(() -> reader.listed(rc, listing), failed);
    }

    @Override
    public void listed(int rc, Listing listing, org.apache.zookeeper.data.Stat stat) {
      GuardedOps.run(() -> reader.listed(rc, listing, stat), failed);
    }

    @Override
    public boolean needsStat() {
      return reader.needsStat();
    }
  }

  /** A connection and a directory; connections compare by identity. */
  private static final class Key {
    final ZkOps ops;
    final String dir;

    Key(ZkOps ops, String dir) {
      this.ops = ops;
      this.dir = dir;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && k.ops == ops && k.dir.equals(dir);
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(ops) * 31 + dir.hashCode();
    }
  }

  private final ConcurrentHashMap<Key, Rounds<Reader>> rounds = new ConcurrentHashMap<>();

  /** Per directory: children found not to be lock nodes ({@link ForeignReads}). */
  private final ConcurrentHashMap<String, java.util.Set<String>> notLockNodes =
      new ConcurrentHashMap<>();

  /**
   * The children of {@code dir} that this instance found not to be lock nodes although their names
   * end in a sequence (a longer lock name's directory, {@code orders/0000000042} in {@code
   * orders}): read once, not again. Such a child stays what it is for its life. A bounded cache.
   */
  public java.util.Set<String> notLockNodes(String dir) {
    if (notLockNodes.size() >= ForeignReads.CACHE_MAX && !notLockNodes.containsKey(dir)) {
      notLockNodes.clear();
    }
    return notLockNodes.computeIfAbsent(dir, d -> ConcurrentHashMap.newKeySet());
  }

  /**
   * Lists {@code dir} on {@code ops} for {@code reader}, in a listing sent after this call: call it
   * only after sending what the listing must show. {@code reader} runs on ZooKeeper's event thread,
   * under the guard of {@code ops} if it has one ({@link GuardedOps}): the requests of one
   * connection share its listings whatever their guards, and a reader that throws fails its own
   * request only.
   */
  void list(ZkOps ops, String dir, Reader reader) {
    Objects.requireNonNull(reader);
    Consumer<Throwable> failed = GuardedOps.failedOf(ops);
    Reader member = failed == null ? reader : new GuardedReader(reader, failed);
    Key key = new Key(GuardedOps.base(ops), dir);
    List<List<Reader>> send = new ArrayList<>(1);
    rounds.compute(
        key,
        (k, r) -> {
          Rounds<Reader> rs = r == null ? new Rounds<>() : r;
          List<Reader> now = rs.join(member);
          if (now != null) {
            send.add(now);
          }
          return rs;
        });
    if (!send.isEmpty()) {
      send(key, send.get(0));
    }
  }

  /** Whether a listing of {@code dir} is in flight on {@code ops} (for tests). */
  boolean inFlight(ZkOps ops, String dir) {
    return rounds.containsKey(new Key(GuardedOps.base(ops), dir));
  }

  private void send(Key key, List<Reader> round) {
    boolean stat = false;
    for (Reader r : round) {
      stat |= r.needsStat();
    }
    try {
      if (stat) {
        key.ops.getChildren(
            key.dir, null, (rc, p, c, children, st) -> replied(key, round, rc, children, st));
      } else {
        key.ops.listChildren(
            key.dir, (rc, p, c, children) -> replied(key, round, rc, children, null));
      }
    } catch (RuntimeException e) {
      // a listing that cannot be sent must not keep the next rounds waiting for its reply
      log.warn("cannot list {}: {}", key.dir, e.toString());
      replied(key, round, Code.CONNECTIONLOSS.intValue(), null, null);
    }
  }

  private void replied(
      Key key,
      List<Reader> round,
      int rc,
      List<String> children,
      org.apache.zookeeper.data.Stat stat) {
    List<List<Reader>> next = new ArrayList<>(1);
    rounds.computeIfPresent(
        key,
        (k, r) -> {
          List<Reader> n = r.replied();
          if (n == null) {
            return null; // idle: no entry left behind
          }
          next.add(n);
          return r;
        });
    if (!next.isEmpty()) {
      send(key, next.get(0)); // in flight while this round is judged
    }
    Listing listing = Code.get(rc) == Code.OK && children != null ? Listing.of(children) : null;
    for (Reader reader : round) {
      try {
        reader.listed(rc, listing, stat);
      } catch (Throwable e) {
        // a reader without a guard: the others of its round still read the reply
        log.error("a lock request failed on a listing of {}", key.dir, e);
      }
    }
  }

  /**
   * The pure part: the rounds of one connection and directory. At most one round is in flight; a
   * member joins the round in flight never, the next one always. Not thread-safe: {@link
   * SharedListings} calls it inside its map's atomic updates.
   *
   * @param <T> a member of a round
   */
  static final class Rounds<T> {
    private boolean inFlight;
    private List<T> next = new ArrayList<>();

    /**
     * {@code member} needs a listing: returns the round to send now (just {@code member}, when none
     * is in flight), or null when it joined the next round.
     */
    List<T> join(T member) {
      if (!inFlight) {
        inFlight = true;
        List<T> now = new ArrayList<>(1);
        now.add(member);
        return now;
      }
      next.add(member);
      return null;
    }

    /**
     * The round in flight was answered: returns the next round, to send now, or null when nobody
     * waits for one (then nothing is in flight).
     */
    List<T> replied() {
      if (!inFlight) {
        throw new IllegalStateException("no round in flight");
      }
      if (next.isEmpty()) {
        inFlight = false;
        return null;
      }
      List<T> round = next;
      next = new ArrayList<>();
      return round;
    }

    /** Whether a round is in flight. */
    boolean inFlight() {
      return inFlight;
    }

    /** How many wait for the next round. */
    int waiting() {
      return next.size();
    }
  }
}
